package leader

import (
	"io"
	"time"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/trace"
)

// TraceEngine names the leader in its traces.
const TraceEngine = "leader"

type traceWriter = trace.Writer[CoreConfig, store.LeaderSnapshot, Input]

func newTraceWriter(w io.Writer) *traceWriter {
	return trace.NewWriter[CoreConfig, store.LeaderSnapshot, Input](TraceEngine, w)
}

// Replay checks a leader trace: each recorded core built again, the same
// inputs stepped, every Ready compared with the recorded digest.
func Replay(r io.Reader) (trace.Stats, error) {
	return trace.Replay(r, func(cfg CoreConfig, now time.Time, s store.LeaderSnapshot) (trace.Core[Input, Ready], error) {
		return NewCore(cfg, now, s)
	})
}

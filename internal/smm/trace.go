package smm

import (
	"io"
	"time"

	"github.com/ordolabs/ordo/internal/trace"
)

// TraceEngine names the state machine manager in its traces.
const TraceEngine = "smm"

type traceWriter = trace.Writer[CoreConfig, Snapshot, Input]

func newTraceWriter(w io.Writer) *traceWriter {
	return trace.NewWriter[CoreConfig, Snapshot, Input](TraceEngine, w)
}

// Replay checks an smm trace: each recorded core built again, the same
// inputs stepped, every Ready compared with the recorded digest.
func Replay(r io.Reader) (trace.Stats, error) {
	return trace.Replay(r, func(cfg CoreConfig, now time.Time, s Snapshot) (trace.Core[Input, Ready], error) {
		return NewCore(cfg, now, s)
	})
}

package processor

import (
	"io"
	"time"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/trace"
)

// TraceEngine names the processor in its traces (internal/trace).
const TraceEngine = "processor"

// TraceStart is what a processor core is built from, as a trace records it.
type TraceStart struct {
	Head     uint64             `json:"head"`
	Snapshot store.ProcSnapshot `json:"snapshot"`
}

type traceWriter = trace.Writer[CoreConfig, TraceStart, Input]

func newTraceWriter(w io.Writer) *traceWriter {
	return trace.NewWriter[CoreConfig, TraceStart, Input](TraceEngine, w)
}

// Replay reads a processor trace (Config.Trace), builds each recorded core
// again, steps the recorded inputs into it and checks that every Ready
// matches the recorded digest.
func Replay(r io.Reader) (trace.Stats, error) {
	return trace.Replay(r, func(cfg CoreConfig, now time.Time, s TraceStart) (trace.Core[Input, Ready], error) {
		return NewCore(cfg, now, s.Head, s.Snapshot)
	})
}

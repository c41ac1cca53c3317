package sequencer

import (
	"io"
	"time"

	"github.com/ordolabs/ordo/internal/trace"
)

// The sequencer's trace is the kernel's (internal/trace): a start per core
// built (its CoreConfig, time and Snapshot), each Input stepped, the digest
// of each Ready taken, each Advance. A node restarted on the same trace
// file appends a new start; Replay checks a trace.

// traceWriter writes the sequencer's trace; nil records nothing.
type traceWriter = trace.Writer[CoreConfig, Snapshot, Input]

// TraceEngine names the sequencer in its traces.
const TraceEngine = "sequencer"

func newTraceWriter(w io.Writer) *traceWriter {
	return trace.NewWriter[CoreConfig, Snapshot, Input](TraceEngine, w)
}

// ReadyDigest is the hex SHA-256 of a Ready's JSON: two Readys with the same
// digest carry the same writes and effects in the same order.
func ReadyDigest(r Ready) string { return trace.Digest(r) }

// ReplayStats says what a replay went through.
type ReplayStats = trace.Stats

// ErrReplayDiverged is returned by Replay when a Ready differs from the
// recorded one.
var ErrReplayDiverged = trace.ErrDiverged

// Replay reads a sequencer trace, builds each recorded core again, steps the
// recorded inputs into it and checks that every Ready matches the recorded
// digest.
func Replay(r io.Reader) (ReplayStats, error) {
	return trace.Replay(r, func(cfg CoreConfig, now time.Time, snap Snapshot) (trace.Core[Input, Ready], error) {
		return NewCore(cfg, now, snap)
	})
}

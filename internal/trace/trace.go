package trace

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// Record is one line of a trace: exactly one of its fields is set.
type Record[C, S, I any] struct {
	Start   *Start[C, S] `json:"start,omitempty"`
	In      *I           `json:"in,omitempty"`
	Ready   string       `json:"ready,omitempty"`
	Advance bool         `json:"advance,omitempty"`
}

// Start is a core built from Config and Snapshot at Now.
type Start[C, S any] struct {
	// Engine names the engine ("sequencer", "processor"); empty in traces
	// written before engines other than the sequencer had one.
	Engine   string    `json:"engine,omitempty"`
	Config   C         `json:"config"`
	Now      time.Time `json:"now"`
	Snapshot S         `json:"snapshot"`
}

// Writer writes a trace; a nil *Writer records nothing. Its first write
// error sticks and is returned by Flush. It is not safe for concurrent use:
// the engine's loop goroutine writes it.
type Writer[C, S, I any] struct {
	engine string
	w      *bufio.Writer
	enc    *json.Encoder
	err    error
}

// NewWriter returns a Writer of engine's trace to w, nil when w is nil.
func NewWriter[C, S, I any](engine string, w io.Writer) *Writer[C, S, I] {
	if w == nil {
		return nil
	}
	bw := bufio.NewWriter(w)
	return &Writer[C, S, I]{engine: engine, w: bw, enc: json.NewEncoder(bw)}
}

func (t *Writer[C, S, I]) write(r Record[C, S, I]) {
	if t != nil && t.err == nil {
		t.err = t.enc.Encode(r)
	}
}

// Start records a core built from cfg and snap at now.
func (t *Writer[C, S, I]) Start(cfg C, now time.Time, snap S) {
	if t != nil {
		t.write(Record[C, S, I]{Start: &Start[C, S]{Engine: t.engine, Config: cfg, Now: now, Snapshot: snap}})
	}
}

// Input records an input stepped. A nil writer (no trace) costs nothing:
// the input's copy escapes only in input, so a nil check here keeps a
// call without a trace from moving every input to the heap.
func (t *Writer[C, S, I]) Input(in I) {
	if t != nil {
		t.input(in)
	}
}

// input records in.
func (t *Writer[C, S, I]) input(in I) { t.write(Record[C, S, I]{In: &in}) }

// Ready records a Ready taken (its Digest).
func (t *Writer[C, S, I]) Ready(ready any) {
	if t != nil {
		t.write(Record[C, S, I]{Ready: Digest(ready)})
	}
}

// Advance records Advance.
func (t *Writer[C, S, I]) Advance() { t.write(Record[C, S, I]{Advance: true}) }

// Flush writes what is buffered and returns the first error met.
func (t *Writer[C, S, I]) Flush() error {
	if t == nil {
		return nil
	}
	if t.err == nil {
		t.err = t.w.Flush()
	}
	if t.err != nil {
		return fmt.Errorf("%s: trace: %w", t.engine, t.err)
	}
	return nil
}

// Digest is the hex SHA-256 of v's JSON: two Readys with the same digest
// carry the same writes, effects and answers in the same order.
func Digest(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("trace: a Ready does not encode: %v", err))
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// Stats says what a replay went through.
type Stats struct {
	// Starts, Inputs and Readys count the trace's records of each kind.
	Starts, Inputs, Readys int
	// Digest is the SHA-256 over every Ready digest in order: two runs with
	// the same Digest produced the same Readys.
	Digest string
}

// ErrDiverged is returned by Replay when a Ready differs from the recorded
// one.
var ErrDiverged = errors.New("replay diverged from the recorded run")

// Core is what Replay drives: an engine's core.
type Core[I, R any] interface {
	Step(I)
	Ready() R
	Advance()
}

// Replay reads a trace, builds each recorded core again with build, steps
// the recorded inputs into it and checks that every Ready matches the
// recorded digest.
func Replay[C, S, I, R any](r io.Reader, build func(cfg C, now time.Time, snap S) (Core[I, R], error)) (Stats, error) {
	var st Stats
	var core Core[I, R]
	all := sha256.New()
	dec := json.NewDecoder(r)
	for line := 1; ; line++ {
		var rec Record[C, S, I]
		if err := dec.Decode(&rec); err == io.EOF {
			st.Digest = hex.EncodeToString(all.Sum(nil))
			return st, nil
		} else if err != nil {
			return st, fmt.Errorf("trace record %d: %w", line, err)
		}
		switch {
		case rec.Start != nil:
			c, err := build(rec.Start.Config, rec.Start.Now, rec.Start.Snapshot)
			if err != nil {
				return st, fmt.Errorf("trace record %d: %w", line, err)
			}
			core = c
			st.Starts++
		case core == nil:
			return st, fmt.Errorf("trace record %d: no start before it", line)
		case rec.In != nil:
			core.Step(*rec.In)
			st.Inputs++
		case rec.Ready != "":
			got := Digest(core.Ready())
			if got != rec.Ready {
				return st, fmt.Errorf("trace record %d (input %d): %w: Ready %s, recorded %s", line, st.Inputs, ErrDiverged, got, rec.Ready)
			}
			all.Write([]byte(got))
			st.Readys++
		case rec.Advance:
			core.Advance()
		}
	}
}

// Engine reads the engine named by a trace's first record ("" when it
// names none, as the sequencer's first traces did).
func Engine(r io.Reader) (string, error) {
	var rec struct {
		Start *struct {
			Engine string `json:"engine"`
		} `json:"start"`
	}
	if err := json.NewDecoder(r).Decode(&rec); err != nil {
		return "", fmt.Errorf("trace: first record: %w", err)
	}
	if rec.Start == nil {
		return "", errors.New("trace: the first record is not a start")
	}
	return rec.Start.Engine, nil
}

package sequencer

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

// A trace records a core's run so that it can be replayed: one JSON object a
// line, each one of
//
//	{"start":{"config":…,"now":…,"snapshot":…}}   a core built (NewCore)
//	{"in":Input}                                   an input stepped
//	{"ready":"<sha-256 of the Ready's JSON>"}       a Ready taken
//	{"advance":true}                               Advance called
//
// A node restarted on the same trace file appends a new start. Replay builds
// each core again, steps the same inputs and checks every Ready against the
// recorded digest.
type traceRecord struct {
	Start   *traceStart `json:"start,omitempty"`
	In      *Input      `json:"in,omitempty"`
	Ready   string      `json:"ready,omitempty"`
	Advance bool        `json:"advance,omitempty"`
}

type traceStart struct {
	Config   CoreConfig `json:"config"`
	Now      time.Time  `json:"now"`
	Snapshot Snapshot   `json:"snapshot"`
}

// traceWriter writes a trace; a nil *traceWriter records nothing. Its first
// write error sticks and is returned by flush.
type traceWriter struct {
	w   *bufio.Writer
	enc *json.Encoder
	err error
}

func newTraceWriter(w io.Writer) *traceWriter {
	if w == nil {
		return nil
	}
	bw := bufio.NewWriter(w)
	return &traceWriter{w: bw, enc: json.NewEncoder(bw)}
}

func (t *traceWriter) write(r traceRecord) {
	if t != nil && t.err == nil {
		t.err = t.enc.Encode(r)
	}
}

func (t *traceWriter) start(cfg CoreConfig, now time.Time, snap Snapshot) {
	t.write(traceRecord{Start: &traceStart{Config: cfg, Now: now, Snapshot: snap}})
}

func (t *traceWriter) input(in Input) {
	if t != nil {
		t.write(traceRecord{In: &in})
	}
}

func (t *traceWriter) ready(r Ready) {
	if t != nil {
		t.write(traceRecord{Ready: ReadyDigest(r)})
	}
}

func (t *traceWriter) advance() { t.write(traceRecord{Advance: true}) }

func (t *traceWriter) flush() error {
	if t == nil {
		return nil
	}
	if t.err == nil {
		t.err = t.w.Flush()
	}
	if t.err != nil {
		return fmt.Errorf("sequencer: trace: %w", t.err)
	}
	return nil
}

// ReadyDigest is the hex SHA-256 of a Ready's JSON: two Readys with the same
// digest carry the same writes and effects in the same order.
func ReadyDigest(r Ready) string {
	b, err := json.Marshal(r)
	if err != nil {
		panic(fmt.Sprintf("sequencer: a Ready does not encode: %v", err))
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// ReplayStats says what a replay went through.
type ReplayStats struct {
	// Starts, Inputs and Readys count the trace's records of each kind.
	Starts, Inputs, Readys int
	// Digest is the SHA-256 over every Ready digest in order: two runs with
	// the same Digest produced the same Readys.
	Digest string
}

// ErrReplayDiverged is returned by Replay when a Ready differs from the
// recorded one.
var ErrReplayDiverged = errors.New("replay diverged from the recorded run")

// Replay reads a trace, builds each recorded core again, steps the recorded
// inputs into it and checks that every Ready matches the recorded digest.
func Replay(r io.Reader) (ReplayStats, error) {
	var st ReplayStats
	var core *Core
	all := sha256.New()
	dec := json.NewDecoder(r)
	for line := 1; ; line++ {
		var rec traceRecord
		if err := dec.Decode(&rec); err == io.EOF {
			st.Digest = hex.EncodeToString(all.Sum(nil))
			return st, nil
		} else if err != nil {
			return st, fmt.Errorf("trace record %d: %w", line, err)
		}
		switch {
		case rec.Start != nil:
			c, err := NewCore(rec.Start.Config, rec.Start.Now, rec.Start.Snapshot)
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
			got := ReadyDigest(core.Ready())
			if got != rec.Ready {
				return st, fmt.Errorf("trace record %d (input %d): %w: Ready %s, recorded %s", line, st.Inputs, ErrReplayDiverged, got, rec.Ready)
			}
			all.Write([]byte(got))
			st.Readys++
		case rec.Advance:
			core.Advance()
		}
	}
}

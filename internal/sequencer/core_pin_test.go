package sequencer

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/ordolabs/ordo/internal/store"
)

// Pins (CoreConfig.Pins): a pinned queue is bound only to its sender, a
// reserved sender only to the queues pinned to it. The scenarios
// 33_pin_waits_for_its_sender … 37_restart_pins_retry show the behaviour;
// these tests check the configuration's errors and run the randomized test
// with pins that change across restarts.

func TestNewCorePins(t *testing.T) {
	snap := Snapshot{Senders: []store.Sender{acct("s1", 0), acct("s2", 0)}}
	for _, tc := range []struct {
		name    string
		pins    map[string]string
		wantErr error // nil: accepted
		anyErr  bool
	}{
		{name: "none"},
		{name: "known senders", pins: map[string]string{"q1": "s1", "q2": "s1", "q3": "s2"}},
		{name: "unknown sender", pins: map[string]string{"q1": "s1", "q2": "s9"}, wantErr: ErrPinUnknownSender},
		{name: "empty sender", pins: map[string]string{"q1": ""}, wantErr: ErrPinUnknownSender},
		{name: "empty queue", pins: map[string]string{"": "s1"}, anyErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.Pins = tc.pins
			c, err := NewCore(cfg, t0, snap)
			switch {
			case tc.wantErr != nil && !errors.Is(err, tc.wantErr):
				t.Fatalf("NewCore: %v, want %v", err, tc.wantErr)
			case tc.anyErr && err == nil:
				t.Fatal("NewCore accepted the pins")
			case tc.wantErr == nil && !tc.anyErr && err != nil:
				t.Fatalf("NewCore: %v", err)
			case err == nil:
				if err := c.CheckInvariants(); err != nil {
					t.Fatal(err)
				}
				if b := c.BusySenders(); b != 0 {
					t.Fatalf("%d busy senders at start", b)
				}
			}
		})
	}
}

// The core keeps its own copy of the pins: a caller changing its map
// changes nothing.
func TestCorePinsCopied(t *testing.T) {
	cfg := testConfig()
	pins := map[string]string{"q1": "s1"}
	cfg.Pins = pins
	h := newHarness(t, cfg, acct("s1", 0), acct("s2", 0))
	pins["q2"] = "s1"
	h.enqueue("q2", typA, 1)
	if q := h.queue("q2"); q.Sender != "s2" {
		t.Fatalf("q2 bound to %q, want s2", q.Sender)
	}
	if b := h.c.BusySenders(); b != 1 {
		t.Fatalf("%d busy senders, want 1", b)
	}
	h.enqueue("q1", typA, 1)
	if q := h.queue("q1"); q.Sender != "s1" {
		t.Fatalf("q1 bound to %q, want s1", q.Sender)
	}
	if b := h.c.BusySenders(); b != 2 {
		t.Fatalf("%d busy senders, want 2", b)
	}
}

// pinAllows reports whether pins let queue be bound to sender.
func pinAllows(pins map[string]string, queue, sender string) bool {
	if p, ok := pins[queue]; ok {
		return p == sender
	}
	for _, p := range pins {
		if p == sender {
			return false
		}
	}
	return true
}

// repin draws new pins for the next core: some senders (never all) are
// reserved, and some queues pinned to one of them. The bindings in the store
// that break the new pins are the only ones allowed to, until their
// transactions end.
func (r *randRun) repin() {
	ids := slices.Sorted(maps.Keys(r.h.senders))
	perm := r.rng.Perm(len(ids))
	k := 1 + r.rng.Intn(len(ids)-1) // senders ids[perm[:k]] may be reserved
	pins := map[string]string{}
	for i := range r.nQueues {
		if r.rng.Intn(2) == 0 {
			pins[fmt.Sprintf("q%d", i)] = ids[perm[r.rng.Intn(k)]]
		}
	}
	r.h.cfg.Pins = pins
	r.offPin = map[string]string{}
	for name, q := range r.h.queues {
		if q.Sender != "" && !pinAllows(pins, name, q.Sender) {
			r.offPin[name] = q.TxUID
			r.stats["bindings kept against new pins"]++
		}
	}
	r.stats["pin changes"]++
}

// checkPins checks the store against the pins: every binding obeys them,
// but one a restart found against them, while its transaction lasts.
func (r *randRun) checkPins() {
	if !r.pinned {
		return
	}
	for name, q := range r.h.queues {
		if q.Sender == "" || pinAllows(r.h.cfg.Pins, name, q.Sender) {
			continue
		}
		if uid, ok := r.offPin[name]; !ok || uid != q.TxUID {
			r.t.Fatalf("queue %s (pins %v) bound to sender %s for %s, against its pin", name, r.h.cfg.Pins, q.Sender, q.TxUID)
		}
	}
	for _, e := range r.h.out {
		if e.Kind == EffectDispatch && r.h.tx(e.UID).State != store.Done && r.h.tx(e.UID).State != store.Failed {
			if pinAllows(r.h.cfg.Pins, e.Queue, e.Sender.AccountID) {
				r.stats["dispatches checked against pins"]++
			} else if r.offPin[e.Queue] != e.UID {
				r.t.Fatalf("dispatch of %s on queue %s by sender %s, against the pins %v", e.UID, e.Queue, e.Sender.AccountID, r.h.cfg.Pins)
			}
		}
	}
}

// TestCoreRandomizedPinned is TestCoreRandomized with pins, drawn from the
// seed and drawn again at some restarts (the pins changed between runs).
// ORDO_SEED replays a run; ORDO_SEEDS sets how many seeds to run.
func TestCoreRandomizedPinned(t *testing.T) { randomSeeds(t, true) }

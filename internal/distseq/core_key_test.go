package distseq_test

import (
	"errors"
	"testing"

	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/distseq"
	"github.com/ordolabs/ordo/internal/distseq/token"
	"github.com/ordolabs/ordo/internal/store"
)

// TestKeyOfAnotherIntent: a submit whose idempotency key names an intent in
// flight is answered that intent's id only when it is the same intent; a
// send answered with a prepared intent's id waited for ever for a caller
// who never sent it (sim distseq seed 10 at 3,000 steps: A-tx157, prepared
// at a submit its node crashed in, then acknowledged to a send with the
// same key, Dispatched 2 minutes after the faults stopped).
func TestKeyOfAnotherIntent(t *testing.T) {
	t.Parallel()
	_, keys, members := committee()
	c, err := distseq.New(distseq.CoreConfig{Self: "A", Key: keys["A"], Domain: token.Domain{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Step(distseq.InputStart{Now: clock.Epoch, Incarnation: "f", Height: 5,
		Groups: []store.DistseqGroup{{Contract: "g0", Members: members}, {Contract: "g1", Members: members}}}); err != nil {
		t.Fatal(err)
	}
	five, six := []byte(`{"from":"x@A","to":"x","amount":5}`), []byte(`{"from":"x@A","to":"x","amount":6}`)
	submit := func(ref uint64, id, contract string, intent []byte, prepare bool) distseq.Reply {
		t.Helper()
		r, err := c.Step(distseq.InputSubmit{Ref: ref, TxID: id, Contract: contract, Key: "k", Intent: intent, Prepare: prepare})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Replies) != 1 {
			t.Fatalf("submit %d: replies %+v", ref, r.Replies)
		}
		return r.Replies[0]
	}
	if rp := submit(1, "A-1", "g0", five, true); rp.Err != nil || rp.TxID != "A-1" {
		t.Fatalf("first submit: %+v", rp)
	}
	for _, tc := range []struct {
		name     string
		contract string
		intent   []byte
		prepare  bool
		conflict bool
	}{
		{"the same prepare again", "g0", five, true, false},
		{"a send", "g0", five, false, true},
		{"another amount", "g0", six, true, true},
		{"another contract", "g1", five, true, true},
	} {
		rp := submit(2, "A-2", tc.contract, tc.intent, tc.prepare)
		switch {
		case tc.conflict && !errors.Is(rp.Err, distseq.ErrKeyConflict):
			t.Errorf("%s: %+v, want ErrKeyConflict", tc.name, rp)
		case !tc.conflict && (rp.Err != nil || rp.TxID != "A-1"):
			t.Errorf("%s: %+v, want A-1", tc.name, rp)
		}
		// the drivers' check of a key the store knows (a final intent
		// the core forgot) answers alike
		rec := store.DistseqIntent{TxID: "A-1", Contract: "g0", IdempotencyKey: "k", Payload: five, Prepare: true, Status: store.DistseqConfirmed}
		err := distseq.CheckKey(rec, distseq.InputSubmit{Contract: tc.contract, Key: "k", Intent: tc.intent, Prepare: tc.prepare})
		if tc.conflict != errors.Is(err, distseq.ErrKeyConflict) || (!tc.conflict && err != nil) {
			t.Errorf("%s: CheckKey %v, conflict %v", tc.name, err, tc.conflict)
		}
	}
}

package sequencer_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ordolabs/ordo/internal/distseq"
	"github.com/ordolabs/ordo/internal/leader"
	"github.com/ordolabs/ordo/internal/processor"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/smm"
)

// TestCheckReserved: a queue or key in an engine's namespace is refused,
// naming the field and the prefix; names that only resemble one are not.
func TestCheckReserved(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		it   sequencer.Intake
		want string // "" accepted, else a part of the message
	}{
		{"plain", sequencer.Intake{Queue: "payments", IdempotencyKey: "order-1"}, ""},
		{"leaderboard", sequencer.Intake{Queue: "leaderboard", IdempotencyKey: "processors"}, ""},
		{"upper case", sequencer.Intake{Queue: "Leader/0"}, ""},
		{"inner prefix", sequencer.Intake{Queue: "a/leader/0"}, ""},
		{"leader queue", sequencer.Intake{Queue: "leader/0"}, `queue starts with "leader/"`},
		{"processor queue", sequencer.Intake{Queue: "processor/p"}, `queue starts with "processor/"`},
		{"distseq queue", sequencer.Intake{Queue: "distseq/c"}, `"distseq/"`},
		{"nodes queue", sequencer.Intake{Queue: "nodes/n1"}, `"nodes/"`},
		{"smm queue", sequencer.Intake{Queue: "smm/replicasets"}, `"smm/"`},
		{"leader key", sequencer.Intake{Queue: "q", IdempotencyKey: "leader/w/1"}, `idempotencyKey starts with "leader/"`},
		{"replica-set key", sequencer.Intake{Queue: "q", IdempotencyKey: "replicasets/q/1/ab"}, `"replicasets/"`},
	} {
		err := sequencer.CheckReserved(tc.it)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: refused: %v", tc.name, err)
		case tc.want != "" && (!errors.Is(err, sequencer.ErrReserved) || !strings.Contains(errText(err), tc.want)):
			t.Errorf("%s: %v, want ErrReserved with %q", tc.name, err, tc.want)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestEngineNamespacesReserved: every engine's queue and key, as the
// engine builds them, is in a reserved namespace, and no configured
// principal can be an engine's.
func TestEngineNamespacesReserved(t *testing.T) {
	t.Parallel()
	for _, q := range []string{leader.QueuePrefix + "0", processor.QueuePrefix + "p1", processor.QueuePrefix + "p1/3",
		distseq.SeqQueuePrefix + "c1", smm.SetsQueue, "nodes/n1"} {
		if err := sequencer.CheckReserved(sequencer.Intake{Queue: q}); !errors.Is(err, sequencer.ErrReserved) {
			t.Errorf("the engines' queue %s is not reserved: %v", q, err)
		}
	}
	for _, p := range []string{sequencer.PrincipalProcessor, sequencer.PrincipalLeader, sequencer.PrincipalDistseq, sequencer.PrincipalSMM} {
		if !sequencer.IsEnginePrincipal(p) || !strings.Contains(p, ":") {
			t.Errorf("%s: not an engine's principal, or one a configured name could be", p)
		}
	}
}

// TestSubmitScopesKeysAndReservesNames: through Node.Submit, a key is its
// principal's (another principal's record is never answered, nor named in
// a conflict), the engines' principals may use their namespaces and no
// other may, and a number the chain cannot carry is refused.
func TestSubmitScopesKeysAndReservesNames(t *testing.T) {
	r := newRig(t, rigOptions{})
	ctx := context.Background()
	submit := func(it sequencer.Intake) (sequencer.Intake, error) {
		it.Type = typ
		if it.Data == nil {
			it.Data = []byte(`{"zkapp":"z1"}`)
		}
		_, err := r.seq.Submit(ctx, []sequencer.Intake{it})
		return it, err
	}
	res, err := r.seq.Submit(ctx, []sequencer.Intake{
		{Queue: "alice-q", Type: typ, Data: []byte(`{"zkapp":"z1"}`), IdempotencyKey: "k", Principal: "alice"},
		{Queue: "bob-q", Type: typ, Data: []byte(`{"zkapp":"z2"}`), IdempotencyKey: "k", Principal: "bob"},
	})
	if err != nil || !res[0].Created || !res[1].Created || res[1].Transaction.Queue != "bob-q" {
		t.Fatalf("one key, two principals: %+v, %v; want two records", res, err)
	}
	hers := res[0].Transaction
	// Bob again with another intent: the conflict names his record only.
	_, err = submit(sequencer.Intake{Queue: "other", IdempotencyKey: "k", Principal: "bob"})
	if !errors.Is(err, sequencer.ErrIdempotencyConflict) || strings.Contains(err.Error(), hers.UID) || strings.Contains(err.Error(), "alice-q") {
		t.Fatalf("bob's conflict: %v; want one naming his record, not %s on alice-q", err, hers.UID)
	}
	for _, tc := range []struct {
		name string
		it   sequencer.Intake
		want error
	}{
		{"alice on a leader channel", sequencer.Intake{Queue: "leader/0", Principal: "alice"}, sequencer.ErrReserved},
		{"no principal on a leader channel", sequencer.Intake{Queue: "leader/0"}, sequencer.ErrReserved},
		{"alice with the leader's key", sequencer.Intake{Queue: "q", IdempotencyKey: "leader/w/1", Principal: "alice"}, sequencer.ErrReserved},
		{"the leader on its channel", sequencer.Intake{Queue: "leader/0", IdempotencyKey: "leader/w/1", Principal: sequencer.PrincipalLeader}, nil},
		{"the processor on its lane", sequencer.Intake{Queue: "processor/p", Principal: sequencer.PrincipalProcessor}, nil},
		{"a number past a float64", sequencer.Intake{Queue: "q", Data: []byte(`{"zkapp":"z","n":1e999999}`), Principal: "alice"}, sequencer.ErrInvalid},
	} {
		if _, err := submit(tc.it); !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
}

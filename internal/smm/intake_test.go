package smm

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/smm/smmpb"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/transport"
)

// intake is one intent of queue.
func intake(queue, key string) []sequencer.Intake {
	return []sequencer.Intake{{Queue: queue, Type: "noop", Data: json.RawMessage(`{"k":"` + key + `"}`), IdempotencyKey: key}}
}

// TestIntakeForward: Submit at a node that is not the queue's primary (a
// secondary, or a node outside the set) forwards the intent to the
// primary with the caller's principal; the primary commits it (logged),
// queues a manual sync of its secondary, and the caller gets its record.
// A principal the primary's rules refuse gets ErrForbidden and nothing is
// committed.
func TestIntakeForward(t *testing.T) {
	h := newHarness(t, harnessOpts{nodes: 3})
	a, b, c := h.nodes[0], h.nodes[1], h.nodes[2]
	h.putSet("q", a, b)
	a.allow.deny = map[string]bool{"mallory": true}
	cases := []struct {
		name      string
		at        *testNode
		principal string
		wantErr   error
	}{
		{"at the secondary", b, "alice", nil},
		{"outside the set", c, "bob", nil},
		{"refused principal", c, "mallory", ErrForbidden},
	}
	for i, tc := range cases {
		before := h.head(a, "q")
		res, err := tc.at.Submit(h.ctx, tc.principal, intake("q", tc.name))
		if tc.wantErr != nil {
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("%s: %v, want %v", tc.name, err, tc.wantErr)
			}
			if hd := h.head(a, "q"); hd != before {
				t.Fatalf("%s: the primary's log moved %d → %d", tc.name, before.Clock, hd.Clock)
			}
			recs, _ := a.st.List(h.ctx, store.Filter{Queue: "q"})
			if len(recs) != i {
				t.Fatalf("%s: %d records at the primary, want %d", tc.name, len(recs), i)
			}
			continue
		}
		if err != nil || len(res) != 1 || !res[0].Created {
			t.Fatalf("%s: %+v %v", tc.name, res, err)
		}
		rec, err := a.st.Get(h.ctx, res[0].Transaction.UID)
		if err != nil || rec.IdempotencyKey != tc.name || rec.State != store.Waiting {
			t.Fatalf("%s: record at the primary %+v %v", tc.name, rec, err)
		}
		if _, err := tc.at.st.Get(h.ctx, rec.UID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("%s: the forwarding node holds the record: %v", tc.name, err)
		}
		if hd := h.head(a, "q"); hd.Clock != before.Clock+1 {
			t.Fatalf("%s: primary's head %d, want %d", tc.name, hd.Clock, before.Clock+1)
		}
	}
	if got, want := a.allow.principals(), []string{"alice/noop", "bob/noop", "mallory/noop"}; !slices.Equal(got, want) {
		t.Fatalf("principals the primary checked %v, want %v", got, want)
	}
	if syncs := jobArgs[syncArgs](h, a, KindManualSync); len(syncs) != 1 || syncs[0] != (syncArgs{Queue: "q", Secondary: b.id}) {
		t.Fatalf("manual syncs %+v, want one of b (unique while live)", syncs)
	}
	// A retry with the same idempotency key finds the record.
	res, err := c.Submit(h.ctx, "bob", intake("q", "outside the set"))
	if err != nil || res[0].Created {
		t.Fatalf("retry: %+v %v", res, err)
	}
}

// TestIntakeNewQueue: Submit of a queue with no set makes one on chain,
// this node its primary with the least loaded nodes as secondaries, and
// commits the intent here, logged.
func TestIntakeNewQueue(t *testing.T) {
	h := newHarness(t, harnessOpts{nodes: 4})
	a, b, c, d := h.nodes[0], h.nodes[1], h.nodes[2], h.nodes[3]
	h.putSet("busy", a, b, d) // d holds a, b: c (none) first, then a (ties to the lowest id)
	res, err := d.Submit(h.ctx, "alice", intake("fresh", "k1"))
	if err != nil || len(res) != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	got := h.chainSet("fresh")
	if got.Version != 1 || got.Primary != d.id || !slices.Equal(got.Secondaries, []string{c.id, a.id}) {
		t.Fatalf("new set v%d %s %v, want v1 d [c a] (least loaded first)", got.Version, short([]string{got.Primary}), short(got.Secondaries))
	}
	if rec, err := d.st.Get(h.ctx, res[0].Transaction.UID); err != nil || rec.Queue != "fresh" {
		t.Fatalf("record at the new primary %+v %v", rec, err)
	}
	if hd := h.head(d, "fresh"); hd.Clock != 1 {
		t.Fatalf("new primary's head %d, want 1", hd.Clock)
	}
}

// TestIntakeAckAfter: with AckAfter 1, Submit at the primary answers once
// its secondary holds the entry (here: once the queued manual sync is run
// by hand); with the only secondary down it fails ErrNotReplicated after
// AckTimeout of virtual time, the record committed on the primary.
func TestIntakeAckAfter(t *testing.T) {
	h := newHarness(t, harnessOpts{nodes: 2, config: func(c *Config) { c.AckAfter = 1 }})
	a, b := h.nodes[0], h.nodes[1]
	h.putSet("q", a, b)
	cfg := testConfig()

	done := make(chan struct{})
	var err error
	go func() {
		defer close(done)
		_, err = a.Submit(h.ctx, "alice", intake("q", "acked"))
	}()
	waitFor(t, "the manual sync queued", func() bool { return len(h.jobs(a, KindManualSync)) == 1 })
	select {
	case <-done:
		t.Fatalf("acknowledged before the secondary held it: %v", err)
	default:
	}
	if err := a.manualSync(h.ctx, syncArgs{Queue: "q", Secondary: b.id}); err != nil {
		t.Fatal(err)
	}
	<-done
	if err != nil {
		t.Fatalf("acknowledged intent: %v", err)
	}
	h.sameLog(a, b, "q")

	h.net.setDown(b.id, true)
	start := h.clk.Now()
	done = make(chan struct{})
	go func() {
		defer close(done)
		_, err = a.Submit(h.ctx, "alice", intake("q", "lost"))
	}()
	h.advanceUntil(done, cfg.AckTimeout/4)
	if !errors.Is(err, ErrNotReplicated) {
		t.Fatalf("secondary down: %v, want ErrNotReplicated", err)
	}
	if el := h.clk.Now().Sub(start); el < cfg.AckTimeout {
		t.Fatalf("gave up after %v of virtual time, before AckTimeout %v", el, cfg.AckTimeout)
	}
	recs, lerr := a.st.List(h.ctx, store.Filter{Queue: "q"})
	if lerr != nil || len(recs) != 2 || recs[1].IdempotencyKey != "lost" || recs[1].State != store.Waiting {
		t.Fatalf("records at the primary %+v %v, want the unacknowledged one committed", recs, lerr)
	}
	if hd := h.head(a, "q"); hd.Clock != 2 {
		t.Fatalf("primary's head %d, want 2", hd.Clock)
	}
}

// TestIntakeRefusesBadNamesFirst: a queue name or key the sequencer's
// intake refuses is refused with sequencer.ErrInvalid (the API's 422)
// before anything replicated: at a node with no set for it (no set made on
// chain, no job queued), at a node forwarding to a primary, and at the
// primary of a forward.
func TestIntakeRefusesBadNamesFirst(t *testing.T) {
	h := newHarness(t, harnessOpts{nodes: 2})
	a, b := h.nodes[0], h.nodes[1]
	h.putSet("q", a, b)
	long := strings.Repeat("x", sequencer.MaxQueueName+1)
	for _, tc := range []struct {
		name, queue, key string
	}{
		{"129 bytes", long, ""},
		{"zero-width space", "claim\u200b1", ""},
		{"byte-order mark", "\ufeffq", ""},
		{"only whitespace", "   ", ""},
		{"empty", "", ""},
		{"bidi override", "q\u202e", ""},
		{"control", "q\x00", ""},
		{"key with a zero-width joiner", "q", "k\u200d"},
		{"key of 257 bytes", "q", strings.Repeat("k", sequencer.MaxIdempotencyKey+1)},
	} {
		jobs := len(h.jobs(b, KindManualSync)) + len(h.jobs(a, KindManualSync))
		for _, at := range []*testNode{a, b} { // a is q's primary, b forwards to it
			it := []sequencer.Intake{{Queue: tc.queue, Type: "noop", Data: json.RawMessage(`{}`), IdempotencyKey: tc.key}}
			_, err := at.Submit(h.ctx, "alice", it)
			if !errors.Is(err, sequencer.ErrInvalid) {
				t.Errorf("%s at %s: %v, want sequencer.ErrInvalid", tc.name, short([]string{at.id}), err)
			}
			if err != nil && (strings.Contains(err.Error(), "push/") || strings.Contains(err.Error(), "replica")) {
				t.Errorf("%s: the error names replication's internals: %v", tc.name, err)
			}
		}
		if tc.queue != "q" {
			if _, ok, _ := a.chainSet(h.ctx, tc.queue); ok { // the chain may refuse to read such a name
				t.Errorf("%s: a replica set on chain", tc.name)
			}
		}
		if n := len(h.jobs(b, KindManualSync)) + len(h.jobs(a, KindManualSync)); n != jobs {
			t.Errorf("%s: %d syncs queued, want %d", tc.name, n, jobs)
		}
		resp := a.serveForward(h.ctx, transport.NodeID(b.id), &smmpb.ForwardRequest{Principal: "alice", Queue: tc.queue, Type: "noop", Data: []byte(`{}`), IdempotencyKey: tc.key})
		if resp.GetCode() != CodeInvalid {
			t.Errorf("%s: a forward answered %v, want %s", tc.name, resp, CodeInvalid)
		}
	}
	if recs, _ := a.st.List(h.ctx, store.Filter{}); len(recs) != 0 {
		t.Fatalf("%d records", len(recs))
	}
}

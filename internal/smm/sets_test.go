package smm

import "testing"

// TestSetsPage: GET /v1/smm/sets's read lists only the sets naming this
// node, in queue order, a page at a time; a secondary's lag is the
// entries it is behind the primary as this node sees it.
func TestSetsPage(t *testing.T) {
	h := newHarness(t, harnessOpts{nodes: 3})
	a, b, c := h.nodes[0], h.nodes[1], h.nodes[2]
	h.putSet("q1", a, b, c)
	h.putSet("q2", a, b)
	h.putSet("q3", b, c) // not a's
	h.intents(a, "q1", 3)
	h.copyLog(a, b, "q1", 1)

	p1, err := a.Sets(h.ctx, "", 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(p1.Sets) != 1 || p1.Sets[0].Queue != "q1" || p1.Next != "q1" {
		t.Fatalf("first page: %+v", p1)
	}
	// a has not monitored its secondaries: their heads are unknown (0).
	for i, want := range []struct {
		role  string
		clock uint64
		lag   uint64
	}{{"primary", 3, 0}, {"secondary", 0, 3}, {"secondary", 0, 3}} {
		m := p1.Sets[0].Members[i]
		if m.Role != want.role || m.Clock != want.clock || m.Lag != want.lag {
			t.Errorf("q1 member %d at a: %+v, want %+v", i, m, want)
		}
	}
	p2, err := a.Sets(h.ctx, p1.Next, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(p2.Sets) != 1 || p2.Sets[0].Queue != "q2" || p2.Next != "" {
		t.Fatalf("second page: %+v", p2)
	}
	// At b, its own head is read now: 1 entry of q1.
	pb, err := b.Sets(h.ctx, "", 10)
	if err != nil {
		t.Fatal(err)
	}
	var queues []string
	for _, s := range pb.Sets {
		queues = append(queues, s.Queue)
	}
	if len(queues) != 3 || queues[0] != "q1" || queues[2] != "q3" || pb.Next != "" {
		t.Fatalf("b's sets: %v next %q", queues, pb.Next)
	}
	if m := pb.Sets[0].Members[1]; m.Clock != 1 || pb.Sets[0].Self != "secondary" {
		t.Errorf("b's own head of q1: %+v (self %s)", m, pb.Sets[0].Self)
	}
}

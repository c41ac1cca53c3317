package distseq_test

import (
	"maps"
	"testing"

	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/distseq"
	"github.com/ordolabs/ordo/internal/distseq/token"
	"github.com/ordolabs/ordo/internal/store"
)

// TestStateCounts: GET /v1/distseq/intents's read counts, per contract,
// the sender's in-flight intents by their sender state and the
// delegations this node coordinates by their coordinator state; a
// contract with nothing in flight is not listed.
func TestStateCounts(t *testing.T) {
	t.Parallel()
	ids, keys, members := committee()
	pref, err := distseq.Preference(ids, "g0", 5, distseq.DefaultRangeSize, nil)
	if err != nil {
		t.Fatal(err)
	}
	self := pref[0] // g0's coordinator: its own intent is delegated to itself
	c, err := distseq.New(distseq.CoreConfig{Self: self, Key: keys[self], Domain: token.Domain{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Step(distseq.InputStart{Now: clock.Epoch, Incarnation: "f", Height: 5,
		Groups: []store.DistseqGroup{{Contract: "g0", Members: members}, {Contract: "g1", Members: members}}}); err != nil {
		t.Fatal(err)
	}
	if got := c.StateCounts(); len(got) != 0 {
		t.Fatalf("nothing in flight: %+v", got)
	}
	for i, id := range []string{"t1", "t2"} {
		intent := []byte(`{"from":"x@` + string(self) + `","to":"y","amount":` + string(rune('1'+i)) + `}`)
		if _, err := c.Step(distseq.InputSubmit{Ref: uint64(i + 1), TxID: id, Contract: "g0", Intent: intent}); err != nil {
			t.Fatal(err)
		}
	}
	got := c.StateCounts()
	if len(got) != 1 || got[0].Contract != "g0" {
		t.Fatalf("counts: %+v, want g0's only", got)
	}
	want := map[distseq.State]int{}
	for _, id := range []string{"t1", "t2"} {
		tx, ok := c.Tx(id)
		if !ok {
			t.Fatalf("%s not in flight", id)
		}
		want[tx.State]++
	}
	if !maps.Equal(got[0].Sender, want) {
		t.Errorf("sender counts %v, want %v", got[0].Sender, want)
	}
	wantCoord := map[distseq.State]int{}
	for _, s := range c.Coordinated("g0") {
		wantCoord[s]++
	}
	if sum(wantCoord) == 0 || !maps.Equal(got[0].Coordinator, wantCoord) {
		t.Errorf("coordinator counts %v, want %v (non-empty: self coordinates g0)", got[0].Coordinator, wantCoord)
	}
}

func sum(m map[distseq.State]int) (n int) {
	for _, k := range m {
		n += k
	}
	return n
}

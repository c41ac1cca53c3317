package token_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/ordolabs/ordo/internal/distseq"
	"github.com/ordolabs/ordo/internal/distseq/token"
)

// TestAssembleSpendsFromsCoins: assembly spends only from's coins, at
// from's node, and gives the change back to from; another owner's coins do
// not count, however many.
func TestAssembleSpendsFromsCoins(t *testing.T) {
	t.Parallel()
	avail := append(token.Mint("b", "bob@A", 1000, 1000), token.Mint("a", "alice@A", 30, 40)...)
	for _, tt := range []struct {
		name, intent string
		sender       distseq.NodeID
		spends       string
		err          error
		reason       string
	}{
		{"alice's coins only", `{"from":"alice@A","to":"carol@B","amount":50}`, "A", "a0,a1", nil, ""},
		{"more than alice holds", `{"from":"alice@A","to":"carol@B","amount":71}`, "A", "", distseq.ErrNotReady, token.ReasonInsufficient},
		{"alice's coins from another node", `{"from":"alice@A","to":"carol@B","amount":5}`, "B", "", token.ErrIntent, token.ReasonNotOwner},
		{"no from", `{"to":"carol@B","amount":5}`, "A", "", token.ErrIntent, ""},
	} {
		a, err := token.Domain{}.Assemble("g", "tx", tt.sender, []byte(tt.intent), avail)
		if tt.err != nil {
			if !errors.Is(err, tt.err) || !strings.Contains(err.Error(), tt.reason) {
				t.Errorf("%s: %v, want %v (%s)", tt.name, err, tt.err, tt.reason)
			}
			continue
		}
		if err != nil || strings.Join(a.Spends, ",") != tt.spends {
			t.Fatalf("%s: %+v, %v", tt.name, a, err)
		}
		if len(a.Creates) != 2 || a.Creates[0].Owner != "carol@B" || a.Creates[1].Owner != "alice@A" || token.CoinOf(a.Creates[1]) != 20 {
			t.Errorf("%s: creates %+v, want 50 for carol@B and the change of 20 for alice@A", tt.name, a.Creates)
		}
		if !(token.Domain{}).Covers([]byte(tt.intent), avail[2:]) || (token.Domain{}).Covers([]byte(tt.intent), avail[:2]) {
			t.Errorf("%s: Covers counts another owner's coins", tt.name)
		}
	}
}

// TestCreator: a created coin's id names its transaction; a minted coin's,
// or an id of another shape, names none.
func TestCreator(t *testing.T) {
	t.Parallel()
	a, err := token.Domain{}.Assemble("g0", "A-tx7", "A", []byte(`{"from":"u@A","to":"x","amount":3}`),
		token.Mint("m", "u@A", 5))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range a.Creates {
		if tx, ok := (token.Domain{}).Creator(s.ID); !ok || tx != "A-tx7" {
			t.Errorf("Creator(%q) = %q, %v; want A-tx7", s.ID, tx, ok)
		}
	}
	for _, id := range []string{"m0", "A-tx7.0", "A-tx7.x.0123456789ab", "A-tx7.1.0123456789az", ".1.0123456789ab", "A-tx7.1.0123"} {
		if tx, ok := (token.Domain{}).Creator(id); ok {
			t.Errorf("Creator(%q) = %q, want none", id, tx)
		}
	}
}

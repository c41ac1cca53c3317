package distseq_test

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/distseq"
	"github.com/ordolabs/ordo/internal/distseq/token"
)

// TestIndexerFinalOnly: the indexer hands over a block's privacygroup
// events only once the block is final (ReorgDepth deep), each once, with
// the cursor after them; a restart from that cursor reads nothing again.
func TestIndexerFinalOnly(t *testing.T) {
	ctx := context.Background()
	dc, err := devchain.New(devchain.Config{Clock: clock.NewVirtual(clock.Epoch), FinalityDepth: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer dc.Close()
	accts, _ := dc.DevAccounts(ctx)
	k := ed25519.NewKeyFromSeed(make([]byte, 32))
	members := []devchain.PrivacyMember{{ID: "A", PublicKey: hex.EncodeToString(k.Public().(ed25519.PublicKey))}}
	var nonce uint64
	send := func(method string, args any) {
		b, _ := json.Marshal(args)
		if _, err := dc.SendTx(ctx, chain.Tx{From: accts[0].Address, Nonce: nonce, Fee: 10000, Contract: devchain.PrivacyGroupContract, Method: method, Args: b}); err != nil {
			t.Fatal(err)
		}
		nonce++
	}
	send("deploy", map[string]any{"group": "g", "members": members})
	coins := token.Mint("m", "", 5)
	send("mint", map[string]any{"group": "g", "states": []devchain.PrivacyState{{ID: coins[0].ID, Data: json.RawMessage(coins[0].Data)}}})
	var got []distseq.InputEvents
	x := &distseq.Indexer{Chain: dc, Out: func(in distseq.InputEvents) { got = append(got, in) }}
	mine := func() {
		if _, _, err := dc.Mine(ctx); err != nil {
			t.Fatal(err)
		}
		if err := x.Poll(ctx); err != nil {
			t.Fatal(err)
		}
	}
	mine() // block 1 holds both; not final yet
	mine()
	for _, in := range got {
		if len(in.Events) > 0 {
			t.Fatalf("events handed over before their block was final: %+v", in)
		}
	}
	mine() // head 3, depth 2: block 1 is final
	last := got[len(got)-1]
	if len(last.Events) != 2 || last.Events[0].Kind != distseq.EventGroupDeployed || last.Events[1].Kind != distseq.EventStatesMinted ||
		len(last.Events[1].States) != 1 || last.Height != 1 {
		t.Fatalf("at head 3: %+v", last)
	}
	n := len(got)
	mine()
	for _, in := range got[n:] {
		if len(in.Events) != 0 {
			t.Fatalf("events handed over twice: %+v", in)
		}
	}
	again := &distseq.Indexer{Chain: dc, Cursor: last.Cursor, Out: func(in distseq.InputEvents) {
		if len(in.Events) != 0 {
			t.Errorf("a restart from the cursor read again: %+v", in)
		}
	}}
	if err := again.Poll(ctx); err != nil {
		t.Fatal(err)
	}
}

package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/store"
)

// TestPoisonedIntentsDoNotStall: intents that can never be built (their
// data is not a JSON object, past intake's checks) end FAILED at their first
// dispatch without retries and free their senders at once, so a valid intent
// behind sixteen of them on four senders is DONE within its normal latency.
func TestPoisonedIntentsDoNotStall(t *testing.T) {
	ctx := context.Background()
	cfg := SequencerConfig{Seed: 11, Senders: 4, Dir: t.TempDir()}
	w := newTestWorld(t, &cfg)
	var poisoned []store.NewTransaction
	for i := range 16 {
		poisoned = append(poisoned, store.NewTransaction{UID: fmt.Sprintf("tx_poison%02d", i), Queue: fmt.Sprintf("p%d", i),
			Type: sequencer.CreateClaimVotingAccount, Data: json.RawMessage(`[1,2,3]`), At: w.clk.Now()})
	}
	res, err := w.st.Enqueue(ctx, poisoned) // past Submit's validation, as a dispatcher's bug would be
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		w.chk.acked(r.Transaction)
	}
	if err := w.submit(ctx, Action{Kind: ActSubmit, Queue: 99, N: 1}); err != nil {
		t.Fatal(err)
	}
	var good string
	for uid := range w.chk.recs {
		if uid[:9] != "tx_poison" {
			good = uid
		}
	}
	start := w.res.Blocks
	for w.chk.recs[good].end == "" && w.res.Blocks < start+30 {
		if err := w.advance(ctx, time.Second); err != nil {
			t.Fatal(err)
		}
	}
	took := w.res.Blocks - start
	// Normal latency: dispatched on the next head, included in the block
	// after, DONE once it has ReorgDepth+1 confirmations.
	if w.chk.recs[good].end != store.Done || took > cfg.ReorgDepth+3 {
		t.Fatalf("the valid intent is %q after %d blocks, want DONE within %d", w.chk.recs[good].end, took, cfg.ReorgDepth+3)
	}
	for _, p := range poisoned {
		tx, err := w.st.Get(ctx, p.UID)
		if err != nil {
			t.Fatal(err)
		}
		if tx.State != store.Failed || tx.Retries != 0 || len(tx.Attempts) != 1 || tx.Attempts[0].Outcome != store.OutcomeError {
			t.Fatalf("%s: %s, retries %d, attempts %+v; want FAILED at the first attempt", tx.UID, tx.State, tx.Retries, tx.Attempts)
		}
		// OnFailure got the reason, and the record's result keeps it.
		if !strings.Contains(string(tx.Result), `"reason":"not retried: `) {
			t.Fatalf("%s: result %s, want the failure's reason", tx.UID, tx.Result)
		}
	}
	if err := w.check(ctx, 1); err != nil {
		t.Fatal(err)
	}
	t.Logf("valid intent DONE %d blocks after submission, behind 16 poisoned intents on 4 senders", took)
}

package bench

import (
	"context"
	"testing"
)

func TestDevchainBenchSmall(t *testing.T) {
	r, err := Devchain(context.Background(), DevchainOptions{Txs: 5000, BlockTxs: 1000, Accounts: 500})
	if err != nil {
		t.Fatal(err)
	}
	if r.Txs != 5000 || r.Blocks < 5 {
		t.Fatalf("included %d txs in %d blocks, want 5000 in at least 5", r.Txs, r.Blocks)
	}
	t.Log(r)
}

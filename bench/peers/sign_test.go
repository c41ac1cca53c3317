package main

import (
	"encoding/hex"
	"fmt"
	"sync"
	"testing"

	"github.com/ordolabs/ordo/internal/chain"
)

// The same-work job signs in ordo's scheme: the signature verifies as a
// devchain transaction's, over the canonical hash it records, and each
// key's nonces run 0, 1, 2, ... with no nonce used twice although jobs
// run at once.
func TestSignWorker(t *testing.T) {
	t.Parallel()
	w := newSignWorker(3)
	var mu sync.Mutex
	seen := map[string]bool{}
	var wg sync.WaitGroup
	for i := range 30 {
		wg.Go(func() {
			uid := fmt.Sprintf("river-%d", i)
			out, err := w.sign(uid)
			if err != nil {
				t.Error(err)
				return
			}
			if len(out.Hash) != 64 || len(out.Signature) != 128 {
				t.Errorf("hash %q signature %q", out.Hash, out.Signature)
			}
			mu.Lock()
			defer mu.Unlock()
			if seen[out.Hash] {
				t.Errorf("hash %s twice", out.Hash)
			}
			seen[out.Hash] = true
		})
	}
	wg.Wait()
	total := uint64(0)
	for range 3 {
		k := <-w.keys
		total += k.nonce
		tx := chain.Tx{Contract: "noop", Method: "run", Memo: "check", From: k.addr, Nonce: k.nonce, Fee: 1}
		if _, err := chain.Ed25519.Sign(&tx, k.key); err != nil {
			t.Fatal(err)
		}
		if err := tx.VerifySignature(); err != nil {
			t.Fatalf("key %s: %v", k.addr, err)
		}
		if _, err := hex.DecodeString(tx.Signature); err != nil {
			t.Fatal(err)
		}
	}
	if total != 30 {
		t.Fatalf("nonces used %d, want 30", total)
	}
}

package devchain_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/clock"
)

// BenchmarkMine1000 measures, per op, one block: SendTx (signature check, admission) plus Mine
// (selection, execution, and with a data directory the fsynced block log) for
// blocks of 1000 self-signed transactions from 1000 faucet-funded accounts,
// each bumping its own zkApp. Signing happens before the timer starts.
func BenchmarkMine1000(b *testing.B) {
	b.Run("memory", func(b *testing.B) { benchMine(b, false) })
	b.Run("datadir", func(b *testing.B) { benchMine(b, true) })
}

func benchMine(b *testing.B, durable bool) {
	const perBlock = 1000
	ctx := context.Background()
	clk := clock.NewVirtual(clock.Epoch)
	cfg := devchain.Config{Clock: clk, MaxBlockTxs: perBlock, DevAccounts: 1}
	if durable {
		cfg.DataDir = b.TempDir()
	}
	c := coreNew(b, cfg)
	tmpl := make([]chain.Tx, perBlock) // per account: the inc it repeats
	signers := make([]func(*chain.Tx), perBlock)
	for i := range perBlock {
		key := chain.KeyFromSeed(fmt.Sprintf("bench/%d", i))
		addr := chain.KeyAddress(key)
		if _, err := c.Faucet(ctx, addr, 1e12); err != nil {
			b.Fatal(err)
		}
		tmpl[i] = chain.Tx{From: addr, Contract: "zkapp", Method: "inc", Args: []byte(fmt.Sprintf(`{"zkapp":"bench-%d","key":"n","by":1}`, i))}
		signers[i] = func(tx *chain.Tx) { tx.Sign(key) }
		dep := chain.Tx{From: addr, Fee: 1000, Contract: "zkapp", Method: "deploy", Args: []byte(fmt.Sprintf(`{"zkapp":"bench-%d"}`, i))}
		dep.Sign(key)
		if _, err := c.SendTx(ctx, dep); err != nil {
			b.Fatal(err)
		}
	}
	clk.Advance(time.Second)
	if hdr, ok, err := c.Mine(ctx); err != nil || !ok || hdr.TxCount != perBlock {
		b.Fatalf("setup block: %+v %v %v", hdr, ok, err)
	}
	txs := make([][]chain.Tx, b.N)
	for n := range b.N {
		txs[n] = make([]chain.Tx, perBlock)
		for i := range perBlock {
			tx := tmpl[i]
			tx.Nonce = uint64(n + 1)
			tx.Fee = uint64(1000 + (i*7919)%5000) // varied fees: the heap has work to do
			signers[i](&tx)
			txs[n][i] = tx
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for n := range b.N {
		for _, tx := range txs[n] {
			if _, err := c.SendTx(ctx, tx); err != nil {
				b.Fatal(err)
			}
		}
		clk.Advance(time.Second)
		hdr, ok, err := c.Mine(ctx)
		if err != nil || !ok || hdr.TxCount != perBlock {
			b.Fatalf("block %d: %+v %v %v", n, hdr, ok, err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N*perBlock)/b.Elapsed().Seconds(), "tx/s")
}

package bench

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/clock"
)

// DevchainOptions sets the devchain benchmark.
type DevchainOptions struct {
	// Txs is how many transactions to include. Defaults to 200,000.
	Txs int
	// BlockTxs is the block size. Defaults to 1000.
	BlockTxs int
	// Accounts is how many signing accounts send. Defaults to 2,000.
	Accounts int
	// Submitters is how many goroutines submit. Defaults to GOMAXPROCS.
	Submitters int
}

// DevchainResult is what the devchain benchmark measured.
type DevchainResult struct {
	Txs        int
	Blocks     int
	MineTime   time.Duration // time spent producing blocks
	SubmitTime time.Duration // wall time of admission (verify + mempool), all submitters
	Included   float64       // transactions included per second of block production
	Admitted   float64       // transactions admitted per second (signature checked)
	EndToEnd   float64       // transactions per second from first submit to last inclusion
	PeakRSS    uint64
}

// String is the benchmark's one line of figures.
func (r DevchainResult) String() string {
	return fmt.Sprintf("devchain: included %.0f tx/s at %d-tx blocks (%d txs, %d blocks); admitted %.0f tx/s (signatures verified); end-to-end %.0f tx/s; peak RSS %s",
		r.Included, r.Txs/max(r.Blocks, 1), r.Txs, r.Blocks, r.Admitted, r.EndToEnd, MiB(r.PeakRSS))
}

// Devchain measures how fast an in-process devchain admits and includes
// transactions: zkapp `set` calls on distinct zkApps, pre-signed by many
// accounts, submitted in parallel, mined in full blocks.
func Devchain(ctx context.Context, o DevchainOptions) (DevchainResult, error) {
	if o.Txs <= 0 {
		o.Txs = 200_000
	}
	if o.BlockTxs <= 0 {
		o.BlockTxs = 1000
	}
	if o.Accounts <= 0 {
		o.Accounts = 2000
	}
	if o.Submitters <= 0 {
		o.Submitters = runtime.GOMAXPROCS(0)
	}
	clk := clock.NewVirtual(clock.Epoch)
	c, err := devchain.New(devchain.Config{Clock: clk, MaxBlockTxs: o.BlockTxs, MaxNonceGap: uint64(o.Txs), MaxMempool: o.Txs + 1})
	if err != nil {
		return DevchainResult{}, err
	}
	defer c.Close()
	keys := make([]ed25519.PrivateKey, o.Accounts)
	for i := range keys {
		keys[i] = chain.KeyFromSeed(fmt.Sprintf("bench/%d", i))
		if _, err := c.Faucet(ctx, chain.KeyAddress(keys[i]), 1e15); err != nil {
			return DevchainResult{}, err
		}
	}
	// Pre-sign, outside the measurement. Each account's zkApp is deployed by
	// its first transaction, then changed once per later transaction.
	txs := make([]chain.Tx, o.Txs)
	var wg sync.WaitGroup
	for w := range o.Submitters {
		wg.Go(func() {
			for i := w; i < o.Txs; i += o.Submitters {
				acct, nonce := i%o.Accounts, uint64(i/o.Accounts)
				tx := chain.Tx{From: chain.KeyAddress(keys[acct]), Nonce: nonce, Fee: 1000 + uint64(i%7), Contract: "zkapp", Memo: fmt.Sprintf("bench-%d", i)}
				if nonce == 0 {
					tx.Method, tx.Args = "deploy", json.RawMessage(fmt.Sprintf(`{"zkapp":"z%d"}`, acct))
				} else {
					tx.Method, tx.Args = "set", json.RawMessage(fmt.Sprintf(`{"zkapp":"z%d","key":"k","value":%d}`, acct, nonce))
				}
				tx.Sign(keys[acct])
				txs[i] = tx
			}
		})
	}
	wg.Wait()
	runtime.GC()

	start := wall.Now()
	errs := make(chan error, o.Submitters)
	for w := range o.Submitters {
		wg.Go(func() {
			for i := w; i < o.Txs; i += o.Submitters {
				if _, err := c.SendTx(ctx, txs[i]); err != nil {
					errs <- fmt.Errorf("tx %d: %w", i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	admitted := time.Since(start)
	close(errs)
	if err := <-errs; err != nil {
		return DevchainResult{}, err
	}
	res := DevchainResult{SubmitTime: admitted}
	mineStart := wall.Now()
	for res.Txs < o.Txs {
		clk.Advance(time.Second)
		hdr, _, err := c.Mine(ctx)
		if err != nil {
			return res, err
		}
		if hdr.TxCount == 0 {
			return res, fmt.Errorf("block %d is empty with %d of %d included", hdr.Height, res.Txs, o.Txs)
		}
		res.Txs += hdr.TxCount
		res.Blocks++
	}
	res.MineTime = time.Since(mineStart)
	total := time.Since(start)
	res.Included = float64(res.Txs) / res.MineTime.Seconds()
	res.Admitted = float64(res.Txs) / admitted.Seconds()
	res.EndToEnd = float64(res.Txs) / total.Seconds()
	res.PeakRSS = PeakRSS()
	return res, nil
}

package main

import (
	"context"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/ethereum-optimism/optimism/op-service/txmgr"
	"github.com/ethereum-optimism/optimism/op-service/txmgr/metrics"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/log"
	"github.com/ethereum/go-ethereum/params"

	opcrypto "github.com/ethereum-optimism/optimism/op-service/crypto"
)

// txmgrSettings are the txmgr.Config values a user would choose for a
// chain with blocks every blockTime: OP's batcher defaults
// (txmgr.DefaultBatcherFlagValues), their 12 s L1 intervals scaled to the
// block time, and one confirmation.
func txmgrSettings(blockTime time.Duration) string {
	return fmt.Sprintf("txmgr: 1 confirmation, resubmission after %s (4 blocks), receipts polled every %s, fee limit 5× above 100 gwei, min tip 1 gwei, min base fee 1 gwei",
		4*blockTime, blockTime)
}

// newTxmgr builds the SimpleTxManager of one dev key on ec's chain.
func newTxmgr(ec *ethclient.Client, chainID *big.Int, keyFile string, blockTime time.Duration, logs io.Writer) (*txmgr.SimpleTxManager, error) {
	key, err := crypto.LoadECDSA(keyFile)
	if err != nil {
		return nil, err
	}
	from := crypto.PubkeyToAddress(key.PublicKey)
	sign := opcrypto.PrivateKeySignerFn(key, chainID)
	cfg := &txmgr.Config{
		Backend:                   ec,
		ChainID:                   chainID,
		NumConfirmations:          1,
		SafeAbortNonceTooLowCount: 3,
		NetworkTimeout:            10 * time.Second,
		RetryInterval:             time.Second,
		MaxRetries:                10,
		TxNotInMempoolTimeout:     2 * time.Minute,
		ReceiptQueryInterval:      blockTime,
		From:                      from,
		Signer: func(_ context.Context, addr common.Address, tx *types.Transaction) (*types.Transaction, error) {
			return sign(addr, tx)
		},
	}
	cfg.ResubmissionTimeout.Store(int64(4 * blockTime))
	cfg.RebroadcastInterval.Store(int64(blockTime))
	cfg.FeeLimitMultiplier.Store(5)
	cfg.FeeLimitThreshold.Store(big.NewInt(100 * params.GWei))
	cfg.MinTipCap.Store(big.NewInt(params.GWei))
	cfg.MinBaseFee.Store(big.NewInt(params.GWei))
	cfg.MinBlobTxFee.Store(big.NewInt(params.GWei))
	return txmgr.NewSimpleTxManagerFromConfig(fmt.Sprintf("peers-%s", from.Hex()[:8]), log.NewLogger(log.NewTerminalHandlerWithLevel(logs, log.LevelWarn, false)), &metrics.NoopTxMetrics{}, cfg)
}

// txmgrRun is the result of OP txmgr's run, as ordoRun.
type txmgrRun struct {
	samples    []sample
	start, end time.Time
}

// runTxmgr starts a fresh chain with the same flags, checks it has the
// same router, and sends the given transactions (ordo's, read back from
// its chain: to, input and gas limit) through K SimpleTxManagers, queue q's
// through manager q mod K, in order, so its nonces keep their order. The
// setup (create q is queue q's) goes first with Send and is not measured.
// Then each manager's votes go through SendAsync, which assigns the nonce
// before it returns and waits for the receipt in a goroutine of its own.
func runTxmgr(ctx context.Context, bin string, o options, router common.Address, setup []onChain, intents []intent, txs []onChain, queues []int) (txmgrRun, error) {
	dir, err := os.MkdirTemp("", "ordo-peers-evm-txmgr-")
	if err != nil {
		return txmgrRun{}, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	ch, err := startDevChain(ctx, bin, filepath.Join(dir, "chain"), o.keys+1, o.blockTime)
	if err != nil {
		return txmgrRun{}, err
	}
	defer ch.stop()
	if ch.router != router {
		return txmgrRun{}, fmt.Errorf("the fresh chain's router is %s, ordo's run had %s: not the same chain", ch.router, router)
	}
	ec, hs, stopFollow, err := follow(ctx, ch.httpURL)
	if err != nil {
		return txmgrRun{}, err
	}
	defer stopFollow()

	// The managers' warnings go to a file, named when the run fails.
	logf, err := os.CreateTemp("", "ordo-peers-evm-txmgr-*.log")
	if err != nil {
		return txmgrRun{}, err
	}
	defer func() { _ = logf.Close() }()
	failed := true
	defer func() {
		if failed {
			fmt.Fprintf(os.Stderr, "peers evm: OP txmgr's warnings are in %s\n", logf.Name())
		} else {
			_ = os.Remove(logf.Name())
		}
	}()
	mgrs := make([]*txmgr.SimpleTxManager, o.keys)
	for k := range o.keys {
		// Each manager has its own connection, as a user's would.
		mec, err := ethclient.DialContext(ctx, ch.httpURL)
		if err != nil {
			return txmgrRun{}, err
		}
		if mgrs[k], err = newTxmgr(mec, ch.chainID, ch.keyFile(k+1), o.blockTime, logf); err != nil {
			mec.Close()
			return txmgrRun{}, fmt.Errorf("txmgr of dev account %d: %w", k+1, err)
		}
	}
	defer func() {
		for _, m := range mgrs {
			m.Close()
		}
	}()

	var wg sync.WaitGroup
	setupErrs := make([]error, len(setup))
	for k, m := range mgrs {
		wg.Go(func() {
			for q := k; q < len(setup); q += o.keys {
				to := setup[q].to
				_, setupErrs[q] = m.Send(ctx, txmgr.TxCandidate{TxData: setup[q].input, To: &to, GasLimit: setup[q].gas})
			}
		})
	}
	wg.Wait()
	for q, err := range setupErrs {
		if err != nil {
			return txmgrRun{}, fmt.Errorf("txmgr send of the setup's create %d: %w", q, err)
		}
	}

	heads := make([]uint64, len(txs))
	hashes := make([]common.Hash, len(txs))
	errs := make([]error, len(txs))
	start := time.Now()
	for k, m := range mgrs {
		wg.Go(func() {
			var mine []int
			for i := range txs {
				if queues[i]%o.keys == k {
					mine = append(mine, i)
				}
			}
			resp := make([]chan txmgr.SendResponse, len(mine))
			for j, i := range mine {
				to := txs[i].to
				resp[j] = make(chan txmgr.SendResponse, 1)
				heads[i] = hs.head()
				m.SendAsync(ctx, txmgr.TxCandidate{TxData: txs[i].input, To: &to, GasLimit: txs[i].gas}, resp[j])
			}
			for j, i := range mine {
				r := <-resp[j]
				switch {
				case r.Err != nil:
					errs[i] = r.Err
				case r.Receipt == nil:
					errs[i] = fmt.Errorf("no receipt")
				default:
					hashes[i] = r.Receipt.TxHash
				}
			}
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return txmgrRun{}, fmt.Errorf("txmgr send of %s: %w", intents[i].IdempotencyKey, err)
		}
	}
	got, err := readTxs(ctx, ec, ch.router, hashes)
	if err != nil {
		return txmgrRun{}, err
	}
	run := txmgrRun{samples: make([]sample, len(got)), start: start}
	for i := range got {
		run.samples[i] = sample{head: heads[i], tx: got[i]}
	}
	run.end, err = hs.waitSeen(ctx, lastBlock(run.samples))
	failed = err != nil
	return run, err
}

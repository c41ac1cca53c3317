package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/evm/evmdev"
	"github.com/ordolabs/ordo/internal/node"
	"github.com/ordolabs/ordo/internal/store"
)

// EVMFigures is what the sequencer benchmark measures on an EVM chain
// besides its common figures.
type EVMFigures struct {
	// TxsPerBlock is the router transactions per block, from the first
	// block with one to the last.
	TxsPerBlock float64
	// Blocks is how many blocks that span is.
	Blocks int
	// FeeOverBase is what the router transactions paid above the base
	// fee (the tips), as a share of what they paid in base fee.
	FeeOverBase float64
	// TipPerTx is the mean tip paid per transaction, in wei.
	TipPerTx *big.Int
	// IntakeP50 and IntakeP99 are the blocks from an intent's intake (the
	// head when its record was created) to its DONE (the head then).
	IntakeP50, IntakeP99 uint64
}

// String is the EVM figures as the end of the benchmark's line.
func (f *EVMFigures) String() string {
	if f == nil {
		return ""
	}
	return fmt.Sprintf("; evm: %.1f txs/block over %d blocks, fees over the base fee %.1f%% (tip %s wei/tx), intake→DONE p50 %d p99 %d blocks",
		f.TxsPerBlock, f.Blocks, 100*f.FeeOverBase, f.TipPerTx, f.IntakeP50, f.IntakeP99)
}

// evmRun is the benchmark's EVM chain and what it observes while the
// node runs: the head at each moment, and the head at each DONE.
type evmRun struct {
	dev *evmdev.Chain

	mu    sync.Mutex
	heads []headAt          // each new head as first seen, in order
	done  map[string]uint64 // uid → head at its finish
}

type headAt struct {
	at     time.Time
	height uint64
}

// startEVMRun starts the simulated chain (its dev accounts the senders)
// and points cfg at it.
func startEVMRun(ctx context.Context, cfg *node.Config, o SequencerOptions) (*evmRun, error) {
	if o.Senders+1 > evmdev.MaxAccounts {
		return nil, fmt.Errorf("senders %d: the simulated chain funds at most %d accounts", o.Senders, evmdev.MaxAccounts-1)
	}
	dev, err := evmdev.Start(ctx, evmdev.Config{HTTPAddr: "127.0.0.1:0", WSAddr: "127.0.0.1:0", BlockTime: o.BlockTime, Accounts: o.Senders + 1})
	if err != nil {
		return nil, fmt.Errorf("the simulated EVM chain: %w", err)
	}
	cfg.UseEVMDev(dev, o.Senders)
	cfg.InclusionTimeoutBlocks = 20
	return &evmRun{dev: dev, done: map[string]uint64{}}, nil
}

func (e *evmRun) close() { _ = e.dev.Close() }

// watch follows the node's chain heads until ctx ends.
func (e *evmRun) watch(ctx context.Context, c chain.Chain) {
	heads := chain.WatchHeads(ctx, c, wall, 20*time.Millisecond)
	go func() {
		for h := range heads {
			e.mu.Lock()
			if len(e.heads) == 0 || h.Height > e.heads[len(e.heads)-1].height {
				e.heads = append(e.heads, headAt{at: wall.Now(), height: h.Height})
			}
			e.mu.Unlock()
		}
	}()
}

// finished notes the head at uid's finish (a nil run notes nothing).
func (e *evmRun) finished(uid string) {
	if e == nil {
		return
	}
	e.mu.Lock()
	if n := len(e.heads); n > 0 {
		e.done[uid] = e.heads[n-1].height
	}
	e.mu.Unlock()
}

// headAtTime is the head as of t (the last head first seen at or before
// it; the first head before any).
func (e *evmRun) headAtTime(t time.Time) uint64 {
	i := sort.Search(len(e.heads), func(i int) bool { return e.heads[i].at.After(t) })
	return e.heads[max(i-1, 0)].height
}

// callData is item i of queue q as a call of the Voting contract: the
// queue's claim opened first, then votes on it.
func (e *evmRun) callData(q string, create bool, i int) string {
	call := map[string]any{"contract": "voting", "method": "send_claim_vote",
		"args": map[string]any{"account": q, "voter": fmt.Sprint("v", i), "vote": i%2 == 0}}
	if create {
		call["method"], call["args"] = "create_claim_voting_account", map[string]any{"account": q, "title": "bench"}
	}
	b, _ := json.Marshal(call)
	return string(b)
}

// figures reads the EVM figures: intake→DONE from the records and the
// heads seen, the rest from the blocks' receipts over plain JSON-RPC.
func (e *evmRun) figures(ctx context.Context, st store.Store) (*EVMFigures, error) {
	f := &EVMFigures{TipPerTx: new(big.Int)}
	e.mu.Lock()
	var lat []uint64
	for after := int64(0); ; {
		txs, err := st.List(ctx, store.Filter{After: after, Limit: 1000})
		if err != nil {
			e.mu.Unlock()
			return nil, err
		}
		for _, t := range txs {
			if d, ok := e.done[t.UID]; ok && len(e.heads) > 0 {
				lat = append(lat, d-min(d, e.headAtTime(t.CreatedAt)))
			}
			after = t.Seq
		}
		if len(txs) < 1000 {
			break
		}
	}
	e.mu.Unlock()
	if len(lat) > 0 {
		slices.Sort(lat)
		f.IntakeP50, f.IntakeP99 = lat[len(lat)/2], lat[len(lat)*99/100]
	}
	return f, e.fees(ctx, f)
}

// fees sums, over the router's transactions, the base fee and the tip
// each paid (gas used × the base fee, and × the effective price above it).
func (e *evmRun) fees(ctx context.Context, f *EVMFigures) error {
	ec, err := ethclient.DialContext(ctx, e.dev.HTTPURL)
	if err != nil {
		return err
	}
	defer ec.Close()
	head, err := ec.BlockNumber(ctx)
	if err != nil {
		return err
	}
	base, tips := new(big.Int), new(big.Int)
	txs, first, last := 0, uint64(0), uint64(0)
	for h := uint64(1); h <= head; h++ {
		hd, err := ec.HeaderByNumber(ctx, new(big.Int).SetUint64(h))
		if err != nil {
			return err
		}
		rs, err := ec.BlockReceipts(ctx, rpc.BlockNumberOrHashWithNumber(rpc.BlockNumber(h)))
		if err != nil {
			return err
		}
		for _, r := range rs {
			if !routerTx(r.Logs, e.dev.Router) {
				continue
			}
			if first == 0 {
				first = h
			}
			last = h
			txs++
			gas := new(big.Int).SetUint64(r.GasUsed)
			base.Add(base, new(big.Int).Mul(gas, hd.BaseFee))
			tips.Add(tips, new(big.Int).Mul(gas, new(big.Int).Sub(r.EffectiveGasPrice, hd.BaseFee)))
		}
	}
	if txs == 0 {
		return nil
	}
	f.Blocks = int(last - first + 1)
	f.TxsPerBlock = float64(txs) / float64(f.Blocks)
	f.TipPerTx = new(big.Int).Div(tips, big.NewInt(int64(txs)))
	if base.Sign() > 0 {
		f.FeeOverBase, _ = new(big.Rat).SetFrac(tips, base).Float64()
	}
	return nil
}

// routerTx reports whether a receipt's logs hold one of router's.
func routerTx(logs []*types.Log, router common.Address) bool {
	for _, l := range logs {
		if l.Address == router {
			return true
		}
	}
	return false
}

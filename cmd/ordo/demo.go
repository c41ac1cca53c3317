package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/node"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/store"
)

func demoCommand() *cobra.Command {
	var (
		claims, votes, batches, senders int
		confirmations                   uint64
		blockTime                       time.Duration
		data, listen, chainKind         string
		faults                          faultFlags
	)
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the seed's voting flow on a node with embedded defaults and print a summary",
		Long: `demo starts a node on embedded defaults (SQLite store, in-process devchain) and runs
the sequencer seed's voting flow across many queues: for each claim, a claim queue
(CREATE_CLAIM_VOTING_ACCOUNT, then SEND_CLAIM_VOTEs) and a batches queue
(CREATE_VOTING_BATCHES_ACCOUNT, RECEIVE_VOTES_BATCHes, COMMIT_ALL_VOTING_BATCHES).
It shows progress and ends with a summary read back from the store and the chain, and
an audit of the store against the canonical chain: every DONE applied exactly once
(one successful transaction with its uid as memo), no FAILED one applied, and no queue
with two transactions in one block. A failed audit exits non-zero.

With reorg faults (--fault-reorg-every), the in-process devchain declares its reorg
depth and the node follows it: a transaction is DONE only once the depth plus one blocks
hold it (--confirmations overrides it).

With --chain evm the same flow runs on an in-process simulated EVM chain
(go-ethereum's, served on loopback as ordo evmdev serves it): the claim queues'
CREATE_CLAIM_VOTING_ACCOUNT and SEND_CLAIM_VOTE become calls of the Voting contract
through the OrdoRouter (the batches queues have no contract there and are left out),
and the audit reads the router's outcomes from the chain's receipts.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			fc, err := faults.config()
			if err != nil {
				return err
			}
			var finished, failed atomic.Int64
			cfg := node.Config{Data: data, DevMode: true, DevSenders: senders, RetryDelay: node.Duration(time.Second),
				Devchain: node.DevchainConfig{BlockTime: node.Duration(blockTime), Faults: fc}}
			intents, queues := votingFlow(claims, votes, batches), 2*claims
			switch chainKind {
			case "devchain":
			case "evm":
				if faults.any() {
					return fmt.Errorf("--fault-* flags are devchain's: an EVM chain has none")
				}
				dev, err := startDemoEVM(ctx, &cfg, senders, blockTime)
				if err != nil {
					return err
				}
				defer dev.Close()
				intents, queues = votingCalls(claims, votes), claims
			default:
				return fmt.Errorf("--chain %q: devchain or evm", chainKind)
			}
			if cmd.Flags().Changed("confirmations") {
				cfg.Confirmations = confirmations // else 0: follow the chain's declared reorg depth
			}
			n, err := node.StartLocal(ctx, cfg, node.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
				OnFinish: func(_ string, state store.TxState, _ uint64) {
					finished.Add(1)
					if state == store.Failed {
						failed.Add(1)
					}
				}}, listen)
			if err != nil {
				return err
			}
			// The summary below is the demo's result; a shutdown error after it
			// (the node stopping on a cancelled context) is not.
			defer func() { _ = n.Stop() }()
			fmt.Printf("ordo demo: node at http://%s (data %s, dev mode, %s), %d senders, block time %s%s\n", n.Addr, n.Config.Data, chainKind, senders, blockTime, confirmationsNote(n.Config.Confirmations))
			start := time.Now()
			startHead, _ := n.Chain.Head(ctx)
			if _, err := n.Sequencer.Submit(ctx, intents); err != nil {
				return err
			}
			fmt.Printf("submitted %d transactions across %d queues\n", len(intents), queues)
			tick := time.NewTicker(time.Second)
			defer tick.Stop()
			for finished.Load() < int64(len(intents)) {
				select {
				case <-ctx.Done():
					return ctx.Err()
				case err := <-n.Stopped():
					return fmt.Errorf("node stopped: %w", err)
				case <-tick.C:
					hd, _ := n.Chain.Head(ctx)
					fmt.Printf("  %5.1fs  height %-5d done %d/%d  failed %d\n", time.Since(start).Seconds(), hd.Height, finished.Load()-failed.Load(), len(intents), failed.Load())
				}
			}
			return demoSummary(ctx, n.Node, startHead.Height, time.Since(start), min(queues, senders))
		},
	}
	cmd.Flags().IntVar(&claims, "claims", 12, "claims (each has a claim queue and a batches queue)")
	cmd.Flags().IntVar(&votes, "votes", 8, "votes per claim")
	cmd.Flags().IntVar(&batches, "batches", 3, "vote batches per claim")
	cmd.Flags().IntVar(&senders, "senders", 16, "dev senders")
	cmd.Flags().Uint64Var(&confirmations, "confirmations", 0, "blocks that must hold a transaction before it is DONE (default: the chain's declared reorg depth + 1, which --fault-reorg-depth sets with --fault-reorg-every)")
	cmd.Flags().DurationVar(&blockTime, "block-time", 250*time.Millisecond, "devchain block time")
	cmd.Flags().StringVar(&data, "data", "", "data directory (default: a temp dir, removed at exit)")
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:0", "API address while the demo runs")
	cmd.Flags().StringVar(&chainKind, "chain", "devchain", "the chain: devchain (in-process), or evm (an in-process simulated EVM chain)")
	faults.register(cmd)
	return cmd
}

// votingFlow is the seed's voting flow as intents.
func votingFlow(claims, votes, batches int) []sequencer.Intake {
	var out []sequencer.Intake
	add := func(q, typ string, data any) {
		b, _ := json.Marshal(data)
		out = append(out, sequencer.Intake{Queue: q, Type: typ, Data: b})
	}
	for c := range claims {
		cq, bq := fmt.Sprintf("claim-%03d", c), fmt.Sprintf("batches-%03d", c)
		add(cq, sequencer.CreateClaimVotingAccount, map[string]any{"claim": c})
		add(bq, sequencer.CreateVotingBatchesAccount, map[string]any{"claim": c})
		for v := range votes {
			add(cq, sequencer.SendClaimVote, map[string]any{"voter": fmt.Sprintf("voter-%d", v), "vote": v%3 != 0})
		}
		for b := range batches {
			add(bq, sequencer.ReceiveVotesBatch, map[string]any{"batch": b, "votes": votes / max(batches, 1)})
		}
		add(bq, sequencer.CommitAllVotingBatches, map[string]any{"batches": batches})
	}
	return out
}

func confirmationsNote(n uint64) string {
	if n == 0 {
		return ", confirmations: the chain's reorg depth + 1"
	}
	return fmt.Sprintf(", %d confirmations", n)
}

func demoSummary(ctx context.Context, n *node.Node, fromHeight uint64, took time.Duration, slots int) error {
	var records []store.Transaction
	var done, failed, retries int
	for after := int64(0); ; {
		txs, err := n.Sequencer.Store().List(ctx, store.Filter{After: after, Limit: 1000})
		if err != nil {
			return err
		}
		for _, t := range txs {
			retries += t.Retries
			switch t.State {
			case store.Done:
				done++
			case store.Failed:
				failed++
			default: // waiting, in revision or retrying: not ended
			}
			after = t.Seq
		}
		records = append(records, txs...)
		if len(txs) < 1000 {
			break
		}
	}
	br, ok := n.Chain.(chain.BlockReader)
	if !ok {
		return fmt.Errorf("audit: the chain cannot list its blocks")
	}
	blocks, err := canonicalChain(ctx, n.Chain, br)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	var height uint64
	included := 0
	for _, b := range blocks {
		height = b.Height
		if b.Height > fromHeight {
			included += len(b.Txs)
		}
	}
	nblocks := height - min(fromHeight, height)
	use := 0.0
	if nblocks > 0 && slots > 0 {
		use = float64(included) / float64(int(nblocks)*slots)
	}
	fmt.Printf("summary: done %d, failed %d, retries %d, blocks %d, transactions included %d, slot use %.1f%% of %d slots/block, %s\n",
		done, failed, retries, nblocks, included, 100*use, slots, took.Round(time.Millisecond))
	a := auditChain(records, blocks)
	fmt.Println(a.line())
	if !a.ok() {
		for _, p := range a.problems(20) {
			fmt.Println("  " + p)
		}
		return fmt.Errorf("audit failed: %s", a.line())
	}
	return nil
}

// canonicalChain reads every block of the chain up to its head as one
// consistent chain: each block's parent is the block before it, and the last
// one is still at its height once all are read. The node keeps running (and
// the chain may reorganize) while it reads; a read that a reorg cut through
// is read again.
func canonicalChain(ctx context.Context, c chain.Chain, br chain.BlockReader) ([]chain.Block, error) {
	const tries = 10
	for range tries {
		hd, err := c.Head(ctx)
		if err != nil {
			return nil, err
		}
		var bs []chain.Block
		if err := chain.EachBlock(ctx, br, 1, hd.Height, func(b chain.Block) error {
			bs = append(bs, b)
			return nil
		}); err != nil {
			return nil, err
		}
		if !linked(bs) || len(bs) == 0 || bs[len(bs)-1].Height != hd.Height {
			continue
		}
		last, err := br.Blocks(ctx, hd.Height, hd.Height)
		if err != nil {
			return nil, err
		}
		if len(last) == 1 && last[0].Hash == bs[len(bs)-1].Hash {
			return bs, nil
		}
	}
	return nil, fmt.Errorf("the chain reorganized during each of %d reads of its blocks", tries)
}

// linked reports whether bs are consecutive blocks, each the parent of the
// next.
func linked(bs []chain.Block) bool {
	for i := 1; i < len(bs); i++ {
		if bs[i].Height != bs[i-1].Height+1 || bs[i].Parent != bs[i-1].Hash {
			return false
		}
	}
	return true
}

// demoAudit is the demo's audit of its records against the canonical chain.
// A chain transaction is a record's when its memo is the record's uid.
type demoAudit struct {
	// DoneOnce counts the DONE records applied exactly once: one successful
	// transaction on chain.
	DoneOnce int
	// DoneNever and DoneTwice are the DONE records with no successful
	// transaction, and with more than one.
	DoneNever, DoneTwice []string
	// FailedApplied are the FAILED records with a successful transaction.
	FailedApplied []string
	// TwoInABlock are the queues with two or more transactions (succeeded or
	// failed) of their records in one block, each with the first such block.
	TwoInABlock []string
}

// auditChain audits records against blocks, the canonical chain.
func auditChain(records []store.Transaction, blocks []chain.Block) demoAudit {
	byUID := make(map[string]store.Transaction, len(records))
	for _, r := range records {
		byUID[r.UID] = r
	}
	succeeded := map[string]int{}
	twice := map[string]uint64{} // queue → the first block with two of its transactions
	for _, b := range blocks {
		perQueue := map[string]int{}
		for _, t := range b.Txs {
			r, ok := byUID[t.Memo]
			if !ok {
				continue // not one of the node's transactions
			}
			if t.Status == chain.OutcomeSucceeded {
				succeeded[r.UID]++
			}
			if perQueue[r.Queue]++; perQueue[r.Queue] == 2 {
				if _, seen := twice[r.Queue]; !seen {
					twice[r.Queue] = b.Height
				}
			}
		}
	}
	var a demoAudit
	for _, r := range records {
		switch n := succeeded[r.UID]; {
		case r.State == store.Done && n == 1:
			a.DoneOnce++
		case r.State == store.Done && n == 0:
			a.DoneNever = append(a.DoneNever, r.UID)
		case r.State == store.Done:
			a.DoneTwice = append(a.DoneTwice, fmt.Sprintf("%s (%d times)", r.UID, n))
		case r.State == store.Failed && n > 0:
			a.FailedApplied = append(a.FailedApplied, fmt.Sprintf("%s (%d times)", r.UID, n))
		}
	}
	for q, h := range twice {
		a.TwoInABlock = append(a.TwoInABlock, fmt.Sprintf("%s (block %d)", q, h))
	}
	slices.Sort(a.TwoInABlock)
	return a
}

// ok reports whether every check of the audit passed.
func (a demoAudit) ok() bool {
	return len(a.DoneNever) == 0 && len(a.DoneTwice) == 0 && len(a.FailedApplied) == 0 && len(a.TwoInABlock) == 0
}

// line is the audit's summary line.
func (a demoAudit) line() string {
	s := fmt.Sprintf("audit: %d DONE applied exactly once", a.DoneOnce)
	if len(a.DoneNever) > 0 {
		s += fmt.Sprintf(", %d DONE never applied", len(a.DoneNever))
	}
	if len(a.DoneTwice) > 0 {
		s += fmt.Sprintf(", %d DONE applied more than once", len(a.DoneTwice))
	}
	return s + fmt.Sprintf(", %d FAILED applied, %d queues with two transactions in a block", len(a.FailedApplied), len(a.TwoInABlock))
}

// problems lists what failed, at most max lines per check.
func (a demoAudit) problems(max int) []string {
	var out []string
	add := func(what string, items []string) {
		for i, it := range items {
			if i == max {
				out = append(out, fmt.Sprintf("%s: … and %d more", what, len(items)-max))
				break
			}
			out = append(out, what+": "+it)
		}
	}
	add("DONE, not applied on chain", a.DoneNever)
	add("DONE, applied more than once", a.DoneTwice)
	add("FAILED, applied on chain", a.FailedApplied)
	add("two transactions of one queue in a block", a.TwoInABlock)
	return out
}

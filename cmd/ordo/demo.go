package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
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
		blockTime                       time.Duration
		data, listen                    string
		faults                          faultFlags
	)
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the seed's voting flow on a node with embedded defaults and print a summary",
		Long: `demo starts a node on embedded defaults (SQLite store, in-process devchain) and runs
the sequencer seed's voting flow across many queues: for each claim, a claim queue
(CREATE_CLAIM_VOTING_ACCOUNT, then SEND_CLAIM_VOTEs) and a batches queue
(CREATE_VOTING_BATCHES_ACCOUNT, RECEIVE_VOTES_BATCHes, COMMIT_ALL_VOTING_BATCHES).
It shows progress and ends with a summary read back from the store and the chain.`,
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
			fmt.Printf("ordo demo: node at http://%s (data %s), %d senders, block time %s\n", n.Addr, n.Config.Data, senders, blockTime)
			intents := votingFlow(claims, votes, batches)
			start := time.Now()
			startHead, _ := n.Chain.Head(ctx)
			if _, err := n.Sequencer.Submit(ctx, intents); err != nil {
				return err
			}
			fmt.Printf("submitted %d transactions across %d queues\n", len(intents), 2*claims)
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
			return demoSummary(ctx, n.Node, startHead.Height, time.Since(start), min(2*claims, senders))
		},
	}
	cmd.Flags().IntVar(&claims, "claims", 12, "claims (each has a claim queue and a batches queue)")
	cmd.Flags().IntVar(&votes, "votes", 8, "votes per claim")
	cmd.Flags().IntVar(&batches, "batches", 3, "vote batches per claim")
	cmd.Flags().IntVar(&senders, "senders", 16, "dev senders")
	cmd.Flags().DurationVar(&blockTime, "block-time", 250*time.Millisecond, "devchain block time")
	cmd.Flags().StringVar(&data, "data", "", "data directory (default: a temp dir, removed at exit)")
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:0", "API address while the demo runs")
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

func demoSummary(ctx context.Context, n *node.Node, fromHeight uint64, took time.Duration, slots int) error {
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
			}
			after = t.Seq
		}
		if len(txs) < 1000 {
			break
		}
	}
	hd, _ := n.Chain.Head(ctx)
	blocks := hd.Height - fromHeight
	included := 0
	if br, ok := n.Chain.(chain.BlockReader); ok {
		if err := chain.EachBlock(ctx, br, fromHeight+1, hd.Height, func(b chain.Block) error {
			included += len(b.Txs)
			return nil
		}); err != nil {
			return err
		}
	}
	use := 0.0
	if blocks > 0 && slots > 0 {
		use = float64(included) / float64(int(blocks)*slots)
	}
	fmt.Printf("summary: done %d, failed %d, retries %d, blocks %d, transactions included %d, slot use %.1f%% of %d slots/block, %s\n",
		done, failed, retries, blocks, included, 100*use, slots, took.Round(time.Millisecond))
	return nil
}

package main

import (
	"context"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/testkit"
)

// block is a block at height h holding txs (memo, outcome), linked to the
// block before it.
func block(h uint64, txs ...[2]string) chain.Block {
	b := chain.Block{BlockHeader: chain.BlockHeader{Height: h, Hash: chain.Hash("h" + string(rune('0'+h))), Parent: chain.Hash("h" + string(rune('0'+h-1)))}}
	for i, t := range txs {
		b.Txs = append(b.Txs, chain.BlockTx{Tx: chain.Tx{Memo: t[0]}, Index: i, Status: t[1]})
	}
	return b
}

func TestAuditChain(t *testing.T) {
	const ok, failed = chain.OutcomeSucceeded, chain.OutcomeFailed
	rec := func(uid, queue string, st store.TxState) store.Transaction {
		return store.Transaction{UID: uid, Queue: queue, State: st}
	}
	tests := []struct {
		name    string
		records []store.Transaction
		blocks  []chain.Block
		want    demoAudit
		line    string
	}{
		{
			name:    "clean: each DONE once, a FAILED never, a failed attempt before a success in another block",
			records: []store.Transaction{rec("a1", "qa", store.Done), rec("a2", "qa", store.Done), rec("b1", "qb", store.Done), rec("c1", "qc", store.Failed)},
			blocks: []chain.Block{
				block(1, [2]string{"a1", ok}, [2]string{"b1", failed}, [2]string{"c1", failed}),
				block(2, [2]string{"a2", ok}, [2]string{"b1", ok}, [2]string{"stranger", ok}, [2]string{"stranger", ok}),
			},
			want: demoAudit{DoneOnce: 3},
			line: "audit: 3 DONE applied exactly once, 0 FAILED applied, 0 queues with two transactions in a block",
		},
		{
			name:    "a DONE never applied (its success reorged away)",
			records: []store.Transaction{rec("a1", "qa", store.Done), rec("a2", "qa", store.Done)},
			blocks:  []chain.Block{block(1, [2]string{"a1", ok}), block(2, [2]string{"a2", failed})},
			want:    demoAudit{DoneOnce: 1, DoneNever: []string{"a2"}},
			line:    "audit: 1 DONE applied exactly once, 1 DONE never applied, 0 FAILED applied, 0 queues with two transactions in a block",
		},
		{
			name:    "a DONE applied twice",
			records: []store.Transaction{rec("a1", "qa", store.Done)},
			blocks:  []chain.Block{block(1, [2]string{"a1", ok}), block(2, [2]string{"a1", ok})},
			want:    demoAudit{DoneTwice: []string{"a1 (2 times)"}},
			line:    "audit: 0 DONE applied exactly once, 1 DONE applied more than once, 0 FAILED applied, 0 queues with two transactions in a block",
		},
		{
			name:    "a FAILED applied",
			records: []store.Transaction{rec("f1", "qf", store.Failed)},
			blocks:  []chain.Block{block(1, [2]string{"f1", failed}), block(2, [2]string{"f1", ok})},
			want:    demoAudit{FailedApplied: []string{"f1 (1 times)"}},
			line:    "audit: 0 DONE applied exactly once, 1 FAILED applied, 0 queues with two transactions in a block",
		},
		{
			name:    "two transactions of one queue in a block, failed ones count",
			records: []store.Transaction{rec("a1", "qa", store.Done), rec("a2", "qa", store.Done), rec("b1", "qb", store.Done)},
			blocks:  []chain.Block{block(1, [2]string{"a1", ok}, [2]string{"a2", failed}, [2]string{"b1", ok}), block(2, [2]string{"a2", ok})},
			want:    demoAudit{DoneOnce: 3, TwoInABlock: []string{"qa (block 1)"}},
			line:    "audit: 3 DONE applied exactly once, 0 FAILED applied, 1 queues with two transactions in a block",
		},
		{
			name:    "records still open are not audited",
			records: []store.Transaction{rec("w1", "qw", store.Waiting), rec("r1", "qr", store.Revision)},
			blocks:  []chain.Block{block(1, [2]string{"r1", ok})},
			want:    demoAudit{},
			line:    "audit: 0 DONE applied exactly once, 0 FAILED applied, 0 queues with two transactions in a block",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := auditChain(tt.records, tt.blocks)
			if got.DoneOnce != tt.want.DoneOnce || !slices.Equal(got.DoneNever, tt.want.DoneNever) || !slices.Equal(got.DoneTwice, tt.want.DoneTwice) ||
				!slices.Equal(got.FailedApplied, tt.want.FailedApplied) || !slices.Equal(got.TwoInABlock, tt.want.TwoInABlock) {
				t.Errorf("audit %+v, want %+v", got, tt.want)
			}
			if got.line() != tt.line {
				t.Errorf("line %q, want %q", got.line(), tt.line)
			}
			clean := len(tt.want.DoneNever)+len(tt.want.DoneTwice)+len(tt.want.FailedApplied)+len(tt.want.TwoInABlock) == 0
			if got.ok() != clean {
				t.Errorf("ok %v, want %v", got.ok(), clean)
			}
			if ps := got.problems(20); clean != (len(ps) == 0) {
				t.Errorf("problems %q", ps)
			}
		})
	}
	// Problems are listed at most max per check.
	many := demoAudit{DoneNever: []string{"a", "b", "c"}}
	if ps := many.problems(2); len(ps) != 3 || !strings.Contains(ps[2], "and 1 more") {
		t.Errorf("problems(2) %q", ps)
	}
}

func TestLinked(t *testing.T) {
	b1, b2, b3 := block(1), block(2), block(3)
	other := b2
	other.Hash = "x"
	for _, tt := range []struct {
		name string
		bs   []chain.Block
		want bool
	}{
		{"none", nil, true},
		{"one", []chain.Block{b1}, true},
		{"a chain", []chain.Block{b1, b2, b3}, true},
		{"a gap", []chain.Block{b1, b3}, false},
		{"a block from another fork", []chain.Block{b1, other, b3}, false},
	} {
		if got := linked(tt.bs); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// The demo with periodic reorgs ends with every DONE applied exactly once:
// its audit passes (a failed audit is an error).
func TestDemoWithReorgsPassesItsAudit(t *testing.T) {
	if !testkit.Long() {
		t.Skip("runs the demo with reorgs for a few seconds")
	}
	cmd := demoCommand()
	cmd.SetArgs([]string{"--claims", "3", "--votes", "3", "--batches", "2", "--senders", "4", "--block-time", "60ms",
		"--fault-reorg-every", "3", "--fault-reorg-depth", "2"})
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := cmd.ExecuteContext(ctx); err != nil {
		t.Fatalf("demo: %v", err)
	}
}

// The demo on the in-process simulated EVM chain ends with its audit
// passing: every DONE applied exactly once through the router, read from
// the chain's receipts.
func TestDemoOnEVMPassesItsAudit(t *testing.T) {
	if !testkit.Long() {
		t.Skip("runs the demo on a simulated EVM chain for a few seconds")
	}
	cmd := demoCommand()
	cmd.SetArgs([]string{"--chain", "evm", "--claims", "3", "--votes", "3", "--senders", "3", "--block-time", "100ms"})
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := cmd.ExecuteContext(ctx); err != nil {
		t.Fatalf("demo --chain evm: %v", err)
	}
}

// --chain takes devchain or evm, and the fault flags only on devchain.
func TestDemoChainFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--chain", "besu"}, `--chain "besu": devchain or evm`},
		{[]string{"--chain", "evm", "--fault-drop", "0.1"}, "--fault-* flags are devchain's"},
	} {
		cmd := demoCommand()
		cmd.SetArgs(tc.args)
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		if err := cmd.ExecuteContext(t.Context()); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
}

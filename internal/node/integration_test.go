package node

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/api"
	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/testkit"
)

// Integration tests of the sequencer against devchain: a node is built with
// node.Build (SQLite store, in-process devchain on the real clock, dev
// senders), served on a loopback listener, fed the seed's voting flow, and
// audited against the chain once every transaction has ended — under each of
// devchain's fault knobs.

const (
	itBlockTime        = 50 * time.Millisecond
	itRetryDelay       = 100 * time.Millisecond
	itInclusionTimeout = 4
	// itToken is the token of the principal "it" (role read) the tests
	// read the API as.
	itToken        = "integration-test-token-0123"
	itSenders      = 4
	itQueues       = 6
	itPerQueue     = 10 // one CREATE_CLAIM_VOTING_ACCOUNT and nine SEND_CLAIM_VOTEs
	itCaseDeadline = 30 * time.Second
	itPollEvery    = 25 * time.Millisecond
	// itSettleBlocks is how many blocks the audit waits after the last record
	// ended, so that an attempt that could still land would have landed.
	itSettleBlocks = 2 * itInclusionTimeout
)

// itNode is a node under test, serving on a loopback listener.
type itNode struct {
	t    *testing.T
	n    *Node
	ctx  context.Context
	addr string
	// stopped is closed when Serve has returned, with serveErr.
	stopped  chan struct{}
	serveErr error
	// dc is the node's chain: in process, or the standalone one of a
	// node on a shared store (standaloneChain).
	dc *devchain.Chain
}

// startITNode builds and serves a node with the integration settings, changed
// by tune when it is set. The node is stopped and closed when the test ends.
func startITNode(t *testing.T, tune func(*Config)) *itNode {
	t.Helper()
	cfg := Config{
		Data:                   t.TempDir(),
		DevSenders:             itSenders,
		RetryDelay:             Duration(itRetryDelay),
		InclusionTimeoutBlocks: itInclusionTimeout,
		Devchain:               DevchainConfig{BlockTime: Duration(itBlockTime)},
		Principals:             []auth.PrincipalConfig{{Principal: "it", Token: itToken, Roles: []auth.Role{auth.RoleRead}}},
	}
	if tune != nil {
		tune(&cfg)
	}
	var dc *devchain.Chain
	if cfg.Store.postgres() && cfg.Chain == "" { // a shared store needs a chain of its own (ErrSharedInProcess)
		dc, cfg.Chain = standaloneChain(t, cfg.Devchain)
	}
	ctx, cancel := context.WithCancel(context.Background())
	n, err := Build(ctx, cfg, Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		cancel()
		t.Fatalf("build: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		cancel()
		n.Close()
		t.Fatalf("listen: %v", err)
	}
	h := &itNode{t: t, n: n, ctx: ctx, addr: ln.Addr().String(), stopped: make(chan struct{}), dc: dc}
	if n.Devchain != nil {
		h.dc = n.Devchain
	}
	go func() {
		h.serveErr = n.Serve(ctx, ln)
		close(h.stopped)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-h.stopped:
			if h.serveErr != nil {
				t.Errorf("serve: %v", h.serveErr)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("serve did not return 10s after its context ended")
		}
		if err := n.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	start := time.NewTimer(10 * time.Second)
	defer start.Stop()
	select {
	case <-n.Sequencer.Started():
	case <-h.stopped:
		t.Fatalf("node stopped before the sequencer started: %v", h.serveErr)
	case <-start.C:
		t.Fatal("sequencer did not start within 10s")
	}
	return h
}

// standaloneChain runs a devchain as `ordo devchain` does, with the node
// config's devchain settings, served on a loopback test server until the
// test ends; it returns the chain and its URL.
func standaloneChain(t *testing.T, c DevchainConfig) (*devchain.Chain, string) {
	t.Helper()
	dc, err := devchain.New(devchain.Config{Seed: c.Seed, BlockTime: time.Duration(c.BlockTime), MaxBlockTxs: c.MaxBlockTxs,
		DataDir: t.TempDir(), Faults: c.Faults.Update(), DevAccounts: 16})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(devchain.NewHandler(dc))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = dc.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
		_ = dc.Close() // ends the head streams, so that the server's Close need not wait on them
		srv.Close()
	})
	return dc, srv.URL
}

func (h *itNode) setFaults(u devchain.FaultUpdate) {
	h.t.Helper()
	if _, err := h.dc.SetFaults(h.ctx, u); err != nil {
		h.t.Fatalf("set faults: %v", err)
	}
}

func (h *itNode) head() uint64 {
	h.t.Helper()
	hd, err := h.n.Chain.Head(h.ctx)
	if err != nil {
		h.t.Fatalf("head: %v", err)
	}
	return hd.Height
}

// votingFlow is the seed's claim voting flow over queues queues:
// CREATE_CLAIM_VOTING_ACCOUNT first in each queue, then SEND_CLAIM_VOTEs,
// interleaved across queues.
func votingFlow(prefix string, queues, perQueue int) []sequencer.Intake {
	var out []sequencer.Intake
	for i := range perQueue {
		for q := range queues {
			name := fmt.Sprintf("%s-claim-%02d", prefix, q)
			typ, data := sequencer.SendClaimVote, fmt.Sprintf(`{"voter":"voter-%d","vote":%t}`, i, i%3 != 0)
			if i == 0 {
				typ, data = sequencer.CreateClaimVotingAccount, fmt.Sprintf(`{"title":"claim %d"}`, q)
			}
			out = append(out, sequencer.Intake{Queue: name, Type: typ, Data: []byte(data)})
		}
	}
	return out
}

func (h *itNode) submit(in []sequencer.Intake) []store.Transaction {
	h.t.Helper()
	res, err := h.n.Sequencer.Submit(h.ctx, in)
	if err != nil {
		h.t.Fatalf("submit: %v", err)
	}
	out := make([]store.Transaction, len(res))
	for i, r := range res {
		if !r.Created || r.Transaction.State != store.Waiting {
			h.t.Fatalf("submit %d: created %v, state %s", i, r.Created, r.Transaction.State)
		}
		out[i] = r.Transaction
	}
	return out
}

// list reads every transaction from the store, a page at a time.
func (h *itNode) list() []store.Transaction {
	h.t.Helper()
	const page = 25
	var out []store.Transaction
	for after := int64(0); ; {
		txs, err := h.n.Sequencer.Store().List(h.ctx, store.Filter{After: after, Limit: page})
		if err != nil {
			h.t.Fatalf("list: %v", err)
		}
		out = append(out, txs...)
		if len(txs) < page {
			return out
		}
		after = txs[len(txs)-1].Seq
	}
}

func terminal(s store.TxState) bool { return s == store.Done || s == store.Failed }

// waitTerminal polls the store until every transaction is DONE or FAILED.
// progress, when set, is called on each poll with the count of ended
// transactions. On the deadline it reports every unfinished transaction.
func (h *itNode) waitTerminal(deadline time.Time, want int, progress func(ended int)) []store.Transaction {
	h.t.Helper()
	tick := time.NewTicker(itPollEvery)
	defer tick.Stop()
	for {
		txs := h.list()
		ended := 0
		for _, tx := range txs {
			if terminal(tx.State) {
				ended++
			}
		}
		if len(txs) != want {
			h.t.Fatalf("store holds %d transactions, submitted %d", len(txs), want)
		}
		if ended == want {
			return txs
		}
		if progress != nil {
			progress(ended)
		}
		if time.Now().After(deadline) {
			h.diagnoseStuck(txs)
			h.t.FailNow()
		}
		select {
		case <-tick.C:
		case <-h.stopped:
			h.t.Fatalf("node stopped: %v", h.serveErr)
		}
	}
}

// waitHead waits until the chain's head reaches height.
func (h *itNode) waitHead(height uint64, deadline time.Time) {
	h.t.Helper()
	tick := time.NewTicker(itPollEvery)
	defer tick.Stop()
	for h.head() < height {
		if time.Now().After(deadline) {
			h.t.Fatalf("chain head %d did not reach %d by the deadline", h.head(), height)
		}
		select {
		case <-tick.C:
		case <-h.stopped:
			h.t.Fatalf("node stopped: %v", h.serveErr)
		}
	}
}

// chainTx is a transaction as included on the chain, with its zkApp.
type chainTx struct {
	chain.BlockTx
	Height uint64
	ZkApp  string
}

func (c chainTx) String() string {
	s := fmt.Sprintf("h%d/i%d %s %s.%s zk=%s from=%.8s nonce=%d fee=%d hash=%.12s", c.Height, c.Index, c.Status,
		c.Contract, c.Method, c.ZkApp, c.From, c.Nonce, c.Fee, c.Hash)
	if c.Reason != "" {
		s += " reason=" + c.Reason
	}
	return s
}

// chainTxs reads every block after from and returns their transactions in
// (height, index) order, and the blocks read.
func (h *itNode) chainTxs(from uint64) ([]chainTx, []chain.Block) {
	h.t.Helper()
	hd := h.head()
	var out []chainTx
	var blocks []chain.Block
	for lo := from + 1; lo <= hd; lo += 1000 {
		bs, err := h.dc.Blocks(h.ctx, lo, min(lo+999, hd))
		if err != nil {
			h.t.Fatalf("blocks %d-%d: %v", lo, hd, err)
		}
		blocks = append(blocks, bs...)
		for _, b := range bs {
			for _, bt := range b.Txs {
				var args struct {
					ZkApp string `json:"zkapp"`
				}
				_ = json.Unmarshal(bt.Args, &args)
				out = append(out, chainTx{BlockTx: bt, Height: b.Height, ZkApp: args.ZkApp})
			}
		}
	}
	return out, blocks
}

func describeTx(tx store.Transaction) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s queue=%s seq=%d type=%s state=%s retries=%d error=%q", tx.UID, tx.Queue, tx.Seq, tx.Type, tx.State, tx.Retries, tx.Error)
	for _, a := range tx.Attempts {
		fmt.Fprintf(&b, "\n    attempt %d: sender=%.8s nonce=%d fee=%d hash=%.12s outcome=%s height=%d at=%s", a.N, a.Sender, a.Nonce, a.Fee, a.Hash, a.Outcome, a.Height, a.At.Format("15:04:05.000"))
		if a.Error != "" {
			fmt.Fprintf(&b, " error=%q", a.Error)
		}
	}
	return b.String()
}

// describe prints a transaction with its attempts, history and the chain
// transactions that carry its uid as memo, for a failure report.
func (h *itNode) describe(tx store.Transaction, byMemo map[string][]chainTx) string {
	var b strings.Builder
	b.WriteString(describeTx(tx))
	if hist, err := h.n.Sequencer.Store().History(h.ctx, tx.UID); err == nil {
		for _, e := range hist {
			fmt.Fprintf(&b, "\n    history %s: %s -> %s binding=%s note=%q", e.At.Format("15:04:05.000"), e.From, e.To, e.Binding, e.Note)
		}
	}
	for _, a := range tx.Attempts {
		if a.Hash == "" {
			continue
		}
		if st, err := h.n.Chain.TxStatus(h.ctx, chain.Hash(a.Hash)); err == nil {
			fmt.Fprintf(&b, "\n    chain status of attempt %d: %s height=%d success=%v reason=%q", a.N, st.State, st.Height, st.Success, st.Reason)
		}
	}
	for _, c := range byMemo[tx.UID] {
		fmt.Fprintf(&b, "\n    chain tx: %s", c)
	}
	if len(byMemo[tx.UID]) == 0 {
		b.WriteString("\n    chain tx: none")
	}
	return b.String()
}

// diagnoseStuck reports every transaction that has not ended, with its queue's
// binding.
func (h *itNode) diagnoseStuck(txs []store.Transaction) {
	h.t.Helper()
	ctxs, _ := h.chainTxs(0)
	byMemo := map[string][]chainTx{}
	for _, c := range ctxs {
		byMemo[c.Memo] = append(byMemo[c.Memo], c)
	}
	queues, _ := h.n.Sequencer.Store().Queues(h.ctx)
	bind := map[string]store.Queue{}
	for _, q := range queues {
		bind[q.Name] = q
	}
	hd := h.head()
	fs, _ := h.dc.Faults(h.ctx)
	h.t.Errorf("deadline: not every transaction ended (head %d, mempool %d, faults %+v)", hd, h.dc.Stats().Mempool, fs)
	for _, tx := range txs {
		if terminal(tx.State) {
			continue
		}
		q := bind[tx.Queue]
		h.t.Errorf("stuck: %s\n    queue binding: state=%s sender=%.8s txUid=%s deadline=%d delayUntil=%s",
			h.describe(tx, byMemo), q.State, q.Sender, q.TxUID, q.Deadline, q.DelayUntil.Format("15:04:05.000"))
	}
}

// auditSummary is what an audit counted.
type auditSummary struct {
	done, failed, retries, retried int
	blocks                         uint64
	chainTxs, succeeded            int
	maxAttempts                    int
	// Every included transaction, succeeded or failed, per zkApp per block:
	// the most one (block, zkApp) pair holds, and the violations (two
	// transactions of one queue in a block; a record's transaction failed
	// "precondition").
	maxPerSlot, slotViolations int
}

// audit checks the store's records against the chain from block from + 1 on:
//   - each DONE uid is the memo of exactly one succeeded chain transaction,
//     whose hash is the record's included attempt; each FAILED uid of none;
//   - per queue, the succeeded transactions in (height, index) order follow
//     the records' Seq order (FIFO);
//   - no block holds two succeeded transactions on one zkApp;
//   - counting every included transaction, succeeded or failed, no block
//     holds two transactions of one queue, and no record's transaction
//     failed with reason "precondition" (see queueSlots);
//   - every chain transaction belongs to a record, and pays at least the
//     block's minimum fee;
//   - a record's attempts pay strictly rising fees.
func (h *itNode) audit(from uint64, txs []store.Transaction) auditSummary {
	h.t.Helper()
	t := h.t
	ctxs, blocks := h.chainTxs(from)
	byUID := map[string]store.Transaction{}
	for _, tx := range txs {
		byUID[tx.UID] = tx
	}
	byMemo := map[string][]chainTx{}
	succeeded := map[string][]chainTx{}
	s := auditSummary{chainTxs: len(ctxs)}
	for _, c := range ctxs {
		byMemo[c.Memo] = append(byMemo[c.Memo], c)
		if _, ok := byUID[c.Memo]; !ok {
			t.Errorf("chain tx with a memo that is no record: %s memo=%q", c, c.Memo)
		}
		if c.Status == chain.OutcomeSucceeded {
			succeeded[c.Memo] = append(succeeded[c.Memo], c)
			s.succeeded++
		}
	}
	bad := map[string]bool{}
	for _, tx := range txs {
		s.retries += tx.Retries
		if tx.Retries > 0 {
			s.retried++
		}
		s.maxAttempts = max(s.maxAttempts, len(tx.Attempts))
		switch tx.State {
		case store.Done:
			s.done++
			got := succeeded[tx.UID]
			if len(got) != 1 {
				t.Errorf("DONE %s is the memo of %d succeeded chain transactions, want exactly 1:\n  %s%s", tx.UID, len(got), h.describe(tx, byMemo), sameBlock(byMemo[tx.UID], ctxs, byUID))
				bad[tx.UID] = true
				continue
			}
			var inc *store.Attempt
			for i := range tx.Attempts {
				if tx.Attempts[i].Outcome == "included" {
					if inc != nil {
						t.Errorf("DONE %s has two included attempts:\n  %s", tx.UID, h.describe(tx, byMemo))
					}
					inc = &tx.Attempts[i]
				}
			}
			if inc == nil || inc.Hash != string(got[0].Hash) {
				t.Errorf("DONE %s: the store's included attempt is not the chain's succeeded transaction %s:\n  %s", tx.UID, got[0].Hash, h.describe(tx, byMemo))
				bad[tx.UID] = true
			}
		case store.Failed:
			s.failed++
			if got := succeeded[tx.UID]; len(got) != 0 {
				t.Errorf("FAILED %s is the memo of %d succeeded chain transactions, want none:\n  %s", tx.UID, len(got), h.describe(tx, byMemo))
				bad[tx.UID] = true
			}
		default:
			t.Errorf("%s is %s at the audit", tx.UID, tx.State)
		}
		for i := 1; i < len(tx.Attempts); i++ {
			if tx.Attempts[i].Fee <= tx.Attempts[i-1].Fee {
				t.Errorf("%s: attempt %d pays %d after attempt %d paid %d; fees must rise strictly:\n  %s", tx.UID,
					tx.Attempts[i].N, tx.Attempts[i].Fee, tx.Attempts[i-1].N, tx.Attempts[i-1].Fee, h.describe(tx, byMemo))
				break
			}
		}
	}
	// FIFO per queue and one succeeded change per zkApp per block.
	lastSeq := map[string]store.Transaction{}
	perBlock := map[string]chainTx{}
	for _, c := range ctxs {
		if c.Status != chain.OutcomeSucceeded {
			continue
		}
		tx, ok := byUID[c.Memo]
		if !ok {
			continue
		}
		if c.ZkApp != tx.Queue {
			t.Errorf("%s of queue %s changed zkApp %q", tx.UID, tx.Queue, c.ZkApp)
		}
		if prev, ok := lastSeq[tx.Queue]; ok && prev.Seq >= tx.Seq {
			t.Errorf("FIFO violated in queue %s: seq %d landed at h%d/i%d after seq %d:\n  %s\n  %s", tx.Queue, tx.Seq, c.Height, c.Index, prev.Seq,
				h.describe(tx, byMemo), h.describe(prev, byMemo))
		}
		lastSeq[tx.Queue] = tx
		key := fmt.Sprintf("%d/%s", c.Height, c.ZkApp)
		if prev, ok := perBlock[key]; ok {
			t.Errorf("two succeeded transactions on zkApp %s in block %d: %s (memo %s) and %s (memo %s)", c.ZkApp, c.Height, prev, prev.Memo, c, c.Memo)
		}
		perBlock[key] = c
	}
	problems, maxPerSlot := queueSlots(ctxs, byUID)
	s.maxPerSlot, s.slotViolations = maxPerSlot, len(problems)
	for _, p := range problems {
		var b strings.Builder
		b.WriteString(p.String())
		for _, uid := range p.uids {
			fmt.Fprintf(&b, "\n  %s", h.describe(byUID[uid], byMemo))
		}
		t.Errorf("%s", b.String())
	}
	h.checkRetryDelay(txs, blocks, byMemo)
	for _, b := range blocks {
		for _, bt := range b.Txs {
			if bt.Fee < b.MinFee {
				t.Errorf("block %d (min fee %d) includes %s paying %d", b.Height, b.MinFee, bt.Hash, bt.Fee)
			}
		}
	}
	if len(blocks) > 0 {
		s.blocks = blocks[len(blocks)-1].Height - from
	}
	return s
}

// slotProblem is a violation of one transaction per queue per block.
type slotProblem struct {
	kind   string // "two of one queue" or "precondition"
	height uint64
	queue  string
	// in is every transaction on the queue's zkApp in the block; uids the
	// records involved, each once.
	in   []chainTx
	uids []string
}

func (p slotProblem) String() string {
	var b strings.Builder
	switch p.kind {
	case slotTwoOfOneQueue:
		fmt.Fprintf(&b, "TWO TXS OF ONE QUEUE IN ONE BLOCK: queue %s, block %d, records %s", p.queue, p.height, strings.Join(p.uids, ", "))
	default:
		fmt.Fprintf(&b, "PRECONDITION FAILURE: %s of queue %s failed %q in block %d", p.uids[0], p.queue, devchain.ReasonPrecondition, p.height)
	}
	for _, c := range p.in {
		fmt.Fprintf(&b, "\n  in the block: %s memo=%s", c, c.Memo)
	}
	return b.String()
}

const (
	slotTwoOfOneQueue = "two of one queue"
	slotPrecondition  = "precondition"
)

// queueSlots counts every included transaction, succeeded or failed, per
// zkApp per block (ctxs in (height, index) order). A queue has one
// transaction in flight and every zkapp method changes its zkApp, so the
// sequencer must never have two transactions of one queue in one block —
// the second fails "precondition", or (a failed attempt reorged back beside
// its retry) both land — and no record's transaction may fail
// "precondition". It returns the violations, and the most transactions one
// zkApp had in one block.
func queueSlots(ctxs []chainTx, byUID map[string]store.Transaction) (problems []slotProblem, maxPerSlot int) {
	for lo := 0; lo < len(ctxs); {
		hi := lo
		for hi < len(ctxs) && ctxs[hi].Height == ctxs[lo].Height {
			hi++
		}
		block := ctxs[lo:hi]
		lo = hi
		perZkApp := map[string][]chainTx{}
		perQueue := map[string][]chainTx{}
		var queues []string
		for _, c := range block {
			perZkApp[c.ZkApp] = append(perZkApp[c.ZkApp], c)
			maxPerSlot = max(maxPerSlot, len(perZkApp[c.ZkApp]))
			if tx, ok := byUID[c.Memo]; ok {
				if len(perQueue[tx.Queue]) == 0 {
					queues = append(queues, tx.Queue)
				}
				perQueue[tx.Queue] = append(perQueue[tx.Queue], c)
			}
		}
		uids := func(cs []chainTx) []string {
			var out []string
			seen := map[string]bool{}
			for _, c := range cs {
				if _, ok := byUID[c.Memo]; ok && !seen[c.Memo] {
					seen[c.Memo] = true
					out = append(out, c.Memo)
				}
			}
			return out
		}
		for _, q := range queues {
			if cs := perQueue[q]; len(cs) > 1 {
				problems = append(problems, slotProblem{kind: slotTwoOfOneQueue, height: cs[0].Height, queue: q, in: perZkApp[cs[0].ZkApp], uids: uids(cs)})
			}
		}
		for _, c := range block {
			tx, ok := byUID[c.Memo]
			if !ok || c.Status == chain.OutcomeSucceeded || c.Reason != devchain.ReasonPrecondition {
				continue
			}
			involved := []string{c.Memo} // the failed one first
			for _, u := range uids(perZkApp[c.ZkApp]) {
				if u != c.Memo {
					involved = append(involved, u)
				}
			}
			problems = append(problems, slotProblem{kind: slotPrecondition, height: c.Height, queue: tx.Queue, in: perZkApp[c.ZkApp], uids: involved})
		}
	}
	return problems, maxPerSlot
}

// sameBlock describes the succeeded transactions on the same zkApp in the
// blocks where the chain transactions mine failed.
func sameBlock(mine, all []chainTx, byUID map[string]store.Transaction) string {
	var b strings.Builder
	for _, m := range mine {
		if m.Status == chain.OutcomeSucceeded {
			continue
		}
		for _, c := range all {
			if c.Height == m.Height && c.ZkApp == m.ZkApp && c.Status == chain.OutcomeSucceeded {
				o := byUID[c.Memo]
				fmt.Fprintf(&b, "\n    same block, same zkApp, succeeded: %s memo=%s (seq %d, %s, state %s)", c, c.Memo, o.Seq, o.Type, o.State)
			}
		}
	}
	return b.String()
}

// checkRetryDelay: an attempt that failed on chain is retried RetryDelay after
// the sequencer saw the failure, which is after the failing block was made; so
// the next attempt lands in a block at least RetryDelay younger. (Skipped after
// reorgs, which move transactions to younger blocks.)
func (h *itNode) checkRetryDelay(txs []store.Transaction, blocks []chain.Block, byMemo map[string][]chainTx) {
	h.t.Helper()
	if fs, _ := h.dc.Faults(h.ctx); fs.Reorgs > 0 {
		return
	}
	type loc struct {
		at     time.Time
		height uint64
		ok     bool
	}
	where := map[string]loc{}
	for _, b := range blocks {
		for _, bt := range b.Txs {
			where[string(bt.Hash)] = loc{b.Time, b.Height, bt.Status == chain.OutcomeSucceeded}
		}
	}
	delay := time.Duration(h.n.Config.RetryDelay)
	short := 0
	for _, tx := range txs {
		for i := 1; i < len(tx.Attempts); i++ {
			prev, okPrev := where[tx.Attempts[i-1].Hash]
			next, okNext := where[tx.Attempts[i].Hash]
			if !okPrev || !okNext || prev.ok {
				continue
			}
			if gap := next.at.Sub(prev.at); gap < delay {
				short++
				if short <= 3 {
					h.t.Errorf("%s: attempt %d failed on chain in block %d at %s and attempt %d landed in block %d at %s, %s later; the retry delay is %s:\n  %s",
						tx.UID, i, prev.height, prev.at.Format("15:04:05.000"), i+1, next.height, next.at.Format("15:04:05.000"), gap, delay, h.describe(tx, byMemo))
				}
			}
		}
	}
	if short > 3 {
		h.t.Errorf("... %d retries in all came sooner than the retry delay %s", short, delay)
	}
}

// faultCase is one fault knob setting of the integration run.
type faultCase struct {
	name string
	// tune changes the node's configuration.
	tune func(*Config)
	// start is set before the flow is submitted.
	start *devchain.FaultUpdate
	// afterSubmit is set right after the flow is submitted.
	afterSubmit *devchain.FaultUpdate
	// midRun is set once a third of the transactions have ended.
	midRun *devchain.FaultUpdate
	// wantRetries: the knob must cause retries. noRetries: it must not.
	wantRetries, noRetries bool
	// check makes case-specific assertions after the audit.
	check func(t *testing.T, h *itNode, txs []store.Transaction, s auditSummary)
}

func ptr[T any](v T) *T { return &v }

const (
	itSpikeFactor = 5
	itReorgDepth  = 2
)

func TestIntegrationSequencerFaults(t *testing.T) {
	cases := []faultCase{
		{name: "none", start: &devchain.FaultUpdate{}, noRetries: true,
			check: func(t *testing.T, h *itNode, txs []store.Transaction, s auditSummary) {
				if s.failed != 0 || s.done != len(txs) {
					t.Errorf("without faults: done %d, failed %d of %d; want all DONE", s.done, s.failed, len(txs))
				}
				for _, tx := range txs {
					if len(tx.Attempts) != 1 {
						t.Errorf("without faults %s took %d attempts:\n  %s", tx.UID, len(tx.Attempts), describeTx(tx))
					}
				}
			}},
		{name: "reject", start: &devchain.FaultUpdate{RejectProb: ptr(0.3)}, wantRetries: true,
			check: wantAttemptError("fault injection")},
		{name: "drop", start: &devchain.FaultUpdate{DropProb: ptr(0.3)}, wantRetries: true},
		{name: "revert", start: &devchain.FaultUpdate{RevertProb: ptr(0.3)}, wantRetries: true,
			check: wantAttemptError(devchain.ReasonReverted)},
		{name: "feeSpike", afterSubmit: &devchain.FaultUpdate{FeeSpike: &devchain.FeeSpike{Factor: itSpikeFactor, Blocks: 10}}, wantRetries: true,
			check: checkFeeSpike},
		{name: "stall", midRun: &devchain.FaultUpdate{Stall: ptr(devchain.Duration(time.Second))},
			check: checkStall},
		// A chain that reorgs up to depth d needs d+1 confirmations before
		// DONE (Config.Confirmations); with the default of 1 a reorg returns
		// DONE transactions to the mempool, where they can fail.
		{name: "reorg", start: &devchain.FaultUpdate{ReorgEvery: ptr(uint64(5)), ReorgDepth: ptr(uint64(itReorgDepth))},
			tune: func(c *Config) { c.Confirmations = itReorgDepth + 1 },
			check: func(t *testing.T, h *itNode, txs []store.Transaction, s auditSummary) {
				// devchain reorgs only when the head holds transactions, and
				// only the sequencer sends any: each reorg returned some of
				// its included attempts to the mempool.
				fs, _ := h.dc.Faults(h.ctx)
				if fs.Reorgs == 0 {
					t.Errorf("no reorg happened")
				}
				t.Logf("reorgs: %d", fs.Reorgs)
				n := 0
				for _, tx := range txs {
					if tx.Retries > 0 && n < 3 {
						n++
						t.Logf("retried under reorgs: %s", describeTx(tx))
					}
				}
			}},
		// Reverts under reorgs, with depth+1 confirmations: an attempt that
		// failed on chain may be reorged back into the mempool, so its
		// failure is not final before Confirmations blocks hold it either;
		// a retry that took a fresh nonce sooner could land next to it (two
		// transactions of one queue in a block: one fails "precondition", or
		// both apply).
		{name: "reorgRevert", start: &devchain.FaultUpdate{ReorgEvery: ptr(uint64(3)), ReorgDepth: ptr(uint64(2)), RevertProb: ptr(0.3)},
			tune: func(c *Config) { c.Confirmations = 3 }, wantRetries: true, check: checkReorgRevert},
		{name: "reorgRevertDeep", start: &devchain.FaultUpdate{ReorgEvery: ptr(uint64(4)), ReorgDepth: ptr(uint64(3)), RevertProb: ptr(0.3)},
			tune: func(c *Config) { c.Confirmations = 4 }, wantRetries: true, check: checkReorgRevert},
		// As reorgRevert, with retries 10ms after a failure: a periodic reorg
		// (every 3 blocks, depth 2) then comes after a retry of an attempt
		// that failed in a block it replaces, not with it, so a retry that
		// took a fresh nonce before the failure was confirmed lands in the
		// block after its reorged-back failed attempt or in the same one.
		{name: "reorgRevertFastRetry", start: &devchain.FaultUpdate{ReorgEvery: ptr(uint64(3)), ReorgDepth: ptr(uint64(2)), RevertProb: ptr(0.3)},
			tune: func(c *Config) {
				c.Confirmations = 3
				c.RetryDelay = Duration(10 * time.Millisecond)
			}, wantRetries: true, check: checkReorgRevert},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if !testkit.Long() && tc.name != "none" {
				t.Skip("fault knobs run on the real clock for seconds each; -short runs the baseline only")
			}
			runFaultCase(t, tc)
		})
	}
}

func runFaultCase(t *testing.T, tc faultCase) {
	began := time.Now()
	deadline := began.Add(itCaseDeadline)
	h := startITNode(t, tc.tune)
	if tc.start != nil {
		h.setFaults(*tc.start)
	}
	from := h.head()
	flow := votingFlow(tc.name, itQueues, itPerQueue)
	h.submit(flow)
	if tc.afterSubmit != nil {
		h.setFaults(*tc.afterSubmit)
	}
	midSet := false
	h.waitTerminal(deadline, len(flow), func(ended int) {
		if tc.midRun != nil && !midSet && ended >= len(flow)/3 {
			midSet = true
			h.setFaults(*tc.midRun)
			t.Logf("mid-run faults set at %d/%d ended, head %d", ended, len(flow), h.head())
		}
	})
	if tc.midRun != nil && !midSet {
		t.Errorf("the run ended before the mid-run faults were set")
	}
	// Let every attempt that could still land do so, with reorgs off so that
	// the chain the audit reads is final.
	h.setFaults(devchain.FaultUpdate{ReorgEvery: ptr(uint64(0))})
	h.waitHead(h.head()+itSettleBlocks, deadline.Add(5*time.Second))
	if mp := h.dc.Stats().Mempool; mp != 0 {
		t.Errorf("%d transactions still pending on chain after every record ended and %d more blocks", mp, itSettleBlocks)
	}
	txs := h.list()
	s := h.audit(from, txs)
	t.Logf("%s: done %d, failed %d, retries %d (%d transactions retried, max %d attempts), blocks %d, chain txs %d (%d succeeded), "+
		"max %d txs on one zkApp in a block, %d slot violations, %s",
		tc.name, s.done, s.failed, s.retries, s.retried, s.maxAttempts, s.blocks, s.chainTxs, s.succeeded,
		s.maxPerSlot, s.slotViolations, time.Since(began).Round(time.Millisecond))
	if tc.wantRetries && s.retries == 0 {
		t.Errorf("%s: no transaction was retried", tc.name)
	}
	if tc.noRetries && s.retries != 0 {
		t.Errorf("%s: %d retries, want none", tc.name, s.retries)
	}
	if tc.check != nil {
		tc.check(t, h, txs, s)
	}
}

// wantAttemptError checks that some attempt failed with the error the knob
// causes.
func wantAttemptError(sub string) func(*testing.T, *itNode, []store.Transaction, auditSummary) {
	return func(t *testing.T, h *itNode, txs []store.Transaction, s auditSummary) {
		for _, tx := range txs {
			for _, a := range tx.Attempts {
				if strings.Contains(a.Error, sub) {
					return
				}
			}
		}
		t.Errorf("no attempt failed with %q", sub)
	}
}

// checkReorgRevert: reorgs happened and attempts reverted (the audit has
// checked the rest: each DONE uid in exactly one succeeded chain transaction,
// each FAILED in none, never two transactions of one queue in a block).
func checkReorgRevert(t *testing.T, h *itNode, txs []store.Transaction, s auditSummary) {
	fs, err := h.dc.Faults(h.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if fs.Reorgs == 0 {
		t.Errorf("no reorg happened")
	}
	wantAttemptError(devchain.ReasonReverted)(t, h, txs, s)
	t.Logf("reorgs: %d, confirmations %d", fs.Reorgs, h.n.Config.Confirmations)
}

// checkFeeSpike: attempts priced under the spiked minimum fee stayed pending
// until they timed out, and their retries paid at least the spiked fee.
func checkFeeSpike(t *testing.T, h *itNode, txs []store.Transaction, s auditSummary) {
	spiked := uint64(0)
	_, blocks := h.chainTxs(0)
	for _, b := range blocks {
		spiked = max(spiked, b.MinFee)
	}
	base := h.dc.Config().MinFee
	if spiked != base*itSpikeFactor {
		t.Fatalf("highest block minimum fee %d, want %d", spiked, base*itSpikeFactor)
	}
	repriced := 0
	for _, tx := range txs {
		if len(tx.Attempts) < 2 || tx.Attempts[0].Fee >= spiked {
			continue
		}
		for _, a := range tx.Attempts[1:] {
			if a.Fee >= spiked {
				repriced++
				hist, err := h.n.Sequencer.Store().History(h.ctx, tx.UID)
				if err != nil {
					t.Fatal(err)
				}
				timedOut := false
				for _, e := range hist {
					timedOut = timedOut || e.To == store.Retry && strings.Contains(e.Note, "not included within")
				}
				if !timedOut {
					t.Errorf("%s was repriced over the spike without a timeout:\n  %s", tx.UID, h.describe(tx, nil))
				}
				break
			}
		}
	}
	if repriced == 0 {
		for _, tx := range txs {
			if tx.Retries > 0 {
				t.Logf("retried: %s", describeTx(tx))
			}
		}
		t.Errorf("no transaction priced under the spike (%d) was retried at the spiked fee", spiked)
	}
	t.Logf("fee spike: %d transactions repriced from under %d to at least it", repriced, spiked)
}

// checkStall: the chain made no block for the stall's duration.
func checkStall(t *testing.T, h *itNode, txs []store.Transaction, s auditSummary) {
	_, blocks := h.chainTxs(0)
	var gap time.Duration
	for i := 1; i < len(blocks); i++ {
		gap = max(gap, blocks[i].Time.Sub(blocks[i-1].Time))
	}
	if gap < 900*time.Millisecond {
		t.Errorf("longest gap between blocks %s, want the 1s stall", gap)
	}
	if s.failed != 0 {
		t.Errorf("a stall alone failed %d transactions", s.failed)
	}
	t.Logf("stall: longest gap between blocks %s", gap.Round(time.Millisecond))
}

// getTx reads GET /v1/transactions/{uid} from the node's listener.
func (h *itNode) getTx(uid string) api.TransactionResponse {
	h.t.Helper()
	req, err := http.NewRequestWithContext(h.ctx, http.MethodGet, "http://"+h.addr+"/v1/transactions/"+uid, nil)
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+itToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatalf("GET %s: %v", uid, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		h.t.Fatalf("GET /v1/transactions/%s: status %d", uid, resp.StatusCode)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		h.t.Errorf("GET %s: content type %q", uid, ct)
	}
	var got api.TransactionResponse
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		h.t.Fatalf("GET %s: decode: %v", uid, err)
	}
	return got
}

// checkHistory checks a finished transaction's history: the enqueue into
// WAITING at CreatedAt, then WAITING -> ... -> DONE or FAILED, each entry
// leaving the state the one before entered, one RETRY per retry, in time
// order; and its attempts made no earlier than its intake.
func checkHistory(t *testing.T, got api.TransactionResponse) {
	t.Helper()
	tx, hist := got.Transaction, got.History
	var path []string
	for _, e := range hist {
		path = append(path, fmt.Sprintf("%s@%s", e.To, e.At.Format("05.000000")))
	}
	where := fmt.Sprintf("%s (created %s, history %s)", tx.UID, tx.CreatedAt.Format("05.000000"), strings.Join(path, " -> "))
	if len(hist) < 2 {
		t.Errorf("%s: history has %d entries, want at least the enqueue and an end in DONE or FAILED", where, len(hist))
		return
	}
	if hist[0].From != "" || hist[0].To != store.Waiting || !hist[0].At.Equal(tx.CreatedAt) {
		t.Errorf("%s: history starts %q -> %s at %s, want the enqueue into WAITING at the creation time", where, hist[0].From, hist[0].To, hist[0].At)
	}
	if last := hist[len(hist)-1]; last.To != tx.State || !terminal(last.To) {
		t.Errorf("%s: history ends in %s, the record is %s", where, last.To, tx.State)
	}
	retries := 0
	for i, e := range hist {
		if e.UID != tx.UID {
			t.Errorf("%s: history entry %d is of %s", where, i, e.UID)
		}
		if e.To == store.Retry {
			retries++
		}
		if i == 0 {
			continue
		}
		if !e.From.Valid() || e.From != hist[i-1].To {
			t.Errorf("%s: history entry %d goes %s -> %s after entry %d ended in %s", where, i, e.From, e.To, i-1, hist[i-1].To)
		}
		if terminal(e.From) {
			t.Errorf("%s: history entry %d leaves the final state %s", where, i, e.From)
		}
		if e.At.Before(hist[i-1].At) {
			t.Errorf("%s: history entry %d (%s -> %s) at %s is earlier than entry %d (%s -> %s) at %s", where, i, e.From, e.To,
				e.At.Format("15:04:05.000000"), i-1, hist[i-1].From, hist[i-1].To, hist[i-1].At.Format("15:04:05.000000"))
		}
	}
	if retries != tx.Retries {
		t.Errorf("%s: history has %d entries into RETRY, the record %d retries", where, retries, tx.Retries)
	}
	for _, a := range tx.Attempts {
		if a.At.Before(tx.CreatedAt) {
			t.Errorf("%s: attempt %d is dated %s, before the transaction was created", where, a.N, a.At.Format("15:04:05.000000"))
		}
	}
}

// TestIntegrationHTTPTransactionHistory reads the transactions of a run with
// reverts over the node's HTTP API: every transaction's history is a
// consistent path from its enqueue to DONE or FAILED, and a retried
// transaction shows its attempts (rising fees, the last one included) and its
// history WAITING -> REVISION -> RETRY -> REVISION -> ... -> DONE.
//
// A receipt may reach the sequencer before the acknowledgement of the send
// (WAITING -> DONE, or WAITING -> RETRY after a revert, skipping REVISION);
// such paths are consistent too, so the retried transaction checked in detail
// is the most retried one whose first move was WAITING -> REVISION.
func TestIntegrationHTTPTransactionHistory(t *testing.T) {
	deadline := time.Now().Add(itCaseDeadline)
	h := startITNode(t, nil)
	h.setFaults(devchain.FaultUpdate{RevertProb: ptr(0.4)})
	flow := votingFlow("http", 3, 5)
	h.submit(flow)
	txs := h.waitTerminal(deadline, len(flow), nil)

	var picked *api.TransactionResponse
	retried := 0
	for _, rec := range txs {
		got := h.getTx(rec.UID)
		checkHistory(t, got)
		tx := got.Transaction
		if tx.UID != rec.UID || tx.State != rec.State || tx.Retries != rec.Retries || tx.Queue != rec.Queue || tx.Seq != rec.Seq || len(tx.Attempts) != len(rec.Attempts) {
			t.Errorf("GET %s: state %s, retries %d, queue %s, seq %d, %d attempts; the store has %s, %d, %s, %d, %d", rec.UID,
				tx.State, tx.Retries, tx.Queue, tx.Seq, len(tx.Attempts), rec.State, rec.Retries, rec.Queue, rec.Seq, len(rec.Attempts))
		}
		if tx.State != store.Done || tx.Retries == 0 {
			continue
		}
		retried++
		if len(got.History) > 1 && got.History[1].From == store.Waiting && got.History[1].To == store.Revision &&
			(picked == nil || tx.Retries > picked.Transaction.Retries) {
			picked = &got
		}
	}
	if picked == nil {
		t.Fatalf("of %d transactions retried and then DONE, none was first dispatched WAITING -> REVISION", retried)
	}
	tx, hist := picked.Transaction, picked.History
	if len(tx.Attempts) < 2 {
		t.Fatalf("GET %s: %d attempts with %d retries, want at least 2", tx.UID, len(tx.Attempts), tx.Retries)
	}
	included := 0
	for i, a := range tx.Attempts {
		if a.N != i+1 || a.Hash == "" || a.Sender == "" || a.Fee == 0 || a.At.IsZero() {
			t.Errorf("attempt %d: %+v", i+1, a)
		}
		if a.Outcome == "included" {
			included++
		}
		if i > 0 && a.Fee <= tx.Attempts[i-1].Fee {
			t.Errorf("attempt %d pays %d after %d", a.N, a.Fee, tx.Attempts[i-1].Fee)
		}
	}
	if included != 1 || tx.Attempts[len(tx.Attempts)-1].Outcome != "included" {
		t.Errorf("want exactly the last attempt included: %s", describeTx(tx))
	}
	var path []string
	for _, e := range hist {
		path = append(path, string(e.To))
	}
	t.Logf("%s: %d attempts, retries %d, history (enqueued) %s", tx.UID, len(tx.Attempts), tx.Retries, strings.Join(path, " -> "))
	if len(hist) < 5 {
		t.Fatalf("history has %d entries, want at least (enqueued) WAITING, WAITING -> REVISION -> RETRY -> REVISION -> DONE", len(hist))
	}
	if last := hist[len(hist)-1]; last.From != store.Revision || last.To != store.Done {
		t.Errorf("history ends %s -> %s, want REVISION -> DONE", last.From, last.To)
	}
	// Under reverts alone every retry is REVISION -> RETRY -> REVISION.
	for i := 1; i < len(hist); i++ {
		if e := hist[i]; e.To == store.Retry && e.From != store.Revision || e.From == store.Retry && e.To != store.Revision {
			t.Errorf("history entry %d goes %s -> %s", i, e.From, e.To)
		}
	}

	// An unknown uid is a 404 with the stable error code.
	req, err := http.NewRequestWithContext(h.ctx, http.MethodGet, "http://"+h.addr+"/v1/transactions/tx_unknown", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+itToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var e api.Error
	if resp.StatusCode != http.StatusNotFound || json.NewDecoder(resp.Body).Decode(&e) != nil || e.Error.Code != api.CodeNotFound {
		t.Errorf("GET unknown uid: status %d, code %q", resp.StatusCode, e.Error.Code)
	}
}

package sequencer_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/sequencer/dispatch"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/sqlite"
	"github.com/ordolabs/ordo/internal/testkit"
)

const typ = sequencer.CreateClaimVotingAccount

// rig is a sequencer over SQLite and an in-process devchain, with its logs
// in a buffer and its metrics in a registry.
type rig struct {
	t     *testing.T
	chain *devchain.Chain
	store *sqlite.Store
	// dbPath is the store's file (another Store opened on it is another
	// node sharing the database).
	dbPath string
	clk    clock.Clock
	cfg    sequencer.Config
	seq    *sequencer.Node
	reg    *prometheus.Registry
	logs   *testkit.LogBuffer
	stop   func()
}

type rigOptions struct {
	faults     devchain.FaultUpdate
	senders    int
	maxRetries int
	// blockTime 0: blocks on Mine only.
	blockTime time.Duration
	// clk defaults to the wall clock.
	clk clock.Clock
	// tune changes the sequencer's config before it is built.
	tune func(*sequencer.Config)
}

func newRig(t *testing.T, o rigOptions) *rig {
	t.Helper()
	if o.senders == 0 {
		o.senders = 2
	}
	if o.maxRetries == 0 {
		o.maxRetries = 2
	}
	if o.clk == nil {
		o.clk = clock.Real{}
	}
	ctx := context.Background()
	c, err := devchain.New(devchain.Config{BlockTime: o.blockTime, Faults: o.faults, Clock: o.clk})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if o.blockTime > 0 {
		cctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { defer close(done); _ = c.Run(cctx) }()
		t.Cleanup(func() { cancel(); <-done })
	}
	dbPath := filepath.Join(t.TempDir(), "ordo.db")
	st, err := sqlite.Open(ctx, dbPath, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	accts, err := c.DevAccounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var senders []sequencer.SenderConfig
	for _, a := range accts[:o.senders] {
		k, _ := c.DevKey(a.Address)
		senders = append(senders, sequencer.SenderConfig{ID: a.Address, Key: k})
	}
	d, err := dispatch.NewZkAppDispatcher(typ, o.maxRetries, c, func(id string) chain.Key { k, _ := c.DevKey(chain.Address(id)); return chain.Ed25519Key(k) })
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{t: t, chain: c, store: st, dbPath: dbPath, clk: o.clk}
	r.cfg = sequencer.Config{Store: st, Chain: c, Clock: o.clk, Dispatchers: map[string]sequencer.Dispatcher{typ: d}, Senders: senders,
		Policies: map[string]sequencer.Policy{typ: {Delay: 10 * time.Millisecond}}, InclusionTimeout: 3, PollInterval: 20 * time.Millisecond}
	if o.tune != nil {
		o.tune(&r.cfg)
	}
	r.start()
	t.Cleanup(func() { r.stop() })
	return r
}

// start builds and runs a sequencer on the rig's store and chain, with new
// metrics and logs, and waits until it has started.
func (r *rig) start() {
	r.t.Helper()
	r.reg, r.logs = prometheus.NewRegistry(), &testkit.LogBuffer{}
	cfg := r.cfg
	cfg.Metrics = sequencer.NewMetrics(r.reg)
	cfg.Logger = slog.New(slog.NewJSONHandler(r.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	seq, err := sequencer.NewNode(cfg)
	if err != nil {
		r.t.Fatal(err)
	}
	r.seq = seq
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- seq.Run(ctx) }()
	var once sync.Once
	r.stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				r.t.Errorf("sequencer: %v", err)
			}
		})
	}
	select {
	case <-seq.Started():
	case err := <-done:
		r.t.Fatalf("sequencer stopped while starting: %v", err)
	case <-time.After(10 * time.Second):
		r.t.Fatal("sequencer did not start")
	}
}

func (r *rig) submit(queue, typ, data string) store.Transaction {
	r.t.Helper()
	res, err := r.seq.Submit(context.Background(), []sequencer.Intake{{Queue: queue, Type: typ, Data: json.RawMessage(data)}})
	if err != nil {
		r.t.Fatal(err)
	}
	return res[0].Transaction
}

// waitFor polls until cond holds.
func waitFor(t *testing.T, what string, within time.Duration, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(within); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, within)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (r *rig) waitState(uid string, want store.TxState) store.Transaction {
	r.t.Helper()
	var got store.Transaction
	waitFor(r.t, uid+" "+string(want), 20*time.Second, func() bool {
		var err error
		got, err = r.store.Get(context.Background(), uid)
		return err == nil && got.State == want
	})
	return got
}

// waitLog waits for a line with msg.
func (r *rig) waitLog(msg string) {
	r.t.Helper()
	waitFor(r.t, "a "+msg+" line", 5*time.Second, func() bool { return len(r.logs.Records(r.t, msg)) > 0 })
}

func (r *rig) count(state store.TxState) int {
	counts, err := r.store.CountByState(context.Background())
	if err != nil {
		r.t.Fatal(err)
	}
	return counts[state]
}

func str(v any) string  { s, _ := v.(string); return s }
func num(v any) float64 { f, _ := v.(float64); return f }

// Every attempt that fails at inclusion: a warning per retry with its
// reason, an info per new attempt with its fee and the fee before, an error
// for the FAILED with its error; the metrics count them by type and reason.
func TestLogsRetriesAndFailed(t *testing.T) {
	revert := 1.0
	r := newRig(t, rigOptions{faults: devchain.FaultUpdate{RevertProb: &revert}, blockTime: 20 * time.Millisecond, maxRetries: 2})
	tx := r.submit("q-revert", typ, `{}`)
	r.waitState(tx.UID, store.Failed)
	r.waitLog("transaction failed") // logged just after the commit

	retries := r.logs.Records(t, "transaction retry")
	if len(retries) != 2 {
		t.Fatalf("%d retry lines, want 2:\n%s", len(retries), r.logs)
	}
	for _, l := range retries {
		if l["level"] != "WARN" || l["uid"] != tx.UID || l["queue"] != "q-revert" || str(l["sender"]) == "" || l["type"] != typ ||
			l["class"] != sequencer.ReasonFailedInclusion || !strings.Contains(str(l["reason"]), "failed at inclusion: reverted") {
			t.Fatalf("retry line %v", l)
		}
	}
	attempts := r.logs.Records(t, "retry attempt")
	if len(attempts) != 2 {
		t.Fatalf("%d retry attempt lines, want 2:\n%s", len(attempts), r.logs)
	}
	for i, l := range attempts {
		if l["level"] != "INFO" || l["uid"] != tx.UID || num(l["attempt"]) != float64(i+2) || num(l["fee"]) <= num(l["prevFee"]) || num(l["prevFee"]) == 0 ||
			!strings.Contains(str(l["reason"]), "failed at inclusion") {
			t.Fatalf("retry attempt line %v", l)
		}
	}
	failed := r.logs.Records(t, "transaction failed")
	if len(failed) != 1 {
		t.Fatalf("%d failed lines, want 1:\n%s", len(failed), r.logs)
	}
	if l := failed[0]; l["level"] != "ERROR" || l["uid"] != tx.UID || l["queue"] != "q-revert" || str(l["sender"]) == "" ||
		l["class"] != sequencer.ReasonFailedInclusion || !strings.Contains(str(l["err"]), "reverted") || str(l["reason"]) == "" {
		t.Fatalf("failed line %v", l)
	}
	if got := testkit.Metric(t, r.reg, "ordo_sequencer_retries_total", "type", typ, "reason", sequencer.ReasonFailedInclusion); got != 2 {
		t.Fatalf("retries_total %v", got)
	}
	if got := testkit.Metric(t, r.reg, "ordo_sequencer_failures_total", "type", typ, "reason", sequencer.ReasonFailedInclusion); got != 1 {
		t.Fatalf("failures_total %v", got)
	}
	if got := testkit.Metric(t, r.reg, "ordo_sequencer_store_commit_seconds"); got == 0 {
		t.Fatal("no store commit observed")
	}
	if got := testkit.Metric(t, r.reg, "ordo_sequencer_store_commit_batch_records"); got == 0 {
		t.Fatal("no batch size observed")
	}
	if got := testkit.Metric(t, r.reg, "ordo_sequencer_effect_seconds", "effect", "submit"); got < 3 {
		t.Fatalf("submit effects %v, want 3 or more", got)
	}
	waitFor(t, "senders free", 5*time.Second, func() bool {
		return testkit.Metric(t, r.reg, "ordo_sequencer_senders", "state", "free") == 2 && testkit.Metric(t, r.reg, "ordo_sequencer_senders", "state", "bound") == 0
	})
	if got := testkit.Metric(t, r.reg, "ordo_sequencer_head_height"); got == 0 {
		t.Fatal("no head seen")
	}
}

// Every dispatch error is a warning with its error; out of retries, the
// FAILED's class is the last retry's reason.
func TestLogsDispatchErrors(t *testing.T) {
	reject := 1.0
	r := newRig(t, rigOptions{faults: devchain.FaultUpdate{RejectProb: &reject}, blockTime: 20 * time.Millisecond, maxRetries: 1})
	tx := r.submit("q-reject", typ, `{}`)
	r.waitState(tx.UID, store.Failed)
	r.waitLog("transaction failed") // logged just after the commit
	errs := r.logs.Records(t, "dispatch error")
	if len(errs) != 2 {
		t.Fatalf("%d dispatch error lines, want 2:\n%s", len(errs), r.logs)
	}
	for i, l := range errs {
		if l["level"] != "WARN" || l["uid"] != tx.UID || l["queue"] != "q-reject" || str(l["sender"]) == "" || num(l["attempt"]) != float64(i+1) ||
			!strings.Contains(str(l["err"]), "rejected") || num(l["fee"]) == 0 {
			t.Fatalf("dispatch error line %v", l)
		}
	}
	if got := testkit.Metric(t, r.reg, "ordo_sequencer_retries_total", "reason", sequencer.ReasonDispatchError); got != 1 {
		t.Fatalf("retries_total{dispatch_error} %v", got)
	}
	failed := r.logs.Records(t, "transaction failed")
	if len(failed) != 1 || failed[0]["class"] != sequencer.ReasonDispatchError || !strings.Contains(str(failed[0]["err"]), "rejected") {
		t.Fatalf("failed lines %v", failed)
	}
	if got := testkit.Metric(t, r.reg, "ordo_sequencer_failures_total", "type", typ, "reason", sequencer.ReasonDispatchError); got != 1 {
		t.Fatalf("failures_total %v", got)
	}
}

// poison is a Builder that can never build: its dispatch errors are
// permanent.
type poison struct{}

func (poison) Name() string    { return "POISON" }
func (poison) MaxRetries() int { return 5 }
func (poison) Dispatch(context.Context, sequencer.RawTxnData, sequencer.Sender) (sequencer.TxnResult, error) {
	return sequencer.TxnResult{}, errors.New("unused")
}
func (poison) OnSuccess(context.Context, sequencer.RawTxnData, sequencer.TxnResult, sequencer.Sender) (sequencer.TxnResult, error) {
	return sequencer.TxnResult{}, nil
}
func (poison) OnFailure(context.Context, sequencer.RawTxnData, sequencer.TxnResult, sequencer.Sender) (sequencer.TxnResult, error) {
	return sequencer.TxnResult{}, nil
}
func (poison) Build(context.Context, sequencer.RawTxnData, sequencer.Sender) (chain.Tx, error) {
	return chain.Tx{}, errors.New("data names no claim")
}

// A permanent dispatch error: one dispatch error, no retry, FAILED with
// class permanent.
func TestLogsPermanentFailure(t *testing.T) {
	r := newRig(t, rigOptions{blockTime: 20 * time.Millisecond, tune: func(c *sequencer.Config) { c.Dispatchers["POISON"] = poison{} }})
	tx := r.submit("q-poison", "POISON", `{}`)
	r.waitState(tx.UID, store.Failed)
	r.waitLog("transaction failed") // logged just after the commit
	if n := len(r.logs.Records(t, "dispatch error")); n != 1 {
		t.Fatalf("%d dispatch errors:\n%s", n, r.logs)
	}
	if n := len(r.logs.Records(t, "transaction retry")); n != 0 {
		t.Fatalf("%d retries:\n%s", n, r.logs)
	}
	failed := r.logs.Records(t, "transaction failed")
	if len(failed) != 1 || failed[0]["class"] != sequencer.ReasonPermanent || failed[0]["type"] != "POISON" || !strings.Contains(str(failed[0]["err"]), "data names no claim") {
		t.Fatalf("failed lines %v", failed)
	}
	if got := testkit.Metric(t, r.reg, "ordo_sequencer_failures_total", "type", "POISON", "reason", sequencer.ReasonPermanent); got != 1 {
		t.Fatalf("failures_total %v", got)
	}
}

// A remote worker that does not answer within its timeout: a warning naming
// the worker, and the timeouts counted.
func TestLogsWorkerTimeout(t *testing.T) {
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		select {
		case <-req.Context().Done():
		case <-time.After(500 * time.Millisecond):
		}
	}))
	defer slow.Close()
	r := newRig(t, rigOptions{blockTime: 20 * time.Millisecond, senders: 1, tune: func(c *sequencer.Config) {
		s := &c.Senders[0]
		s.Key, s.Worker, s.Remote = nil, slow.URL, dispatch.NewRemoteWorker(slow.URL, 50*time.Millisecond)
	}})
	tx := r.submit("q-slow", typ, `{}`)
	waitFor(t, "worker timeout logged", 10*time.Second, func() bool { return len(r.logs.Records(t, "remote worker timed out")) > 0 })
	l := r.logs.Records(t, "remote worker timed out")[0]
	if l["level"] != "WARN" || l["uid"] != tx.UID || l["queue"] != "q-slow" || l["worker"] != slow.URL || l["call"] != "dispatch" || str(l["err"]) == "" {
		t.Fatalf("timeout line %v", l)
	}
	if got := testkit.Metric(t, r.reg, "ordo_sequencer_worker_timeouts_total", "call", "dispatch"); got < 1 {
		t.Fatalf("worker_timeouts_total %v", got)
	}
}

// The queue-depth gauge across a restart with transactions in flight: it
// counts the WAITING transactions from the store at start and follows the
// committed moves out of WAITING after, so the flights recovered and
// dispatched again never take it below the truth (it once read -8 after a
// restart with 8 in flight).
func TestQueueDepthAcrossRestart(t *testing.T) {
	clk := clock.NewVirtual(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	reject := 1.0
	r := newRig(t, rigOptions{faults: devchain.FaultUpdate{RejectProb: &reject}, senders: 8, maxRetries: 5, clk: clk,
		tune: func(c *sequencer.Config) { c.Policies = map[string]sequencer.Policy{typ: {Delay: time.Minute}} }})
	depth := func() float64 { return testkit.Metric(t, r.reg, "ordo_sequencer_queue_depth") }
	// 8 queues with 2 each: 8 in flight (their first attempt rejected: in
	// RETRY, delaying a minute of the virtual clock), 8 WAITING.
	for q := range 8 {
		for i := range 2 {
			r.submit(fmt.Sprintf("q%d", q), typ, fmt.Sprintf(`{"zkapp":"z%d-%d"}`, q, i))
		}
	}
	waitFor(t, "8 in RETRY", 10*time.Second, func() bool { return r.count(store.Retry) == 8 })
	waitFor(t, "depth 8", 5*time.Second, func() bool { return depth() == 8 })

	// Restart: the node's memory is lost, the store kept.
	r.stop()
	zero := 0.0
	if _, err := r.chain.SetFaults(context.Background(), devchain.FaultUpdate{RejectProb: &zero}); err != nil {
		t.Fatal(err)
	}
	r.start()
	waitFor(t, "depth 8 after the restart", 5*time.Second, func() bool { return depth() == 8 })
	if r.count(store.Waiting) != 8 {
		t.Fatalf("%d WAITING", r.count(store.Waiting))
	}

	// The delays end: the 8 recovered flights are dispatched again
	// (RETRY → REVISION), which leaves the WAITING ones as they are.
	clk.Advance(2 * time.Minute)
	waitFor(t, "8 in REVISION", 10*time.Second, func() bool { return r.count(store.Revision) == 8 })
	if got := depth(); got != 8 {
		t.Fatalf("depth %v after the recovered flights were dispatched again, want 8", got)
	}
	// Blocks: each queue's first is DONE and its second dispatched, then
	// DONE too.
	for range 20 {
		if r.count(store.Done) == 16 {
			break
		}
		if _, _, err := r.chain.Mine(context.Background()); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	waitFor(t, "16 DONE", 10*time.Second, func() bool { return r.count(store.Done) == 16 })
	waitFor(t, "depth 0", 5*time.Second, func() bool { return depth() == 0 })
}

// An attempt sent at the fee cap and not yet included is counted by
// ordo_sequencer_attempts_pending_at_fee_cap and logged once as a
// warning; its inclusion clears the count.
func TestPendingAtFeeCap(t *testing.T) {
	r := newRig(t, rigOptions{tune: func(c *sequencer.Config) {
		c.Fees = sequencer.FeePolicy{Initial: 1100, BumpPercent: 10, MinStep: 1, Max: 1100}
	}})
	tx := r.submit("q", typ, `{"title":"cap"}`)
	waitFor(t, "the attempt counted at the fee cap", 10*time.Second, func() bool { return testkit.Metric(t, r.reg, "ordo_sequencer_attempts_pending_at_fee_cap") == 1 })
	r.waitLog("sequencer: an attempt is pending at the fee cap: no replacement can outbid it; raise fees.max or cancel its nonce")
	for range 3 { // included, then final
		if _, _, err := r.chain.Mine(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	r.waitState(tx.UID, store.Done)
	waitFor(t, "the count cleared", 10*time.Second, func() bool { return testkit.Metric(t, r.reg, "ordo_sequencer_attempts_pending_at_fee_cap") == 0 })
}

// Each sender's balance and nonces are gauges, read from the chain every
// SenderPoll; a sender whose balance cannot pay LowBalanceAttempts
// attempts at the fee cap is flagged low and logged once.
func TestSenderGauges(t *testing.T) {
	r := newRig(t, rigOptions{blockTime: 20 * time.Millisecond, senders: 1, tune: func(c *sequencer.Config) {
		c.SenderPoll = 20 * time.Millisecond
		c.Fees = sequencer.FeePolicy{Initial: 1000, BumpPercent: 10, MinStep: 1, Max: 1 << 62} // more than any dev balance
	}})
	id := string(r.cfg.Senders[0].ID)
	acct, err := r.chain.Account(context.Background(), chain.Address(id))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the balance gauge", 10*time.Second, func() bool {
		return testkit.Metric(t, r.reg, "ordo_sequencer_sender_balance", "sender", id) > 0
	})
	if got := testkit.Metric(t, r.reg, "ordo_sequencer_sender_balance", "sender", id); got != float64(acct.Balance) && acct.Balance != 0 {
		// the balance moves only with this sender's transactions: none yet
		t.Errorf("balance gauge %v, account %d", got, acct.Balance)
	}
	tx := r.submit("q", typ, `{"title":"gauges"}`)
	r.waitState(tx.UID, store.Done)
	waitFor(t, "the nonce gauges", 10*time.Second, func() bool {
		return testkit.Metric(t, r.reg, "ordo_sequencer_sender_nonce", "sender", id, "kind", "chain") == 1 &&
			testkit.Metric(t, r.reg, "ordo_sequencer_sender_nonce", "sender", id, "kind", "next") == 1
	})
	if testkit.Metric(t, r.reg, "ordo_sequencer_sender_balance_low", "sender", id) != 1 {
		t.Error("a balance below LowBalanceAttempts × fees.max is not flagged low")
	}
	if n := len(r.logs.Records(t, "sequencer: a sender's balance is below what its next attempts may cost: fund it")); n != 1 {
		t.Errorf("%d low-balance warnings, want 1 (once, not each poll)", n)
	}
}

// An operator cancels a nonce stuck at the fee cap (a fee spike keeps the
// attempt pending, and no replacement can outbid it): a no-op at the
// chain's minimum fee takes the nonce, and the transaction ends FAILED,
// or goes again at a fresh nonce and ends DONE once the spike is over;
// it is applied at most once either way (its memo on chain).
func TestCancelStuckNonce(t *testing.T) {
	for _, then := range []string{store.CancelFail, store.CancelRequeue} {
		t.Run(then, func(t *testing.T) {
			r := newRig(t, rigOptions{senders: 1, maxRetries: 50, tune: func(c *sequencer.Config) {
				c.Fees = sequencer.FeePolicy{Initial: 1000, BumpPercent: 10, MinStep: 1, Max: 1000}
			}})
			ctx := context.Background()
			mine := func() {
				if _, _, err := r.chain.Mine(ctx); err != nil {
					t.Fatal(err)
				}
				time.Sleep(10 * time.Millisecond) // a block time: the node sees each head
			}
			tx := r.submit("q", typ, `{"title":"stuck"}`)
			waitFor(t, "the attempt sent", 10*time.Second, func() bool {
				got, _ := r.store.Get(ctx, tx.UID)
				return len(got.Attempts) > 0 && got.Attempts[0].Outcome == store.OutcomeSent
			})
			if _, err := r.chain.SetFaults(ctx, devchain.FaultUpdate{FeeSpike: &devchain.FeeSpike{Factor: 10, Blocks: 20}}); err != nil {
				t.Fatal(err)
			}
			for range 5 {
				mine()
			}
			sender := string(r.cfg.Senders[0].ID)
			if _, err := r.seq.CancelNonce(ctx, sender, 1, then); !errors.Is(err, sequencer.ErrNothingToCancel) {
				t.Fatalf("a cancel of a nonce nothing holds: %v", err)
			}
			uid, err := r.seq.CancelNonce(ctx, sender, 0, then)
			if err != nil || uid != tx.UID {
				t.Fatalf("cancel: %q, %v", uid, err)
			}
			// The no-op must be on its way before the spike's blocks run out:
			// after them the stuck attempt itself would land (DONE).
			waitFor(t, "the no-op at the nonce sent", 30*time.Second, func() bool {
				got, _ := r.store.Get(ctx, tx.UID)
				for _, a := range got.Attempts {
					if a.Cancel == then && a.Outcome != "" {
						return true
					}
				}
				return false
			})
			want := store.Failed
			if then == store.CancelRequeue {
				want = store.Done
			}
			for deadline := time.Now().Add(60 * time.Second); ; {
				got, _ := r.store.Get(ctx, tx.UID)
				if got.State == want {
					break
				}
				if got.State == store.Done || got.State == store.Failed || time.Now().After(deadline) {
					t.Fatalf("%s %q, want %s; attempts %+v", got.State, got.Error, want, got.Attempts)
				}
				mine()
			}
			got, _ := r.store.Get(ctx, tx.UID)
			noop := false
			for _, a := range got.Attempts {
				noop = noop || (a.Cancel == then && a.Fee > 1000 && a.Outcome == store.OutcomeFailed)
			}
			if !noop {
				t.Fatalf("no no-op above the cap took the nonce: %+v", got.Attempts)
			}
			if then == store.CancelFail && !strings.Contains(got.Error, "cancelled by the operator") {
				t.Fatalf("FAILED with %q", got.Error)
			}
			// (a requeued attempt priced under the spike is refused, and
			// those retries count; the requeue itself does not: see
			// TestCoreCancelNonce)
		})
	}
}

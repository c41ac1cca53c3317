package crash_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ordolabs/ordo/client"
	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/processor"
)

// procReport is what the processor crash test's checks counted.
type procReport struct {
	byStatus   map[processor.Status]int
	keys       int
	chainTxs   int
	execs      int
	execFailed int
	maxAttempt int
}

func (r procReport) outcomes() string {
	var parts []string
	for s, n := range r.byStatus {
		parts = append(parts, fmt.Sprintf("%s=%d", s, n))
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

// inclusion is one chain transaction of an execution.
type inclusion struct {
	height  uint64
	uid     string
	success bool
	reason  string
}

// execID is an execution id split: processor/batch/unit/attempt.
type execID struct {
	key           string // processor/batch
	unit, attempt int
}

func parseExecID(s string) (execID, bool) {
	f := strings.Split(s, "/")
	if len(f) != 4 {
		return execID{}, false
	}
	u, err1 := strconv.Atoi(f[2])
	a, err2 := strconv.Atoi(f[3])
	if err1 != nil || err2 != nil || u < 0 || a < 1 {
		return execID{}, false
	}
	return execID{key: f[0] + "/" + f[1], unit: u, attempt: a}, true
}

// checkProcessorRun checks the end of a processor crash run: one delivered
// callback per batch under its key, the receiver's view, each outcome
// against the configured failures, and the chain's executions.
func checkProcessorRun(ctx context.Context, t *testing.T, owner *papi, cl *client.Client, dc *devchain.Client, dev *devSender,
	recv *receiver, all []*plannedBatch) procReport {
	t.Helper()
	rep := procReport{byStatus: map[processor.Status]int{}}
	var problems []string
	errorf := func(format string, a ...any) { problems = append(problems, fmt.Sprintf(format, a...)) }
	defer func() {
		for i, p := range problems {
			if i == 40 {
				t.Errorf("... and %d more violations", len(problems)-40)
				break
			}
			t.Error(p)
		}
	}()
	planned := map[string]*plannedBatch{}
	for _, b := range all {
		planned[b.key()] = b
	}

	// 1. GET …/callbacks: exactly one callback per batch, under its key, delivered.
	outcome := map[string]processor.Outcome{}
	for _, p := range []string{procManual, procAuto} {
		cbs, err := owner.callbacks(ctx, p)
		if err != nil {
			t.Fatalf("GET %s callbacks: %v", p, err)
		}
		for _, c := range cbs {
			k := p + "/" + c.BatchID
			if planned[k] == nil {
				errorf("UNKNOWN BATCH: callback %d of %s names batch %q, which the test never added", c.Seq, p, c.BatchID)
				continue
			}
			if _, dup := outcome[k]; dup {
				errorf("TWO OUTCOMES: batch %s has a second callback (seq %d, %+v; first %+v)", k, c.Seq, c.Body.Outcome, outcome[k])
				continue
			}
			outcome[k] = c.Body.Outcome
			if c.Key != k || c.Body.Key != k {
				errorf("callback of %s has key %q (body key %q), want %q", k, c.Key, c.Body.Key, k)
			}
			if c.State != "delivered" {
				errorf("callback of %s is %s after %d attempts, want delivered", k, c.State, c.Attempts)
			}
		}
	}
	for _, b := range all {
		if _, ok := outcome[b.key()]; !ok {
			errorf("NO OUTCOME: batch %s (%s) has no callback", b.key(), b.kind)
		}
	}

	// 2. The receiver: every key at least once, every delivery of a key the same outcome, no outcome under two keys.
	byKey, _, _, _ := recv.snapshot()
	keyOfBatch := map[string]string{}
	for k, ds := range byKey {
		if planned[k] == nil {
			errorf("RECEIVER: deliveries under key %q, which is no batch's", k)
		}
		for _, d := range ds {
			bk := d.body.Processor + "/" + d.body.BatchID
			if prev, ok := keyOfBatch[bk]; ok && prev != k {
				errorf("RECEIVER: the outcome of %s came under two keys, %q and %q", bk, prev, k)
			}
			keyOfBatch[bk] = k
			if d.body.Key != k || bk != k {
				errorf("RECEIVER: a delivery under key %q carries key %q for batch %s", k, d.body.Key, bk)
			}
			if d.raw != ds[0].raw {
				errorf("RECEIVER: key %q delivered with two bodies:\n  %s\n  %s", k, ds[0].raw, d.raw)
			}
		}
		if o, ok := outcome[k]; ok && len(ds) > 0 && (ds[0].body.Outcome.Status != o.Status || ds[0].body.Outcome.Executed != o.Executed) {
			errorf("RECEIVER: key %q delivered %+v, GET …/callbacks says %+v", k, ds[0].body.Outcome, o)
		}
	}
	for _, b := range all {
		if len(byKey[b.key()]) == 0 {
			errorf("RECEIVER: never saw key %q", b.key())
		}
	}
	rep.keys = len(byKey)

	// 3. The chain: every execution's inclusions, by its sequencer record's idempotency key.
	incl, err := chainExecutions(ctx, cl, dc, dev)
	if err != nil {
		t.Fatalf("reading the chain: %v", err)
	}
	units := map[string]map[int][]int{} // batch key → unit → attempts included
	succ := map[string]map[int]int{}    // batch key → unit → successful inclusions
	for id, is := range incl {
		rep.execs++
		rep.chainTxs += len(is)
		if len(is) > 1 {
			errorf("EXECUTION TWICE ON CHAIN: %s is included %d times: %+v", id, len(is), is)
		}
		e, ok := parseExecID(id)
		if !ok || planned[e.key] == nil {
			errorf("UNKNOWN EXECUTION: a chain transaction's record has idempotency key %q", id)
			continue
		}
		if units[e.key] == nil {
			units[e.key], succ[e.key] = map[int][]int{}, map[int]int{}
		}
		units[e.key][e.unit] = append(units[e.key][e.unit], e.attempt)
		rep.maxAttempt = max(rep.maxAttempt, e.attempt)
		for _, in := range is {
			if in.success {
				succ[e.key][e.unit]++
			} else {
				rep.execFailed++
			}
		}
	}
	for k, us := range units {
		b := planned[k]
		for u, atts := range us {
			if u >= len(b.attempts) {
				errorf("EXECUTION OF NO UNIT: %s unit %d (the batch has %d)", k, u, len(b.attempts))
				continue
			}
			sort.Ints(atts)
			if lim := b.attempts[u]; lim > 0 && (len(atts) > lim || atts[len(atts)-1] > lim) {
				errorf("OVER ITS RETRIES: %s unit %d has attempts %v on chain; its RetryLogic allows %d", k, u, atts, lim)
			}
			if succ[k][u] > 1 {
				errorf("UNIT APPLIED TWICE: %s unit %d succeeded on chain %d times", k, u, succ[k][u])
			}
		}
	}

	// 4. Each outcome against the plan, the chain and the library's counts.
	counts, err := libraryCounts(ctx, dc, all)
	if err != nil {
		t.Fatalf("library counts: %v", err)
	}
	for _, b := range all {
		got, ok := outcome[b.key()]
		if !ok {
			continue
		}
		rep.byStatus[got.Status]++
		if want, known := b.want(); known && (got.Status != want.Status || got.Executed != want.Executed) {
			errorf("WRONG OUTCOME: %s (%s, failures %v, attempts %v, on chain %v) ended %s(%d) %q, want %s(%d)",
				b.key(), b.kind, failsOf(b), b.attempts, units[b.key()], got.Status, got.Executed, got.Error, want.Status, want.Executed)
		}
		applied := 0 // messages the outcome says were applied
		switch {
		case got.Status == processor.Executed:
			applied = len(b.msgs)
		case got.Status == processor.PartiallyExecuted, !b.atomic():
			applied = got.Executed
		}
		if b.kind == kindProbable && (succ[b.key()][0] == 1) != (got.Status == processor.Executed) {
			errorf("WRONG OUTCOME: probable batch %s ended %s but %d of its attempts %v succeeded on chain", b.key(), got.Status, succ[b.key()][0], units[b.key()][0])
		}
		for i, m := range b.msgs {
			want := uint64(0)
			if i < applied {
				want = 1
			}
			if counts[m.method] != want {
				errorf("LIBRARY COUNT: %s ended %s(%d); its message %d (%s) was applied %d times on chain, want %d",
					b.key(), got.Status, got.Executed, i, m.method, counts[m.method], want)
			}
		}
	}
	return rep
}

func failsOf(b *plannedBatch) []string {
	var out []string
	for _, m := range b.msgs {
		s := strconv.FormatUint(m.failTimes, 10)
		if m.failProb > 0 {
			s = fmt.Sprintf("p%.1f", m.failProb)
		}
		out = append(out, s)
	}
	return out
}

// chainExecutions reads every block and maps each execution id to its
// inclusions: a transaction's memo is its sequencer record's uid, whose
// idempotency key is the execution id. The dev account's own transactions
// (configure, confirm) are left out.
func chainExecutions(ctx context.Context, cl *client.Client, dc *devchain.Client, dev *devSender) (map[string][]inclusion, error) {
	hd, err := dc.Head(ctx)
	if err != nil {
		return nil, err
	}
	byUID := map[string][]inclusion{}
	for next := uint64(0); next <= hd.Height; {
		bs, err := dc.Blocks(ctx, next, min(next+devchain.MaxBlocksPerRequest-1, hd.Height))
		if err != nil {
			return nil, err
		}
		if len(bs) == 0 {
			return nil, fmt.Errorf("no blocks from %d below head %d", next, hd.Height)
		}
		for _, b := range bs {
			next = b.Height + 1
			for _, tx := range b.Txs {
				if tx.From == dev.from {
					continue
				}
				if tx.Memo == "" {
					return nil, fmt.Errorf("block %d tx %d (%s.%s from %s) has no memo", b.Height, tx.Index, tx.Contract, tx.Method, tx.From)
				}
				byUID[tx.Memo] = append(byUID[tx.Memo], inclusion{height: b.Height, uid: tx.Memo, success: tx.Status == chain.OutcomeSucceeded, reason: tx.Reason})
			}
		}
	}
	uids := make([]string, 0, len(byUID))
	for u := range byUID {
		uids = append(uids, u)
	}
	keys, err := parallelMap(ctx, uids, func(ctx context.Context, uid string) (string, error) {
		tx, _, err := cl.Get(ctx, uid)
		if err != nil {
			return "", fmt.Errorf("GET /v1/transactions/%s: %w", uid, err)
		}
		return tx.IdempotencyKey, nil
	})
	if err != nil {
		return nil, err
	}
	out := map[string][]inclusion{}
	for i, u := range uids {
		out[keys[i]] = append(out[keys[i]], byUID[u]...)
	}
	return out, nil
}

// libraryCounts reads each planned message's method's count of successful
// calls.
func libraryCounts(ctx context.Context, dc *devchain.Client, all []*plannedBatch) (map[string]uint64, error) {
	var methods []string
	for _, b := range all {
		for _, m := range b.msgs {
			methods = append(methods, m.method)
		}
	}
	ns, err := parallelMap(ctx, methods, func(ctx context.Context, m string) (uint64, error) {
		args, _ := json.Marshal(map[string]string{"method": m})
		raw, err := dc.Call(ctx, devchain.LibraryContract, "count", args)
		if err != nil {
			return 0, err
		}
		var c struct {
			Count uint64 `json:"count"`
		}
		return c.Count, json.Unmarshal(raw, &c)
	})
	if err != nil {
		return nil, err
	}
	out := make(map[string]uint64, len(methods))
	for i, m := range methods {
		out[m] = ns[i]
	}
	return out, nil
}

// parallelMap applies fn to each input on 4 workers, keeping the order.
func parallelMap[I, O any](ctx context.Context, in []I, fn func(context.Context, I) (O, error)) ([]O, error) {
	out := make([]O, len(in))
	errs := make([]error, len(in))
	var wg sync.WaitGroup
	ch := make(chan int)
	for range 4 {
		wg.Go(func() {
			for i := range ch {
				out[i], errs[i] = fn(ctx, in[i])
			}
		})
	}
	for i := range in {
		ch <- i
	}
	close(ch)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

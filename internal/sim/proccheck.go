package sim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/processor"
	"github.com/ordolabs/ordo/internal/store"
)

// The processor simulation's invariants, as a violation names them.
const (
	InvProcOutcome  = "one outcome per batch"
	InvProcKey      = "one callback key per batch outcome"
	InvProcDelivery = "a delivered callback names an ended batch and its outcome"
	InvProcTick     = "High before Medium"
	InvProcRetry    = "retry counts match RetryLogic"
	InvProcExecuted = "Executed only when every unit succeeded on chain"
	InvProcLiveness = "every batch ends and every callback is delivered once faults stop"
	InvProcEvent    = "a confirmation carried by a chain event is taken"
	InvProcEarlyEnd = "Expired only with an expiration, RemovedByOwner only after a removal, each after its executed units succeeded"
)

// procEventBlocks is how many blocks after its send a library.confirm of a
// waiting execution must have been taken: its block, then the chain's
// finality depth, and one more.
const procEventBlocks = 2 + procFinality

// procChecker follows what the processor did, as its store, the chain and
// the receiver show it, and checks the invariants after every step.
type procChecker struct {
	w        *procWorld
	procs    map[string]*procInfo
	specs    map[string]processor.BatchSpec // "<proc>/<id>" of every batch added
	cbs      map[string]store.Callback      // "<proc>/<id>" → its one callback
	outcomes map[string]processor.Outcome   // "<proc>/<id>" → its callback's outcome
	keys     map[string]string              // callback key → "<proc>/<id>"
	lastSeq  map[string]int64
	subs     map[string]string        // execution id → sequencer record
	uidExec  map[string]string        // sequencer record → execution id
	unitSubs map[string]map[int]bool  // "<proc>/<id>/<unit>" → attempts submitted
	landings map[string]int           // execution id → inclusions on chain
	unitOK   map[string]bool          // "<proc>/<id>/<unit>" → a successful inclusion
	okKeys   map[string]bool          // keys the receiver answered 2xx
	seqEnds  map[string]store.TxState // sequencer records ended
	byEvent  map[string]sentConfirm   // execution id → the library.confirm of it sent
	scanned  uint64                   // chain height read
	seen     int                      // receiver deliveries checked
	failures []error
}

type procInfo struct{ url bool }

func newProcChecker(w *procWorld) *procChecker {
	return &procChecker{w: w, procs: map[string]*procInfo{}, specs: map[string]processor.BatchSpec{}, cbs: map[string]store.Callback{},
		outcomes: map[string]processor.Outcome{}, keys: map[string]string{}, lastSeq: map[string]int64{}, subs: map[string]string{},
		uidExec: map[string]string{}, unitSubs: map[string]map[int]bool{}, landings: map[string]int{}, unitOK: map[string]bool{},
		okKeys: map[string]bool{}, seqEnds: map[string]store.TxState{}, byEvent: map[string]sentConfirm{}}
}

func (k *procChecker) fail(inv, format string, args ...any) {
	k.failures = append(k.failures, &invariantError{inv: inv, detail: fmt.Sprintf(format, args...)})
}

func (k *procChecker) names() []string {
	out := make([]string, 0, len(k.procs))
	for n := range k.procs {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func (k *procChecker) created(name string, url bool) { k.procs[name] = &procInfo{url: url} }

func (k *procChecker) added(proc string, s processor.BatchSpec) { k.specs[proc+"/"+s.ID] = s }

func (k *procChecker) seqEnded(uid string, st store.TxState) { k.seqEnds[uid] = st }

// allowed is how many attempts unit u of batch s may make; 0: no bound.
func allowed(s processor.BatchSpec, u int) int {
	var rl *processor.RetryLogic
	switch {
	case s.ActionsConfig.Atomic != nil:
		rl = s.ActionsConfig.Atomic.RetryLogic
	case u < len(s.ActionsConfig.NonAtomic.Actions):
		rl = s.ActionsConfig.NonAtomic.Actions[u].RetryLogic
	}
	switch {
	case rl == nil:
		return 1
	case rl.Times.Indefinitely:
		return 0
	}
	return rl.Times.Amount + 1
}

// parseExec splits an execution id "<proc>/<batch>/<unit>/<attempt>".
func parseExec(exec string) (batch string, unit, attempt int, ok bool) {
	f := strings.Split(exec, "/")
	if len(f) != 4 {
		return "", 0, 0, false
	}
	u, err1 := strconv.Atoi(f[2])
	a, err2 := strconv.Atoi(f[3])
	return f[0] + "/" + f[1], u, a, err1 == nil && err2 == nil
}

// attempt checks that attempt of unit u of batch b is one its RetryLogic
// allows; seen says where it was seen.
func (k *procChecker) attempt(b string, u, attempt int, seen string) {
	s, ok := k.specs[b]
	if !ok {
		k.fail(InvProcRetry, "%s: an execution of %s, a batch never added", seen, b)
		return
	}
	if n := allowed(s, u); n > 0 && attempt > n {
		k.fail(InvProcRetry, "%s: attempt %d of %s unit %d, which allows %d", seen, attempt, b, u, n)
	}
}

// submitted records an execution handed to the sequencer.
func (k *procChecker) submitted(exec, uid string) {
	if old, ok := k.subs[exec]; ok {
		if old != uid {
			k.fail(InvProcRetry, "execution %s got two sequencer records, %s and %s", exec, old, uid)
		}
		return
	}
	k.subs[exec], k.uidExec[uid] = uid, exec
	b, u, a, ok := parseExec(exec)
	if !ok {
		k.fail(InvProcRetry, "execution id %q is not <proc>/<batch>/<unit>/<attempt>", exec)
		return
	}
	unit := fmt.Sprintf("%s/%d", b, u)
	if k.unitSubs[unit] == nil {
		k.unitSubs[unit] = map[int]bool{}
	}
	k.unitSubs[unit][a] = true
	k.attempt(b, u, a, "submitted")
}

// ticked checks a tick's result: a Medium batch only when High was empty
// (high is High's length just before), an attempt its RetryLogic allows.
func (k *procChecker) ticked(proc string, high int, r processor.TickResult) {
	if r.Priority == processor.Medium && high > 0 {
		k.fail(InvProcTick, "a tick of %s took Medium batch %s (%s) while High held %d", proc, r.BatchID, r.Outcome, high)
	}
	if r.Outcome == processor.TickStarted {
		u := 0
		if r.Action != nil {
			u = *r.Action
		}
		k.attempt(proc+"/"+r.BatchID, u, r.Attempt, "tick")
	}
}

// scanChain reads the blocks made since the last scan: every inclusion of
// an execution, counted.
func (k *procChecker) scanChain(ctx context.Context) error {
	dc := k.w.dc
	head, err := dc.Head(ctx)
	if err != nil {
		return err
	}
	for k.scanned < head.Height {
		blocks, err := dc.Blocks(ctx, k.scanned+1, head.Height)
		if err != nil {
			return err
		}
		if len(blocks) == 0 {
			return errors.New("sim: the chain returned no blocks")
		}
		for _, bl := range blocks {
			for _, tx := range bl.Txs {
				k.landed(ctx, tx)
			}
			k.scanned = bl.Height
		}
	}
	return nil
}

func (k *procChecker) landed(ctx context.Context, tx chain.BlockTx) {
	if tx.Memo == "" {
		return // the world's own library calls
	}
	exec := k.uidExec[tx.Memo]
	if exec == "" {
		t, err := k.w.st.Get(ctx, tx.Memo)
		if err != nil {
			k.fail(InvProcRetry, "transaction %s of record %s landed, a record the store does not have: %v", tx.Hash, tx.Memo, err)
			return
		}
		exec = t.IdempotencyKey
	}
	k.w.res.Landings++
	k.landings[exec]++
	if n := k.landings[exec]; n > 1 {
		k.fail(InvProcRetry, "execution %s landed on chain %d times", exec, n)
	}
	b, u, a, ok := parseExec(exec)
	if !ok {
		k.fail(InvProcRetry, "a transaction landed under the execution id %q", exec)
		return
	}
	k.attempt(b, u, a, "on chain")
	if tx.Status == chain.OutcomeSucceeded {
		k.unitOK[fmt.Sprintf("%s/%d", b, u)] = true
	}
}

// storedOutcome reads a batch's outcome from the store (nil when it has
// none).
func (k *procChecker) storedOutcome(ctx context.Context, proc, id string) (*processor.Outcome, store.BatchState, error) {
	b, err := k.w.st.GetBatch(ctx, proc, id)
	if err != nil {
		return nil, "", err
	}
	var body struct {
		Outcome *processor.Outcome `json:"outcome"`
	}
	if err := json.Unmarshal(b.Body, &body); err != nil {
		return nil, b.State, err
	}
	return body.Outcome, b.State, nil
}

// scanCallbacks reads the callbacks written since the last scan and checks
// each: its key, one per batch, the outcome the store holds, and the
// outcome's evidence (retries, inclusions).
func (k *procChecker) scanCallbacks(ctx context.Context) error {
	for _, name := range k.names() {
		for {
			cbs, err := k.w.st.Callbacks(ctx, name, k.lastSeq[name], 1000)
			if err != nil {
				return err
			}
			if len(cbs) == 0 {
				break
			}
			for _, cb := range cbs {
				k.lastSeq[name] = cb.Seq
				if err := k.callback(ctx, name, cb); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (k *procChecker) callback(ctx context.Context, name string, cb store.Callback) error {
	b := name + "/" + cb.BatchID
	if old, ok := k.cbs[b]; ok {
		k.fail(InvProcOutcome, "batch %s has two callbacks: %d (key %q, %s) and %d (key %q, %s)", b, old.Seq, old.Key, old.Body, cb.Seq, cb.Key, cb.Body)
		return nil
	}
	if want := processor.CallbackKey(name, cb.BatchID); cb.Key != want {
		k.fail(InvProcKey, "callback %d of %s has key %q, want %q", cb.Seq, b, cb.Key, want)
	}
	if other, ok := k.keys[cb.Key]; ok {
		k.fail(InvProcKey, "key %q names two outcomes: of %s and of %s", cb.Key, other, b)
		return nil
	}
	var body processor.CallbackBody
	if err := json.Unmarshal(cb.Body, &body); err != nil {
		k.fail(InvProcOutcome, "callback %d of %s: body %s: %v", cb.Seq, b, cb.Body, err)
		return nil
	}
	o := body.Outcome
	k.cbs[b], k.keys[cb.Key], k.outcomes[b] = cb, b, o
	k.w.res.Outcomes[string(o.Status)]++
	stored, state, err := k.storedOutcome(ctx, name, cb.BatchID)
	switch {
	case err != nil && !errors.Is(err, store.ErrNotFound):
		return err
	case err != nil || state != store.BatchDone || stored == nil || *stored != o:
		k.fail(InvProcOutcome, "%s has callback %s, the store holds it %s with outcome %+v (%v)", b, cb.Body, state, stored, err)
		return nil
	}
	s, ok := k.specs[b]
	if !ok {
		k.fail(InvProcOutcome, "callback %s of a batch never added", cb.Body)
		return nil
	}
	units := len(s.Msgs)
	if s.ActionsConfig.Atomic != nil {
		units = 1
	}
	switch o.Status {
	case processor.Executed:
		for u := range units {
			if !k.unitOK[fmt.Sprintf("%s/%d", b, u)] {
				k.fail(InvProcExecuted, "%s ended Executed, but its unit %d never succeeded on chain", b, u)
			}
		}
		if o.Executed != len(s.Msgs) {
			k.fail(InvProcExecuted, "%s ended Executed with %d of %d messages", b, o.Executed, len(s.Msgs))
		}
	case processor.Rejected, processor.PartiallyExecuted:
		u := 0
		if s.ActionsConfig.NonAtomic != nil {
			u = o.Executed
		}
		n := allowed(s, u)
		if tried := len(k.unitSubs[fmt.Sprintf("%s/%d", b, u)]); n == 0 || tried != n {
			k.fail(InvProcRetry, "%s ended %s at unit %d after %d attempts; its RetryLogic allows %d (0: no bound)", b, o.Status, u, tried, n)
		}
		if partial := o.Status == processor.PartiallyExecuted; partial != (o.Executed > 0) || o.Executed >= len(s.Msgs) {
			k.fail(InvProcOutcome, "%s ended %s with %d of %d messages executed", b, o.Status, o.Executed, len(s.Msgs))
		}
	case processor.Expired, processor.RemovedByOwner:
		k.endedEarly(b, name, s, o)
	default:
		k.fail(InvProcOutcome, "%s ended with the unknown status %q", b, o.Status)
	}
	return nil
}

// endedEarly checks a batch that ended before its units ran out: Expired
// only with an expiration, RemovedByOwner only when a removal answered
// with its id (or one whose answer was lost may have removed it), and
// either only after the units it counts as executed succeeded on chain
// (an atomic batch's one unit never ends so: its success would have made
// it Executed).
func (k *procChecker) endedEarly(b, proc string, s processor.BatchSpec, o processor.Outcome) {
	switch {
	case o.Status == processor.Expired && s.Expiration == nil:
		k.fail(InvProcEarlyEnd, "%s ended Expired, but it has no expiration", b)
	case o.Status == processor.RemovedByOwner && !k.w.removedIDs[b]:
		if k.w.unanswered[proc] == 0 {
			k.fail(InvProcEarlyEnd, "%s ended RemovedByOwner, but no removal answered with it", b)
			break
		}
		k.w.unanswered[proc]-- // a removal whose answer was lost took it
	}
	if o.Executed < 0 || o.Executed >= len(s.Msgs) || s.ActionsConfig.Atomic != nil && o.Executed != 0 {
		k.fail(InvProcEarlyEnd, "%s ended %s with %d of %d messages executed", b, o.Status, o.Executed, len(s.Msgs))
		return
	}
	for u := range o.Executed {
		if !k.unitOK[fmt.Sprintf("%s/%d", b, u)] {
			k.fail(InvProcEarlyEnd, "%s ended %s counting unit %d executed, but it never succeeded on chain", b, o.Status, u)
		}
	}
}

// scanDeliveries checks what the receiver saw since the last scan: each key
// names an ended batch, with the outcome the store holds.
func (k *procChecker) scanDeliveries() {
	got := k.w.recv.got
	for ; k.seen < len(got); k.seen++ {
		d := got[k.seen]
		k.w.res.Deliveries++
		if !d.ok {
			k.w.res.Refused++
		}
		b, ok := k.keys[d.key]
		switch {
		case !ok:
			k.fail(InvProcDelivery, "the receiver got key %q, which names no ended batch (body %+v)", d.key, d.body)
		case d.body.Key != d.key || d.body.Processor+"/"+d.body.BatchID != b:
			k.fail(InvProcDelivery, "the receiver got key %q with a body of %s/%s under key %q", d.key, d.body.Processor, d.body.BatchID, d.body.Key)
		case d.body.Outcome != k.outcomes[b]:
			k.fail(InvProcDelivery, "the receiver got %s as %+v; its callback says %+v", b, d.body.Outcome, k.outcomes[b])
		case !k.procs[d.body.Processor].url:
			k.fail(InvProcDelivery, "the receiver got %s, whose processor has no callback URL", b)
		}
		if d.ok {
			k.okKeys[d.key] = true
		}
	}
}

// sentConfirm is a library.confirm sent at a head, by its hash.
type sentConfirm struct {
	at   uint64
	hash chain.Hash
}

// chainConfirm records a library.confirm (hash h) sent at head for a
// waiting execution.
func (k *procChecker) chainConfirm(exec string, head uint64, h chain.Hash) {
	if _, ok := k.byEvent[exec]; !ok {
		k.byEvent[exec] = sentConfirm{at: head, hash: h}
	}
}

// scanEvents checks that each execution confirmed by a chain event no
// longer waits once its event is final.
func (w *procWorld) scanEvents(ctx context.Context) error {
	if len(w.chk.byEvent) == 0 {
		return nil
	}
	execs, err := w.pendingExecs(ctx, "")
	if err != nil {
		return err
	}
	waiting := map[string]bool{}
	for _, e := range execs {
		waiting[e] = true
	}
	pend := make([]string, 0, len(w.chk.byEvent))
	for exec := range w.chk.byEvent {
		pend = append(pend, exec)
	}
	sort.Strings(pend)
	for _, exec := range pend {
		switch sent := w.chk.byEvent[exec]; {
		case !waiting[exec]:
			delete(w.chk.byEvent, exec)
		case w.head >= sent.at+procEventBlocks:
			// Only a confirm that succeeded on chain is an event: a fault
			// turned on after it was sent may have reverted or dropped it.
			if st, err := w.dc.TxStatus(ctx, sent.hash); err == nil && st.State == chain.TxIncluded && st.Success {
				w.chk.fail(InvProcEvent, "execution %s still waits at height %d; a library.confirm of it was sent at height %d and succeeded at %d", exec, w.head, sent.at, st.Height)
			}
			delete(w.chk.byEvent, exec)
		}
	}
	return nil
}

// check runs every invariant after a step.
func (w *procWorld) check(ctx context.Context, step int) error {
	for _, s := range w.ploop.Core().CheckInvariants() {
		w.chk.fail(InvCore, "processor: %s", s)
	}
	if err := w.sloop.Core().CheckInvariants(); err != nil {
		w.chk.fail(InvCore, "sequencer: %v", err)
	}
	if err := w.chk.scanChain(ctx); err != nil {
		return fmt.Errorf("sim: read chain: %w", err)
	}
	if err := w.chk.scanCallbacks(ctx); err != nil {
		return fmt.Errorf("sim: read callbacks: %w", err)
	}
	w.chk.scanDeliveries()
	if err := w.scanEvents(ctx); err != nil {
		return fmt.Errorf("sim: read pending: %w", err)
	}
	if len(w.chk.failures) == 0 {
		return nil
	}
	var ie *invariantError
	errors.As(w.chk.failures[0], &ie)
	return &ProcViolation{Seed: w.cfg.Seed, Step: step, Invariant: ie.inv, Detail: ie.detail}
}

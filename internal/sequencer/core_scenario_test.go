package sequencer

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/testkit"
)

// TestCoreScenarios runs the scenario scripts in testdata/scenarios: each
// script steps the core through the harness (core_harness_test.go: an
// in-memory store that commits every Ready and checks the store's invariants)
// and prints what each step produced, checked against the file. After a
// change of behaviour, regenerate the files and read the diff:
//
//	go test ./internal/sequencer/ -run TestCoreScenarios -rewrite
//
// The command language (one command per directive; UID is a transaction id
// as printed, tx0001; UID:N names its attempt N; durations are Go's, 10s):
//
//	config [inclusion-timeout=N] [confirmations=N] [window=N] [poll-status]
//	       [fee-initial=N] [fee-bump=PCT] [fee-min-step=N] [fee-max=N]
//	       [pins=(QUEUE:SENDER,...)]
//	                      the core's configuration, before anything is
//	                      stored; prints the configuration in force. The
//	                      defaults are testConfig's: inclusion timeout 3,
//	                      CREATE_CLAIM_VOTING_ACCOUNT 3 retries 10s apart,
//	                      SEND_CLAIM_VOTE 1 retry 5s later.
//	policy TYPE [max-retries=N] [delay=D]
//	                      a transaction type's retry policy.
//	senders ID=NONCE... [workers=(ID,...)]
//	                      the senders and their next nonces; those named in
//	                      workers have a remote worker.
//	commit QUEUE TYPE [n=N]
//	                      stores N WAITING transactions without telling the
//	                      core (before start, or an intake whose notification
//	                      was lost).
//	start                 builds the core from the store; any command below
//	                      starts it first if needed.
//	enqueue QUEUE TYPE [n=N]
//	                      stores N WAITING transactions and steps Enqueued.
//	dispatch-ok UID[:N] [hash=H] [nonce=N]
//	                      answers the transaction's outstanding dispatch (or
//	                      submit): sent, with hash H (default hT.N for tx000T
//	                      attempt N) and the nonce used (default the one asked).
//	dispatch-error UID[:N] [code=CODE] [msg=(TEXT)] [hash=H] [permanent]
//	                      answers it with an error: a chain error by its code
//	                      (nonce_too_low, replacement_underpriced, ...) or a
//	                      plain one; hash is a hash the dispatcher returned all
//	                      the same; permanent is an error no retry can change.
//	sign UID[:N] [nonce=N] [hash=H]
//	                      answers a Builder dispatch: built and signed
//	                      (Signed); the core then asks for a submit.
//	check UID[:N] included|failed|pending|dropped|unknown|error [reason=R] [height=N]
//	                      answers the transaction's outstanding status checks
//	                      (all of them without :N): included, or included and
//	                      failed (reason default reverted), at height N
//	                      (default the attempt's known height, else the head);
//	                      dropped (reason default replaced); error is a chain
//	                      that could not be reached.
//	head [HEIGHT] [ok=(UID:N,...)] [fail=(UID:N,...)] [reason=R] [min-fee=N]
//	                      a new block (default the next height) with receipts
//	                      of attempts included with success or failure (reason,
//	                      default reverted); like the driver, only receipts of
//	                      hashes the core watches reach it.
//	heads N               N empty blocks.
//	tick [+D]             moves the clock on by D and steps Tick.
//	hook-done UID [error=(TEXT)] [done=JSON]
//	                      answers the transaction's outstanding hook (or
//	                      reports it again, late, when none is outstanding).
//	load QUEUE            answers the queue's outstanding load from the store.
//	restart [ID=NONCE...] [without=(ID,...)] [pins=(QUEUE:SENDER,...)]
//	                      a crash: the core and its outstanding effects are
//	                      lost; a new core starts from the store, as
//	                      Node.load builds it (each sender's next nonce raised
//	                      to the chain's account nonce given here; senders in
//	                      without left the configuration; pins, when given,
//	                      replace the pins (pins=() removes them); finished
//	                      transactions without a result run their hook again).
//	state                 the store: each queue's binding, each sender, each
//	                      transaction with its attempts and history, and the
//	                      outstanding effects.
//
// A step prints its Ready: under "batch:" the transactions written (state,
// retries, error, result), their attempts and their history entries (from ->
// to, the queue's binding at that moment, the note), then the queues and the
// senders written; under "effects:" what the core asks for. "(no change)" is
// an empty Ready. Times print as offsets from the harness's start, t0.
func TestCoreScenarios(t *testing.T) {
	testkit.RunScenarios(t, "testdata/scenarios", func() func(*testing.T, *datadriven.TestData) string {
		return (&scenario{cfg: testConfig()}).run
	})
}

// scenario is one script's world.
type scenario struct {
	cfg     CoreConfig
	senders []store.Sender
	h       *harness // nil until something is stored
	started bool
}

func (s *scenario) run(t *testing.T, d *datadriven.TestData) string {
	if s.h != nil {
		s.h.t = t
	}
	switch d.Cmd {
	case "config":
		return s.config(t, d)
	case "policy":
		return s.policy(t, d)
	case "senders":
		return s.setSenders(t, d)
	case "commit":
		q, typ, n := s.txArgs(t, d)
		h := s.store(t)
		return "stored (the core is not told): " + uids(h.commit(q, typ, n))
	case "start":
		if s.started {
			d.Fatalf(t, "the core is already started")
		}
		return s.start(t)
	}

	var out strings.Builder
	if !s.started {
		if r := s.start(t); r != "(no change)\n" {
			out.WriteString("start:\n" + testkit.Indent(r))
		}
	}
	h := s.h
	switch d.Cmd {
	case "enqueue":
		q, typ, n := s.txArgs(t, d)
		txs := h.commit(q, typ, n)
		out.WriteString("stored: " + uids(txs))
		h.c.Step(Enqueued(h.now, txs))
		out.WriteString(fmtReady(h.step()))
	case "dispatch-ok", "dispatch-error":
		e := s.take(t, d, EffectDispatch, EffectSubmit)
		r := DispatchResult{UID: e.UID, Attempt: e.Attempt, Nonce: e.Sender.Nonce, Hash: e.Hash}
		if e.Kind == EffectSubmit {
			r.Nonce = e.Tx.Nonce
		} else if d.Cmd == "dispatch-ok" {
			r.Hash = defaultHash(e.UID, e.Attempt)
		}
		d.MaybeScanArgs(t, "hash", &r.Hash)
		d.MaybeScanArgs(t, "nonce", &r.Nonce)
		if d.Cmd == "dispatch-error" {
			r.Err = s.dispatchErr(t, d)
			r.Code = chain.CodeOf(r.Err)
			r.Permanent = d.HasArg("permanent")
		}
		h.c.Step(Dispatched(h.now, e.Queue, r))
		out.WriteString(fmtReady(h.step()))
	case "sign":
		e := s.take(t, d, EffectDispatch)
		nonce, hash := e.Sender.Nonce, defaultHash(e.UID, e.Attempt)
		d.MaybeScanArgs(t, "nonce", &nonce)
		d.MaybeScanArgs(t, "hash", &hash)
		out.WriteString(fmtReady(h.signed(e, nonce, hash)))
	case "check":
		out.WriteString(s.check(t, d))
	case "head":
		out.WriteString(s.head(t, d))
	case "heads":
		if len(d.CmdArgs) != 1 {
			d.Fatalf(t, "heads N")
		}
		n, err := strconv.Atoi(d.CmdArgs[0].Key)
		if err != nil {
			d.Fatalf(t, "heads: %v", err)
		}
		for range n {
			out.WriteString(step(fmt.Sprintf("head %d", h.head+1), h.newHead()))
		}
	case "tick":
		var dur time.Duration
		if len(d.CmdArgs) > 0 {
			dur = testkit.PosDuration(t, d, 0, "tick [+D]")
		}
		r := h.tick(dur)
		fmt.Fprintf(&out, "now %s\n", fmtTime(h.now))
		out.WriteString(fmtReady(r))
	case "hook-done":
		uid, _ := ref(t, d)
		e := Effect{Kind: EffectHook, UID: uid}
		if slices.ContainsFunc(h.out, func(e Effect) bool { return e.Kind == EffectHook && e.UID == uid }) {
			e = s.take(t, d, EffectHook)
		} else {
			out.WriteString("(no hook outstanding: a late report)\n")
		}
		res := TxnResult{Hash: e.Result.Hash}
		var err error
		if a, ok := d.Arg("error"); ok {
			err = errors.New(strings.Join(a.Vals, ", "))
		}
		if a, ok := d.Arg("done"); ok {
			res.Done = json.RawMessage(strings.Join(a.Vals, ", "))
		}
		out.WriteString(fmtReady(h.hookDone(e, res, err)))
	case "load":
		if len(d.CmdArgs) != 1 {
			d.Fatalf(t, "load QUEUE")
		}
		q := d.CmdArgs[0].Key
		if len(h.effects(EffectLoad, q)) == 0 {
			d.Fatalf(t, "no outstanding load for %s", q)
		}
		out.WriteString(fmtReady(h.loaded(h.take(EffectLoad, q))))
	case "restart":
		out.WriteString(s.restart(t, d))
	case "state":
		out.WriteString(s.state())
	default:
		d.Fatalf(t, "unknown command %q", d.Cmd)
	}
	return out.String()
}

// store returns the harness, building its store from the configuration.
func (s *scenario) store(t *testing.T) *harness {
	if s.h == nil {
		s.h = newStopped(t, s.cfg, s.senders...)
	}
	s.h.t = t
	return s.h
}

func (s *scenario) start(t *testing.T) string {
	h := s.store(t)
	s.started = true
	return s.newCore(t, h.snapshot(), nil)
}

// newCore builds a core from snap (with the store's pending hooks), as
// Node.load does, and prints its first Ready.
func (s *scenario) newCore(t *testing.T, snap Snapshot, lost []Effect) string {
	h := s.h
	for _, tx := range h.bySeq() {
		if (tx.State == store.Done || tx.State == store.Failed) && len(tx.Result) == 0 {
			snap.Hooks = append(snap.Hooks, cloneTx(tx))
		}
	}
	c, err := NewCore(h.cfg, h.now, snap)
	if err != nil {
		t.Fatalf("NewCore: %v", err)
	}
	h.c, h.out = c, nil
	return testkit.Lines("lost: ", lost, fmtEffect) + fmtReady(h.step())
}

func (s *scenario) mustBeStopped(t *testing.T, d *datadriven.TestData) {
	if s.h != nil {
		d.Fatalf(t, "%s must come before anything is stored", d.Cmd)
	}
}

func (s *scenario) config(t *testing.T, d *datadriven.TestData) string {
	s.mustBeStopped(t, d)
	for _, a := range d.CmdArgs {
		switch a.Key {
		case "inclusion-timeout":
			d.ScanArgs(t, a.Key, &s.cfg.InclusionTimeout)
		case "confirmations":
			d.ScanArgs(t, a.Key, &s.cfg.Confirmations)
		case "window":
			d.ScanArgs(t, a.Key, &s.cfg.WaitingWindow)
		case "poll-status":
			s.cfg.PollStatus = true
		case "fee-initial":
			d.ScanArgs(t, a.Key, &s.cfg.Fees.Initial)
		case "fee-bump":
			d.ScanArgs(t, a.Key, &s.cfg.Fees.BumpPercent)
		case "fee-min-step":
			d.ScanArgs(t, a.Key, &s.cfg.Fees.MinStep)
		case "fee-max":
			d.ScanArgs(t, a.Key, &s.cfg.Fees.Max)
		case "pins":
			s.cfg.Pins = parsePins(t, d, a.Vals)
		default:
			d.Fatalf(t, "config: unknown key %q", a.Key)
		}
	}
	return s.fmtConfig()
}

func (s *scenario) policy(t *testing.T, d *datadriven.TestData) string {
	s.mustBeStopped(t, d)
	if len(d.CmdArgs) == 0 {
		d.Fatalf(t, "policy TYPE [max-retries=N] [delay=D]")
	}
	typ := d.CmdArgs[0].Key
	p := s.cfg.Policies[typ]
	d.MaybeScanArgs(t, "max-retries", &p.MaxRetries)
	testkit.ScanDuration(t, d, "delay", &p.Delay)
	s.cfg.Policies[typ] = p
	return s.fmtConfig()
}

func (s *scenario) fmtConfig() string {
	cfg := s.cfg
	cfg.Policies = map[string]Policy{}
	for k, v := range s.cfg.Policies {
		cfg.Policies[k] = v
	}
	if err := cfg.setDefaults(); err != nil {
		return "error: " + err.Error() + "\n"
	}
	var b strings.Builder
	conf := fmt.Sprint(cfg.Confirmations)
	if cfg.Confirmations == 0 {
		conf = "chain" // the chain's declared reorg depth + 1 (1 here: the test chain declares 0)
	}
	fmt.Fprintf(&b, "inclusion-timeout=%d confirmations=%s window=%d poll-status=%v\n",
		cfg.InclusionTimeout, conf, cfg.WaitingWindow, cfg.PollStatus)
	fmt.Fprintf(&b, "fees: initial=%d bump=%d%% min-step=%d max=%d\n",
		cfg.Fees.Initial, cfg.Fees.BumpPercent, cfg.Fees.MinStep, cfg.Fees.Max)
	for _, k := range slices.Sorted(maps.Keys(cfg.Policies)) {
		p := cfg.Policies[k]
		fmt.Fprintf(&b, "policy %s: max-retries=%d delay=%s\n", k, p.MaxRetries, p.Delay)
	}
	if len(cfg.Pins) > 0 {
		b.WriteString(fmtPins(cfg.Pins))
	}
	return b.String()
}

// parsePins reads pins given as QUEUE:SENDER values.
func parsePins(t *testing.T, d *datadriven.TestData, vals []string) map[string]string {
	pins := map[string]string{}
	for _, v := range vals {
		if v == "" {
			continue
		}
		q, snd, ok := strings.Cut(v, ":")
		if !ok || q == "" || snd == "" {
			d.Fatalf(t, "pins: %q is not QUEUE:SENDER", v)
		}
		pins[q] = snd
	}
	return pins
}

// fmtPins prints pins in queue order.
func fmtPins(pins map[string]string) string {
	var ps []string
	for _, q := range slices.Sorted(maps.Keys(pins)) {
		ps = append(ps, q+"->"+pins[q])
	}
	return "pins: " + strings.Join(ps, " ") + "\n"
}

func (s *scenario) setSenders(t *testing.T, d *datadriven.TestData) string {
	s.mustBeStopped(t, d)
	var workers []string
	if a, ok := d.Arg("workers"); ok {
		workers = a.Vals
	}
	s.senders = nil
	var b strings.Builder
	for _, a := range d.CmdArgs {
		if a.Key == "workers" {
			continue
		}
		n, err := strconv.ParseUint(a.SingleVal(t), 10, 64)
		if err != nil {
			d.Fatalf(t, "sender %s: %v", a.Key, err)
		}
		snd := acct(a.Key, n)
		if slices.Contains(workers, a.Key) {
			snd.Worker = "http://worker-" + a.Key
		}
		s.senders = append(s.senders, snd)
		b.WriteString(fmtSender(snd))
	}
	return b.String()
}

// txArgs reads "QUEUE TYPE [n=N]".
func (s *scenario) txArgs(t *testing.T, d *datadriven.TestData) (queue, typ string, n int) {
	if len(d.CmdArgs) < 2 {
		d.Fatalf(t, "%s QUEUE TYPE [n=N]", d.Cmd)
	}
	queue, typ, n = d.CmdArgs[0].Key, d.CmdArgs[1].Key, 1
	d.MaybeScanArgs(t, "n", &n)
	return queue, typ, n
}

// ref reads the first argument, UID or UID:N (attempt 0: any).
func ref(t *testing.T, d *datadriven.TestData) (uid string, attempt int) {
	if len(d.CmdArgs) == 0 {
		d.Fatalf(t, "%s needs UID[:N]", d.Cmd)
	}
	uid, n, ok := strings.Cut(d.CmdArgs[0].Key, ":")
	if ok {
		var err error
		if attempt, err = strconv.Atoi(n); err != nil {
			d.Fatalf(t, "%s: attempt %q: %v", d.Cmd, n, err)
		}
	}
	return uid, attempt
}

// take removes and returns the first outstanding effect of one of kinds for
// the first argument's UID[:N].
func (s *scenario) take(t *testing.T, d *datadriven.TestData, kinds ...EffectKind) Effect {
	uid, attempt := ref(t, d)
	h := s.h
	for i, e := range h.out {
		if slices.Contains(kinds, e.Kind) && e.UID == uid && (attempt == 0 || e.Attempt == attempt) {
			h.out = append(h.out[:i:i], h.out[i+1:]...)
			return e
		}
	}
	d.Fatalf(t, "no outstanding %s for %s; outstanding: %s", d.Cmd, d.CmdArgs[0].Key, h.describeOut())
	return Effect{}
}

func (s *scenario) dispatchErr(t *testing.T, d *datadriven.TestData) error {
	msg := testkit.Arg(d, "msg", "")
	if a, ok := d.Arg("code"); ok {
		e := chain.ErrorByCode(a.SingleVal(t))
		if e == nil {
			d.Fatalf(t, "unknown chain error code %q", a.SingleVal(t))
		}
		if msg == "" {
			msg = "send"
		}
		return fmt.Errorf("%s: %w", msg, e)
	}
	if msg == "" {
		msg = "worker error"
	}
	return errors.New(msg)
}

// check answers status checks.
func (s *scenario) check(t *testing.T, d *datadriven.TestData) string {
	h := s.h
	uid, attempt := ref(t, d)
	if len(d.CmdArgs) < 2 {
		d.Fatalf(t, "check UID[:N] included|failed|pending|dropped|unknown|error")
	}
	answer := d.CmdArgs[1].Key
	var es []Effect
	for {
		i := slices.IndexFunc(h.out, func(e Effect) bool {
			return e.Kind == EffectCheck && e.UID == uid && (attempt == 0 || e.Attempt == attempt)
		})
		if i < 0 {
			break
		}
		es = append(es, h.out[i])
		h.out = append(h.out[:i:i], h.out[i+1:]...)
	}
	if len(es) == 0 {
		d.Fatalf(t, "no outstanding check for %s; outstanding: %s", d.CmdArgs[0].Key, h.describeOut())
	}
	var out strings.Builder
	for _, e := range es {
		st := chain.TxStatus{Hash: chain.Hash(e.Hash)}
		var err error
		switch answer {
		case "included", "failed":
			st.State, st.Success = chain.TxIncluded, answer == "included"
			st.Height = h.head
			if a := h.attempt(e.UID, e.Attempt); a.Height != 0 {
				st.Height = a.Height
			}
			d.MaybeScanArgs(t, "height", &st.Height)
			if !st.Success {
				st.Reason = "reverted"
			}
		case "pending":
			st.State = chain.TxPending
		case "dropped":
			st.State, st.Reason = chain.TxDropped, "replaced"
		case "unknown":
			st.State = chain.TxUnknown
		case "error":
			err = errors.New("chain unreachable")
		default:
			d.Fatalf(t, "check: unknown answer %q", answer)
		}
		d.MaybeScanArgs(t, "reason", &st.Reason)
		var r Ready
		if e.Hash == "" && err == nil {
			r = s.lookedUp(t, d, e, st)
		} else {
			r = h.checked(e, st, err)
		}
		if len(es) == 1 {
			return fmtReady(r)
		}
		out.WriteString(step(fmt.Sprintf("%s:%d %s", e.UID, e.Attempt, answer), r))
	}
	return out.String()
}

// lookedUp answers a lookup (a check without a hash) with st: included or
// failed is the intent's own transaction (hash=H, fee=F), dropped another
// one's at height (default: the head), unknown none found.
func (s *scenario) lookedUp(t *testing.T, d *datadriven.TestData, e Effect, st chain.TxStatus) Ready {
	h := s.h
	switch st.State {
	case chain.TxIncluded:
		hash, fee := "", uint64(0)
		d.ScanArgs(t, "hash", &hash)
		d.MaybeScanArgs(t, "fee", &fee)
		st.Hash = chain.Hash(hash)
		h.c.Step(CheckedIncluded(h.now, e.Queue, e.UID, e.Attempt, st, e.Sender.Nonce, fee))
		return h.step()
	case chain.TxDropped:
		st.Height = h.head
		d.MaybeScanArgs(t, "height", &st.Height)
		st.Reason = fmt.Sprintf("nonce %d went to another transaction", e.Sender.Nonce)
	case chain.TxPending, chain.TxUnknown: // as answered
	}
	return h.checked(e, st, nil)
}

// head steps a new block with receipts.
func (s *scenario) head(t *testing.T, d *datadriven.TestData) string {
	h := s.h
	height := h.head + 1
	var rs []Receipt
	reason := "reverted"
	d.MaybeScanArgs(t, "reason", &reason)
	for _, a := range d.CmdArgs {
		switch a.Key {
		case "ok", "fail":
			for _, v := range a.Vals {
				uid, n, _ := strings.Cut(v, ":")
				k, err := strconv.Atoi(n)
				if err != nil {
					d.Fatalf(t, "head: attempt %q: %v", v, err)
				}
				at := h.attempt(uid, k)
				if at.Hash == "" {
					d.Fatalf(t, "head: %s has no hash", v)
				}
				r := Receipt{Hash: at.Hash, Success: a.Key == "ok"}
				if !r.Success {
					r.Reason = reason
				}
				rs = append(rs, r)
			}
		case "reason":
		case "min-fee":
			d.ScanArgs(t, "min-fee", &h.minFee)
		default:
			n, err := strconv.ParseUint(a.Key, 10, 64)
			if err != nil || len(a.Vals) > 0 {
				d.Fatalf(t, "head: unknown argument %q", a.Key)
			}
			height = n
		}
	}
	var out strings.Builder
	for _, r := range rs {
		if !h.c.Watching(r.Hash) {
			fmt.Fprintf(&out, "receipt %s not watched: the driver drops it\n", r.Hash)
		}
	}
	out.WriteString(fmtReady(h.newHeadAt(height, rs...)))
	return out.String()
}

// restart replaces the core by a new one built from the store.
func (s *scenario) restart(t *testing.T, d *datadriven.TestData) string {
	h := s.h
	var without []string
	var pins strings.Builder
	for _, a := range d.CmdArgs {
		if a.Key == "without" {
			without = a.Vals
			continue
		}
		if a.Key == "pins" {
			h.cfg.Pins = parsePins(t, d, a.Vals)
			pins.WriteString(fmtPins(h.cfg.Pins))
			continue
		}
		n, err := strconv.ParseUint(a.SingleVal(t), 10, 64)
		if err != nil || h.senders[a.Key] == nil {
			d.Fatalf(t, "restart: %s=%s: not a sender's chain nonce", a.Key, a.SingleVal(t))
		}
		h.senders[a.Key].NextNonce = max(h.senders[a.Key].NextNonce, n)
	}
	for _, id := range without {
		if h.senders[id] == nil {
			d.Fatalf(t, "restart: no sender %s", id)
		}
		delete(h.senders, id)
		h.noSenderOK = true // its queue settles without a sender
	}
	lost := h.out
	return pins.String() + s.newCore(t, h.snapshot(), lost)
}

// state prints the store and the outstanding effects.
func (s *scenario) state() string {
	h := s.h
	var b strings.Builder
	fmt.Fprintf(&b, "now %s, head %d", fmtTime(h.now), h.head)
	if dl := h.c.NextDeadline(); !dl.IsZero() {
		fmt.Fprintf(&b, ", next deadline %s", fmtTime(dl))
	}
	b.WriteString("\n")
	names := map[string]bool{}
	for n := range h.queues {
		names[n] = true
	}
	for _, tx := range h.bySeq() {
		names[tx.Queue] = true
	}
	for _, n := range slices.Sorted(maps.Keys(names)) {
		b.WriteString(fmtQueue(h.queue(n)))
	}
	for _, id := range slices.Sorted(maps.Keys(h.senders)) {
		b.WriteString(fmtSender(*h.senders[id]))
	}
	for _, tx := range h.bySeq() {
		fmt.Fprintf(&b, "%s %s %s%s\n", tx.UID, tx.Queue, tx.State, txDetails(tx.Retries, tx.Error, tx.Result))
		for _, a := range tx.Attempts {
			b.WriteString("  " + fmtAttempt(a))
		}
		if es := h.hist[tx.UID]; len(es) > 0 {
			path := []string{string(es[0].From)}
			for _, e := range es {
				path = append(path, string(e.To))
			}
			b.WriteString("  history " + strings.Join(path, " > ") + "\n")
		}
	}
	if len(h.out) > 0 {
		b.WriteString("outstanding:\n")
		for _, e := range h.out {
			b.WriteString("  " + fmtEffect(e) + "\n")
		}
	}
	return b.String()
}

// --- printing ---

// fmtReady prints a Ready: the batch, then the effects.
func fmtReady(r Ready) string {
	if r.Batch.Empty() && len(r.Effects) == 0 {
		return "(no change)\n"
	}
	var b strings.Builder
	if !r.Batch.Empty() {
		b.WriteString("batch:\n")
		var order []string
		last := map[string]store.TxUpdate{}
		attempts := map[string][]store.Attempt{}
		for _, u := range r.Batch.Txs {
			if _, ok := last[u.UID]; !ok {
				order = append(order, u.UID)
			}
			last[u.UID] = u
			if u.Attempt != nil {
				attempts[u.UID] = append(attempts[u.UID], *u.Attempt)
			}
		}
		hist := map[string][]store.HistoryEntry{}
		for _, e := range r.Batch.History {
			if _, ok := last[e.UID]; !ok {
				order = append(order, e.UID)
			}
			hist[e.UID] = append(hist[e.UID], e)
		}
		for _, uid := range order {
			u := last[uid]
			fmt.Fprintf(&b, "  %s %s%s\n", uid, u.State, txDetails(u.Retries, u.Error, u.Result))
			for _, a := range attempts[uid] {
				b.WriteString("    " + fmtAttempt(a))
			}
			for _, e := range hist[uid] {
				fmt.Fprintf(&b, "    %s -> %s (queue %s)", e.From, e.To, e.Binding)
				if e.Note != "" {
					b.WriteString(" " + e.Note)
				}
				b.WriteString("\n")
			}
		}
		for _, q := range r.Batch.Queues {
			b.WriteString("  " + fmtQueue(q))
		}
		for _, s := range r.Batch.Senders {
			b.WriteString("  " + fmtSender(s))
		}
	}
	if len(r.Effects) > 0 {
		b.WriteString("effects:\n")
		for _, e := range r.Effects {
			b.WriteString("  " + fmtEffect(e) + "\n")
		}
	}
	return b.String()
}

func txDetails(retries int, errText string, result json.RawMessage) string {
	var b strings.Builder
	if retries > 0 {
		fmt.Fprintf(&b, " retries=%d", retries)
	}
	if errText != "" {
		fmt.Fprintf(&b, " error=%q", errText)
	}
	if len(result) > 0 {
		fmt.Fprintf(&b, " result=%s", result)
	}
	return b.String()
}

func fmtAttempt(a store.Attempt) string {
	var b strings.Builder
	fmt.Fprintf(&b, "attempt %d: %s nonce=%d fee=%d", a.N, a.Sender, a.Nonce, a.Fee)
	if a.Hash != "" {
		fmt.Fprintf(&b, " hash=%s", a.Hash)
	}
	if a.Outcome != "" {
		fmt.Fprintf(&b, " outcome=%s", string(a.Outcome))
	}
	if a.Height != 0 {
		fmt.Fprintf(&b, " height=%d", a.Height)
	}
	if a.Error != "" {
		fmt.Fprintf(&b, " error=%q", a.Error)
	}
	b.WriteString("\n")
	return b.String()
}

func fmtQueue(q store.Queue) string {
	var b strings.Builder
	fmt.Fprintf(&b, "queue %s: %s", q.Name, q.State)
	if q.Sender != "" {
		fmt.Fprintf(&b, " sender=%s", q.Sender)
	}
	if q.TxUID != "" {
		fmt.Fprintf(&b, " tx=%s", q.TxUID)
	}
	if q.Deadline != 0 {
		fmt.Fprintf(&b, " deadline=%d", q.Deadline)
	}
	if !q.DelayUntil.IsZero() {
		fmt.Fprintf(&b, " delay-until=%s", fmtTime(q.DelayUntil))
	}
	b.WriteString("\n")
	return b.String()
}

func fmtSender(s store.Sender) string {
	var b strings.Builder
	fmt.Fprintf(&b, "sender %s:", s.ID)
	if s.Queue != "" {
		fmt.Fprintf(&b, " queue=%s", s.Queue)
	}
	fmt.Fprintf(&b, " next-nonce=%d", s.NextNonce)
	if s.Worker != "" {
		fmt.Fprintf(&b, " worker=%s", s.Worker)
	}
	b.WriteString("\n")
	return b.String()
}

func fmtEffect(e Effect) string {
	switch e.Kind {
	case EffectDispatch:
		s := fmt.Sprintf("dispatch %s:%d queue=%s sender=%s nonce=%d fee=%d retries=%d",
			e.UID, e.Attempt, e.Queue, e.Sender.AccountID, e.Sender.Nonce, e.Sender.Fee, e.Sender.Retries)
		if e.SyncNonce {
			s += " sync-nonce"
		}
		if e.Worker != "" {
			s += " worker=" + e.Worker
		}
		return s
	case EffectSubmit:
		return fmt.Sprintf("submit %s:%d queue=%s hash=%s nonce=%d fee=%d", e.UID, e.Attempt, e.Queue, e.Hash, e.Tx.Nonce, e.Tx.Fee)
	case EffectCheck:
		if e.Hash == "" {
			return fmt.Sprintf("lookup %s:%d queue=%s sender=%s nonce=%d", e.UID, e.Attempt, e.Queue, e.Sender.AccountID, e.Sender.Nonce)
		}
		return fmt.Sprintf("check %s:%d queue=%s hash=%s", e.UID, e.Attempt, e.Queue, e.Hash)
	case EffectHook:
		hook := "on-failure"
		if e.Success {
			hook = "on-success"
		}
		s := fmt.Sprintf("hook %s %s queue=%s", e.UID, hook, e.Queue)
		if e.Result.Hash != "" {
			s += " hash=" + e.Result.Hash
		}
		return s + fmt.Sprintf(" sender=%s nonce=%d fee=%d retries=%d", e.Sender.AccountID, e.Sender.Nonce, e.Sender.Fee, e.Sender.Retries)
	case EffectLoad:
		return fmt.Sprintf("load %s after=%d limit=%d", e.Queue, e.After, e.Limit)
	}
	return fmt.Sprintf("effect kind %d", e.Kind)
}

// step prints one of several steps of a command.
func step(label string, r Ready) string {
	s := fmtReady(r)
	if s == "(no change)\n" {
		return label + ": " + s
	}
	return label + ":\n" + testkit.Indent(s)
}

// fmtTime prints a time as its offset from t0.
func fmtTime(at time.Time) string { return "+" + at.Sub(t0).String() }

// defaultHash is the hash a script's dispatch returns unless it names one:
// h<n>.<attempt> for tx<n>.
func defaultHash(uid string, attempt int) string {
	n := strings.TrimLeft(strings.TrimPrefix(uid, "tx"), "0")
	return fmt.Sprintf("h%s.%d", n, attempt)
}

func uids(txs []store.Transaction) string {
	ids := make([]string, len(txs))
	for i := range txs {
		ids[i] = txs[i].UID
	}
	return strings.Join(ids, " ") + "\n"
}

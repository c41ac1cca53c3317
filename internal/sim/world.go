package sim

import (
	"cmp"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/sequencer/dispatch"
	"github.com/ordolabs/ordo/internal/store"
)

// The world of one run: the chain, the node's store and the node on one
// virtual clock, and what each action does to them.

// seqWorld is one run: the chain, the node's store and the node, on one
// virtual clock.
type seqWorld struct {
	world
	cfg     SequencerConfig
	node    *sequencer.Node
	loop    *sequencer.Loop
	workers []*simWorker
	// statusRng and statusErrors make status checks fail (flakyStatus).
	statusRng    *rand.Rand
	statusErrors float64
	chk          *checker
	deployed     map[int]bool
	votes        int
	lastHead     chain.Hash
	res          SequencerResult
}

func runActions(ctx context.Context, cfg SequencerConfig, actions []Action) (SequencerResult, error) {
	w, err := newSeqWorld(ctx, cfg)
	if err != nil {
		return SequencerResult{}, err
	}
	defer w.close()
	for i, a := range actions {
		if err := w.do(ctx, a); err != nil {
			return w.res, err
		}
		if err := w.check(ctx, i+1); err != nil {
			return w.res, err
		}
		fmt.Fprintf(w.digest, "%d|%s|%s|%d\n", i, a, w.lastHead, w.chk.open())
	}
	if err := w.drain(ctx, len(actions)+1); err != nil {
		return w.res, err
	}
	w.finish()
	return w.res, nil
}

func newSeqWorld(ctx context.Context, cfg SequencerConfig) (*seqWorld, error) {
	base, err := newWorld(cfg.Dir, "ordo-sim-*", cfg.Seed, 0, cfg.ReorgDepth)
	if err != nil {
		return nil, err
	}
	w := &seqWorld{world: base, cfg: cfg, chk: newChecker().pipelined(cfg.pipelines()), statusRng: rand.New(rand.NewPCG(cfg.Seed, 0x73746174)), statusErrors: 0.1,
		deployed: map[int]bool{}, res: SequencerResult{Seed: cfg.Seed, Steps: cfg.Steps}}
	workerRng := rand.New(rand.NewPCG(cfg.Seed, 0x776f726b))
	keys, err := w.fundedKeys(ctx, "ordo-sim-sender", cfg.Seed, cfg.Senders)
	if err != nil {
		return nil, err
	}
	for i, k := range keys {
		if i >= cfg.Senders-cfg.WorkerSenders {
			wk := &simWorker{w: w, key: k, rng: workerRng, lost: 0.1}
			w.workers = append(w.workers, wk)
			w.senders = append(w.senders, sequencer.SenderConfig{ID: chain.KeyAddress(k), Worker: fmt.Sprintf("sim://worker-%d", i), Remote: wk})
			continue
		}
		w.addSender(k)
	}
	if err := w.start(ctx); err != nil {
		w.close()
		return nil, err
	}
	return w, nil
}

// start opens the store (if closed) and starts a node on it: its Loop is
// turned once for what recovery writes and asks.
func (w *seqWorld) start(ctx context.Context) error {
	if err := w.openStore(ctx); err != nil {
		return err
	}
	disp := map[string]sequencer.Dispatcher{}
	pol := map[string]sequencer.Policy{}
	for _, t := range dispatch.BuiltinTypes() {
		d, err := dispatch.NewZkAppDispatcher(t, simMaxRetries, w.dc, w.key)
		if err != nil {
			return err
		}
		disp[t], pol[t] = d, sequencer.Policy{MaxRetries: simMaxRetries, Delay: simDelay}
		if w.cfg.PureHooks {
			disp[t] = pureHooks{d}
		}
	}
	ch := w.nodeChain()
	var err error
	w.node, err = sequencer.NewNode(sequencer.Config{Store: w.st, Chain: ch, Clock: w.clk, Dispatchers: disp, Policies: pol,
		InclusionTimeout: simInclusionTimeout, Confirmations: w.cfg.Confirmations, Senders: w.senders, Pipelines: w.cfg.pipelines(),
		Logger: slog.New(slog.DiscardHandler), Inline: true, Trace: w.cfg.Trace, Rand: w.uids, OnFinish: w.finished, Metrics: w.cfg.metrics})
	if err != nil {
		return err
	}
	if w.loop, err = w.node.Open(ctx); err != nil {
		return fmt.Errorf("sim: node start: %w", err)
	}
	if _, err := w.loop.Turn(ctx); err != nil {
		return err
	}
	return w.settle(ctx)
}

// pureHooks is a zkApp dispatcher whose hooks return the result as given,
// and say so (SequencerConfig.PureHooks).
type pureHooks struct{ *dispatch.ZkAppDispatcher }

// PureHooks implements sequencer.PureHooks.
func (pureHooks) PureHooks() bool { return true }

// OnSuccess returns r.
func (pureHooks) OnSuccess(_ context.Context, _ sequencer.RawTxnData, r sequencer.TxnResult, _ sequencer.Sender) (sequencer.TxnResult, error) {
	return r, nil
}

// OnFailure returns r.
func (pureHooks) OnFailure(_ context.Context, _ sequencer.RawTxnData, r sequencer.TxnResult, _ sequencer.Sender) (sequencer.TxnResult, error) {
	return r, nil
}

func (w *seqWorld) finished(uid string, st store.TxState, _ uint64) {
	if st == store.Failed && len(w.workers) > 0 {
		// An ambiguous FAILED (a worker's unreported attempt may have
		// taken the nonce) may still land: the node says so in the error.
		if t, err := w.st.Get(context.Background(), uid); err == nil && strings.HasPrefix(t.Error, "ambiguous") {
			w.chk.ambiguous(uid)
		}
	}
	w.chk.ended(uid, st)
	if st == store.Done {
		w.res.Done++
	} else {
		w.res.Failed++
	}
}

// settle tells the node of a new head and of ended DELAYs, then turns its
// loop until no input waits.
func (w *seqWorld) settle(ctx context.Context) error {
	head, err := w.dc.Head(ctx)
	if err != nil {
		return err
	}
	if head.Hash != w.lastHead {
		w.lastHead = head.Hash
		w.res.Blocks = head.Height
		w.loop.HeadSeen(ctx, head)
	}
	if dl := w.loop.Deadline(); !dl.IsZero() && !w.clk.Now().Before(dl) {
		w.loop.Put(sequencer.Tick(w.clk.Now()))
	}
	for i := 0; w.loop.Waiting(); i++ {
		if i == 10_000 {
			return errors.New("sim: the node's loop does not settle")
		}
		if _, err := w.loop.Turn(ctx); err != nil {
			return err
		}
	}
	return nil
}

// advance moves the clock by dt, block by block.
func (w *seqWorld) advance(ctx context.Context, dt time.Duration) error {
	return w.advanceBy(ctx, dt, w.settle)
}

// do performs one action.
func (w *seqWorld) do(ctx context.Context, a Action) error {
	switch a.Kind {
	case ActSubmit:
		return w.submit(ctx, a)
	case ActAdvance:
		return w.advance(ctx, a.Dt)
	case ActFault:
		w.res.Faults++
		w.fault(ctx, a)
		return w.settle(ctx)
	case ActCrash:
		return w.crash(ctx)
	}
	return fmt.Errorf("sim: unknown action %v", a)
}

func (w *seqWorld) submit(ctx context.Context, a Action) error {
	q := fmt.Sprintf("q%d", a.Queue)
	in := make([]sequencer.Intake, 0, a.N)
	for range a.N {
		typ := sequencer.SendClaimVote
		if !w.deployed[a.Queue] {
			w.deployed[a.Queue], typ = true, sequencer.CreateClaimVotingAccount
		}
		w.votes++
		data, _ := json.Marshal(map[string]any{"voter": fmt.Sprintf("v%d", w.votes)})
		in = append(in, sequencer.Intake{Queue: q, Type: typ, Data: data})
	}
	res, err := w.node.Submit(ctx, in)
	if err != nil {
		return fmt.Errorf("sim: submit: %w", err)
	}
	for _, r := range res {
		w.chk.acked(r.Transaction)
		w.res.Intents++
	}
	return w.settle(ctx)
}

func (w *seqWorld) fault(ctx context.Context, a Action) {
	var u devchain.FaultUpdate
	switch a.Fault {
	case FaultReject:
		u.RejectProb = &a.P
	case FaultDrop:
		u.DropProb = &a.P
	case FaultRevert:
		u.RevertProb = &a.P
	case FaultFeeSpike:
		u.FeeSpike = &devchain.FeeSpike{Factor: a.K, Blocks: 3}
	case FaultStall:
		d := devchain.Duration(time.Duration(a.K) * time.Second)
		u.Stall = &d
	case FaultReorg:
		u.Reorg = &a.K
	case FaultClear:
		zero := 0.0
		u.RejectProb, u.DropProb, u.RevertProb = &zero, &zero, &zero
	}
	// A reorg deeper than the chain is refused: the action does nothing.
	_, _ = w.dc.SetFaults(ctx, u)
}

// crash drops the node's memory, reopens its store and checks that every
// acknowledged record is still there, then starts a node again.
func (w *seqWorld) crash(ctx context.Context) error {
	w.res.Crashes++
	w.node, w.loop = nil, nil
	if err := w.closeStore(); err != nil {
		return err
	}
	if err := w.start(ctx); err != nil {
		return err
	}
	for _, uid := range w.chk.uids() {
		if _, err := w.st.Get(ctx, uid); err != nil {
			w.chk.fail(InvLost, "%s was acknowledged, and after a crash the store says: %v", uid, err)
		}
	}
	return nil
}

// check runs the invariants after a step.
func (w *seqWorld) check(ctx context.Context, step int) error {
	if err := w.loop.Core().CheckInvariants(); err != nil {
		w.chk.fail(InvCore, "%v", err)
	}
	if err := w.chk.sync(ctx, w.dc); err != nil {
		return fmt.Errorf("sim: read chain: %w", err)
	}
	if len(w.chk.failures) == 0 {
		return nil
	}
	var ie *invariantError
	errors.As(w.chk.failures[0], &ie)
	return &Violation{Seed: w.cfg.Seed, Step: step, Invariant: ie.inv, Detail: ie.detail}
}

// drain stops the faults and lets the node end every intent within
// DrainBound, then makes more blocks to see that nothing FAILED lands later.
func (w *seqWorld) drain(ctx context.Context, step int) error {
	for _, wk := range w.workers {
		wk.lost = 0
	}
	w.statusErrors = 0
	zero, none := 0.0, devchain.Duration(0)
	if _, err := w.dc.SetFaults(ctx, devchain.FaultUpdate{RejectProb: &zero, DropProb: &zero, RevertProb: &zero, Stall: &none}); err != nil {
		return err
	}
	bound := w.cfg.DrainBound
	if bound <= 0 {
		conf := cmp.Or(w.cfg.Confirmations, w.cfg.ReorgDepth+1)
		perIntent := (simMaxRetries + 1) * (simDelay + time.Duration(simInclusionTimeout+conf+1)*simBlockTime)
		bound = time.Minute + time.Duration(w.chk.longestQueue())*perIntent
	}
	start := w.clk.Now()
	for w.chk.open() > 0 && w.clk.Now().Sub(start) < bound {
		if err := w.advance(ctx, 500*time.Millisecond); err != nil {
			return err
		}
		if err := w.check(ctx, step); err != nil {
			return err
		}
	}
	w.res.Drain = w.clk.Now().Sub(start)
	if n := w.chk.open(); n > 0 {
		w.chk.fail(InvLiveness, "%d intents still open %v after the faults stopped: %s", n, bound, w.stuck(ctx))
		return w.check(ctx, step)
	}
	if err := w.advance(ctx, time.Duration(2*(w.cfg.ReorgDepth+1)+simInclusionTimeout)*simBlockTime); err != nil {
		return err
	}
	pending, err := w.st.PendingHooks(ctx, 0, 5)
	if err != nil {
		return err
	}
	for _, t := range pending {
		w.chk.fail(InvHooks, "%s ended %s without its hook's result", t.UID, t.State)
	}
	return w.check(ctx, step)
}

// stuck describes a few open records as the store has them.
func (w *seqWorld) stuck(ctx context.Context) string {
	var out []string
	for _, uid := range w.chk.uids() {
		if w.chk.recs[uid].end != "" {
			continue
		}
		t, err := w.st.Get(ctx, uid)
		if err != nil {
			out = append(out, uid+": "+err.Error())
		} else {
			out = append(out, fmt.Sprintf("%s (%s, queue %s, retries %d, attempts %d)", uid, t.State, t.Queue, t.Retries, len(t.Attempts)))
		}
		if len(out) == 5 {
			break
		}
	}
	return fmt.Sprint(out)
}

// finish folds the records' ends into the digest.
func (w *seqWorld) finish() {
	for _, uid := range w.chk.uids() {
		fmt.Fprintf(w.digest, "%s=%s\n", uid, w.chk.recs[uid].end)
	}
	w.res.Digest = hex.EncodeToString(w.digest.Sum(nil))
}

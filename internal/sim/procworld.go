package sim

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/chainevents"
	"github.com/ordolabs/ordo/internal/processor"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/store"
)

// The world of a processor run: the chain, one store, the sequencer and the
// processor on one virtual clock, a callback receiver, and an account that
// configures and confirms through the library contract.

// Shape of the processor world.
const (
	procSenders     = 2
	procFinality    = 1 // the chain's declared reorg depth (it never reorgs here)
	procRecvFail    = 0.2
	procDeliverHost = "http://receiver.sim/"
)

type procWorld struct {
	world
	cfg ProcessorConfig
	engineWorld
	pnode  *processor.Node
	ploop  *processor.Loop
	recv   *receiver
	admin  ed25519.PrivateKey
	faulty bool // a chain fault is on: the world's own transactions may fail too
	chk    *procChecker
	res    ProcessorResult
	// removedIDs holds "<proc>/<id>" of each batch a removal answered for;
	// unanswered counts, per processor, the removals whose answer was lost
	// (each may have removed one batch).
	removedIDs map[string]bool
	unanswered map[string]int
}

// removed records what a removal asked of proc answered.
func (w *procWorld) removed(proc string, rep processor.Reply, err error) {
	switch body, ok := rep.Body.(processor.RemoveResult); {
	case err != nil:
		w.unanswered[proc]++
	case ok:
		w.removedIDs[proc+"/"+body.ID] = true
	}
}

func runProcActions(ctx context.Context, cfg ProcessorConfig, actions []ProcAction) (ProcessorResult, error) {
	w, err := newProcWorld(ctx, cfg)
	if err != nil {
		return ProcessorResult{}, err
	}
	defer w.close()
	err = runSteps(ctx, w, actions, cfg.mutate, func(i int, a ProcAction, out string) {
		fmt.Fprintf(w.digest, "%d|%s|%s|%d|%d\n", i, a, out, w.head, len(w.chk.cbs))
	})
	return w.res, err
}

func newProcWorld(ctx context.Context, cfg ProcessorConfig) (*procWorld, error) {
	base, err := newWorld(cfg.Dir, "ordo-simproc-*", cfg.Seed, 'p', procFinality)
	if err != nil {
		return nil, err
	}
	w := &procWorld{world: base, cfg: cfg, removedIDs: map[string]bool{}, unanswered: map[string]int{},
		res: ProcessorResult{Seed: cfg.Seed, Steps: cfg.Steps, Outcomes: map[string]int{}, CutEffects: map[string]int{}}}
	w.recv = &receiver{rng: rand.New(rand.NewPCG(cfg.Seed, 0x72656376)), fail: procRecvFail}
	w.chk = newProcChecker(w)
	keys, err := w.fundedKeys(ctx, "ordo-simproc-sender", cfg.Seed, procSenders+1)
	if err != nil {
		return nil, err
	}
	w.admin = keys[procSenders] // the library's caller: configure and confirm
	for _, k := range keys[:procSenders] {
		w.addSender(k)
	}
	if err := w.start(ctx); err != nil {
		w.close()
		return nil, err
	}
	return w, nil
}

// start opens the store (if closed), builds the sequencer and the processor
// from it, and settles what recovery asks.
func (w *procWorld) start(ctx context.Context) error {
	if err := w.openStore(ctx); err != nil {
		return err
	}
	if err := w.startSequencer(ctx, &w.world, processor.SubmitType, nil, w.finished); err != nil {
		return err
	}
	var err error
	w.pnode, err = processor.New(processor.Config{Store: w.st, Sequencer: submitRecorder{w}, Records: w.st, Chain: w.dc,
		Clock: w.clk, HTTP: &http.Client{Transport: w.recv}, Inline: true, Logger: slog.New(slog.DiscardHandler),
		Core: processor.CoreConfig{CheckEvery: 10 * time.Second, BackoffMin: 500 * time.Millisecond, BackoffMax: 8 * time.Second}})
	if err != nil {
		return err
	}
	if w.ploop, err = w.pnode.Open(ctx); err != nil {
		return fmt.Errorf("sim: processor start: %w", err)
	}
	w.lis = &chainevents.Listener{Chain: w.dc, Clock: w.clk, From: w.ploop.Core().Cursor(), Logger: slog.New(slog.DiscardHandler),
		Filter: func(e chain.Event) bool { return e.Name == processor.ConfirmEvent },
		Handler: func(ctx context.Context, evs []chain.Event, next uint64) error {
			w.ploop.Put(processor.Events(time.Time{}, next, processor.ConfirmsOf(evs)))
			_, err := w.ploop.Turn(ctx)
			return err
		}}
	w.lastHead = ""
	if _, err := w.sloop.Turn(ctx); err != nil {
		return err
	}
	return w.settle(ctx)
}

// finished is the sequencer's OnFinish: the processor hears of it.
func (w *procWorld) finished(uid string, st store.TxState, _ uint64) {
	w.chk.seqEnded(uid, st)
	if w.pnode != nil {
		w.pnode.Finished(uid, st)
	}
}

// settle tells both engines of a new head, reads the chain's events, and
// turns both loops until no input waits.
func (w *procWorld) settle(ctx context.Context) error {
	if dl := w.sloop.Deadline(); !dl.IsZero() && !w.clk.Now().Before(dl) {
		w.sloop.Put(sequencer.Tick(w.clk.Now()))
	}
	return settleWith(ctx, &w.engineWorld, w.ploop, "processor's", func(ctx context.Context) error {
		head, moved, err := w.newHead(ctx, &w.world)
		if moved {
			w.res.Blocks = head.Height
			w.ploop.Put(processor.Head(time.Time{}, head.Height))
		}
		return err
	})
}

// advance moves the clock by dt, block by block.
func (w *procWorld) advance(ctx context.Context, dt time.Duration) error {
	return w.advanceBy(ctx, dt, w.settle)
}

// crash drops both engines' memory and rebuilds them from the reopened
// store; the chain and the receiver live on.
func (w *procWorld) crash(ctx context.Context) error {
	w.res.Crashes++
	w.snode, w.sloop, w.pnode, w.ploop, w.lis = nil, nil, nil, nil, nil
	if err := w.closeStore(); err != nil {
		return err
	}
	return w.start(ctx)
}

// ask steps one input that answers and settles: its reply.
func (w *procWorld) ask(ctx context.Context, in processor.Input) (processor.Reply, error) {
	got := w.ploop.Ask(in)
	if err := w.settle(ctx); err != nil {
		return processor.Reply{}, err
	}
	rep, ok := got()
	if !ok {
		return rep, errors.New("sim: an input went unanswered")
	}
	return rep, nil
}

// sendLibrary sends a library transaction from the world's own account; a
// fault of the run may refuse it (the action then does nothing).
func (w *procWorld) sendLibrary(ctx context.Context, method string, args any) error {
	return w.send(ctx, w.admin, devchain.LibraryContract, method, args)
}

// submitRecorder is the processor's sequencer: the current sequencer node,
// with every execution submitted and the record it got told to the checker.
type submitRecorder struct{ w *procWorld }

func (s submitRecorder) Submit(ctx context.Context, in []sequencer.Intake) ([]store.EnqueueResult, error) {
	res, err := s.w.snode.Submit(ctx, in)
	if err == nil {
		for i, r := range res {
			s.w.chk.submitted(in[i].IdempotencyKey, r.Transaction.UID)
		}
	}
	return res, err
}

// receiver is the callback receiver, an in-memory http.RoundTripper: it
// records every delivery and answers 503 to a share fail of them, drawn
// from the run's seed in the order deliveries come.
type receiver struct {
	rng  *rand.Rand
	fail float64
	got  []delivery
}

// delivery is one POST the receiver saw.
type delivery struct {
	key  string
	body processor.CallbackBody
	ok   bool
}

func (r *receiver) RoundTrip(req *http.Request) (*http.Response, error) {
	b, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	d := delivery{key: req.Header.Get("Idempotency-Key"), ok: r.rng.Float64() >= r.fail}
	if err := json.Unmarshal(b, &d.body); err != nil {
		d.body = processor.CallbackBody{BatchID: "undecodable: " + err.Error()}
	}
	r.got = append(r.got, d)
	code, text := http.StatusOK, "ok"
	if !d.ok {
		code, text = http.StatusServiceUnavailable, "receiver unavailable"
	}
	return &http.Response{StatusCode: code, Status: fmt.Sprintf("%d %s", code, http.StatusText(code)), Proto: "HTTP/1.1",
		ProtoMajor: 1, ProtoMinor: 1, Header: http.Header{}, Body: io.NopCloser(bytes.NewReader([]byte(text))), Request: req}, nil
}

package sim

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chainevents"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/sequencer/dispatch"
	"github.com/ordolabs/ordo/internal/store"
)

// What the processor's and the leader's simulations share: their actions'
// text form, the sequencer under the engine, the world's own transactions
// and the settling of the two loops.

// actionString renders an action of kind, its fields a, as a trace line:
// the kind and the JSON of the fields (none when all are empty).
func actionString(kind string, a any) string {
	b, err := json.Marshal(a)
	if err != nil {
		panic(fmt.Sprintf("sim: encode action: %v", err))
	}
	if string(b) == "{}" {
		return kind
	}
	return kind + " " + string(b)
}

// parseAction reads a trace line (with or without its leading number) back
// into a's fields and returns its kind, unchecked. what names the action in
// the error (bad, which the caller returns too for an unknown kind).
func parseAction(line, what string, a any) (kind string, bad, err error) {
	f := strings.Fields(line)
	if len(f) > 1 && strings.Trim(f[0], "0123456789") == "" {
		f = f[1:]
	}
	bad = fmt.Errorf("sim: not a %s action: %q", what, line)
	if len(f) == 0 {
		return "", bad, bad
	}
	if rest := strings.Join(f[1:], " "); rest != "" {
		dec := json.NewDecoder(strings.NewReader(rest))
		dec.DisallowUnknownFields()
		if err := dec.Decode(a); err != nil {
			return "", bad, fmt.Errorf("%w: %w", bad, err)
		}
	}
	return f[0], bad, nil
}

// engineWorld is what a world with an engine over the sequencer has: the
// sequencer's node and loop, the listener that reads the engine's events,
// and the chain's head as last told to the engines.
type engineWorld struct {
	snode    *sequencer.Node
	sloop    *sequencer.Loop
	lis      *chainevents.Listener
	lastHead chain.Hash
	head     uint64
}

// startSequencer builds the sequencer on w's store and opens its loop: it
// submits calls of type typ for w's senders (queues pinned by pins) and tells
// onFinish of what ends.
func (e *engineWorld) startSequencer(ctx context.Context, w *world, typ string, pins map[string]string,
	onFinish func(uid string, st store.TxState, nonce uint64)) error {
	var err error
	e.snode, err = sequencer.NewNode(sequencer.Config{Store: w.st, Chain: w.dc, Clock: w.clk,
		Dispatchers:      map[string]sequencer.Dispatcher{typ: dispatch.NewCallDispatcher(0, w.dc, w.key)},
		Policies:         map[string]sequencer.Policy{typ: {MaxRetries: 0, Delay: simDelay}},
		InclusionTimeout: simInclusionTimeout, Senders: w.senders, Pins: pins, Logger: slog.New(slog.DiscardHandler), Inline: true,
		Rand: w.uids, OnFinish: onFinish})
	if err != nil {
		return err
	}
	if e.sloop, err = e.snode.Open(ctx); err != nil {
		return fmt.Errorf("sim: sequencer start: %w", err)
	}
	return nil
}

// newHead reads the chain's head; when it moved since the engines were last
// told, it records it and tells the sequencer (moved).
func (e *engineWorld) newHead(ctx context.Context, w *world) (head chain.BlockHeader, moved bool, err error) {
	head, err = w.dc.Head(ctx)
	if err != nil || head.Hash == e.lastHead {
		return head, false, err
	}
	e.lastHead, e.head = head.Hash, head.Height
	e.sloop.HeadSeen(ctx, head)
	return head, true, nil
}

// loop is an engine's loop as the worlds turn it.
type loop[E any] interface {
	Turn(ctx context.Context) ([]E, error)
	Waiting() bool
}

// settleWith turns the sequencer's loop and the engine's (eng, named name)
// until no input waits. Each round first calls round (the world tells the
// engines of the head and the time), then reads the chain's events, turns
// the sequencer's loop while inputs wait, and the engine's once and while
// inputs wait.
func settleWith[E any](ctx context.Context, e *engineWorld, eng loop[E], name string, round func(context.Context) error) error {
	for i := 0; ; i++ {
		if i == 10_000 {
			return errors.New("sim: the loops do not settle")
		}
		if err := round(ctx); err != nil {
			return err
		}
		for {
			n, err := e.lis.Poll(ctx)
			if err != nil {
				return err
			}
			if n == 0 {
				break
			}
		}
		if err := turnWhileWaiting(ctx, e.sloop, "sequencer's"); err != nil {
			return err
		}
		if _, err := eng.Turn(ctx); err != nil {
			return err
		}
		if err := turnWhileWaiting(ctx, eng, name); err != nil {
			return err
		}
		if !e.sloop.Waiting() && !eng.Waiting() {
			return nil
		}
	}
}

// turnWhileWaiting turns l while an input waits (its owner named name).
func turnWhileWaiting[E any](ctx context.Context, l loop[E], name string) error {
	for j := 0; l.Waiting(); j++ {
		if j == 10_000 {
			return fmt.Errorf("sim: the %s loop does not settle", name)
		}
		if _, err := l.Turn(ctx); err != nil {
			return err
		}
	}
	return nil
}

// send signs and sends a transaction of the world's own from k; a fault of
// the run may refuse it (a *refusedError).
func (w *world) send(ctx context.Context, k ed25519.PrivateKey, contract, method string, args any) error {
	_, err := w.sendTx(ctx, k, contract, method, args)
	return err
}

// sendTx is send, returning the transaction's hash.
func (w *world) sendTx(ctx context.Context, k ed25519.PrivateKey, contract, method string, args any) (chain.Hash, error) {
	addr := chain.KeyAddress(k)
	acct, err := w.dc.Account(ctx, addr)
	if err != nil {
		return "", err
	}
	fee, err := w.dc.MinFee(ctx)
	if err != nil {
		return "", err
	}
	data, err := json.Marshal(args)
	if err != nil {
		return "", err
	}
	tx := chain.Tx{From: addr, Nonce: acct.PendingNonce, Fee: fee, Contract: contract, Method: method, Args: data}
	tx.Sign(k)
	h, err := w.dc.SendTx(ctx, tx)
	if err != nil {
		return "", &refusedError{err}
	}
	return h, nil
}

// refusedError is a transaction of the world's own the chain refused (a
// fault).
type refusedError struct{ err error }

func (e *refusedError) Error() string { return "refused: " + e.err.Error() }

// stepper is a world that runs actions A one at a time.
type stepper[A any] interface {
	// do does one action: out is what it did, for the digest.
	do(ctx context.Context, a A) (out string, err error)
	// check checks the invariants after step; drain ends the run.
	check(ctx context.Context, step int) error
	drain(ctx context.Context, step int) error
	// finish fills the run's result.
	finish()
}

// runSteps does each action on w, then mutate (when set), then the checks,
// and adds the step to the digest (digest); then drains and finishes.
func runSteps[A fmt.Stringer, W stepper[A]](ctx context.Context, w W, actions []A, mutate func(W),
	digest func(i int, a A, out string)) error {
	for i, a := range actions {
		out, err := w.do(ctx, a)
		if err != nil {
			return fmt.Errorf("sim: step %d (%s): %w", i+1, a, err)
		}
		if mutate != nil {
			mutate(w)
		}
		if err := w.check(ctx, i+1); err != nil {
			return err
		}
		digest(i, a, out)
	}
	if err := w.drain(ctx, len(actions)+1); err != nil {
		return err
	}
	w.finish()
	return nil
}

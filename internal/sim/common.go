package sim

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/store/sqlite"
)

// What the sequencer's and the processor's simulations share: the world's
// set-up (clock, chain, store, senders) and the run-and-shrink plumbing.

// world is what every run's world has: one virtual clock, the dev chain on
// it, the node's store in its own directory, the senders and their keys, the
// node's source of uids, and the run's digest.
type world struct {
	clk     *clock.Virtual
	dc      *devchain.Chain
	dir     string
	st      *sqlite.Store
	keys    map[string]ed25519.PrivateKey
	senders []sequencer.SenderConfig
	uids    io.Reader
	digest  hash.Hash
}

// newWorld makes a run's directory (named by pattern, under dir) and its
// chain, seeded with seed, declaring finality as its reorg depth. Its uids
// are drawn from seed with uidSalt in the ninth byte of the key.
func newWorld(dir, pattern string, seed uint64, uidSalt byte, finality uint64) (world, error) {
	d, err := os.MkdirTemp(dir, pattern)
	if err != nil {
		return world{}, err
	}
	var key [32]byte
	binary.LittleEndian.PutUint64(key[:], seed)
	key[8] = uidSalt
	w := world{clk: clock.NewVirtual(clock.Epoch), dir: d, keys: map[string]ed25519.PrivateKey{},
		uids: rand.NewChaCha8(key), digest: sha256.New()}
	w.dc, err = devchain.New(devchain.Config{Seed: seed, BlockTime: simBlockTime, MaxBlockTxs: 64, Clock: w.clk,
		FinalityDepth: finality, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		os.RemoveAll(d)
		return world{}, err
	}
	return w, nil
}

// fundedKeys derives n keys of a run's accounts from label and the run's
// seed, and funds each account on the chain. On an error it closes w.
func (w *world) fundedKeys(ctx context.Context, label string, seed uint64, n int) ([]ed25519.PrivateKey, error) {
	keys := make([]ed25519.PrivateKey, n)
	for i := range keys {
		s := sha256.Sum256(fmt.Appendf(nil, "%s|%d|%d", label, seed, i))
		keys[i] = ed25519.NewKeyFromSeed(s[:])
		if _, err := w.dc.Faucet(ctx, chain.KeyAddress(keys[i]), 1_000_000_000_000); err != nil {
			w.close()
			return nil, fmt.Errorf("sim: fund sender: %w", err)
		}
	}
	return keys, nil
}

// addSender makes k a sender whose key the node holds.
func (w *world) addSender(k ed25519.PrivateKey) {
	a := chain.KeyAddress(k)
	w.keys[string(a)] = k
	w.senders = append(w.senders, sequencer.SenderConfig{ID: a, Key: k})
}

// key is the key of a sender the node holds (nil for any other).
func (w *world) key(id string) chain.Key { return chain.Ed25519Key(w.keys[id]) }

// openStore opens the store if it is closed.
func (w *world) openStore(ctx context.Context) error {
	if w.st != nil {
		return nil
	}
	var err error
	if w.st, err = sqlite.Open(ctx, filepath.Join(w.dir, "ordo.db"), sqlite.Options{Synchronous: "NORMAL", Now: w.clk.Now}); err != nil {
		return fmt.Errorf("sim: open store: %w", err)
	}
	return nil
}

// closeStore closes the store, as a crash leaves it.
func (w *world) closeStore() error {
	if err := w.st.Close(); err != nil {
		return fmt.Errorf("sim: close store: %w", err)
	}
	w.st = nil
	return nil
}

// close closes the store and the chain and removes the run's directory.
func (w *world) close() {
	if w.st != nil {
		w.st.Close()
	}
	if w.dc != nil {
		w.dc.Close()
	}
	os.RemoveAll(w.dir)
}

// advanceBy moves the clock by dt, block by block, settling the engines after
// each block and at the end.
func (w *world) advanceBy(ctx context.Context, dt time.Duration, settle func(context.Context) error) error {
	target := w.clk.Now().Add(dt)
	for {
		next := w.dc.NextBlockAt()
		if next.After(target) {
			break
		}
		w.clk.Set(next)
		w.dc.Tick(next)
		if err := settle(ctx); err != nil {
			return err
		}
	}
	w.clk.Set(target)
	return settle(ctx)
}

// violation is a broken invariant of a run of actions A: *Violation or
// *ProcViolation.
type violation[A any] interface {
	error
	// broke is the step the invariant broke after, and its name.
	broke() (step int, invariant string)
	setTrace(trace []A)
}

func (v *Violation) broke() (int, string)    { return v.Step, v.Invariant }
func (v *Violation) setTrace(trace []Action) { v.Trace = trace }

func (v *ProcViolation) broke() (int, string)        { return v.Step, v.Invariant }
func (v *ProcViolation) setTrace(trace []ProcAction) { v.Trace = trace }

// traced gives a run's err back; a broken invariant in it gets the actions
// up to its step as its trace.
func traced[A any, V violation[A]](err error, actions []A) error {
	var v V
	if errors.As(err, &v) {
		step, _ := v.broke()
		v.setTrace(actions[:min(step, len(actions))])
	}
	return err
}

// runShrunk runs actions with run. A broken invariant is returned with its
// trace, shrunk within budget (measured on clk; none when not positive) by
// rerunning candidates with rerun.
func runShrunk[A, R any, V violation[A]](ctx context.Context, actions []A, run func(context.Context, []A) (R, error),
	rerun func(context.Context, []A) error, clk clock.Clock, budget time.Duration) (R, error) {
	res, err := run(ctx, actions)
	var v V
	if !errors.As(traced[A, V](err, actions), &v) {
		return res, err
	}
	if budget > 0 {
		step, inv := v.broke()
		v.setTrace(shrink[A, V](ctx, actions[:min(step, len(actions))], inv, rerun, clk.Now().Add(budget), clk))
	}
	return res, v
}

// shrink deletes chunks of the action list, halving the chunk size, while
// rerun still breaks the same invariant, until deadline (on clk) passes.
func shrink[A any, V violation[A]](ctx context.Context, actions []A, inv string, rerun func(context.Context, []A) error,
	deadline time.Time, clk clock.Clock) []A {
	best := actions
	for chunk := max(len(best)/2, 1); chunk >= 1; chunk /= 2 {
		for i := 0; i < len(best); {
			if clk.Now().After(deadline) || ctx.Err() != nil {
				return best
			}
			cand := append(append([]A(nil), best[:i]...), best[min(i+chunk, len(best)):]...)
			var v V
			if err := rerun(ctx, cand); errors.As(err, &v) {
				if step, got := v.broke(); got == inv {
					best = cand[:min(step, len(cand))]
					continue
				}
			}
			i += chunk
		}
	}
	return best
}

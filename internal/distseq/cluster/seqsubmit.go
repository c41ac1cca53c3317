package cluster

import (
	"context"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/distseq"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/sequencer/dispatch"
	"github.com/ordolabs/ordo/internal/store/sqlite"
)

// The submitter through the node's sequencer (issue 10: "the coordinator's
// dispatch goes through the node's sequencer"): each node runs a sequencer
// (its own SQLite store, kept across a crash, the Loop turned inline on the
// cluster's clock) with the node's chain account as its one sender. A
// dispatch is a `call-once` privacygroup.confirm on queue
// "distseq/<contract>", whose pipeline policy lets SeqInFlight transactions
// be in flight at consecutive nonces, so chained transactions share a
// block. A revert is FAILED at once with the chain's reason (call-once: no
// fee-raising retry) and goes back to the protocol.

// DefaultSeqInFlight is the pipeline's depth per contract queue.
const DefaultSeqInFlight = 1024

type seqSubmitter struct {
	n        *Node
	st       *sqlite.Store
	loop     *sequencer.Loop
	sub      *distseq.SequencerSubmitter
	done     []distseq.InputDispatched
	lastHead chain.Hash
	busy     bool
}

func (n *Node) openSequencer(ctx context.Context) error {
	c := n.c
	dir := filepath.Join(c.dir, string(n.ID))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	st, err := sqlite.Open(ctx, filepath.Join(dir, "ordo.db"), sqlite.Options{Synchronous: sqlite.SyncNormal, Now: c.clk.Now})
	if err != nil {
		return fmt.Errorf("node %s: sequencer store: %w", n.ID, err)
	}
	key, _ := c.Chain.DevKey(n.acct)
	keys := func(a string) chain.Key {
		if chain.Address(a) == n.acct {
			return chain.Ed25519Key(key)
		}
		return nil
	}
	s := &seqSubmitter{n: n, st: st}
	s.sub = &distseq.SequencerSubmitter{Store: st, Height: c.Head,
		Out: func(d distseq.InputDispatched) { s.done = append(s.done, d) }}
	inflight := c.cfg.SeqInFlight
	if inflight == 0 {
		inflight = DefaultSeqInFlight
	}
	s.sub.Sequencer, err = sequencer.NewNode(sequencer.Config{Store: st, Chain: c.Chain, Clock: c.clk,
		Dispatchers:      map[string]sequencer.Dispatcher{distseq.SeqType: dispatch.NewCallDispatcher(0, c.Chain, keys)},
		Policies:         map[string]sequencer.Policy{distseq.SeqType: {MaxRetries: 0}},
		InclusionTimeout: 20, Confirmations: c.cfg.FinalityDepth + 1,
		Senders:   []sequencer.SenderConfig{{ID: n.acct, Key: key}},
		Pipelines: []sequencer.Pipeline{{Prefix: distseq.SeqQueuePrefix, InFlight: inflight}},
		Logger:    slog.New(slog.DiscardHandler), Inline: true, OnFinish: s.sub.Finished, Rand: rand.NewChaCha8(n.uidSeed())})
	if err != nil {
		st.Close()
		return fmt.Errorf("node %s: sequencer: %w", n.ID, err)
	}
	if s.loop, err = s.sub.Sequencer.Open(ctx); err != nil {
		st.Close()
		return fmt.Errorf("node %s: sequencer start: %w", n.ID, err)
	}
	n.seq = s
	return nil // the first settle comes after the core's start
}

// uidSeed seeds the sequencer's record ids from the cluster's seed, the
// node and its incarnation, so that a run replays exactly.
func (n *Node) uidSeed() [32]byte {
	return sha256.Sum256(fmt.Appendf(nil, "distseq-cluster|%d|%s|%d", n.c.cfg.Seed, n.ID, n.restarts))
}

// close drops the sequencer as a crash does: its store keeps what it
// committed.
func (s *seqSubmitter) close() {
	if s != nil {
		s.st.Close()
	}
}

// submit hands a dispatch to the sequencer (distseq.SequencerSubmitter,
// as in production) and settles it.
func (s *seqSubmitter) submit(ctx context.Context, e distseq.Effect) error {
	if err := s.sub.Submit(ctx, e.Contract, e.TxID, e.Payload); err != nil {
		return fmt.Errorf("node %s: %w", s.n.ID, err)
	}
	return s.settle(ctx)
}

// settle tells the sequencer of a new head and of ended delays, turns its
// loop until no input waits, and hands the outcomes to the core.
func (s *seqSubmitter) settle(ctx context.Context) error {
	if s == nil || s.busy {
		return nil
	}
	s.busy = true
	defer func() { s.busy = false }()
	for range 10_000 {
		head, err := s.n.c.Chain.Head(ctx)
		if err != nil {
			return err
		}
		if head.Hash != s.lastHead {
			s.lastHead = head.Hash
			s.loop.HeadSeen(ctx, head)
		}
		if dl := s.loop.Deadline(); !dl.IsZero() && !s.n.c.clk.Now().Before(dl) {
			s.loop.Put(sequencer.Tick(s.n.c.clk.Now()))
		}
		for s.loop.Waiting() {
			if _, err := s.loop.Turn(ctx); err != nil {
				return fmt.Errorf("node %s: sequencer: %w", s.n.ID, err)
			}
		}
		if len(s.done) == 0 {
			return nil
		}
		done := s.done
		s.done = nil
		for _, d := range done {
			if s.n.core == nil {
				return nil
			}
			if err := s.n.step(ctx, d); err != nil {
				return err
			}
		}
	}
	return fmt.Errorf("node %s: the sequencer does not settle", s.n.ID)
}

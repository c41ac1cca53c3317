package cluster

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/distseq"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/sequencer/dispatch"
	"github.com/ordolabs/ordo/internal/store"
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

// SeqQueuePrefix is the sequencer queue prefix of distseq dispatches.
const SeqQueuePrefix = "distseq/"

// DefaultSeqInFlight is the pipeline's depth per contract queue.
const DefaultSeqInFlight = 1024

type seqSubmitter struct {
	n        *Node
	st       *sqlite.Store
	node     *sequencer.Node
	loop     *sequencer.Loop
	byUID    map[string]string // sequencer uid -> transaction id
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
	keys := func(a string) ed25519.PrivateKey {
		if chain.Address(a) == n.acct {
			return key
		}
		return nil
	}
	s := &seqSubmitter{n: n, st: st, byUID: map[string]string{}}
	inflight := c.cfg.SeqInFlight
	if inflight == 0 {
		inflight = DefaultSeqInFlight
	}
	s.node, err = sequencer.NewNode(sequencer.Config{Store: st, Chain: c.Chain, Clock: c.clk,
		Dispatchers:      map[string]sequencer.Dispatcher{seqType: dispatch.NewCallDispatcher(0, c.Chain, keys)},
		Policies:         map[string]sequencer.Policy{seqType: {MaxRetries: 0}},
		InclusionTimeout: 20, Confirmations: c.cfg.FinalityDepth + 1,
		Senders:   []sequencer.SenderConfig{{ID: n.acct, Key: key}},
		Pipelines: []sequencer.Pipeline{{Prefix: SeqQueuePrefix, InFlight: inflight}},
		Logger:    slog.New(slog.DiscardHandler), Inline: true, OnFinish: s.finished, Rand: rand.NewChaCha8(n.uidSeed())})
	if err != nil {
		st.Close()
		return fmt.Errorf("node %s: sequencer: %w", n.ID, err)
	}
	if s.loop, err = s.node.Open(ctx); err != nil {
		st.Close()
		return fmt.Errorf("node %s: sequencer start: %w", n.ID, err)
	}
	n.seq = s
	return nil // the first settle comes after the core's start
}

const seqType = "call-once"

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

// submit hands a dispatch to the sequencer, idempotently: the key is the
// transaction id and the call's hash, so a resumed dispatch is the same
// transaction and a new copy (a new assembly) is a new one.
func (s *seqSubmitter) submit(ctx context.Context, e distseq.Effect) error {
	data, _ := json.Marshal(dispatch.Call{Contract: devchain.PrivacyGroupContract, Method: "confirm", Args: e.Payload})
	h := sha256.Sum256(e.Payload)
	key := e.TxID + "/" + hex.EncodeToString(h[:8])
	res, err := s.node.Submit(ctx, []sequencer.Intake{{Queue: SeqQueuePrefix + e.Contract, Type: seqType, Data: data, IdempotencyKey: key}})
	if err != nil {
		return fmt.Errorf("node %s: submit %s: %w", s.n.ID, e.TxID, err)
	}
	tx := res[0].Transaction
	s.byUID[tx.UID] = e.TxID
	if tx.State == store.Done || tx.State == store.Failed {
		s.finished(tx.UID, tx.State, 0)
	}
	return s.settle(ctx)
}

// finished is the sequencer's OnFinish: an outcome for the core, handed
// over once the loop's turn is done.
func (s *seqSubmitter) finished(uid string, st store.TxState, _ uint64) {
	txID := s.byUID[uid]
	rec, err := s.st.Get(context.Background(), uid)
	if txID == "" {
		if err != nil {
			return
		}
		txID, _, _ = strings.Cut(rec.IdempotencyKey, "/")
	}
	delete(s.byUID, uid)
	out := distseq.InputDispatched{TxID: txID, OK: st == store.Done, Height: s.n.c.Head()}
	if !out.OK {
		out.Reason = rec.Error
		if strings.Contains(rec.Error, distseq.ReasonIntentConfirmed) {
			out.Reason = distseq.ReasonIntentConfirmed
		}
	}
	s.done = append(s.done, out)
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

package sim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/ordolabs/ordo/internal/clock"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/sequencer/dispatch"
	"github.com/ordolabs/ordo/internal/smm"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/transport"
)

// The world's network, registry, chain sender and the nodes' sequencer.

// errLink is a request on a link that is down (a node down, a partition,
// a drop): Send fails at once, with no wait.
var errLink = errors.New("sim smm: link down")

// simEnd is a node's end of the network: Send serves a request in the
// caller's goroutine (smm's SimServe) and hands the response to the
// caller's Handle before it returns.
type simEnd struct {
	w    *realWorld
	self string
}

func (e *simEnd) Self() transport.NodeID { return transport.NodeID(e.self) }

func (e *simEnd) Send(ctx context.Context, to transport.NodeID, m transport.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	w := e.w
	peer, from := w.byID[string(to)], w.byID[e.self]
	if peer == nil {
		return transport.ErrUnknownPeer
	}
	w.mu.Lock()
	down := !peer.up || !from.up || w.cut(e.self, string(to))
	dropped := !down && w.drop > 0 && w.rng.Float64() < w.drop
	if !down && !dropped {
		w.res.Messages++
	}
	pn, fn := peer.n, from.n
	w.mu.Unlock()
	if down || dropped {
		return fmt.Errorf("%w: %s to %s", errLink, from.name, peer.name)
	}
	t := taskOf(ctx)
	if t != nil {
		w.tmu.Lock()
		t.inside[peer]++
		w.tmu.Unlock()
	}
	sctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(peer.ctx, cancel) // the peer crashed: its serving ends
	m.From = transport.NodeID(e.self)
	resp, ok := pn.SimServe(sctx, m)
	stop()
	cancel()
	if t != nil {
		w.tmu.Lock()
		if t.inside[peer] > 0 {
			t.inside[peer]--
		}
		w.tmu.Unlock()
	}
	if ok {
		fn.Handle(resp)
	}
	return nil
}

// cut reports whether a partition separates a and b.
func (w *realWorld) cut(a, b string) bool {
	return len(w.side) > 0 && w.side[a] != w.side[b]
}

// simRegistry is the node registry: every node, always.
type simRegistry struct{ ids []transport.NodeID }

func (r *simRegistry) Refresh(context.Context) error { return nil }
func (r *simRegistry) IDs() []transport.NodeID       { return slices.Clone(r.ids) }

// send sends one call from the dev account with memo, mines it, and
// reports whether it succeeded (or its reason).
func (w *realWorld) send(contract, method string, args json.RawMessage, memo string) (bool, string) {
	w.chainMu.Lock()
	defer w.chainMu.Unlock()
	ctx := w.ctx
	acct, err := w.dc.Account(ctx, w.from)
	if err != nil {
		return false, err.Error()
	}
	fee, err := w.dc.MinFee(ctx)
	if err != nil {
		return false, err.Error()
	}
	hash, err := w.dc.SendTx(ctx, chain.Tx{From: w.from, Nonce: acct.Nonce, Fee: fee, Contract: contract, Method: method, Args: args, Memo: memo})
	if err != nil {
		return false, err.Error()
	}
	if _, ok, err := w.dc.Mine(ctx); err != nil || !ok {
		return false, fmt.Sprintf("mine: %v %v", ok, err)
	}
	s, err := w.dc.TxStatus(ctx, hash)
	if err != nil {
		return false, err.Error()
	}
	if s.State != chain.TxIncluded {
		return false, fmt.Sprintf("not included: %s %s", s.State, s.Reason)
	}
	return s.Success, s.Reason
}

// chainPrimary is the primary the chain names for queue ("" for none).
func (w *realWorld) chainPrimary(queue string) string {
	s, ok := w.chainSet(queue)
	if !ok {
		return ""
	}
	return s.Primary
}

// chainSet reads a queue's set from the chain.
func (w *realWorld) chainSet(queue string) (devchain.ReplicaSet, bool) {
	args, _ := json.Marshal(map[string]string{"queue": queue})
	raw, err := w.dc.Call(w.ctx, devchain.ReplicaSetsContract, "set", args)
	if err != nil {
		return devchain.ReplicaSet{}, false
	}
	var s devchain.ReplicaSet
	if json.Unmarshal(raw, &s) != nil {
		return devchain.ReplicaSet{}, false
	}
	return s, true
}

// simSequencer is a node's sequencer: Submit commits the intents in the
// node's store (logged there when it is the queue's primary); a `call`
// intent (a replica-set update) is sent to the chain at once, mined, and
// its record made DONE, or FAILED with the chain's reason; the queues'
// intents wait for a dispatch action (dispatch).
type simSequencer struct {
	w      *realWorld
	rn     *realNode
	mu     sync.Mutex
	closed map[string]bool // queues Gate closed
}

func (s *simSequencer) Gate(queue string, closed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed[queue] = closed
}

func (s *simSequencer) isClosed(queue string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed[queue]
}

func (s *simSequencer) Submit(ctx context.Context, in []sequencer.Intake) ([]store.EnqueueResult, error) {
	w, st := s.w, s.rn.st
	txs := make([]store.NewTransaction, len(in))
	w.mu.Lock()
	for i, it := range in {
		w.uid++
		txs[i] = store.NewTransaction{UID: fmt.Sprintf("%s%05d", s.rn.name, w.uid), Queue: it.Queue, Type: it.Type,
			Data: it.Data, Principal: it.Principal, IdempotencyKey: it.IdempotencyKey, At: w.clk.Now()}
	}
	w.mu.Unlock()
	res, err := st.Enqueue(ctx, txs)
	if err != nil {
		return nil, err
	}
	for i, r := range res {
		if !r.Created {
			continue
		}
		if r.Transaction.Type != dispatch.CallType {
			w.noteCommit(s.rn, r.Transaction)
			continue
		}
		var c dispatch.Call
		if err := json.Unmarshal(r.Transaction.Data, &c); err != nil {
			return nil, err
		}
		ok, reason := w.send(c.Contract, c.Method, c.Args, r.Transaction.UID)
		if ok {
			w.noteSets()
		}
		w.mu.Lock()
		switch {
		case ok:
			w.res.SetUpdates++
		case strings.Contains(reason, devchain.ReasonStaleReplicaSet):
			w.res.LostRaces++
		}
		w.mu.Unlock()
		state, errText := store.Done, ""
		if !ok {
			state, errText = store.Failed, reason
		}
		now := w.clk.Now()
		if err := st.Apply(ctx, store.Batch{Txs: []store.TxUpdate{{UID: r.Transaction.UID, State: state, Error: errText, At: now}},
			History: []store.HistoryEntry{{UID: r.Transaction.UID, At: now, From: store.Waiting, To: state, Note: "sim sequencer"}}}); err != nil {
			return nil, err
		}
		res[i].Transaction.State = state
	}
	return res, nil
}

// noteSets reads the queues' sets from the chain after an update: a node
// a set no longer names (replaced as unhealthy: a failure, as a lost
// disk is) no longer counts as a holder of the queue's intents.
func (w *realWorld) noteSets() {
	for _, q := range w.qs {
		next, ok := w.chainSet(q)
		if !ok {
			continue
		}
		w.mu.Lock()
		cur := w.sets[q]
		if next.Version != cur.Version {
			w.sets[q] = next
			for _, it := range w.intents {
				if it.queue != q {
					continue
				}
				for h := range it.holders {
					if slices.Contains(cur.Members(), h) && !slices.Contains(next.Members(), h) {
						delete(it.holders, h)
					}
				}
			}
		}
		w.mu.Unlock()
	}
}

// noteCommit records an intent a node committed: its intake order, and
// whether the chain named another primary then.
func (w *realWorld) noteCommit(rn *realNode, t store.Transaction) {
	deposed := w.chainPrimary(t.Queue) != rn.id
	if debugSMM {
		fmt.Fprintf(os.Stderr, "%v commit %s %s at %s (deposed %v)\n", w.clk.Now().Sub(clock.Epoch), t.Queue, t.UID, rn.name, deposed)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seq++
	w.intents[t.UID] = &realIntent{uid: t.UID, queue: t.Queue, seq: w.seq, by: rn.id, deposed: deposed, holders: map[string]bool{}}
	w.order = append(w.order, t.UID)
	w.res.Intents++
}

// dispatch has every up node that holds itself the primary of queue, its
// dispatch not closed, send its oldest WAITING intent of the queue to the
// chain (memo: its uid; the chain's nullifier refuses a second
// application, which the sequencer takes as applied), and make it DONE.
// It reports how many it sent.
func (w *realWorld) dispatch(queue string) (int, error) {
	sent := 0
	for _, rn := range w.nodes {
		if !rn.up || rn.seq.isClosed(queue) {
			continue
		}
		set, err := rn.st.ReplicaSet(w.ctx, queue)
		if err != nil || set.Primary != rn.id {
			continue
		}
		ws, err := rn.st.Waiting(w.ctx, queue, 0, 1)
		if err != nil {
			return sent, err
		}
		if len(ws) == 0 {
			continue
		}
		t := ws[0]
		memo := t.UID
		if w.cfg.bug == smmBugNoNullifier {
			w.dispatchN++
			memo = fmt.Sprintf("%s#%d", t.UID, w.dispatchN) // the nullifier never matches
		}
		args, _ := json.Marshal(map[string]string{"uid": t.UID, "queue": queue})
		deposed := w.chainPrimary(queue) != rn.id
		if debugSMM {
			fmt.Fprintf(os.Stderr, "%v dispatch %s %s at %s (held v%d, deposed %v)\n", w.clk.Now().Sub(clock.Epoch), queue, t.UID, rn.name, set.Version, deposed)
		}
		ok, reason := w.send(devchain.IntentsContract, chain.NoopMethod, args, memo)
		state, errText := store.Done, ""
		switch {
		case ok:
			w.noteApplied(queue, t.UID, rn.id, deposed)
		case reason == chain.ReasonDuplicateIntent:
			w.res.Duplicates++
		default:
			state, errText = store.Failed, reason
		}
		now := w.clk.Now()
		if err := rn.st.Apply(w.ctx, store.Batch{Txs: []store.TxUpdate{{UID: t.UID, State: state, Error: errText, At: now}},
			History: []store.HistoryEntry{{UID: t.UID, At: now, From: store.Waiting, To: state, Note: "sim dispatch"}}}); err != nil {
			return sent, fmt.Errorf("sim smm: %s records %s: %w", rn.name, t.UID, err)
		}
		sent++
	}
	return sent, nil
}

// noteApplied records an intent applied on chain.
func (w *realWorld) noteApplied(queue, uid, by string, deposed bool) {
	w.res.Applied++
	w.applied[uid]++
	seq := 0
	if it := w.intents[uid]; it != nil {
		seq = it.seq
	}
	w.byQueue[queue] = append(w.byQueue[queue], appliedIntent{uid: uid, seq: seq, by: by, deposed: deposed})
}

// intake runs an intent of queue through node rn's Submit (routed to the
// queue's primary) as a task; an acknowledgement marks it acked.
func (w *realWorld) intake(rn *realNode, queue string) {
	if !rn.up {
		return
	}
	n := rn.n
	var res []store.EnqueueResult
	w.runTask(&simTask{name: "intake " + queue + " at " + rn.name, owner: rn, onDone: func(err error) {
		if err != nil || len(res) != 1 {
			if debugSMM {
				fmt.Fprintf(os.Stderr, "%v intake %s at %s: %v\n", w.clk.Now().Sub(clock.Epoch), queue, rn.name, err)
			}
			return
		}
		if it := w.intents[res[0].Transaction.UID]; it != nil && !it.acked {
			it.acked = true
			w.res.Acked++
		}
	}}, func(ctx context.Context) error {
		var err error
		res, err = n.Submit(ctx, "sim", []sequencer.Intake{{Queue: queue, Type: "noop", Data: json.RawMessage(`{}`)}})
		return err
	})
}

var debugSMM = os.Getenv("ORDO_SIM_SMM_DEBUG") != ""

// compile-time checks of the seams.
var (
	_ transport.Transport = (*simEnd)(nil)
	_ smm.Registry        = (*simRegistry)(nil)
	_ smm.Sequencer       = (*simSequencer)(nil)
)

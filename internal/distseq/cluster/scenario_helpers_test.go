package cluster

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/distseq"
	"github.com/ordolabs/ordo/internal/distseq/distseqpb"
	"github.com/ordolabs/ordo/internal/distseq/token"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/transport"
	"google.golang.org/protobuf/proto"
)

// The harness of the seed 003 scenario tests: a cluster whose every send
// is logged (decoded), with hooks to crash a node at a step, to drop or
// hold back a node's sends, and reads of the outcomes the document states.

// sendRec is one message a node's core asked its driver to send.
type sendRec struct {
	From, To distseq.NodeID
	Kind     string
	Env      *distseqpb.Envelope
	At       time.Time
	Dropped  bool // dropped by the test's filter
}

// tx returns the transaction id the message is about ("" if none).
func (s sendRec) tx() string { return txOf(s.Env) }

// txOf reads the TransactionId of an envelope's body, if it has one.
func txOf(env *distseqpb.Envelope) string {
	if env == nil || env.Body == nil {
		return ""
	}
	v := reflect.ValueOf(env.Body).Elem().Field(0).Interface()
	if m, ok := v.(interface{ GetTransactionId() string }); ok {
		return m.GetTransactionId()
	}
	return ""
}

// world is one scenario's cluster and its observers.
type world struct {
	t    *testing.T
	ctx  context.Context
	c    *Cluster
	seed uint64
	ring *distseq.Ring
	log  []sendRec
	// hook may crash node n at this step (Config.OnStep's contract).
	hook func(n *Node, in distseq.Input, r *distseq.Ready) Crash
	// drop, when it returns true, drops a send (a lost message).
	drop func(n *Node, s distseq.Send) bool
	// crashNext crashes a node at its next step once everything it sent
	// was delivered (simnet loses a crashed node's queued messages): a
	// crash between two steps, after the point the earlier one reached.
	crashNext map[distseq.NodeID]bool
}

// scenarioSeed is ORDO_SEED, or def: the scenarios are deterministic
// by default and replay from the seed they print.
func scenarioSeed(t *testing.T, def uint64) uint64 {
	t.Helper()
	seed := def
	if s := os.Getenv("ORDO_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("ORDO_SEED: %v", err)
		}
		seed = v
	}
	t.Logf("cluster seed %d (replay: ORDO_SEED=%d)", seed, seed)
	return seed
}

// newWorld builds the cluster (range size 10 unless cfg says) and runs
// it until every node indexed the deployment.
func newWorld(t *testing.T, cfg Config) *world {
	t.Helper()
	w := &world{t: t, ctx: context.Background(), crashNext: map[distseq.NodeID]bool{}}
	w.seed = scenarioSeed(t, 1)
	cfg.Seed = w.seed
	if cfg.Core.RangeSize == 0 {
		cfg.Core.RangeSize = 10
	}
	cfg.OnStep = w.onStep
	c, err := New(w.ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	w.c = c
	var ids []distseq.NodeID
	for _, n := range c.Nodes() {
		ids = append(ids, n.ID)
	}
	if w.ring, err = distseq.NewRing(ids); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			w.dump()
		}
	})
	w.until(5*time.Second, "every node indexed the deployment", func() bool {
		for _, n := range c.Nodes() {
			if n.Core() == nil || n.Core().Groups() == 0 {
				return false
			}
		}
		return true
	})
	return w
}

func (w *world) onStep(n *Node, in distseq.Input, r *distseq.Ready) Crash {
	if w.crashNext[n.ID] && w.delivered(n.ID) {
		delete(w.crashNext, n.ID)
		return CrashBeforeCommit
	}
	crash := NoCrash
	if w.hook != nil {
		crash = w.hook(n, in, r)
	}
	if crash != NoCrash {
		return crash
	}
	kept := r.Sends[:0]
	for _, s := range r.Sends {
		dropped := w.drop != nil && w.drop(n, s)
		w.log = append(w.log, sendRec{From: n.ID, To: s.To, Kind: s.Kind, Env: s.Env, At: w.c.Now(), Dropped: dropped})
		if !dropped {
			kept = append(kept, s)
		}
	}
	r.Sends = kept
	return NoCrash
}

// delivered reports whether no message from node id is still queued.
func (w *world) delivered(id distseq.NodeID) bool {
	for _, m := range w.c.Nodes() {
		if w.c.Net.Queued(transport.NodeID(id), transport.NodeID(m.ID)) > 0 {
			return false
		}
	}
	return true
}

// inject sends env from node from to node to now (a message held back
// and delivered late).
func (w *world) inject(from, to distseq.NodeID, env *distseqpb.Envelope) {
	w.t.Helper()
	n := w.c.Node(from)
	if n.ep == nil {
		w.t.Fatalf("inject: %s is down", from)
	}
	body, err := proto.Marshal(env)
	if err != nil {
		w.t.Fatal(err)
	}
	w.log = append(w.log, sendRec{From: from, To: to, Kind: kindName(env), Env: env, At: w.c.Now()})
	if err := n.ep.Send(w.ctx, transport.NodeID(to), transport.Message{Kind: kindName(env), Body: body}); err != nil {
		w.t.Fatal(err)
	}
}

func kindName(env *distseqpb.Envelope) string {
	return strings.TrimPrefix(fmt.Sprintf("%T", env.Body), "*distseqpb.Envelope_")
}

// until runs the cluster until cond holds, failing after d of virtual
// time.
func (w *world) until(d time.Duration, what string, cond func() bool) {
	w.t.Helper()
	ok, err := w.c.RunUntil(w.ctx, d, cond)
	if err != nil {
		w.t.Fatal(err)
	}
	if !ok {
		w.t.Fatalf("after %v (virtual), still not: %s (head %d)", d, what, w.c.Head())
	}
}

// run runs the cluster for d of virtual time.
func (w *world) run(d time.Duration) {
	w.t.Helper()
	if err := w.c.RunFor(w.ctx, d); err != nil {
		w.t.Fatal(err)
	}
}

func (w *world) rangeSize() uint64 { return w.c.Config().Core.RangeSize }

// pref is the ring's preference for group 0 at range index r, everyone
// available.
func (w *world) pref(r uint64) []distseq.NodeID {
	return w.ring.PreferenceAt(Group(0), r, nil)
}

// rangeOf is the range index of node id's indexer.
func (w *world) rangeOf(id distseq.NodeID) uint64 { return w.c.Node(id).Height() / w.rangeSize() }

// headRange is the range index of the chain's head.
func (w *world) headRange() uint64 { return w.c.Head() / w.rangeSize() }

// switchRange picks the first range r after the current one whose
// preferred coordinator differs from range r+1's, and runs until every
// node's indexer entered r. It returns r.
func (w *world) switchRange() uint64 {
	w.t.Helper()
	r := w.headRange() + 1
	for w.pref(r)[0] == w.pref(r + 1)[0] {
		r++
	}
	w.untilAllIn(r, 0)
	return r
}

// untilAllIn runs until every running node's indexer is at least off
// blocks into range r.
func (w *world) untilAllIn(r, off uint64) {
	w.t.Helper()
	h := r*w.rangeSize() + off
	w.until(time.Duration(h+5)*w.c.Config().BlockTime+time.Minute, fmt.Sprintf("every node at height %d", h), func() bool {
		for _, n := range w.c.Nodes() {
			if n.Up() && !n.Hold && n.Height() < h {
				return false
			}
		}
		return true
	})
}

// others returns the members not in xs, in name order.
func (w *world) others(xs ...distseq.NodeID) []distseq.NodeID {
	var out []distseq.NodeID
	for _, n := range w.c.Nodes() {
		if !slices.Contains(xs, n.ID) {
			out = append(out, n.ID)
		}
	}
	return out
}

// submit hands node from an intent of amount, failing the test on error.
func (w *world) submit(from distseq.NodeID, amount uint64, key string) string {
	w.t.Helper()
	id, err := w.c.Submit(w.ctx, from, Group(0), token.Intent{To: "bob", Amount: amount}, key)
	if err != nil {
		w.t.Fatalf("submit at %s: %v", from, err)
	}
	return id
}

// senderOf is the node that accepted txID ("B-tx3" -> B).
func senderOf(txID string) distseq.NodeID {
	s, _, _ := strings.Cut(txID, "-")
	return distseq.NodeID(s)
}

// status is txID's status in its sender's store ("" if absent).
func (w *world) status(txID string) string {
	rec, err := w.c.Intent(w.ctx, senderOf(txID), txID)
	if err != nil {
		return ""
	}
	return rec.Status
}

// allConfirmed reports whether every id is Confirmed in its sender's store.
func (w *world) allConfirmed(ids ...string) func() bool {
	return func() bool {
		for _, id := range ids {
			if w.status(id) != store.DistseqConfirmed {
				return false
			}
		}
		return true
	}
}

// untilConfirmed runs until every id is confirmed at its sender, then
// checks each is confirmed exactly once on chain and no state was spent
// twice.
func (w *world) untilConfirmed(d time.Duration, ids ...string) {
	w.t.Helper()
	w.until(d, fmt.Sprintf("%v confirmed in their senders' stores", ids), w.allConfirmed(ids...))
	w.run(2 * w.c.Config().BlockTime) // a second confirm would land by now
	w.onceOnChain(ids...)
}

// onceOnChain checks each id has exactly one IntentConfirmed event, and
// that no state was spent by two of them.
func (w *world) onceOnChain(ids ...string) {
	w.t.Helper()
	for _, id := range ids {
		if n := w.c.Confirmed[Group(0)+"/"+id]; n != 1 {
			w.t.Errorf("%s confirmed %d times on chain, want 1", id, n)
		}
	}
	evs, err := w.c.Chain.Events(w.ctx, 0, 1<<20)
	if err != nil {
		w.t.Fatal(err)
	}
	by := map[string]string{}
	for _, e := range evs {
		ic, ok, err := devchain.IntentConfirmedOf(e)
		if err != nil {
			w.t.Fatal(err)
		}
		if !ok {
			continue
		}
		for _, s := range ic.Spends {
			if prev, ok := by[ic.Group+"/"+s]; ok {
				w.t.Errorf("state %s spent by %s and by %s", s, prev, ic.TxID)
			}
			by[ic.Group+"/"+s] = ic.TxID
		}
	}
}

// sends returns the logged sends matching kind (any if ""), sender
// from, receiver to and transaction tx (any where zero), not dropped.
func (w *world) sends(kind string, from, to distseq.NodeID, tx string) []sendRec {
	var out []sendRec
	for _, s := range w.log {
		if s.Dropped || (kind != "" && s.Kind != kind) || (from != "" && s.From != from) || (to != "" && s.To != to) || (tx != "" && s.tx() != tx) {
			continue
		}
		out = append(out, s)
	}
	return out
}

// coord counts node id's coordinator (or submitter) transitions of tx
// into state to.
func (w *world) coord(id distseq.NodeID, role distseq.Role, tx string, to distseq.State) int {
	n := 0
	for _, tr := range w.c.Node(id).Transitions {
		if tr.Role == role && tr.TxID == tx && tr.To == to {
			n++
		}
	}
	return n
}

// dispatchers returns the nodes whose coordinator dispatched tx.
func (w *world) dispatchers(tx string) []distseq.NodeID {
	var out []distseq.NodeID
	for _, n := range w.c.Nodes() {
		if w.coord(n.ID, distseq.RoleCoordinator, tx, distseq.CDispatched) > 0 {
			out = append(out, n.ID)
		}
	}
	return out
}

// wantDispatcher checks that exactly node id dispatched tx, once.
func (w *world) wantDispatcher(tx string, id distseq.NodeID) {
	w.t.Helper()
	if got := w.dispatchers(tx); !slices.Equal(got, []distseq.NodeID{id}) {
		w.t.Errorf("%s dispatched by %v, want [%s]", tx, got, id)
	}
	if n := w.coord(id, distseq.RoleCoordinator, tx, distseq.CDispatched); n != 1 {
		w.t.Errorf("%s dispatched %d times by %s, want 1", tx, n, id)
	}
}

// senderStates lists the sender states tx went through at its sender.
func (w *world) senderStates(tx string) []distseq.State {
	var out []distseq.State
	for _, tr := range w.c.Node(senderOf(tx)).Transitions {
		if tr.Role == distseq.RoleSender && tr.TxID == tx {
			out = append(out, tr.To)
		}
	}
	return out
}

// txState is tx's state at its sender now ("" if not in flight).
func (w *world) txState(tx string) distseq.State {
	n := w.c.Node(senderOf(tx))
	if n.Core() == nil {
		return ""
	}
	v, _ := n.Core().Tx(tx)
	return v.State
}

// delegations lists, in order, the coordinators tx's sender delegated
// it to (one entry per distinct delegation id).
func (w *world) delegations(tx string) []distseq.NodeID {
	var out []distseq.NodeID
	seen := map[string]bool{}
	for _, s := range w.sends("", senderOf(tx), "", tx) {
		d := s.Env.GetDelegationCommand()
		if d == nil || seen[d.GetDelegationId()] {
			continue
		}
		seen[d.GetDelegationId()] = true
		out = append(out, s.To)
	}
	return out
}

// dump logs every node's transitions and the send log (on failure).
func (w *world) dump() {
	for _, n := range w.c.Nodes() {
		var b strings.Builder
		for _, tr := range n.Transitions {
			fmt.Fprintf(&b, "\n  %s %s %s -> %s", tr.Role, tr.TxID, tr.From, tr.To)
		}
		w.t.Logf("%s (up %v, height %d) transitions:%s", n.ID, n.Up(), n.Height(), b.String())
	}
	var b strings.Builder
	t0 := time.Time{}
	for _, s := range w.log {
		if s.Kind == "CoordinatorHeartbeat" || s.Kind == "SubmitterHeartbeat" || s.Kind == "DistributeData" || s.Kind == "DistributeDataAck" {
			continue
		}
		if t0.IsZero() {
			t0 = s.At
		}
		drop := ""
		if s.Dropped {
			drop = " (dropped)"
		}
		fmt.Fprintf(&b, "\n  +%v %s->%s %s %s%s", s.At.Sub(t0), s.From, s.To, s.Kind, s.tx(), drop)
	}
	w.t.Logf("sends (heartbeats and distribution left out):%s", b.String())
}

// tokenIntent is an intent of amount to bob.
func tokenIntent(amount uint64) token.Intent { return token.Intent{To: "bob", Amount: amount} }

type storeDispatch = store.DistseqDispatch

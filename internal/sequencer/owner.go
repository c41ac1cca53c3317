package sequencer

import (
	"errors"
	"slices"
	"time"

	"github.com/ordolabs/ordo/internal/store"
)

// Several nodes on one database (issue 13): each processes only the queues
// and uses only the senders whose leases it holds (Config.Owner). The
// driver shows the core nothing else: the snapshot it loads, the intake it
// is notified of and the senders it syncs are filtered, and every batch it
// commits carries the owner's fence, so that a batch written after a lease
// was lost is refused (store.ErrFenced). When the owned set changes, or a
// batch is fenced, the loop starts over as a restart does: its workers
// stop, what they had in hand is dropped, and a new core is built from
// the store for what the node owns now; attempts in flight are settled by
// asking the chain before any re-dispatch (recovery).

// Owner says which queues and senders this node may process when it
// shares its store with other nodes.
type Owner interface {
	// Held returns the leases the node holds now.
	Held() Held
	// Changed is signalled when the set of leases held changes.
	Changed() <-chan struct{}
	// Until is the time, on the node's clock, before which the leases of
	// Held generation gen are surely still held (the last renewal's start
	// plus the ttl, less a margin), or the zero time once one of them has
	// been lost since. The driver sends nothing to the chain after it: a
	// node that stalled past its leases wakes up unable to send an
	// attempt another node may have settled and dispatched again.
	Until(gen uint64) time.Time
}

// ErrLeaseLapsed is a send the driver did not make: the node's leases may
// have expired (it stalled, or cannot renew them).
var ErrLeaseLapsed = errors.New("sequencer: not sent: this node's leases may have expired (it stalled or cannot renew them)")

// lapsed reports whether the owner's leases may have expired.
func (n *Node) lapsed() bool {
	if n.cfg.Owner == nil {
		return false
	}
	h := n.heldNow()
	return h == nil || !n.cfg.Clock.Now().Before(n.cfg.Owner.Until(h.Gen))
}

// Held is what a node holds: the queues it may process, the senders it
// may use, and the fence naming all their leases with their tokens. The
// loop takes it once per start (load), so that every batch of that core
// carries the fence of the leases the core was built on: a lease lost
// since fails the batch (store.ErrFenced) until the loop starts over.
type Held struct {
	Queues  map[string]bool
	Senders map[string]bool
	Fence   *store.Fence
	// Gen is the owner's count of lease losses when Held was taken
	// (see Until).
	Gen uint64
}

// errReload: the loop starts over from the store (ownership changed, or a
// batch was fenced).
var errReload = errors.New("sequencer: reload")

// held is the ownership the current core was built on (nil: none taken
// yet, or no Owner).
func (n *Node) heldNow() *Held { return n.held.Load() }

// takeHeld records the owner's leases for the core about to be built.
func (n *Node) takeHeld() {
	if n.cfg.Owner != nil {
		h := n.cfg.Owner.Held()
		n.held.Store(&h)
	}
}

// owns reports whether the node processes queue (always without an
// Owner).
func (n *Node) owns(queue string) bool {
	if n.cfg.Owner == nil {
		return true
	}
	h := n.heldNow()
	return h != nil && h.Queues[queue]
}

// fence stamps b with the fence of the leases the core was built on (none
// without an Owner).
func (n *Node) fence(b *store.Batch) {
	if h := n.heldNow(); h != nil {
		b.Fence = h.Fence
	}
}

// ownedSenders are the configured senders the node may use.
func (n *Node) ownedSenders() []SenderConfig {
	h := n.heldNow()
	if n.cfg.Owner == nil || h == nil {
		return n.cfg.Senders
	}
	var out []SenderConfig
	for _, s := range n.cfg.Senders {
		if h.Senders[string(s.ID)] {
			out = append(out, s)
		}
	}
	return out
}

// ownedSnapshot drops from snap what the node does not own.
func (n *Node) ownedSnapshot(snap *Snapshot) {
	if n.cfg.Owner == nil {
		return
	}
	snap.Queues = slices.DeleteFunc(snap.Queues, func(q store.Queue) bool { return !n.owns(q.Name) })
	snap.Active, snap.Bound, snap.Hooks, snap.Sent = n.ownedTxs(snap.Active), n.ownedTxs(snap.Bound), n.ownedTxs(snap.Hooks), n.ownedTxs(snap.Sent)
	snap.WaitingQueues = slices.DeleteFunc(snap.WaitingQueues, func(q string) bool { return !n.owns(q) })
}

// ownedTxs returns the transactions of owned queues (a new slice: an
// input's may be shared with the store's caller).
func (n *Node) ownedTxs(ts []store.Transaction) []store.Transaction {
	if n.cfg.Owner == nil {
		return ts
	}
	out := make([]store.Transaction, 0, len(ts))
	for _, t := range ts {
		if n.owns(t.Queue) {
			out = append(out, t)
		}
	}
	return out
}

// ownerChanged is the owner's change signal (nil without an Owner: never).
func (n *Node) ownerChanged() <-chan struct{} {
	if n.cfg.Owner == nil {
		return nil
	}
	return n.cfg.Owner.Changed()
}

// Notify tells the loop that intake for queue was committed elsewhere (by
// another node sharing the store): when this node's core owns the queue
// (the loop filters intake as it steps it), it reads the queue's WAITING
// transactions from the store, in Seq order (CoreConfig.Shared: with an
// Owner every intake notification does that, since another node may have
// committed earlier ones).
func (n *Node) Notify(queue string) {
	n.inputs.Put(Input{Kind: InputEnqueued, Txs: []store.Transaction{{Queue: queue, State: store.Waiting}}})
}

// drain drops what the stopped loop's workers and effects held: the new
// core starts from the store, as after a restart.
func (n *Node) drain() {
	n.inputs.Take()
	for {
		select {
		case <-n.effects:
		default:
			return
		}
	}
}

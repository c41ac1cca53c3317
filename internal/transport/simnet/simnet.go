package simnet

import (
	"container/heap"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/transport"
)

// DefaultQueueLimit is Config.QueueLimit's default.
const DefaultQueueLimit = 1024

// DefaultLatency is Config.Latency's default: 1 to 5 ms.
var DefaultLatency = Dist{Min: time.Millisecond, Max: 5 * time.Millisecond}

// Dist is a uniform distribution of durations over [Min, Max]. Max below Min
// is read as Min.
type Dist struct {
	Min, Max time.Duration
}

func (d Dist) draw(r *rand.Rand) time.Duration {
	if d.Max <= d.Min {
		return d.Min
	}
	return d.Min + time.Duration(r.Int64N(int64(d.Max-d.Min)+1))
}

// Faults are the random faults of the network, each drawn per message from
// the seed. The zero value is a faultless network.
type Faults struct {
	// Drop is the probability that a message is lost. Defaults to 0.
	Drop float64
	// Duplicate is the probability that a message is delivered twice.
	// Defaults to 0.
	Duplicate float64
	// Delay is the probability that a message is held back by an extra
	// delay drawn from DelayBy. Defaults to 0.
	Delay float64
	// DelayBy is the extra delay's distribution. Defaults to zero.
	DelayBy Dist
	// Reorder lets the messages of one peer pair overtake each other (each
	// delivered at its own drawn time); off, a pair's messages keep their
	// send order whatever their delays. Defaults to false.
	Reorder bool
}

// Config configures a Network.
type Config struct {
	// Seed seeds every random draw. Defaults to 0.
	Seed uint64
	// Clock is the virtual clock the network reads and moves. Defaults to a
	// new clock.Virtual at clock.Epoch.
	Clock *clock.Virtual
	// Latency is every message's base delay. Defaults to DefaultLatency
	// (the zero Dist means the default; use Dist{Min: 1} for ~no latency).
	Latency Dist
	// QueueLimit bounds the queued messages of one directed peer pair.
	// Defaults to DefaultQueueLimit.
	QueueLimit int
	// Faults are the random faults from the start. Defaults to none.
	Faults Faults
}

// Stats counts what the network did with the messages it was given.
type Stats struct {
	Sent       int // Sends accepted (queued, or lost to a fault or a shed)
	Delivered  int // handler calls
	Dropped    int // lost to the Drop fault
	Duplicated int // extra copies made by the Duplicate fault
	Shed       int // non-assured messages shed by a full queue
	Refused    int // assured messages refused with ErrQueueFull
	Cut        int // lost to a partition or a crash
}

type pair struct{ from, to transport.NodeID }

type envelope struct {
	due  time.Time
	seq  uint64
	to   transport.NodeID
	msg  transport.Message
	gone bool // shed or cut after queueing; skipped when popped
}

type node struct {
	id      transport.NodeID
	handler transport.Handler
	epoch   int // bumped by Crash; an Endpoint of an older epoch is closed
	up      bool
}

// Network is the in-memory network. Its methods are safe for concurrent use,
// but runs are deterministic only when one goroutine drives it (Step,
// DeliverDue, RunUntil, and Sends from handlers and that goroutine).
type Network struct {
	mu      sync.Mutex
	clk     *clock.Virtual
	rng     *rand.Rand
	latency Dist
	limit   int
	faults  Faults
	nodes   map[transport.NodeID]*node
	queue   envHeap
	pairs   map[pair][]*envelope // queued messages per directed pair, send order
	lastDue map[pair]time.Time   // FIFO clamp per directed pair
	group   map[transport.NodeID]int
	seq     uint64
	stats   Stats
	digest  hash.Hash
}

// New returns a network with no nodes.
func New(cfg Config) *Network {
	if cfg.Clock == nil {
		cfg.Clock = clock.NewVirtual(clock.Epoch)
	}
	if cfg.Latency == (Dist{}) {
		cfg.Latency = DefaultLatency
	}
	if cfg.QueueLimit <= 0 {
		cfg.QueueLimit = DefaultQueueLimit
	}
	return &Network{
		clk:     cfg.Clock,
		rng:     rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)),
		latency: cfg.Latency,
		limit:   cfg.QueueLimit,
		faults:  cfg.Faults,
		nodes:   map[transport.NodeID]*node{},
		pairs:   map[pair][]*envelope{},
		lastDue: map[pair]time.Time{},
		digest:  sha256.New(),
	}
}

// Clock returns the network's virtual clock.
func (n *Network) Clock() *clock.Virtual { return n.clk }

// SetFaults replaces the random faults for the messages sent from now on.
func (n *Network) SetFaults(f Faults) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.faults = f
}

// Attach adds the node id, up, with h as its handler, and returns its
// endpoint. Attaching an id twice panics: use Restart after a Crash.
func (n *Network) Attach(id transport.NodeID, h transport.Handler) *Endpoint {
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, ok := n.nodes[id]; ok {
		panic(fmt.Sprintf("simnet: node %q attached twice", id))
	}
	nd := &node{id: id, handler: h, up: true}
	n.nodes[id] = nd
	return &Endpoint{net: n, id: id, epoch: nd.epoch}
}

// Crash stops the node: every message queued to or from it is lost, its
// endpoint is closed for good, and nothing reaches it until Restart. Crashing
// a node that is down or unknown does nothing.
func (n *Network) Crash(id transport.NodeID) {
	n.mu.Lock()
	defer n.mu.Unlock()
	nd, ok := n.nodes[id]
	if !ok || !nd.up {
		return
	}
	nd.up = false
	nd.epoch++
	for p, q := range n.pairs {
		if p.from != id && p.to != id {
			continue
		}
		for _, e := range q {
			e.gone = true
			n.stats.Cut++
		}
		delete(n.pairs, p)
		delete(n.lastDue, p)
	}
}

// Restart brings a crashed node back with a new handler (its new process's)
// and returns its new endpoint. Restarting a node that is up panics.
func (n *Network) Restart(id transport.NodeID, h transport.Handler) *Endpoint {
	n.mu.Lock()
	defer n.mu.Unlock()
	nd, ok := n.nodes[id]
	if !ok || nd.up {
		panic(fmt.Sprintf("simnet: restart of node %q that is not crashed", id))
	}
	nd.up = true
	nd.handler = h
	return &Endpoint{net: n, id: id, epoch: nd.epoch}
}

// Up reports whether the node is attached and not crashed.
func (n *Network) Up(id transport.NodeID) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	nd, ok := n.nodes[id]
	return ok && nd.up
}

// Partition splits the network into the given groups: a node reaches only
// the nodes of its own group. Nodes named in no group form one more group
// together. Messages already queued across the cut are lost when they come
// due. Partition replaces any earlier partition.
func (n *Network) Partition(groups ...[]transport.NodeID) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.group = map[transport.NodeID]int{}
	for i, g := range groups {
		for _, id := range g {
			n.group[id] = i + 1
		}
	}
}

// Heal removes the partition.
func (n *Network) Heal() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.group = nil
}

// reachable is called with mu held.
func (n *Network) reachable(a, b transport.NodeID) bool {
	return n.group == nil || n.group[a] == n.group[b]
}

// Stats returns the counts so far.
func (n *Network) Stats() Stats {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.stats
}

// Pending returns the number of messages queued and not yet delivered or
// lost.
func (n *Network) Pending() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	c := 0
	for _, q := range n.pairs {
		c += len(q)
	}
	return c
}

// Queued returns the number of messages queued from one node to another.
func (n *Network) Queued(from, to transport.NodeID) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.pairs[pair{from, to}])
}

// Digest returns the hex SHA-256 of every delivery so far (its time, sender,
// receiver, kind, assured flag and body, in delivery order): the same seed,
// configuration and calls give the same digest.
func (n *Network) Digest() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return hex.EncodeToString(n.digest.Sum(nil))
}

// send queues m from from to to; called by Endpoint.Send.
func (n *Network) send(ep *Endpoint, to transport.NodeID, m transport.Message) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	src := n.nodes[ep.id]
	if !src.up || src.epoch != ep.epoch {
		return transport.ErrClosed
	}
	dst, ok := n.nodes[to]
	if !ok {
		return fmt.Errorf("simnet: send to %q: %w", to, transport.ErrUnknownPeer)
	}
	m.From = ep.id
	m.Body = slices.Clone(m.Body)
	p := pair{ep.id, to}
	if len(n.pairs[p]) >= n.limit && !n.shed(p, m) {
		n.stats.Refused++
		return fmt.Errorf("simnet: send %s to %q: %d queued: %w", m.Kind, to, n.limit, transport.ErrQueueFull)
	}
	n.stats.Sent++
	// Draw every random choice, whatever the message's fate, so that one
	// message's fate does not shift the draws of the ones after it.
	drop := n.rng.Float64() < n.faults.Drop
	dup := n.rng.Float64() < n.faults.Duplicate
	d1 := n.delay()
	d2 := n.delay()
	switch {
	case len(n.pairs[p]) >= n.limit: // shed the new, non-assured message
		n.stats.Shed++
		return nil
	case !dst.up || !n.reachable(ep.id, to):
		n.stats.Cut++
		return nil
	case drop:
		n.stats.Dropped++
		return nil
	}
	n.enqueue(p, m, d1)
	if dup && len(n.pairs[p]) < n.limit {
		n.stats.Duplicated++
		m.Body = slices.Clone(m.Body)
		n.enqueue(p, m, d2)
	}
	return nil
}

// shed makes room in the full pair p for m by shedding its oldest
// non-assured message; when there is none it reports whether m itself may be
// shed (non-assured) instead. Called with mu held.
func (n *Network) shed(p pair, m transport.Message) bool {
	q := n.pairs[p]
	for i, e := range q {
		if !e.msg.Assured {
			e.gone = true
			n.pairs[p] = slices.Delete(q, i, i+1)
			n.stats.Shed++
			return true
		}
	}
	return !m.Assured
}

func (n *Network) delay() time.Duration {
	d := n.latency.draw(n.rng)
	extra := n.faults.DelayBy.draw(n.rng)
	if n.rng.Float64() < n.faults.Delay {
		d += extra
	}
	return d
}

func (n *Network) enqueue(p pair, m transport.Message, d time.Duration) {
	due := n.clk.Now().Add(d)
	if !n.faults.Reorder {
		if last, ok := n.lastDue[p]; ok && due.Before(last) {
			due = last
		}
		n.lastDue[p] = due
	}
	n.seq++
	e := &envelope{due: due, seq: n.seq, to: p.to, msg: m}
	n.pairs[p] = append(n.pairs[p], e)
	heap.Push(&n.queue, e)
}

// Next returns the due time of the next message to deliver, if any.
func (n *Network) Next() (time.Time, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	e := n.peek()
	if e == nil {
		return time.Time{}, false
	}
	return e.due, true
}

// peek drops lost messages off the top of the queue and returns the next
// live one. Called with mu held.
func (n *Network) peek() *envelope {
	for n.queue.Len() > 0 {
		if e := n.queue[0]; !e.gone {
			return e
		}
		heap.Pop(&n.queue)
	}
	return nil
}

// Step delivers the next message, moving the clock forward to its due time
// if it is later, and reports whether there was one. A message that a
// partition or a crash cuts when it comes due counts as a step, delivered to
// no one.
func (n *Network) Step() bool {
	n.mu.Lock()
	e := n.peek()
	if e == nil {
		n.mu.Unlock()
		return false
	}
	heap.Pop(&n.queue)
	p := pair{e.msg.From, e.to}
	q := n.pairs[p]
	if i := slices.Index(q, e); i >= 0 {
		n.pairs[p] = slices.Delete(q, i, i+1)
	}
	if len(n.pairs[p]) == 0 {
		delete(n.pairs, p)
	}
	n.mu.Unlock()
	n.clk.Set(e.due) // never backwards: a message due in the past is late
	n.mu.Lock()
	dst := n.nodes[e.to]
	if !dst.up || !n.reachable(e.msg.From, e.to) {
		n.stats.Cut++
		n.mu.Unlock()
		return true
	}
	n.stats.Delivered++
	n.record(e)
	h := dst.handler
	n.mu.Unlock()
	h(e.msg)
	return true
}

// record adds a delivery to the digest. Called with mu held.
func (n *Network) record(e *envelope) {
	var b [8]byte
	put := func(s []byte) {
		binary.BigEndian.PutUint64(b[:], uint64(len(s)))
		n.digest.Write(b[:])
		n.digest.Write(s)
	}
	binary.BigEndian.PutUint64(b[:], uint64(n.clk.Now().UnixNano()))
	n.digest.Write(b[:])
	put([]byte(e.msg.From))
	put([]byte(e.to))
	put([]byte(e.msg.Kind))
	if e.msg.Assured {
		n.digest.Write([]byte{1})
	} else {
		n.digest.Write([]byte{0})
	}
	put(e.msg.Body)
}

// DeliverDue delivers every message due by the clock's time, including
// those that handlers send meanwhile with no latency left, and returns how
// many steps it took. It does not move the clock.
func (n *Network) DeliverDue(ctx context.Context) (int, error) {
	return n.RunUntil(ctx, n.clk.Now())
}

// RunUntil delivers every message due by t in order, moving the clock with
// them, then sets the clock to t. It returns the number of steps and stops
// early with ctx's error.
func (n *Network) RunUntil(ctx context.Context, t time.Time) (int, error) {
	steps := 0
	for {
		if err := ctx.Err(); err != nil {
			return steps, err
		}
		due, ok := n.Next()
		if !ok || due.After(t) {
			break
		}
		n.Step()
		steps++
	}
	n.clk.Set(t)
	return steps, nil
}

// Endpoint is one node's transport.Transport on the network.
type Endpoint struct {
	net   *Network
	id    transport.NodeID
	epoch int
}

var _ transport.Transport = (*Endpoint)(nil)

// Self returns the node's id.
func (e *Endpoint) Self() transport.NodeID { return e.id }

// Send queues m for the node to (see transport.Transport). It draws the
// message's faults from the network's seed at once.
func (e *Endpoint) Send(ctx context.Context, to transport.NodeID, m transport.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return e.net.send(e, to, m)
}

type envHeap []*envelope

func (h envHeap) Len() int { return len(h) }
func (h envHeap) Less(i, j int) bool {
	if !h[i].due.Equal(h[j].due) {
		return h[i].due.Before(h[j].due)
	}
	return h[i].seq < h[j].seq
}
func (h envHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *envHeap) Push(x any)   { *h = append(*h, x.(*envelope)) }
func (h *envHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return e
}

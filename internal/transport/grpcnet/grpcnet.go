package grpcnet

import (
	"context"
	"fmt"
	"net"
	"slices"
	"sort"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/keepalive"

	"github.com/ordolabs/ordo/internal/transport"
	"github.com/ordolabs/ordo/internal/transport/grpcnet/transportpb"
)

// Keepalive: a dialer pings an idle connection every keepaliveTime and drops
// it when no answer comes in keepaliveTimeout, so a dead peer's stream ends
// and its frames queue (and shed) instead of vanishing into it.
const (
	keepaliveTime    = 20 * time.Second
	keepaliveTimeout = 10 * time.Second
)

// State is a peer's connection state.
type State string

// Connection states.
const (
	// StateIdle: no stream, and this node is not dialing (it has not sent to
	// the peer, or it waits for the peer to dial).
	StateIdle State = "idle"
	// StateDialing: a dial is in progress.
	StateDialing State = "dialing"
	// StateConnected: the pair has a stream.
	StateConnected State = "connected"
	// StateBackoff: the last dial failed; the next waits.
	StateBackoff State = "backoff"
)

// PeerStats is one peer's counters, for /v1/peers and metrics.
type PeerStats struct {
	// ID is the peer's node id.
	ID transport.NodeID
	// State is the connection state.
	State State
	// Queued is the number of frames waiting to be sent.
	Queued int
	// In and Out count messages handed to the Handler and written to the
	// stream.
	In, Out uint64
	// Drops counts non-assured messages shed by the full queue; Lost the
	// messages whose write failed with their stream.
	Drops, Lost uint64
	// Reconnects counts the streams that became the pair's stream after the
	// first one.
	Reconnects uint64
	// LastIn and LastOut are the times of the last message received and
	// sent (zero when none).
	LastIn, LastOut time.Time
}

// Transport is one node's end of the gRPC network. It implements
// transport.Transport.
type Transport struct {
	cfg  Config
	self transport.NodeID
	h    transport.Handler
	lis  net.Listener
	srv  *grpc.Server
	done chan struct{}
	wg   sync.WaitGroup

	mu      sync.Mutex
	closed  bool
	peers   map[transport.NodeID]*peer
	cancels map[int]context.CancelFunc
	nextC   int
}

var _ transport.Transport = (*Transport)(nil)

// peer is the state of one remote node (or of Self, for messages to itself).
type peer struct {
	id transport.NodeID

	mu      sync.Mutex
	q       queue
	cur     *stream // the pair's stream, nil when none
	wanted  bool    // Send has been called: the sender (and dialer) run
	dialing bool
	backoff bool
	ever    bool // a stream has been current before
	st      PeerStats

	wake chan struct{} // cap 1: the sender has work or a new stream
	gone chan struct{} // cap 1: the dialer: the pair's stream ended

	deliverMu sync.Mutex // serialises Handler calls for this peer
}

// stream is one end of a Connect stream.
type stream struct {
	dialed bool // this node dialed it
	sendMu sync.Mutex
	send   func(*transportpb.Frame) error
	end    context.CancelFunc // ends the stream; idempotent
}

func (s *stream) write(f *transportpb.Frame) error {
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	return s.send(f)
}

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// New starts a node's end: it listens on cfg.Listen and serves the Peer
// service. Messages for this node go to h (see transport.Handler).
func New(cfg Config, h transport.Handler) (*Transport, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	if h == nil {
		return nil, fmt.Errorf("%w: no handler", ErrConfig)
	}
	lis, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("grpcnet: listen: %w", err)
	}
	t := &Transport{
		cfg:     cfg,
		self:    cfg.Key.ID(),
		h:       h,
		lis:     lis,
		done:    make(chan struct{}),
		peers:   map[transport.NodeID]*peer{},
		cancels: map[int]context.CancelFunc{},
	}
	t.srv = grpc.NewServer(
		grpc.Creds(credentials.NewTLS(t.serverTLS())),
		grpc.MaxRecvMsgSize(cfg.MaxFrameBytes),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: keepaliveTime / 2, PermitWithoutStream: true}),
	)
	transportpb.RegisterPeerServer(t.srv, server{t: t})
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		_ = t.srv.Serve(lis) // returns when Close stops the server
	}()
	return t, nil
}

// Self returns this node's id, derived from its key.
func (t *Transport) Self() transport.NodeID { return t.self }

// Addr returns the address the Peer service listens on.
func (t *Transport) Addr() net.Addr { return t.lis.Addr() }

// Send queues m for the node to (see transport.Transport). It never waits
// on the peer's stream.
func (t *Transport) Send(ctx context.Context, to transport.NodeID, m transport.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if to != t.self {
		if _, ok := t.cfg.Peers.Lookup(to); !ok {
			if t.isClosed() {
				return transport.ErrClosed
			}
			return fmt.Errorf("grpcnet: send %s to %s: %w", m.Kind, to, transport.ErrUnknownPeer)
		}
	}
	p, err := t.want(to)
	if err != nil {
		return err
	}
	m.From = t.self
	m.Body = slices.Clone(m.Body)
	p.mu.Lock()
	shed, full := p.q.push(m)
	if shed {
		p.st.Drops++
	}
	p.mu.Unlock()
	if full {
		return fmt.Errorf("grpcnet: send %s to %s: %d queued: %w", m.Kind, to, t.cfg.QueueLimit, transport.ErrQueueFull)
	}
	signal(p.wake)
	return nil
}

// Peers returns every known peer's stats, ordered by id: each node this
// node has exchanged with, and, when the directory is a Lister, every node
// it lists (this node aside), connected or not: one never contacted is
// StateIdle with zero counters.
func (t *Transport) Peers() []PeerStats {
	var listed []transport.NodeID
	if l, ok := t.cfg.Peers.(Lister); ok {
		listed = l.IDs()
	}
	t.mu.Lock()
	ps := make([]*peer, 0, len(t.peers))
	for _, p := range t.peers {
		ps = append(ps, p)
	}
	t.mu.Unlock()
	out := make([]PeerStats, 0, len(ps)+len(listed))
	seen := make(map[transport.NodeID]bool, len(ps))
	for _, p := range ps {
		seen[p.id] = true
	}
	for _, id := range listed {
		if !seen[id] && id != t.self {
			seen[id] = true
			out = append(out, PeerStats{ID: id, State: StateIdle})
		}
	}
	for _, p := range ps {
		p.mu.Lock()
		s := p.st
		s.ID = p.id
		s.Queued = p.q.len()
		switch {
		case p.cur != nil || p.id == t.self:
			s.State = StateConnected
		case p.dialing:
			s.State = StateDialing
		case p.backoff:
			s.State = StateBackoff
		default:
			s.State = StateIdle
		}
		p.mu.Unlock()
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Close stops the server, ends every stream and waits for the transport's
// goroutines (Handler calls in progress included). Later Sends return
// ErrClosed. It is idempotent.
func (t *Transport) Close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	close(t.done)
	cancels := t.cancels
	t.cancels = nil
	t.mu.Unlock()
	for _, c := range cancels {
		c()
	}
	t.srv.Stop()
	t.wg.Wait()
	return nil
}

func (t *Transport) isClosed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.closed
}

// peer returns id's record, creating it.
func (t *Transport) peer(id transport.NodeID) (*peer, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil, transport.ErrClosed
	}
	p := t.peers[id]
	if p == nil {
		p = &peer{id: id, q: queue{limit: t.cfg.QueueLimit}, wake: make(chan struct{}, 1), gone: make(chan struct{}, 1)}
		t.peers[id] = p
	}
	return p, nil
}

// want returns id's record and starts its sender (and, for another node, its
// dialer) on the first call.
func (t *Transport) want(id transport.NodeID) (*peer, error) {
	p, err := t.peer(id)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	start := !p.wanted
	p.wanted = true
	p.mu.Unlock()
	if start {
		if !t.spawn(func() { t.sendLoop(p) }) {
			return nil, transport.ErrClosed
		}
		if id != t.self && !t.spawn(func() { t.dialLoop(p) }) {
			return nil, transport.ErrClosed
		}
	}
	return p, nil
}

// spawn runs f on a goroutine Close waits for, unless the transport is
// closed.
func (t *Transport) spawn(f func()) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return false
	}
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		f()
	}()
	return true
}

// track registers cancel to be called by Close; the returned func forgets
// it. It reports false (and cancels) when the transport is closed.
func (t *Transport) track(cancel context.CancelFunc) (func(), bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		cancel()
		return func() {}, false
	}
	k := t.nextC
	t.nextC++
	t.cancels[k] = cancel
	return func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		delete(t.cancels, k)
	}, true
}

// sendLoop is p's sender: it pops p's queue in order and writes each
// message to the pair's current stream (to the Handler, for Self).
func (t *Transport) sendLoop(p *peer) {
	for {
		p.mu.Lock()
		s := p.cur
		var m transport.Message
		ok := false
		if s != nil || p.id == t.self {
			m, ok = p.q.pop()
		}
		p.mu.Unlock()
		if !ok {
			select {
			case <-p.wake:
				continue
			case <-t.done:
				return
			}
		}
		if p.id == t.self {
			t.deliver(p, nil, m)
			continue
		}
		err := s.write(&transportpb.Frame{Kind: m.Kind, Assured: m.Assured, Body: m.Body})
		p.mu.Lock()
		if err == nil {
			p.st.Out++
			p.st.LastOut = t.cfg.Clock.Now()
		} else {
			p.st.Lost++
		}
		p.mu.Unlock()
		if err != nil {
			t.release(p, s)
		}
	}
}

// deliver hands m to the Handler, unless s is no longer p's stream (s nil:
// a message to Self).
func (t *Transport) deliver(p *peer, s *stream, m transport.Message) {
	p.deliverMu.Lock()
	defer p.deliverMu.Unlock()
	p.mu.Lock()
	ok := s == nil || p.cur == s
	if ok {
		p.st.In++
		p.st.LastIn = t.cfg.Clock.Now()
	}
	p.mu.Unlock()
	if ok {
		t.h(m)
	}
}

// recvLoop hands s's frames to the Handler until the stream ends.
func (t *Transport) recvLoop(p *peer, s *stream, recv func() (*transportpb.Frame, error)) error {
	for {
		f, err := recv()
		if err != nil {
			return err
		}
		if f.GetHello() {
			continue // only ever the first frame, which the dialer read
		}
		t.deliver(p, s, transport.Message{From: p.id, Kind: f.GetKind(), Assured: f.GetAssured(), Body: f.GetBody()})
	}
}

// accept decides on an inbound stream s from p and makes it the pair's
// stream when kept: a new inbound stream replaces the pair's older one,
// except that a stream from a higher id is refused while this node dials it
// or holds a stream it dialed (the lower id's dial wins).
func (t *Transport) accept(p *peer, s *stream) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.id > t.self && (p.dialing || p.cur != nil && p.cur.dialed) {
		return false
	}
	t.current(p, s)
	return true
}

// adopt makes this node's dialed stream s the pair's stream, unless the
// pair got one (an inbound stream) meanwhile.
func (t *Transport) adopt(p *peer, s *stream) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dialing = false
	if p.cur != nil {
		return false
	}
	t.current(p, s)
	return true
}

// current makes s p's stream; called with p.mu held.
func (t *Transport) current(p *peer, s *stream) {
	if old := p.cur; old != nil {
		old.end()
	}
	p.cur = s
	if p.ever {
		p.st.Reconnects++
	}
	p.ever = true
	p.backoff = false
	signal(p.wake)
}

// release ends s and, when it is p's stream, leaves the pair without one.
func (t *Transport) release(p *peer, s *stream) {
	p.mu.Lock()
	if p.cur == s {
		p.cur = nil
		signal(p.gone)
	}
	p.mu.Unlock()
	s.end()
}

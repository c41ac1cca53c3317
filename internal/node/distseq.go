package node

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/ordolabs/ordo/internal/smm"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/distseq"
	"github.com/ordolabs/ordo/internal/identity"
	"github.com/ordolabs/ordo/internal/noderegistry"
	"github.com/ordolabs/ordo/internal/ptx"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/sequencer/dispatch"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/transport"
	"github.com/ordolabs/ordo/internal/transport/grpcnet"
	"github.com/prometheus/client_golang/prometheus"
)

// DistseqConfig makes the node a member of privacy-group committees (seed
// 003, issue 10): the distributed sequencer over gRPC with mutual TLS. It
// runs when Key is set. Zero fields take their defaults.
type DistseqConfig struct {
	// Key and Cert are the node's identity: an ed25519 key and its TLS
	// certificate, PEM files (internal/identity). The node id derives
	// from the key. Defaults to none (no distributed sequencer).
	Key  string `yaml:"key"`
	Cert string `yaml:"cert"`
	// Listen is the gRPC address peers connect to. Defaults to
	// 127.0.0.1:7171.
	Listen string `yaml:"listen"`
	// Peers are the committee's members this node may talk to, pinned by
	// certificate fingerprint. Defaults to none.
	Peers []DistseqPeer `yaml:"peers"`
	// Registry also reads peers from the chain's nodes registry,
	// refreshed every RegistryEvery (a configured peer wins), and the
	// node registers itself there at start (its id, key, certificate
	// fingerprint and Endpoint, signed by its key) through its sequencer.
	// Defaults to false and 30s.
	Registry      bool     `yaml:"registry"`
	RegistryEvery Duration `yaml:"registryEvery"`
	// Endpoint is the address peers dial, as registered. Defaults to
	// Listen.
	Endpoint string `yaml:"endpoint"`
	// RangeSize is n, the blocks per coordinator range. Defaults to 100.
	RangeSize uint64 `yaml:"rangeSize"`
	// InFlight is the sequencer pipeline's depth of a contract's dispatch
	// queue (distseq/<contract>). Defaults to 256.
	InFlight int `yaml:"inFlight"`
	// PollEvery is how often the indexer reads the chain. Defaults to
	// 500ms.
	PollEvery Duration `yaml:"pollEvery"`
}

// DistseqPeer is a pinned member: its node id, gRPC endpoint and
// certificate fingerprint (SHA-256 of the DER, lowercase hex).
type DistseqPeer struct {
	// ID is the member's node id ("n" and 40 hex digits, derived from its
	// identity key). Required.
	ID string `yaml:"id"`
	// Endpoint is the member's gRPC address, host:port. Required.
	Endpoint string `yaml:"endpoint"`
	// Fingerprint is the SHA-256 of the member's TLS certificate (DER),
	// in lowercase hex: the node accepts that member only with this
	// certificate. Required.
	Fingerprint string `yaml:"fingerprint"`
}

// Defaults of DistseqConfig.
const (
	DefaultDistseqListen   = "127.0.0.1:7171"
	DefaultDistseqInFlight = 256
)

func (c DistseqConfig) enabled() bool { return c.Key != "" }

// pipeline is the dispatch queues' policy, added to the sequencer's.
func (c DistseqConfig) pipeline() []sequencer.Pipeline {
	if !c.enabled() {
		return nil
	}
	depth := c.InFlight
	if depth == 0 {
		depth = DefaultDistseqInFlight
	}
	return []sequencer.Pipeline{{Prefix: distseq.SeqQueuePrefix, InFlight: depth}}
}

// validate reports the config's errors through bad.
func (c DistseqConfig) validate(bad func(field, format string, args ...any)) {
	if !c.enabled() {
		if c.Cert != "" || len(c.Peers) > 0 {
			bad("distseq.key", "is empty, so the distributed sequencer is off, yet cert or peers are set")
		}
		return
	}
	if c.Cert == "" {
		bad("distseq.cert", "is required with distseq.key")
	}
	if c.InFlight < 0 || c.InFlight > sequencer.MaxInFlight {
		bad("distseq.inFlight", "must be from 1 to %d, got %d", sequencer.MaxInFlight, c.InFlight)
	}
	for i, p := range c.Peers {
		if p.ID == "" || p.Endpoint == "" || len(p.Fingerprint) != 64 {
			bad(fmt.Sprintf("distseq.peers[%d]", i), "needs an id, an endpoint and a 64-hex-character fingerprint")
		}
	}
}

// directory is the static peers, then the registry.
type directory struct {
	static *grpcnet.Static
	reg    *noderegistry.Directory
}

func (d directory) Lookup(id transport.NodeID) (grpcnet.Peer, bool) {
	if p, ok := d.static.Lookup(id); ok {
		return p, true
	}
	if d.reg != nil {
		return d.reg.Lookup(id)
	}
	return grpcnet.Peer{}, false
}

// Distseq is the node's distributed sequencer: its driver, transport,
// indexer and submitter (nil when off).
type Distseq struct {
	Node      *distseq.Node
	Transport *grpcnet.Transport
	Indexer   *distseq.Indexer
	Submitter *distseq.SequencerSubmitter
	registry  *noderegistry.Directory
	key       identity.Key
	fp        string
	seq       *sequencer.Node
	cfg       DistseqConfig
	n         *Node
	clock     clock.Clock
	// smm receives the state machine manager's messages on the same
	// transport (nil: replication off, they are dropped).
	smm atomic.Pointer[smm.Node]
}

// distseq builds the distributed sequencer on the node's store and
// sequencer (OnFinish must reach Submitter.Finished).
func (n *Node) distseq(ctx context.Context, seq *sequencer.Node, st Store, o Options) (*Distseq, error) {
	c := n.Config.Distseq
	key, cert, err := identity.Load(c.Key, c.Cert)
	if err != nil {
		return nil, fmt.Errorf("distseq: identity: %w", err)
	}
	static := grpcnet.NewStatic(nil)
	for _, p := range c.Peers {
		static.Set(transport.NodeID(p.ID), grpcnet.Peer{Endpoint: p.Endpoint, Fingerprint: p.Fingerprint})
	}
	d := &Distseq{cfg: c, n: n, clock: o.Clock, key: key, fp: identity.FingerprintDER(cert.Certificate[0]), seq: seq}
	dir := directory{static: static}
	if c.Registry {
		b, err := n.registryBinding()
		if err != nil {
			return nil, err
		}
		d.registry = noderegistry.NewWith(n.Chain, b)
		dir.reg = d.registry
		if err := d.registry.Refresh(ctx); err != nil {
			n.log.Warn("distseq: node registry not read at start", "err", err)
		}
	}
	listen := c.Listen
	if listen == "" {
		listen = DefaultDistseqListen
	}
	var fwd func(transport.Message)
	d.Transport, err = grpcnet.New(grpcnet.Config{Key: key, Certificate: cert, Listen: listen, Peers: dir, Clock: o.Clock, Logger: o.Logger},
		func(m transport.Message) {
			if smm.IsMessage(m) {
				if s := d.smm.Load(); s != nil {
					s.Handle(m)
				}
				return
			}
			fwd(m)
		})
	if err != nil {
		return nil, fmt.Errorf("distseq: transport: %w", err)
	}
	ledger, err := n.distseqLedger(key)
	if err != nil {
		d.Transport.Close()
		return nil, err
	}
	d.Indexer = &distseq.Indexer{Chain: n.Chain, Decode: ledger.decode}
	if cur, ok, err := st.DistseqCursor(ctx); err != nil {
		d.Transport.Close()
		return nil, err
	} else if ok {
		d.Indexer.Cursor = cur
	}
	// A revert is known at a block at most one past the head the indexer
	// last read: its spends wait for the indexer to pass that height.
	d.Submitter = &distseq.SequencerSubmitter{Sequencer: seq, Store: st, Height: func() uint64 { return d.Indexer.Head() + 1 }}
	f, err := n.engineTrace(o, distseq.TraceEngine)
	if err != nil {
		d.Transport.Close()
		return nil, err
	}
	var trace io.Writer
	if f != nil {
		trace = f
	}
	d.Node, err = distseq.NewNode(distseq.NodeConfig{Core: distseq.CoreConfig{Key: key.Private, Scheme: ledger.scheme, Domain: ledger.domain, RangeSize: c.RangeSize},
		Store: st, Transport: d.Transport, Submitter: d.Submitter, Clock: o.Clock, Logger: o.Logger, Trace: trace})
	if err != nil {
		d.Transport.Close()
		return nil, err
	}
	fwd = d.Node.Handle
	if err := n.Registry.Register(newPeerMetrics(d)); err != nil {
		d.Transport.Close()
		return nil, fmt.Errorf("distseq: metrics: %w", err)
	}
	d.Indexer.Out = d.Node.Events
	d.Submitter.Out = d.Node.Dispatched
	return d, nil
}

// ID is the node's id in its committees.
func (d *Distseq) ID() transport.NodeID { return d.Transport.Self() }

// Run runs the driver, the indexer and the registry refresh until ctx
// ends, then closes the transport.
func (d *Distseq) Run(ctx context.Context) error {
	defer d.Transport.Close()
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	poll := time.Duration(d.cfg.PollEvery)
	if poll <= 0 {
		poll = 500 * time.Millisecond
	}
	wg.Go(func() { d.Indexer.Run(ctx, d.clock, poll, d.n.log) })
	if d.registry != nil {
		if err := d.register(ctx); err != nil {
			d.n.log.Error("distseq: registering in the nodes registry", "err", err)
		}
		wg.Go(func() { d.registry.Run(ctx, d.clock, time.Duration(d.cfg.RegistryEvery), d.n.log) })
	}
	err := d.Node.Run(ctx)
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// Submit is the ptx API's send: the intent committed, its id answered.
func (d *Distseq) Submit(ctx context.Context, contract, key string, intent []byte) (string, error) {
	return d.Node.Submit(ctx, contract, key, intent)
}

// Prepare is the ptx API's prepare: the intent committed for external
// submission, its id answered.
func (d *Distseq) Prepare(ctx context.Context, contract, key string, intent []byte) (string, error) {
	return d.Node.Prepare(ctx, contract, key, intent)
}

// Intents is the store the ptx API reads.
func (d *Distseq) Intents() store.DistseqStore { return d.n.store }

// PeersPage is the ptx.PeerSource of GET /v1/peers: the transport's
// peers and, read from the core between two steps, each contract's
// coordinator and when each peer was last heard.
func (d *Distseq) PeersPage(ctx context.Context) (ptx.PeersPage, error) {
	cs, err := d.Node.Contracts(ctx)
	if err != nil {
		return ptx.PeersPage{}, fmt.Errorf("distseq: reading the core: %w", err)
	}
	page := ptx.PeersPage{Self: string(d.ID()), Peers: []ptx.PeerView{}, Coordinators: map[string]string{}, Contracts: []ptx.ContractView{}}
	heard := map[string]time.Time{}
	for _, c := range cs {
		page.Coordinators[c.Contract] = string(c.Coordinator)
		page.Contracts = append(page.Contracts, ptx.ContractView{Contract: c.Contract, Height: c.Height, Range: c.Range,
			Coordinator: string(c.Coordinator), Coordinating: c.Coordinating})
		for id, at := range c.Heard {
			if at.After(heard[string(id)]) {
				heard[string(id)] = at
			}
		}
	}
	for _, p := range d.Transport.Peers() {
		page.Peers = append(page.Peers, ptx.PeerView{ID: string(p.ID), State: string(p.State), Queued: p.Queued, In: p.In, Out: p.Out,
			Drops: p.Drops, Lost: p.Lost, Reconnects: p.Reconnects, LastIn: p.LastIn, LastOut: p.LastOut, LastHeartbeat: heard[string(p.ID)]})
	}
	return page, nil
}

// IntentStates is the ptx.PeerSource of GET /v1/distseq/intents: each
// privacy group's intents by seed 003 state, read from the core between
// two steps.
func (d *Distseq) IntentStates(ctx context.Context) (ptx.IntentStates, error) {
	cs, err := d.Node.StateCounts(ctx)
	if err != nil {
		return ptx.IntentStates{}, fmt.Errorf("distseq: reading the core: %w", err)
	}
	names := func(ss []distseq.State) []string {
		out := make([]string, len(ss))
		for i, s := range ss {
			out[i] = string(s)
		}
		return out
	}
	counts := func(m map[distseq.State]int) map[string]int {
		out := make(map[string]int, len(m))
		for s, k := range m {
			out[string(s)] = k
		}
		return out
	}
	page := ptx.IntentStates{SenderStates: names(distseq.SenderStates), CoordinatorStates: names(distseq.CoordinatorStates),
		Contracts: make([]ptx.ContractStates, 0, len(cs))}
	for _, c := range cs {
		page.Contracts = append(page.Contracts, ptx.ContractStates{Contract: c.Contract, Sender: counts(c.Sender), Coordinator: counts(c.Coordinator)})
	}
	return page, nil
}

// Coordinator is the coordinator this node sees for contract now, or ""
// when it knows no such group.
func (d *Distseq) Coordinator(ctx context.Context, contract string) (string, error) {
	cs, err := d.Node.Contracts(ctx)
	if err != nil {
		return "", err
	}
	for _, c := range cs {
		if c.Contract == contract {
			return string(c.Coordinator), nil
		}
	}
	return "", nil
}

// RegisterQueue is the sequencer queue of node id's registrations.
func RegisterQueue(id string) string { return "nodes/" + id }

// register submits this node's entry to the chain's nodes registry through
// the sequencer (type call), at the seq after the registry's, under an
// idempotency key that makes a restart's resubmission the same intent.
func (d *Distseq) register(ctx context.Context) error {
	id := string(d.ID())
	b := d.registry.Binding()
	seq, err := b.Seq(ctx, d.n.Chain, id)
	if err != nil {
		return err
	}
	endpoint := d.cfg.Endpoint
	if endpoint == "" {
		endpoint = d.Transport.Addr().String()
	}
	call, err := b.Register(d.key.Private, d.fp, endpoint, seq+1)
	if err != nil {
		return err
	}
	data, _ := json.Marshal(call)
	_, err = d.seq.Submit(ctx, []sequencer.Intake{{Queue: RegisterQueue(id), Type: dispatch.CallType, Data: data,
		IdempotencyKey: fmt.Sprintf("nodes/register/%s/%d", id, seq+1), Principal: sequencer.PrincipalDistseq}})
	if err != nil {
		return fmt.Errorf("submit: %w", err)
	}
	d.n.log.Info("distseq: registering in the nodes registry", "id", id, "endpoint", endpoint, "seq", seq+1)
	return nil
}

// peerMetrics exports the transport's per-peer counters to Prometheus
// (ordo_distseq_peer_*{peer}), read at each scrape.
type peerMetrics struct {
	d                                    *Distseq
	in, out, drops, lost, reconn, queued *prometheus.Desc
	up                                   *prometheus.Desc
}

func newPeerMetrics(d *Distseq) *peerMetrics {
	l := []string{"peer"}
	desc := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc("ordo_distseq_peer_"+name, help, l, nil)
	}
	return &peerMetrics{d: d,
		in:     desc("messages_in_total", "Messages received from the peer."),
		out:    desc("messages_out_total", "Messages written to the peer."),
		drops:  desc("drops_total", "Non-assured messages shed by the peer's full queue."),
		lost:   desc("lost_total", "Messages whose write failed with their stream."),
		reconn: desc("reconnects_total", "Streams that replaced the pair's first one."),
		queued: desc("queued", "Messages waiting to be sent to the peer."),
		up:     desc("connected", "1 while the pair has a stream."),
	}
}

// Describe implements prometheus.Collector.
func (m *peerMetrics) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{m.in, m.out, m.drops, m.lost, m.reconn, m.queued, m.up} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (m *peerMetrics) Collect(ch chan<- prometheus.Metric) {
	for _, p := range m.d.Transport.Peers() {
		id := string(p.ID)
		up := 0.0
		if p.State == grpcnet.StateConnected {
			up = 1
		}
		ch <- prometheus.MustNewConstMetric(m.in, prometheus.CounterValue, float64(p.In), id)
		ch <- prometheus.MustNewConstMetric(m.out, prometheus.CounterValue, float64(p.Out), id)
		ch <- prometheus.MustNewConstMetric(m.drops, prometheus.CounterValue, float64(p.Drops), id)
		ch <- prometheus.MustNewConstMetric(m.lost, prometheus.CounterValue, float64(p.Lost), id)
		ch <- prometheus.MustNewConstMetric(m.reconn, prometheus.CounterValue, float64(p.Reconnects), id)
		ch <- prometheus.MustNewConstMetric(m.queued, prometheus.GaugeValue, float64(p.Queued), id)
		ch <- prometheus.MustNewConstMetric(m.up, prometheus.GaugeValue, up, id)
	}
}

package distseq

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"time"

	"github.com/ordolabs/ordo/internal/distseq/distseqpb"
	"github.com/ordolabs/ordo/internal/store"
)

// ProtocolVersion is the semver of the messages this core speaks; a
// message of another major version is dropped.
const ProtocolVersion = "1.0.0"

// Defaults of CoreConfig (durations are on the injected clock).
const (
	DefaultRangeSize         = 100
	DefaultHeartbeatInterval = time.Second
	DefaultHeartbeatMisses   = 3
	DefaultRetryInterval     = 500 * time.Millisecond
	DefaultDelegationTimeout = 2 * time.Second
	DefaultAssembleTimeout   = 2 * time.Second
	DefaultSubmitterMisses   = 5
	DefaultParkRetry         = time.Second
	DefaultParkTimeout       = time.Minute
	DefaultMaxReverts        = 20
	DefaultIdleAfter         = 3 * time.Second
	DefaultMaxAssembling     = 32
	DefaultDispatchRanges    = 2
	DefaultEndorsedMemory    = 1024
)

// CoreConfig configures one node's distributed sequencer core.
type CoreConfig struct {
	// Self is this node's identity in every committee it belongs to.
	Self NodeID
	// Key is this node's ed25519 identity key: it signs assemblies and
	// endorsements unless Scheme is set.
	Key ed25519.PrivateKey
	// Scheme signs and checks assemblies and endorsements in the base
	// ledger's scheme (secp256k1 on an EVM chain). Defaults to
	// Ed25519Scheme{Key}.
	Scheme Scheme
	// Domain assembles, digests and encodes transactions (the token
	// domain in package token is the one ordo ships).
	Domain Domain
	// RangeSize is n, the blocks per coordinator range. Defaults to 100.
	RangeSize uint64
	// HeartbeatInterval is how often a coordinator and a submitter send
	// their heartbeats. Defaults to 1s.
	HeartbeatInterval time.Duration
	// HeartbeatMisses is how many coordinator heartbeat intervals a sender
	// waits without one before it re-delegates. Defaults to 3.
	HeartbeatMisses int
	// RetryInterval is the resend interval of the assured patterns
	// (Command, Request, ReliableNotification). Defaults to 500ms.
	RetryInterval time.Duration
	// DelegationTimeout is how long a sender resends a DelegationCommand
	// without an answer before it holds the coordinator unavailable.
	// Defaults to 2s.
	DelegationTimeout time.Duration
	// AssembleTimeout is how long a coordinator waits for an
	// AssembleResponse before it stops coordinating the transaction.
	// Defaults to 2s.
	AssembleTimeout time.Duration
	// SubmitterMisses is how many heartbeat intervals a sender waits
	// without a submitter heartbeat for a prepared or dispatched
	// transaction before it re-delegates it (docs/distseq.md, decisions: the
	// document's empty "Submitter becomes unavailable"). Defaults to 5.
	SubmitterMisses int
	// DispatchRanges is how many coordinator ranges past the one a
	// dispatch was made in a sender waits for it to be confirmed, even
	// while its submitter heartbeats it, before it delegates the
	// transaction again (a submitter whose own queue is stuck behind
	// dispatches it lost in a crash may take many minutes; the base
	// ledger's at-most-once rule protects the intent). A prepared
	// transaction waits for its caller instead. Defaults to 2.
	DispatchRanges int
	// ParkRetry is how often a parked transaction (its assembly found no
	// funds) is tried again. Defaults to 1s.
	ParkRetry time.Duration
	// ParkTimeout is how long a transaction may stay parked before the
	// sender finalizes it Reverted. Defaults to 1m.
	ParkTimeout time.Duration
	// MaxReverts is how many base-ledger reverts a transaction survives
	// before the sender finalizes it Reverted. Defaults to 20.
	MaxReverts int
	// MaxAssembling is how many assemblies a coordinator has in flight at
	// once, each offered its own states (seed 003 assembles one at a time;
	// one round trip per assembly would cap a contract at 1/RTT). Defaults
	// to 32; 1 is the seed's single-threaded queue.
	MaxAssembling int
	// IdleAfter is how long a contract with nothing in flight keeps its
	// in-memory state before the core releases it. Defaults to 3s.
	IdleAfter time.Duration
	// EndorsedMemory is how many endorsed transactions per contract an
	// endorser remembers the outputs of until it holds them, to judge a
	// spend of them before their creator is confirmed (the oldest signed
	// is forgotten first; a spend of a forgotten output waits until the
	// endorser holds it). Defaults to 1024.
	EndorsedMemory int
}

func (c CoreConfig) withDefaults() CoreConfig {
	if c.Scheme == nil {
		c.Scheme = Ed25519Scheme{Key: c.Key}
	}
	if c.RangeSize == 0 {
		c.RangeSize = DefaultRangeSize
	}
	if c.HeartbeatInterval == 0 {
		c.HeartbeatInterval = DefaultHeartbeatInterval
	}
	if c.HeartbeatMisses == 0 {
		c.HeartbeatMisses = DefaultHeartbeatMisses
	}
	if c.RetryInterval == 0 {
		c.RetryInterval = DefaultRetryInterval
	}
	if c.DelegationTimeout == 0 {
		c.DelegationTimeout = DefaultDelegationTimeout
	}
	if c.AssembleTimeout == 0 {
		c.AssembleTimeout = DefaultAssembleTimeout
	}
	if c.SubmitterMisses == 0 {
		c.SubmitterMisses = DefaultSubmitterMisses
	}
	if c.DispatchRanges == 0 {
		c.DispatchRanges = DefaultDispatchRanges
	}
	if c.ParkRetry == 0 {
		c.ParkRetry = DefaultParkRetry
	}
	if c.ParkTimeout == 0 {
		c.ParkTimeout = DefaultParkTimeout
	}
	if c.MaxReverts == 0 {
		c.MaxReverts = DefaultMaxReverts
	}
	if c.MaxAssembling == 0 {
		c.MaxAssembling = DefaultMaxAssembling
	}
	if c.IdleAfter == 0 {
		c.IdleAfter = DefaultIdleAfter
	}
	if c.EndorsedMemory <= 0 {
		c.EndorsedMemory = DefaultEndorsedMemory
	}
	return c
}

// Errors callers branch on.
var (
	// ErrConfig: a CoreConfig the core cannot run with.
	ErrConfig = errors.New("distseq: invalid configuration")
	// ErrNoSuchGroup: an intent for a contract this node knows no
	// committee of, or is not a member of.
	ErrNoSuchGroup = errors.New("distseq: no such privacy group")
	// ErrBadIntent: the domain refused the intent at intake.
	ErrBadIntent = errors.New("distseq: invalid intent")
	// ErrDuplicate: the transaction id is in flight already.
	ErrDuplicate = errors.New("distseq: transaction id in use")
	// ErrKeyConflict: an idempotency key in flight for an intent of other
	// content (another contract, intent, or prepare instead of send or
	// the reverse).
	ErrKeyConflict = errors.New("distseq: idempotency key in use for another intent")
	// ErrNotStarted: an input before InputStart.
	ErrNotStarted = errors.New("distseq: core not started")
)

// Core is one node's distributed sequencer: the sender, coordinator,
// endorser and submitter roles of seed 003 for every privacy group the node
// belongs to, as one sans-I/O state machine. It does no I/O, reads no clock
// and draws no random number: time comes in InputTick, ids from a counter
// and the incarnation InputStart names.
type Core struct {
	cfg         CoreConfig
	started     bool
	now         time.Time
	height      uint64
	incarnation string
	seq         uint64

	groups  map[string]*group    // every known committee record
	rings   map[string]*Ring     // one ring per distinct committee
	active  map[string]*contract // contracts with in-memory state
	txs     map[string]*senderTx // this node's in-flight intents
	keys    map[string]string    // idempotency key -> txID, in flight
	assured map[string]*pending  // assured messages awaiting an answer

	local []inbound // messages to self, handled in the same Step
	ready Ready
}

// group is a committee record: all an idle contract costs.
type group struct {
	members   []NodeID
	keys      map[NodeID]string // each member's key, as Scheme.Verify takes it
	threshold int
	ringKey   string
}

// New returns a core; Step(InputStart) must come first.
func New(cfg CoreConfig) (*Core, error) {
	cfg = cfg.withDefaults()
	if cfg.Self == "" || len(cfg.Key) != ed25519.PrivateKeySize || cfg.Domain == nil {
		return nil, fmt.Errorf("%w: Self, a 64-byte ed25519 Key and a Domain are required", ErrConfig)
	}
	return &Core{
		cfg:     cfg,
		groups:  map[string]*group{},
		rings:   map[string]*Ring{},
		active:  map[string]*contract{},
		txs:     map[string]*senderTx{},
		keys:    map[string]string{},
		assured: map[string]*pending{},
	}, nil
}

// Config returns the configuration with its defaults filled in.
func (c *Core) Config() CoreConfig { return c.cfg }

// Height returns the block height this node's indexer has reached.
func (c *Core) Height() uint64 { return c.height }

// Now returns the core's clock.
func (c *Core) Now() time.Time { return c.now }

// nextID returns an id unique to this node and incarnation.
func (c *Core) nextID(kind string) string {
	c.seq++
	return fmt.Sprintf("%s/%s/%s%d", c.cfg.Self, c.incarnation, kind, c.seq)
}

func (c *Core) rangeIndex(h uint64) uint64 { return h / c.cfg.RangeSize }

// envelope wraps a body for the wire.
func (c *Core) envelope(contract, correlation string) *distseqpb.Envelope {
	return &distseqpb.Envelope{
		ProtocolVersion: ProtocolVersion,
		MessageId:       c.nextID("m"),
		CorrelationId:   correlation,
		ContractAddress: contract,
	}
}

// send queues env to a peer (or to self, handled in this Step).
func (c *Core) send(to NodeID, env *distseqpb.Envelope, assured bool) {
	if to == c.cfg.Self {
		c.local = append(c.local, inbound{from: to, env: env})
		return
	}
	c.ready.Sends = append(c.ready.Sends, Send{To: to, Kind: kindOf(env), Assured: assured, Env: env})
}

// transition records a state change for tests, traces and metrics.
func (c *Core) transition(role Role, txID string, from, to State) {
	c.ready.Transitions = append(c.ready.Transitions, Transition{Role: role, TxID: txID, From: from, To: to})
}

// groupOf returns the committee of contract, or nil.
func (c *Core) groupOf(contract string) *group { return c.groups[contract] }

func (c *Core) member(g *group) bool {
	_, ok := g.keys[c.cfg.Self]
	return ok
}

// addGroup records a committee; a known contract keeps its first record
// (a committee is fixed at deploy).
func (c *Core) addGroup(g store.DistseqGroup) error {
	if _, ok := c.groups[g.Contract]; ok {
		return nil
	}
	rec := &group{keys: map[NodeID]string{}, threshold: g.Threshold}
	for _, m := range g.Members {
		if err := c.cfg.Scheme.CheckKey(m.PublicKey); err != nil {
			return fmt.Errorf("group %s member %s: %w", g.Contract, m.ID, err)
		}
		rec.members = append(rec.members, NodeID(m.ID))
		rec.keys[NodeID(m.ID)] = m.PublicKey
	}
	if rec.threshold <= 0 || rec.threshold > len(rec.members) {
		rec.threshold = len(rec.members)
	}
	rec.ringKey = ringKey(rec.members)
	if _, ok := c.rings[rec.ringKey]; !ok {
		r, err := NewRing(rec.members)
		if err != nil {
			return fmt.Errorf("group %s: %w", g.Contract, err)
		}
		c.rings[rec.ringKey] = r
	}
	c.groups[g.Contract] = rec
	return nil
}

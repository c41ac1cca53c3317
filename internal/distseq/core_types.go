package distseq

import (
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ordolabs/ordo/internal/distseq/distseqpb"
	"github.com/ordolabs/ordo/internal/store"
)

// Role is one of a node's roles for a contract (seed 003: sender,
// coordinator, endorser, submitter).
type Role uint8

// The roles.
const (
	RoleSender Role = iota + 1
	RoleCoordinator
	RoleEndorser
	RoleSubmitter
)

func (r Role) String() string {
	switch r {
	case RoleSender:
		return "sender"
	case RoleCoordinator:
		return "coordinator"
	case RoleEndorser:
		return "endorser"
	case RoleSubmitter:
		return "submitter"
	}
	return fmt.Sprintf("role(%d)", r)
}

// State is a transaction's state as one role sees it. The sender's states
// are seed 003's "Senders transaction state" (with Parked for its "Park"
// arrow); the coordinator's its "Coordinators transaction state" (the
// lifecycle of one delegation), plus Abandoned for its exits.
type State string

// The sender's states.
const (
	Pending    State = "Pending"
	Delegating State = "Delegating"
	Delegated  State = "Delegated"
	Assembling State = "Assembling"
	Prepared   State = "Prepared"
	Dispatched State = "Dispatched"
	Confirmed  State = "Confirmed"
	Reverted   State = "Reverted"
	Parked     State = "Parked"
)

// The coordinator's states of a delegation.
const (
	CQueued       State = "Queued"
	CAssembling   State = "Assembling"
	CAttestation  State = "Attestation"
	CConfirmation State = "Confirmation"
	CDispatched   State = "Dispatched"
	CAbandoned    State = "Abandoned"
)

// Final reports whether a sender state never changes again.
func (s State) Final() bool { return s == Confirmed || s == Reverted }

// StateRef is a domain state: an id unique in its group, an owner and
// data (JSON).
type StateRef struct {
	ID        string `json:"id"`
	Owner     string `json:"owner,omitempty"`
	Data      []byte `json:"data"`
	CreatedBy string `json:"createdBy,omitempty"`
}

// Assembly is an assembled transaction: the states it spends and creates.
type Assembly struct {
	Spends  []string   `json:"spends"`
	Creates []StateRef `json:"creates"`
}

// Endorsement is a member's signature over an assembly's digest.
type Endorsement struct {
	Member    NodeID
	Signature []byte
}

// ErrNotReady is what a Domain's Assemble returns when the intent cannot
// be assembled yet (no funds): the sender parks the transaction.
var ErrNotReady = errors.New("distseq: not ready to assemble")

// Domain is the domain code seed 003 invokes: pure functions, no I/O.
type Domain interface {
	// CheckIntent refuses an intent that can never be assembled.
	CheckIntent(intent []byte) error
	// Covers reports whether the states offered are enough for the
	// intent (the coordinator offers candidates in order until they are).
	Covers(intent []byte, offered []StateRef) bool
	// Assemble picks states from avail (in the coordinator's order) for
	// the intent of txID, sent by sender. It returns ErrNotReady (wrapped)
	// to park, any other error to revert.
	Assemble(contract, txID string, sender NodeID, intent []byte, avail []StateRef) (Assembly, error)
	// Digest is what the sender and the endorsers sign.
	Digest(contract, txID string, a Assembly) [32]byte
	// Confirm encodes the base-ledger call that confirms the assembly
	// with its endorsements.
	Confirm(contract, txID string, a Assembly, ends []Endorsement) ([]byte, error)
	// Usable reports whether the intent may spend s (the coordinator
	// offers an assembly only states it may spend: its owner's).
	Usable(intent []byte, s StateRef) bool
	// CheckEndorsement is every endorser's check before it signs: the
	// assembly sent by sender spends inputs (the states of a.Spends, in
	// order) it may spend. An error refuses the endorsement.
	CheckEndorsement(contract string, sender NodeID, inputs []StateRef, a Assembly) error
}

// StateCreators is a Domain whose state ids name the transaction that
// creates them (the token domain's "<txId>.<n>.<hash>"): a sender then
// knows the creator of every state a grant spends, even of an assembly it
// made before a restart (core_park.go).
type StateCreators interface {
	// Creator returns the transaction that creates state id, if the id
	// names one.
	Creator(id string) (txID string, ok bool)
}

// Input is one input to Step.
type Input interface{ isInput() }

// InputStart starts (or restarts) the core from its durable state.
type InputStart struct {
	Now time.Time
	// Incarnation is unique per process start (ids carry it).
	Incarnation string
	Height      uint64
	Groups      []store.DistseqGroup
	Intents     []store.DistseqIntent // pending ones
	Dispatches  []store.DistseqDispatch
	Outbox      []store.DistseqDistribution
}

// InputTick advances the clock and fires what is due.
type InputTick struct{ Now time.Time }

// InputHeight says this node's indexer reached Height.
type InputHeight struct{ Height uint64 }

// InputEvents carries the base-ledger events of blocks up to Height, in order,
// after which the node's cursor is Cursor.
type InputEvents struct {
	Height uint64
	Cursor uint64
	Events []ChainEvent
}

// ChainEventKind names a privacy-group event.
type ChainEventKind uint8

// The events the core reads.
const (
	EventGroupDeployed ChainEventKind = iota + 1
	EventStatesMinted
	EventIntentConfirmed
)

// ChainEvent is one privacy-group event.
type ChainEvent struct {
	Kind     ChainEventKind
	Contract string
	Height   uint64
	Group    store.DistseqGroup // EventGroupDeployed
	States   []StateRef         // EventStatesMinted
	TxID     string             // EventIntentConfirmed
	Spends   []string           // EventIntentConfirmed
	Creates  []string           // EventIntentConfirmed
	// Digest is the confirmed assembly's Domain.Digest, hex
	// (EventIntentConfirmed): a submitter distributes the created states
	// only when its assembly is the one confirmed.
	Digest string
}

// InputSubmit is a user's intent (ptx_sendTransaction): Ref correlates
// the Reply.
type InputSubmit struct {
	Ref      uint64
	TxID     string
	Contract string
	Key      string
	Intent   []byte
	// Prepare asks for the prepared transaction instead of a dispatch
	// (ptx_prepareTransaction: the caller submits it).
	Prepare bool
}

// PreparedTx is a prepared transaction as the sender keeps it
// (store.DistseqIntent.Prepared, JSON): the domain's call for the caller
// to submit, and its assembly.
type PreparedTx struct {
	Call     []byte   `json:"call"`
	Assembly Assembly `json:"assembly"`
	// Earlier are the assemblies of earlier grants (the latest
	// MaxEarlierPrepared, oldest first): the caller may have sent one of
	// those, and the sender distributes whichever the chain confirms.
	Earlier []Assembly `json:"earlier,omitempty"`
}

// MaxEarlierPrepared bounds PreparedTx.Earlier.
const MaxEarlierPrepared = 8

// InputMessage is a message from a peer, From authenticated by the
// transport.
type InputMessage struct {
	From NodeID
	Body []byte
}

// InputLoaded answers EffectLoad: the unspent states this node holds for
// Contract.
type InputLoaded struct {
	Contract string
	States   []store.DistseqState
}

// InputDispatched answers EffectDispatch once the base ledger decided:
// OK (included and succeeded), or Reason (reverted, or given up).
type InputDispatched struct {
	TxID   string
	OK     bool
	Reason string
	Hash   string
	// Height is the block that decided it (0 when it never landed).
	Height uint64
}

func (InputStart) isInput()   {}
func (InputTick) isInput()    {}
func (InputHeight) isInput()  {}
func (InputEvents) isInput()  {}
func (InputSubmit) isInput()  {}
func (InputMessage) isInput() {}

// InputSpendsRead answers EffectReadSpends: those of the states asked for
// that the store has, with their spent flags; the states the creators
// asked for created; and those creators this node sent and reverted for
// good (a Reverted intent is never confirmed: its states never exist).
type InputSpendsRead struct {
	Contract string
	TxID     string
	States   []store.DistseqState
	Created  []store.DistseqState
	Reverted []string
}

func (InputLoaded) isInput()     {}
func (InputSpendsRead) isInput() {}
func (InputDispatched) isInput() {}

// Send is a message for the driver to hand to the transport after the
// batch commits.
type Send struct {
	To      NodeID
	Kind    string
	Assured bool
	Env     *distseqpb.Envelope
}

// EffectKind names an effect.
type EffectKind uint8

// The effects.
const (
	// EffectLoad: read the unspent states of Contract (when it wakes, and
	// again after a distribution of its states arrived); answer
	// InputLoaded.
	EffectLoad EffectKind = iota + 1
	// EffectDispatch: submit Payload (the domain's confirm call) for TxID
	// to the base ledger through the node's sequencer, idempotently by
	// TxID; answer InputDispatched when it is decided.
	EffectDispatch
	// EffectReadSpends: read the states of Contract named by States
	// (store.DistseqStatesByID) and those created by Creators
	// (store.DistseqStatesCreatedBy) for the parked intent TxID; answer
	// InputSpendsRead.
	EffectReadSpends
)

// Effect is I/O the core asks for, performed after the batch commits.
type Effect struct {
	Kind     EffectKind
	Contract string
	TxID     string
	Payload  []byte
	States   []string // EffectReadSpends
	Creators []string // EffectReadSpends
}

// Reply answers an InputSubmit, after the batch commits.
type Reply struct {
	Ref  uint64
	TxID string
	Err  error
}

// Transition is one state change, for traces, tests and metrics.
type Transition struct {
	Role     Role
	TxID     string
	From, To State
}

// Ready is what one Step asks of its driver, in order: commit Batch, then
// send Sends, perform Effects, deliver Replies.
type Ready struct {
	Batch       store.DistseqBatch
	Sends       []Send
	Effects     []Effect
	Replies     []Reply
	Transitions []Transition
}

// Empty reports whether r asks nothing.
func (r *Ready) Empty() bool {
	b := r.Batch
	return len(b.Groups)+len(b.Intents)+len(b.Dispatches)+len(b.Outbox)+len(b.States)+len(b.Received) == 0 &&
		b.Cursor == nil && len(r.Sends)+len(r.Effects)+len(r.Replies) == 0
}

type inbound struct {
	from NodeID
	env  *distseqpb.Envelope
}

func ringKey(members []NodeID) string {
	s := make([]string, len(members))
	for i, m := range members {
		s[i] = string(m)
	}
	slices.Sort(s)
	return strings.Join(s, "\x00")
}

func decodeKey(h string) ([]byte, error) {
	b, err := hex.DecodeString(h)
	if err != nil || len(b) != 32 {
		return nil, fmt.Errorf("%w: a public key is 64 hex characters", ErrConfig)
	}
	return b, nil
}

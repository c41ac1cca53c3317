package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// This file holds the distributed sequencer's durable records (seed 003).
// The document persists only three things, and ordo adds two:
//   - the sender's intent, committed before the user is answered (between
//     1S and 2S), found again by its idempotency key;
//   - the coordinator's dispatch, committed before it dispatches (between
//     1C and 2C);
//   - assured delivery data distribution, on both sides: the sender's
//     outgoing distributions and their acknowledgement, and the receiver's
//     record of what it has received (with the states themselves);
//   - each privacy group's committee record (ordo);
//   - the states this node holds and its chain cursor (ordo).
//
// Everything else (delegations, assembled graphs, heartbeats) lives in
// memory and is rebuilt by the protocol after a crash, as the document
// says. Like the others, these are plain data that the engine's core builds
// and a DistseqStore commits.

// Intent statuses.
const (
	// DistseqPending: accepted, not yet final. A transaction may come back
	// to pending (the document does that); the store does not judge.
	DistseqPending = "pending"
	// DistseqConfirmed: confirmed on chain; final.
	DistseqConfirmed = "confirmed"
	// DistseqReverted: reverted for good; final. Reason says why.
	DistseqReverted = "reverted"
	// DistseqDispatched: a dispatch handed to the base ledger and not yet
	// final (dispatch status only).
	DistseqDispatched = "dispatched"
)

// DistseqIntent is a sender's transaction intent: committed before the
// user is answered, so a crash after the answer never loses it.
type DistseqIntent struct {
	// TxID is the transaction id: the key.
	TxID string `json:"txId"`
	// Contract is the privacy group's contract address.
	Contract string `json:"contract"`
	// IdempotencyKey is the user's key (empty: none); a non-empty key
	// belongs to one TxID forever.
	IdempotencyKey string `json:"idempotencyKey,omitempty"`
	// Payload is the intent as the domain encodes it.
	Payload []byte `json:"payload"`
	// Status is DistseqPending, DistseqConfirmed or DistseqReverted.
	Status string `json:"status"`
	// Reason says why a reverted intent reverted.
	Reason string `json:"reason,omitempty"`
	// Attempts counts the delegations so far.
	Attempts int `json:"attempts"`
	// Prepare marks an intent the caller submits itself
	// (ptx_prepareTransaction): its coordinator hands the prepared
	// transaction back instead of dispatching it.
	Prepare bool `json:"prepare,omitempty"`
	// Prepared is the prepared transaction (the domain's call, assembled
	// and endorsed) of a Prepare intent, once a coordinator asked leave
	// to dispatch it; the latest such request wins.
	Prepared []byte `json:"prepared,omitempty"`
	// Granted lists the assemblies this sender granted a dispatch of that
	// may still land (empty: none); a parked intent reverts only once none
	// is left (docs/distseq.md).
	Granted   []DistseqGrant `json:"granted,omitempty"`
	CreatedAt time.Time      `json:"createdAt"`
	UpdatedAt time.Time      `json:"updatedAt"`
}

// DistseqGrant is one assembly a sender granted a dispatch of: the states
// it spends, sorted, and for those the sender knew the creator of, that
// transaction (a state not yet confirmed when it was assembled is created
// only by its creator's confirmation; once that confirmation is indexed
// without it, the assembly can never land).
type DistseqGrant struct {
	Spends   []string          `json:"spends"`
	Creators map[string]string `json:"creators,omitempty"`
}

// DistseqDispatch is a coordinator's dispatch of one transaction:
// committed before it is dispatched (between 1C and 2C); the submitter
// owns it from then on.
type DistseqDispatch struct {
	// TxID is the transaction id: the key.
	TxID     string `json:"txId"`
	Contract string `json:"contract"`
	// Sender is the node that delegated the transaction.
	Sender string `json:"sender"`
	// DelegationID is the delegation the dispatch belongs to.
	DelegationID string `json:"delegationId"`
	// Payload is the prepared transaction, as the domain encodes it.
	Payload []byte `json:"payload"`
	// Height is the block height the coordinator dispatched at.
	Height uint64 `json:"height"`
	// Status is DistseqDispatched, DistseqConfirmed or DistseqReverted.
	Status    string    `json:"status"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// DistseqDistribution is an outgoing assured-delivery distribution (sender
// side): data a confirmed transaction creates, for one member, resent
// until acknowledged.
type DistseqDistribution struct {
	// ID is the distribution's id: the key, and the receiver's dedup key.
	ID       string `json:"id"`
	Contract string `json:"contract"`
	// To is the receiving node's identity.
	To      string `json:"to"`
	Payload []byte `json:"payload"`
	// Acked is set once the receiver acknowledged it.
	Acked     bool      `json:"acked"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// DistseqState is a state this node holds: keyed by (Contract, ID); its
// Data never changes once written, only whether it is spent.
type DistseqState struct {
	Contract string `json:"contract"`
	ID       string `json:"id"`
	Data     []byte `json:"data"`
	// CreatedBy is the transaction that created the state.
	CreatedBy string `json:"createdBy"`
	Spent     bool   `json:"spent"`
	// SpentBy is the transaction that spent it.
	SpentBy string `json:"spentBy,omitempty"`
	// Height is the block height the state was confirmed at.
	Height uint64 `json:"height"`
}

// DistseqMember is one committee member: a node identity and its ed25519
// public key (encoded as the engine chooses).
type DistseqMember struct {
	ID        string `json:"id"`
	PublicKey string `json:"publicKey"`
}

// DistseqGroup is a privacy group's committee record, fixed at deploy.
type DistseqGroup struct {
	// Contract is the group's contract address: the key.
	Contract string `json:"contract"`
	// Members in committee order (the order is kept).
	Members []DistseqMember `json:"members"`
	// Threshold is the endorsements a transaction needs.
	Threshold int `json:"threshold"`
	// Height is the block height the group was deployed at.
	Height uint64 `json:"height"`
}

// DistseqBatch is a set of distributed-sequencer writes applied in one
// store transaction: all of it or none of it. Where a batch names a record
// twice the later one wins.
type DistseqBatch struct {
	// Groups are inserted or replaced by Contract.
	Groups []DistseqGroup
	// Intents are inserted or updated by TxID. An intent whose non-empty
	// IdempotencyKey another TxID holds fails the batch with
	// ErrDuplicateKey (wrapped).
	Intents []DistseqIntent
	// Dispatches are inserted or updated by TxID.
	Dispatches []DistseqDispatch
	// Outbox distributions are inserted or updated by ID.
	Outbox []DistseqDistribution
	// States are inserted by (Contract, ID), or, when present, merged:
	// a row without Data takes the record's Data, CreatedBy and Height (a
	// spend seen on chain before the state's data was distributed leaves
	// such a row); a spent record marks the row spent (SpentBy kept from
	// the first spend). Data never changes once written, and a spent
	// state is never unspent: the engine acts on final blocks only.
	States []DistseqState
	// Received are the ids of distributions received (receiver-side
	// dedup): inserted, or ignored when present.
	Received []string
	// Cursor, when non-nil, is the node's chain cursor for the
	// distributed sequencer.
	Cursor *uint64
	// Fence, when set, names the engine's lease (see LeaseStore and
	// Batch.Fence): a store that keeps leases refuses the whole write with
	// ErrFenced once the writer no longer holds it. Nil on a node that
	// holds its database alone.
	Fence *Fence
}

// Empty reports whether the batch writes nothing.
func (b *DistseqBatch) Empty() bool {
	return len(b.Groups) == 0 && len(b.Intents) == 0 && len(b.Dispatches) == 0 &&
		len(b.Outbox) == 0 && len(b.States) == 0 && len(b.Received) == 0 && b.Cursor == nil
}

// DistseqIntentFilter selects intents: a Status (empty: any), a Contract
// (empty: any), at most Limit (0: 100), in CreatedAt then TxID order.
type DistseqIntentFilter struct {
	Status   string
	Contract string
	Limit    int
}

// ErrDuplicateKey is returned (wrapped) by ApplyDistseq for an intent whose
// idempotency key another transaction id holds.
var ErrDuplicateKey = errors.New("idempotency key taken by another transaction")

// DistseqStore is the distributed sequencer's durable state (seed 003).
// *sqlite.Store and *memstore.Distseq implement it, and both run
// storetest.RunDistseq. Returned values are copies: changing them changes
// nothing in the store, nor does changing a batch after it was applied.
type DistseqStore interface {
	// ApplyDistseq commits b in one transaction: all of it or none.
	ApplyDistseq(ctx context.Context, b DistseqBatch) error
	// DistseqGroup returns a group by contract, or ErrNotFound.
	DistseqGroup(ctx context.Context, contract string) (DistseqGroup, error)
	// DistseqGroups lists every group in Contract order.
	DistseqGroups(ctx context.Context) ([]DistseqGroup, error)
	// DistseqIntent returns an intent by transaction id, or ErrNotFound.
	DistseqIntent(ctx context.Context, txID string) (DistseqIntent, error)
	// DistseqIntentByKey returns the intent holding an idempotency key, or
	// ErrNotFound (always for the empty key).
	DistseqIntentByKey(ctx context.Context, key string) (DistseqIntent, error)
	// DistseqIntents lists intents (see DistseqIntentFilter).
	DistseqIntents(ctx context.Context, f DistseqIntentFilter) ([]DistseqIntent, error)
	// DistseqOpenDispatches lists dispatches in status DistseqDispatched,
	// in CreatedAt then TxID order.
	DistseqOpenDispatches(ctx context.Context) ([]DistseqDispatch, error)
	// DistseqPendingOutbox lists the distributions not yet acknowledged,
	// in CreatedAt then ID order.
	DistseqPendingOutbox(ctx context.Context) ([]DistseqDistribution, error)
	// DistseqStates lists a contract's states (only the unspent ones when
	// unspentOnly), in Height then ID order.
	DistseqStates(ctx context.Context, contract string, unspentOnly bool) ([]DistseqState, error)
	// DistseqStatesByID lists those of a contract's states named by ids
	// that the store has (spent or not), in ID order.
	DistseqStatesByID(ctx context.Context, contract string, ids []string) ([]DistseqState, error)
	// DistseqStatesCreatedBy lists a contract's states created by the
	// transactions txIDs (spent or not), in ID order.
	DistseqStatesCreatedBy(ctx context.Context, contract string, txIDs []string) ([]DistseqState, error)
	// DistseqReceived reports whether a distribution id was received.
	DistseqReceived(ctx context.Context, id string) (bool, error)
	// DistseqCursor returns the chain cursor, and false when none was
	// written.
	DistseqCursor(ctx context.Context) (uint64, bool, error)
}

// Validate reports the first record of b that is invalid on its face, which
// every DistseqStore refuses (writing nothing of the batch): an empty key
// (a group's Contract, an intent's or dispatch's TxID, a distribution's
// ID, a state's Contract or ID, a received id), an intent status other than
// pending, confirmed or reverted, a dispatch status other than dispatched,
// confirmed or reverted, a negative Threshold or Attempts.
func (b *DistseqBatch) Validate() error {
	for i, g := range b.Groups {
		if g.Contract == "" {
			return fmt.Errorf("group %d: empty contract", i)
		}
		if g.Threshold < 0 {
			return fmt.Errorf("group %s: negative threshold %d", g.Contract, g.Threshold)
		}
	}
	for i, in := range b.Intents {
		if in.TxID == "" {
			return fmt.Errorf("intent %d: empty tx id", i)
		}
		switch in.Status {
		case DistseqPending, DistseqConfirmed, DistseqReverted:
		default:
			return fmt.Errorf("intent %s: invalid status %q", in.TxID, in.Status)
		}
		if in.Attempts < 0 {
			return fmt.Errorf("intent %s: negative attempts %d", in.TxID, in.Attempts)
		}
	}
	for i, d := range b.Dispatches {
		if d.TxID == "" {
			return fmt.Errorf("dispatch %d: empty tx id", i)
		}
		switch d.Status {
		case DistseqDispatched, DistseqConfirmed, DistseqReverted:
		default:
			return fmt.Errorf("dispatch %s: invalid status %q", d.TxID, d.Status)
		}
	}
	for i, o := range b.Outbox {
		if o.ID == "" {
			return fmt.Errorf("distribution %d: empty id", i)
		}
	}
	for i, st := range b.States {
		if st.Contract == "" || st.ID == "" {
			return fmt.Errorf("state %d: empty contract or id (%q, %q)", i, st.Contract, st.ID)
		}
	}
	for i, id := range b.Received {
		if id == "" {
			return fmt.Errorf("received %d: empty id", i)
		}
	}
	return nil
}

// EncodeGranted is DistseqIntent.Granted as the stores keep it: JSON, or
// nil for none.
func EncodeGranted(g []DistseqGrant) []byte {
	if len(g) == 0 {
		return nil
	}
	b, _ := json.Marshal(g) // strings and maps of strings always encode
	return b
}

// DecodeGranted reads what EncodeGranted wrote (nil or empty: none), and
// the form before creators were kept: a list of spend lists.
func DecodeGranted(b []byte) ([]DistseqGrant, error) {
	if len(b) == 0 {
		return nil, nil
	}
	var g []DistseqGrant
	err := json.Unmarshal(b, &g)
	if err == nil {
		return g, nil
	}
	var old [][]string
	if json.Unmarshal(b, &old) != nil {
		return nil, fmt.Errorf("distseq intent: granted: %w", err)
	}
	g = nil
	for _, spends := range old {
		g = append(g, DistseqGrant{Spends: spends})
	}
	return g, nil
}

package devchain

import (
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/ordolabs/ordo/internal/chain"
)

// PrivacyGroup is the `privacygroup` contract (seed 003, "Composition of
// committee"): the base ledger of a distributed-sequencer domain. A group is
// a committee of members (node identities with ed25519 keys) fixed at deploy,
// UTXO-style states each spent at most once, and intents (transaction ids)
// each confirmed at most once, only with the endorsements its policy asks.
//
// Transactions (args are JSON objects whose keys must be exactly these;
// unknown fields fail):
//   - deploy {group, members: [{id, publicKey}], threshold?}: anyone; group
//     a name of 1-MaxPrivacyGroupName characters of [a-z0-9_.-] never
//     deployed before (ReasonGroupExists); 1-MaxPrivacyMembers members with
//     distinct ids (1-MaxPrivacyID bytes) and distinct keys (64 lowercase
//     hex characters: an ed25519 public key); threshold 1..len(members),
//     all members when absent. The caller becomes the group's deployer.
//     Emits GroupDeployed {group, deployer, members, threshold}.
//   - mint {group, states: [{id, owner?, data}]}: by the group's deployer
//     only (ReasonNotDeployer), 1-MaxPrivacyIO states whose ids were never
//     used in the group (ReasonStateExists); creates them unspent. Emits
//     StatesMinted {group, states: [id], minted: [{id, owner?, data}]} (a
//     mint is public: its data is on the event, where a confirm's is not).
//   - confirm {group, txId, spends: [id], creates: [{id, owner?, data}],
//     endorsements: [{member, signature}]}: anyone; checked in this order
//     after the args: the group exists (ReasonNoSuchGroup), txId was never
//     confirmed in it (ReasonIntentConfirmed), the endorsements are valid
//     ed25519 signatures over PrivacyDigest by distinct members, at least
//     the group's threshold of them (ReasonEndorsements, for any endorsement
//     that is not, too), each spent state exists (ReasonNoSuchState) and is
//     unspent (ReasonStateSpent: a state listed twice is spent by its first
//     listing), each created id was never used in the group
//     (ReasonStateExists). All or none: spends the states, creates the new
//     ones, records the intent, and emits IntentConfirmed {group, txId,
//     spends, creates: [id], digest} (digest: the PrivacyDigest the
//     endorsements signed, hex).
//
// Each transaction sees the writes of those before it in its block, so a
// confirm may spend states created earlier in the same block (speculative
// chaining: many transactions per block).
//
// Reads (Call); a group, state or intent that does not exist is an error
// wrapping chain.ErrNotFound:
//   - group {group} → a PrivacyGroupInfo;
//   - state {group, id} → a PrivacyStateRecord;
//   - intent {group, txId} → a PrivacyIntent.
//
// A reorg that removes a confirm's block undoes its writes with the block's
// others: its spent states are unspent again, its created states and its
// intent are gone, and the transaction goes back to the mempool.
//
// State: group/<group> (a PrivacyGroupInfo), state/<group>/<id> (a
// PrivacyStateRecord), intent/<group>/<txId> (a PrivacyIntent). A group name
// holds no '/', so the keys never collide.
type PrivacyGroup struct{}

// PrivacyGroupContract is the privacygroup contract's name.
const PrivacyGroupContract = "privacygroup"

// PrivacyGroup method names.
const (
	PrivacyDeploy  = "deploy"
	PrivacyMint    = "mint"
	PrivacyConfirm = "confirm"
)

// PrivacyGroup limits and failure reasons.
const (
	// MaxPrivacyGroupName is the longest group name.
	MaxPrivacyGroupName = 64
	// MaxPrivacyMembers is the most members a group has.
	MaxPrivacyMembers = 64
	// MaxPrivacyID is the longest member id, state id or txId, in bytes.
	MaxPrivacyID = 128
	// MaxPrivacyIO is the most states one mint creates, and the most one
	// confirm spends and the most it creates.
	MaxPrivacyIO = 64
	// MaxPrivacyData is the largest data of one state, in bytes of compact
	// JSON.
	MaxPrivacyData = 4 << 10

	// ReasonGroupExists fails a deploy of a group name already deployed.
	ReasonGroupExists = "group_exists"
	// ReasonNoSuchGroup fails a mint or confirm of a group never deployed.
	ReasonNoSuchGroup = "no_such_group"
	// ReasonNotDeployer fails a mint by anyone but the group's deployer.
	ReasonNotDeployer = "not_deployer"
	// ReasonStateExists fails a mint or confirm creating a state id already
	// used in the group (spent or not).
	ReasonStateExists = "state_exists"
	// ReasonNoSuchState fails a confirm spending a state that does not exist.
	ReasonNoSuchState = "no_such_state"
	// ReasonStateSpent fails a confirm spending a state already spent.
	ReasonStateSpent = "state_spent"
	// ReasonIntentConfirmed fails a confirm of a txId already confirmed.
	ReasonIntentConfirmed = "intent_confirmed"
	// ReasonEndorsements fails a confirm whose endorsements are not valid
	// signatures by distinct members, or fewer than the threshold.
	ReasonEndorsements = "endorsements"
)

// PrivacyMember is a committee member: a node identity and its ed25519
// public key, as 64 lowercase hex characters.
type PrivacyMember struct {
	ID        string `json:"id"`
	PublicKey string `json:"publicKey"`
}

// PrivacyGroupInfo is a deployed group: the answer of the group read and the
// data of the GroupDeployed event.
type PrivacyGroupInfo struct {
	Group     string          `json:"group"`
	Deployer  chain.Address   `json:"deployer"`
	Members   []PrivacyMember `json:"members"`
	Threshold int             `json:"threshold"`
}

// PrivacyState is a state to create: an id new in its group, an optional
// owner (any string of at most MaxPrivacyID bytes, not interpreted), and
// data (any JSON of at most MaxPrivacyData bytes, kept compact).
type PrivacyState struct {
	ID    string          `json:"id"`
	Owner string          `json:"owner,omitempty"`
	Data  json.RawMessage `json:"data"`
}

// PrivacyStateRecord is a state as stored: the answer of the state read.
type PrivacyStateRecord struct {
	PrivacyState
	// CreatedBy is the txId of the confirm that created it; "" for a state
	// minted by the deployer.
	CreatedBy string `json:"createdBy"`
	// Height is the height of the block that created it.
	Height uint64 `json:"height"`
	// Spent says whether a confirm spent it: SpentBy is that confirm's txId,
	// at SpentHeight.
	Spent       bool   `json:"spent"`
	SpentBy     string `json:"spentBy,omitempty"`
	SpentHeight uint64 `json:"spentHeight,omitempty"`
}

// PrivacyEndorsement is a member's ed25519 signature (128 lowercase hex
// characters) over an intent's PrivacyDigest.
type PrivacyEndorsement struct {
	Member    string `json:"member"`
	Signature string `json:"signature"`
}

// PrivacyIntent is a confirmed intent: the answer of the intent read.
type PrivacyIntent struct {
	Group string `json:"group"`
	TxID  string `json:"txId"`
	// Height is the height of the block that confirmed it; TxHash the
	// transaction.
	Height uint64     `json:"height"`
	TxHash chain.Hash `json:"txHash"`
	// Spends and Creates are the ids it spent and created.
	Spends  []string `json:"spends"`
	Creates []string `json:"creates"`
	// Endorsers are the members whose endorsements it carried, in order.
	Endorsers []string `json:"endorsers"`
}

// EventIntentConfirmed names the privacygroup event whose data is an
// IntentConfirmed.
const EventIntentConfirmed = "IntentConfirmed"

// IntentConfirmedOf reads e as a privacygroup IntentConfirmed event: ok
// false for any other event, an error for one whose data does not decode.
func IntentConfirmedOf(e chain.Event) (ic IntentConfirmed, ok bool, err error) {
	if e.Contract != PrivacyGroupContract || e.Name != EventIntentConfirmed {
		return IntentConfirmed{}, false, nil
	}
	if err := json.Unmarshal(e.Data, &ic); err != nil {
		return IntentConfirmed{}, true, fmt.Errorf("devchain: event %d: IntentConfirmed: %w", e.Cursor, err)
	}
	return ic, true, nil
}

// IntentConfirmed is the data of the IntentConfirmed event.
type IntentConfirmed struct {
	Group   string   `json:"group"`
	TxID    string   `json:"txId"`
	Spends  []string `json:"spends"`
	Creates []string `json:"creates"`
	// Digest is the confirmed intent's PrivacyDigest (hex): who holds the
	// created states' data can tell whether it is this intent's (the
	// data itself stays off chain's events).
	Digest string `json:"digest"`
}

// StatesMinted is the data of the StatesMinted event.
type StatesMinted struct {
	Group  string         `json:"group"`
	States []string       `json:"states"`
	Minted []PrivacyState `json:"minted"`
}

// Name returns "privacygroup".
func (PrivacyGroup) Name() string { return PrivacyGroupContract }

func pgGroupKey(g string) string        { return "group/" + g }
func pgStateKey(g, id string) string    { return "state/" + g + "/" + id }
func pgIntentKey(g, txID string) string { return "intent/" + g + "/" + txID }

// Apply executes deploy, mint or confirm.
func (PrivacyGroup) Apply(x *Exec, method string, args json.RawMessage) error {
	switch method {
	case PrivacyDeploy:
		return pgDeploy(x, args)
	case PrivacyMint:
		return pgMint(x, args)
	case PrivacyConfirm:
		return pgConfirm(x, args)
	}
	return Fail("privacygroup: unknown method %q", method)
}

func pgDeploy(x *Exec, args json.RawMessage) error {
	g, err := decodeDeploy(args)
	if err != nil {
		return err
	}
	if _, ok := x.Get(pgGroupKey(g.Group)); ok {
		return Fail(ReasonGroupExists)
	}
	g.Deployer = x.From
	if err := pgPut(x, pgGroupKey(g.Group), g); err != nil {
		return err
	}
	return x.Emit("GroupDeployed", g)
}

func pgMint(x *Exec, args json.RawMessage) error {
	group, states, err := decodeMint(args)
	if err != nil {
		return err
	}
	g, found, err := pgLoadGroup(x, group)
	if err != nil {
		return err
	}
	if !found {
		return Fail(ReasonNoSuchGroup)
	}
	if g.Deployer != x.From {
		return Fail(ReasonNotDeployer)
	}
	ids := make([]string, 0, len(states))
	for _, s := range states {
		if _, ok := x.Get(pgStateKey(group, s.ID)); ok {
			return Fail(ReasonStateExists)
		}
		if err := pgPut(x, pgStateKey(group, s.ID), PrivacyStateRecord{PrivacyState: s, Height: x.Height}); err != nil {
			return err
		}
		ids = append(ids, s.ID)
	}
	return x.Emit("StatesMinted", StatesMinted{Group: group, States: ids, Minted: states})
}

func pgConfirm(x *Exec, args json.RawMessage) error {
	c, err := decodeConfirm(args)
	if err != nil {
		return err
	}
	g, found, err := pgLoadGroup(x, c.Group)
	if err != nil {
		return err
	}
	if !found {
		return Fail(ReasonNoSuchGroup)
	}
	if _, ok := x.Get(pgIntentKey(c.Group, c.TxID)); ok {
		return Fail(ReasonIntentConfirmed)
	}
	endorsers, ok := c.endorsed(g)
	if !ok {
		return Fail(ReasonEndorsements)
	}
	for _, id := range c.Spends {
		s, found, err := pgLoadState(x, c.Group, id)
		if err != nil {
			return err
		}
		if !found {
			return Fail(ReasonNoSuchState)
		}
		if s.Spent {
			return Fail(ReasonStateSpent)
		}
		s.Spent, s.SpentBy, s.SpentHeight = true, c.TxID, x.Height
		if err := pgPut(x, pgStateKey(c.Group, id), s); err != nil {
			return err
		}
	}
	created := make([]string, 0, len(c.Creates))
	for _, s := range c.Creates {
		if _, ok := x.Get(pgStateKey(c.Group, s.ID)); ok {
			return Fail(ReasonStateExists)
		}
		rec := PrivacyStateRecord{PrivacyState: s, CreatedBy: c.TxID, Height: x.Height}
		if err := pgPut(x, pgStateKey(c.Group, s.ID), rec); err != nil {
			return err
		}
		created = append(created, s.ID)
	}
	spends := append([]string{}, c.Spends...)
	in := PrivacyIntent{Group: c.Group, TxID: c.TxID, Height: x.Height, TxHash: x.TxHash, Spends: spends, Creates: created, Endorsers: endorsers}
	if err := pgPut(x, pgIntentKey(c.Group, c.TxID), in); err != nil {
		return err
	}
	d := PrivacyDigest(c.Group, c.TxID, c.Spends, c.Creates)
	return x.Emit(EventIntentConfirmed, IntentConfirmed{Group: c.Group, TxID: c.TxID, Spends: spends, Creates: created, Digest: hex.EncodeToString(d[:])})
}

func pgPut(x *Exec, key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("privacygroup: %s: %w", key, err)
	}
	x.Set(key, b)
	return nil
}

// pgLoad decodes the value at key into v; found is false when it is absent.
func pgLoad(r StateReader, key string, v any) (found bool, err error) {
	raw, ok := r.Get(key)
	if !ok {
		return false, nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return false, fmt.Errorf("privacygroup: corrupt %q: %w", key, err)
	}
	return true, nil
}

func pgLoadGroup(r StateReader, group string) (g PrivacyGroupInfo, found bool, err error) {
	found, err = pgLoad(r, pgGroupKey(group), &g)
	return g, found, err
}

func pgLoadState(r StateReader, group, id string) (s PrivacyStateRecord, found bool, err error) {
	found, err = pgLoad(r, pgStateKey(group, id), &s)
	return s, found, err
}

// Call answers group {group}, state {group, id} and intent {group, txId}.
func (PrivacyGroup) Call(r StateReader, method string, args json.RawMessage) (json.RawMessage, error) {
	var key, what string
	switch method {
	case "group":
		f, err := decodeObject(args, "privacygroup: group args", "group")
		if err != nil {
			return nil, err
		}
		g, err := groupArg(f)
		if err != nil {
			return nil, err
		}
		key, what = pgGroupKey(g), fmt.Sprintf("no group %q", g)
	case "state":
		f, err := decodeObject(args, "privacygroup: state args", "group", "id")
		if err != nil {
			return nil, err
		}
		g, err := groupArg(f)
		if err != nil {
			return nil, err
		}
		id, err := idArg(f["id"], "id")
		if err != nil {
			return nil, err
		}
		key, what = pgStateKey(g, id), fmt.Sprintf("no state %q in group %q", id, g)
	case "intent":
		f, err := decodeObject(args, "privacygroup: intent args", "group", "txId")
		if err != nil {
			return nil, err
		}
		g, err := groupArg(f)
		if err != nil {
			return nil, err
		}
		tx, err := idArg(f["txId"], "txId")
		if err != nil {
			return nil, err
		}
		key, what = pgIntentKey(g, tx), fmt.Sprintf("intent %q not confirmed in group %q", tx, g)
	default:
		return nil, errNoMethod
	}
	raw, ok := r.Get(key)
	if !ok {
		return nil, fmt.Errorf("%w: privacygroup: %s", chain.ErrNotFound, what)
	}
	return raw, nil
}

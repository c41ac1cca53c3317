package devchain

import (
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"unicode"
	"unicode/utf8"

	"github.com/ordolabs/ordo/internal/chain"
)

// ReplicaSets is the `replicasets` contract (issue 12; seed 004's replica
// sets recorded on chain): per sequencer queue, the node that is its
// primary and the nodes that are its secondaries, node ids of the `nodes`
// registry, with a version that every change moves on by one.
//
// Transactions (args are JSON objects whose keys must be exactly these):
//   - update {queue, primary, secondaries, replaces, signer, signature}
//     (ReplicaSetUpdate; SignReplicaSetUpdate builds it): queue 1 to
//     MaxReplicaSetQueue bytes of UTF-8 without control characters; primary
//     and 0 to MaxSecondaries secondaries, distinct registered node ids
//     (ReasonUnknownNode); replaces the version of the set it replaces, 0
//     for a queue with none, which must be the current one
//     (ReasonStaleReplicaSet: two nodes racing a replacement, one wins);
//     signer a registered node, signature its registered key's ed25519
//     signature over ReplicaSetDigest (ReasonBadSignature), and the signer
//     a member of the set it replaces, or the new primary of a queue with
//     none (ReasonNotAMember). Writes the set at version replaces+1; emits
//     ReplicaSetUpdated.
//   - update_many {updates} (ReplicaSetBatch; ReplicaSetBatchArgs builds
//     it): 1 to MaxReplicaSetBatch updates, applied in order, each checked
//     as update checks it, on the state the ones before it left (a second
//     update of a queue names as replaces the version the first wrote).
//     Each update is applied or refused on its own: one event per update,
//     in order, ReplicaSetUpdated or ReplicaSetRefused {queue, replaces,
//     signer, reason} with the reason update gives. Only args that are not
//     such a list fail the transaction; an update that is not valid args
//     of update is refused, not the batch.
//
// Invariants: a queue's version only grows, by one per applied update, so
// an update applies to exactly the set it names and never twice; only a
// member of the current set (by its node key, whichever chain account
// submits it) changes it; every node named was registered when named; a
// batch leaves the state its updates leave when sent one by one as update,
// in its order, in the same block, and refuses exactly those that update
// would fail, with the same reason.
//
// Reads (Call):
//   - set {queue} → a ReplicaSet; a queue with none is an error wrapping
//     chain.ErrNotFound;
//   - sets {after, limit} → {"sets": [ReplicaSet...], "next"}: by queue,
//     the queues after `after` (empty: from the first), at most limit
//     (1 to MaxReplicaSetPage, 0: DefaultReplicaSetPage); next is the last
//     queue answered when more may follow, else "".
//
// State: set/<queue> holds the ReplicaSet, index the sorted queue names.
type ReplicaSets struct{}

// ReplicaSetsContract is the replicasets contract's name.
const ReplicaSetsContract = "replicasets"

// The replicasets contract's methods and events.
const (
	// ReplicaSetsUpdate is the method that applies one update.
	ReplicaSetsUpdate = "update"
	// ReplicaSetsUpdateMany is the method that applies a batch of updates,
	// each on its own (ReplicaSetBatch). Method names are [a-z0-9_-]
	// (chain.ValidName): hence update_many.
	ReplicaSetsUpdateMany = "update_many"
	// EventReplicaSetUpdated is the event of an applied update.
	EventReplicaSetUpdated = "ReplicaSetUpdated"
	// EventReplicaSetRefused is the event of an update of a batch that
	// update_many refused.
	EventReplicaSetRefused = "ReplicaSetRefused"
)

// Replicasets limits and failure reasons.
const (
	// MaxReplicaSetQueue is the longest queue name, in bytes (the
	// sequencer's limit).
	MaxReplicaSetQueue = 128
	// MaxSecondaries is the most secondaries a set names.
	MaxSecondaries = 8
	// DefaultReplicaSetPage and MaxReplicaSetPage bound the sets read.
	DefaultReplicaSetPage = 100
	MaxReplicaSetPage     = 1000
	// MaxReplicaSetBatch (71) is the most updates one update_many takes:
	// the most whose args always fit chain.MaxArgs, each update as long as
	// the contract takes (replicaSetUpdateMaxJSON bytes). 3-member sets of
	// 11-byte queue names would fit 166.
	MaxReplicaSetBatch = (chain.MaxArgs - len(`{"updates":[]}`) + 1) / (replicaSetUpdateMaxJSON + 1)

	// ReasonStaleReplicaSet fails an update whose replaces is not the
	// queue's current version.
	ReasonStaleReplicaSet = "stale_replica_set"
	// ReasonNotAMember fails an update signed by a node that is not in the
	// set it replaces (nor the new primary of a new queue).
	ReasonNotAMember = "not_a_member"
	// ReasonUnknownNode fails an update naming, or signed by, a node the
	// nodes registry does not hold.
	ReasonUnknownNode = "unknown_node"
)

// ReplicaSet is a queue's replica set: the answer of the set read.
type ReplicaSet struct {
	Queue       string   `json:"queue"`
	Primary     string   `json:"primary"`
	Secondaries []string `json:"secondaries"`
	// Version counts the updates so far (the first set is 1).
	Version uint64 `json:"version"`
	// UpdatedBy is the node that signed the update; Height its block.
	UpdatedBy string `json:"updatedBy"`
	Height    uint64 `json:"height"`
}

// Members returns the primary, then the secondaries.
func (s ReplicaSet) Members() []string { return append([]string{s.Primary}, s.Secondaries...) }

// ReplicaSetUpdated is the data of the ReplicaSetUpdated event.
type ReplicaSetUpdated struct {
	Queue       string   `json:"queue"`
	Primary     string   `json:"primary"`
	Secondaries []string `json:"secondaries"`
	Version     uint64   `json:"version"`
	UpdatedBy   string   `json:"updatedBy"`
}

// ReplicaSetUpdate is the args of the replicasets contract's update.
type ReplicaSetUpdate struct {
	Queue       string   `json:"queue"`
	Primary     string   `json:"primary"`
	Secondaries []string `json:"secondaries"`
	// Replaces is the version of the set replaced (0: none yet).
	Replaces uint64 `json:"replaces"`
	// Signer is the node whose key signs; Signature its ed25519 signature
	// over ReplicaSetDigest, 128 lowercase hex.
	Signer    string `json:"signer"`
	Signature string `json:"signature"`
}

const replicaSetDomain = "ordo/replicasets/update/v1"

// ReplicaSetDigest is the digest a node's key signs to update a queue's
// set: SHA-256 over the domain tag "ordo/replicasets/update/v1", the
// queue, the primary, each secondary and the signer (each
// length-prefixed), then replaces (8 bytes, big-endian).
func ReplicaSetDigest(queue, primary string, secondaries []string, replaces uint64, signer string) [32]byte {
	fields := append([]string{queue, primary}, secondaries...)
	return nodeDigest(replicaSetDomain, replaces, append(fields, signer)...)
}

// SignReplicaSetUpdate returns the args of an update signed by key as
// signer. It checks nothing: the contract does.
func SignReplicaSetUpdate(key ed25519.PrivateKey, signer, queue, primary string, secondaries []string, replaces uint64) ReplicaSetUpdate {
	d := ReplicaSetDigest(queue, primary, secondaries, replaces, signer)
	return ReplicaSetUpdate{Queue: queue, Primary: primary, Secondaries: slices.Clone(secondaries), Replaces: replaces,
		Signer: signer, Signature: hex.EncodeToString(ed25519.Sign(key, d[:]))}
}

// Name returns "replicasets".
func (ReplicaSets) Name() string { return ReplicaSetsContract }

func replicaSetKey(queue string) string { return "set/" + queue }

const replicaSetIndexKey = "index"

// Apply executes update and update_many.
func (ReplicaSets) Apply(x *Exec, method string, args json.RawMessage) error {
	switch method {
	case ReplicaSetsUpdate:
		return replicaSetApply(x, args)
	case ReplicaSetsUpdateMany:
		return replicaSetApplyMany(x, args)
	}
	return Fail("replicasets: unknown method %q", method)
}

// replicaSetApply checks and applies one update: a *Failure refuses it
// before it wrote anything; another error is the stored state's.
func replicaSetApply(x *Exec, args json.RawMessage) error {
	a, sig, err := decodeReplicaSetUpdate(args)
	if err != nil {
		return err
	}
	cur, found, err := replicaSetLoad(x, a.Queue)
	if err != nil {
		return err
	}
	if a.Replaces != cur.Version {
		return Fail(ReasonStaleReplicaSet)
	}
	nodes := contractReader{contract: NodesContract, state: x.state}
	signer, ok, err := nodeLoad(nodes, a.Signer)
	if err != nil {
		return err
	}
	if !ok {
		return Fail(ReasonUnknownNode)
	}
	pub, err := hex.DecodeString(signer.PublicKey)
	d := ReplicaSetDigest(a.Queue, a.Primary, a.Secondaries, a.Replaces, a.Signer)
	if err != nil || len(pub) != ed25519.PublicKeySize || !ed25519.Verify(pub, d[:], sig) {
		return Fail(ReasonBadSignature)
	}
	if (found && !slices.Contains(cur.Members(), a.Signer)) || (!found && a.Signer != a.Primary) {
		return Fail(ReasonNotAMember)
	}
	for _, id := range append([]string{a.Primary}, a.Secondaries...) {
		if _, ok := nodes.Get(nodeKey(id)); !ok {
			return Fail(ReasonUnknownNode)
		}
	}
	if !found {
		qs, err := replicaSetIndex(x)
		if err != nil {
			return err
		}
		i, _ := slices.BinarySearch(qs, a.Queue)
		b, _ := json.Marshal(slices.Insert(qs, i, a.Queue))
		x.Set(replicaSetIndexKey, b)
	}
	s := ReplicaSet{Queue: a.Queue, Primary: a.Primary, Secondaries: a.Secondaries, Version: cur.Version + 1, UpdatedBy: a.Signer, Height: x.Height}
	b, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("replicasets: set of %s: %w", a.Queue, err)
	}
	x.Set(replicaSetKey(a.Queue), b)
	return x.Emit(EventReplicaSetUpdated, ReplicaSetUpdated{Queue: s.Queue, Primary: s.Primary, Secondaries: s.Secondaries, Version: s.Version, UpdatedBy: s.UpdatedBy})
}

func replicaSetLoad(r StateReader, queue string) (s ReplicaSet, found bool, err error) {
	raw, ok := r.Get(replicaSetKey(queue))
	if !ok {
		return ReplicaSet{}, false, nil
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return ReplicaSet{}, false, fmt.Errorf("replicasets: stored set of %s: %w", queue, err)
	}
	return s, true, nil
}

func replicaSetIndex(r StateReader) ([]string, error) {
	raw, ok := r.Get(replicaSetIndexKey)
	if !ok {
		return nil, nil
	}
	var qs []string
	if err := json.Unmarshal(raw, &qs); err != nil {
		return nil, fmt.Errorf("replicasets: stored index: %w", err)
	}
	return qs, nil
}

// ValidReplicaSetQueue reports whether s is a queue name the contract
// takes: 1 to MaxReplicaSetQueue bytes of UTF-8 without control characters.
func ValidReplicaSetQueue(s string) bool {
	if s == "" || len(s) > MaxReplicaSetQueue || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

func decodeReplicaSetUpdate(args json.RawMessage) (ReplicaSetUpdate, []byte, error) {
	var a ReplicaSetUpdate
	f, err := decodeObject(args, "replicasets: update args", "queue", "primary", "secondaries", "replaces", "signer", "signature")
	if err != nil {
		return a, nil, err
	}
	if json.Unmarshal(f["queue"], &a.Queue) != nil || !ValidReplicaSetQueue(a.Queue) {
		return a, nil, Fail("replicasets: queue must be 1 to %d bytes of UTF-8 without control characters", MaxReplicaSetQueue)
	}
	if json.Unmarshal(f["primary"], &a.Primary) != nil || !ValidNodeID(a.Primary) {
		return a, nil, Fail("replicasets: primary must be a node id")
	}
	if json.Unmarshal(f["secondaries"], &a.Secondaries) != nil || len(a.Secondaries) > MaxSecondaries {
		return a, nil, Fail("replicasets: secondaries must be a list of at most %d node ids", MaxSecondaries)
	}
	if a.Secondaries == nil {
		a.Secondaries = []string{}
	}
	seen := map[string]bool{a.Primary: true}
	for _, s := range a.Secondaries {
		if !ValidNodeID(s) || seen[s] {
			return a, nil, Fail("replicasets: secondaries must be node ids, distinct and other than the primary")
		}
		seen[s] = true
	}
	if json.Unmarshal(f["replaces"], &a.Replaces) != nil {
		return a, nil, Fail("replicasets: replaces must be the version replaced, an integer from 0")
	}
	if json.Unmarshal(f["signer"], &a.Signer) != nil || !ValidNodeID(a.Signer) {
		return a, nil, Fail("replicasets: signer must be a node id")
	}
	sig, err := nodeHexArg(f["signature"], ed25519.SignatureSize, "signature")
	if err != nil {
		return a, nil, err
	}
	a.Signature = hex.EncodeToString(sig)
	return a, sig, nil
}

// replicaSetUpdateMaxJSON is the length of the longest update the contract
// takes, in canonical JSON (chain.CanonicalArgs: keys sorted, no space):
// a queue of MaxReplicaSetQueue bytes that each escape to two (a quote, a
// backslash; U+2028 is 3 bytes escaped to 6), MaxSecondaries secondaries,
// the largest replaces (20 digits).
const replicaSetUpdateMaxJSON = len(`{"primary":,"queue":,"replaces":,"secondaries":[],"signature":"","signer":}`) +
	replicaSetNodeJSON + 2 + 2*MaxReplicaSetQueue + 20 + MaxSecondaries*(replicaSetNodeJSON+1) - 1 +
	2*ed25519.SignatureSize + replicaSetNodeJSON

// replicaSetNodeJSON is the length of a node id in JSON, quotes included.
const replicaSetNodeJSON = 2 + 1 + 2*NodeIDBytes

// ReplicaSetBatch is the args of the replicasets contract's update_many.
type ReplicaSetBatch struct {
	// Updates are applied in order, each as update would be.
	Updates []ReplicaSetUpdate `json:"updates"`
}

// ReplicaSetRefused is the data of the ReplicaSetRefused event: an update
// of an update_many batch that was refused. Queue and Signer are empty
// when the update did not name a valid one, Replaces 0 when it did not
// name a number.
type ReplicaSetRefused struct {
	Queue    string `json:"queue"`
	Replaces uint64 `json:"replaces"`
	Signer   string `json:"signer"`
	// Reason is the reason update gives for the same args on the same
	// state (ReasonStaleReplicaSet...).
	Reason string `json:"reason"`
}

// ReplicaSetBatchArgs returns the args of an update_many that applies
// updates (SignReplicaSetUpdate builds each), in canonical JSON. It fails,
// wrapping chain.ErrInvalidTx, for no updates, more than
// MaxReplicaSetBatch, or args over chain.MaxArgs (which only updates the
// contract refuses can reach). It checks nothing else: the contract does.
func ReplicaSetBatchArgs(updates []ReplicaSetUpdate) (json.RawMessage, error) {
	if len(updates) == 0 || len(updates) > MaxReplicaSetBatch {
		return nil, fmt.Errorf("%w: replicasets: update_many takes 1 to %d updates, got %d", chain.ErrInvalidTx, MaxReplicaSetBatch, len(updates))
	}
	b, err := json.Marshal(ReplicaSetBatch{Updates: updates})
	if err != nil {
		return nil, fmt.Errorf("replicasets: update_many args: %w", err)
	}
	b = chain.CanonicalArgs(b)
	if len(b) > chain.MaxArgs {
		return nil, fmt.Errorf("%w: replicasets: update_many args are %d bytes, the limit is %d", chain.ErrInvalidTx, len(b), chain.MaxArgs)
	}
	return b, nil
}

// replicaSetBatchShape is the failure reason of update_many args that are
// not a list of updates.
const replicaSetBatchShape = `replicasets: update_many args must be {"updates": [update, ...]}`

// replicaSetApplyMany applies each update of a batch in order, each on
// the state the ones before it left, and emits one event per update:
// ReplicaSetUpdated, or ReplicaSetRefused with update's reason. Only args
// that are not a batch of 1 to MaxReplicaSetBatch fail it (and an error
// of the stored state, as update).
func replicaSetApplyMany(x *Exec, args json.RawMessage) error {
	f, err := decodeObject(args, "replicasets: update_many args", "updates")
	if err != nil {
		return err
	}
	var items []json.RawMessage
	if json.Unmarshal(f["updates"], &items) != nil || items == nil { // absent or null: nil
		return Fail(replicaSetBatchShape)
	}
	if len(items) == 0 || len(items) > MaxReplicaSetBatch {
		return Fail("replicasets: update_many takes 1 to %d updates, got %d", MaxReplicaSetBatch, len(items))
	}
	for _, it := range items {
		err := replicaSetApply(x, it)
		if err == nil {
			continue
		}
		var fl *Failure
		if !errors.As(err, &fl) {
			return err
		}
		r := replicaSetRefusal(it)
		r.Reason = fl.Reason
		if err := x.Emit(EventReplicaSetRefused, r); err != nil {
			return err
		}
	}
	return nil
}

// replicaSetRefusal names a refused update by what it holds of its queue,
// replaces and signer: each only when valid.
func replicaSetRefusal(raw json.RawMessage) ReplicaSetRefused {
	var r ReplicaSetRefused
	var f map[string]json.RawMessage
	if json.Unmarshal(raw, &f) != nil {
		return r
	}
	if json.Unmarshal(f["queue"], &r.Queue) != nil || !ValidReplicaSetQueue(r.Queue) {
		r.Queue = ""
	}
	if json.Unmarshal(f["replaces"], &r.Replaces) != nil {
		r.Replaces = 0
	}
	if json.Unmarshal(f["signer"], &r.Signer) != nil || !ValidNodeID(r.Signer) {
		r.Signer = ""
	}
	return r
}

// Call answers set and sets.
func (ReplicaSets) Call(r StateReader, method string, args json.RawMessage) (json.RawMessage, error) {
	switch method {
	case "set":
		f, err := decodeObject(args, "replicasets: set args", "queue")
		if err != nil {
			return nil, err
		}
		var q string
		if json.Unmarshal(f["queue"], &q) != nil || !ValidReplicaSetQueue(q) {
			return nil, Fail("replicasets: queue must be 1 to %d bytes of UTF-8 without control characters", MaxReplicaSetQueue)
		}
		raw, ok := r.Get(replicaSetKey(q))
		if !ok {
			return nil, fmt.Errorf("%w: replicasets: no replica set for queue %q", chain.ErrNotFound, q)
		}
		return raw, nil
	case "sets":
		return replicaSetsPage(r, args)
	}
	return nil, Fail("replicasets: unknown read %q", method)
}

// ReplicaSetsPage is the answer of the sets read.
type ReplicaSetsPage struct {
	Sets []ReplicaSet `json:"sets"`
	Next string       `json:"next"`
}

func replicaSetsPage(r StateReader, args json.RawMessage) (json.RawMessage, error) {
	f, err := decodeObject(args, "replicasets: sets args", "after", "limit")
	if err != nil {
		return nil, err
	}
	var after string
	limit := DefaultReplicaSetPage
	if raw, ok := f["after"]; ok && json.Unmarshal(raw, &after) != nil {
		return nil, Fail("replicasets: after must be a queue name")
	}
	if raw, ok := f["limit"]; ok && (json.Unmarshal(raw, &limit) != nil || limit < 0 || limit > MaxReplicaSetPage) {
		return nil, Fail("replicasets: limit must be from 0 (%d) to %d", DefaultReplicaSetPage, MaxReplicaSetPage)
	}
	if limit == 0 {
		limit = DefaultReplicaSetPage
	}
	qs, err := replicaSetIndex(r)
	if err != nil {
		return nil, err
	}
	i, found := slices.BinarySearch(qs, after)
	if found {
		i++
	}
	page := ReplicaSetsPage{Sets: []ReplicaSet{}}
	for ; i < len(qs) && len(page.Sets) < limit; i++ {
		s, _, err := replicaSetLoad(r, qs[i])
		if err != nil {
			return nil, err
		}
		page.Sets = append(page.Sets, s)
	}
	if i < len(qs) && len(page.Sets) > 0 {
		page.Next = page.Sets[len(page.Sets)-1].Queue
	}
	return json.Marshal(page)
}

package devchain

import (
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/ordolabs/ordo/internal/chain"
)

// Nodes is the `nodes` contract (issue 11, "Identities and set-up"; seed
// 004's endpoint → ID mapping): the registry where nodes find each other,
// node id → ed25519 public key, TLS certificate fingerprint, endpoint. The
// authority over an entry is the node's key, not a chain account: anyone may
// submit a transaction (a node registers itself through its sequencer from
// its own chain account), and only a signature by the node's key counts.
//
// Transactions (args are JSON objects whose keys must be exactly these;
// unknown fields fail):
//   - register {id, publicKey, fingerprint, endpoint, seq, signature}
//     (NodeRegistration; SignNodeRegistration builds it): publicKey an
//     ed25519 key (64 lowercase hex), id must be NodeIDOf(publicKey)
//     (ReasonIDMismatch), fingerprint 64 lowercase hex (the SHA-256 of the
//     certificate's DER), endpoint a ValidNodeEndpoint, seq from 1,
//     signature the key's ed25519 signature over NodeRegistrationDigest
//     (ReasonBadSignature), seq greater than the id's current seq
//     (ReasonStaleSeq). A new id takes any valid entry (at most MaxNodes
//     registered at once: ReasonTooManyNodes); an existing one is replaced.
//     Emits NodeRegistered {id, publicKey, fingerprint, endpoint, seq}.
//   - deregister {id, seq, signature} (NodeDeregistration): the id must be
//     registered (ReasonNoSuchNode), signature by its registered key over
//     NodeDeregistrationDigest (ReasonBadSignature), seq greater than its
//     current seq (ReasonStaleSeq). Removes the entry; emits
//     NodeDeregistered {id, seq}.
//
// Invariants: the public key of an id never changes (the id is derived from
// it), so no one but the holder of that key can set, change or remove the
// id's fingerprint and endpoint; an id's seq only grows, and survives a
// deregister, so no signed register or deregister is ever applied twice (a
// replayed one is stale) and none older than the latest change is applied.
//
// Reads (Call):
//   - node {id} → a NodeEntry; an id not registered is an error wrapping
//     chain.ErrNotFound;
//   - nodes {} → {"nodes": [NodeEntry, ...]} by id;
//   - seq {id} → NodeSeq: the id's current seq (0 if it never registered)
//     and whether it is registered, so a node knows the seq to exceed.
//
// State: node/<id> holds the NodeEntry, seq/<id> the id's seq, index the
// sorted list of registered ids.
type Nodes struct{}

// NodesContract is the nodes contract's name.
const NodesContract = "nodes"

// Nodes method names.
const (
	NodesRegister   = "register"
	NodesDeregister = "deregister"
)

// Nodes limits and failure reasons.
const (
	// NodeIDBytes is how many bytes of SHA-256(public key) a node id holds.
	NodeIDBytes = 20
	// MaxNodeEndpoint is the longest endpoint, in bytes.
	MaxNodeEndpoint = 255
	// MaxNodes is the most nodes registered at once.
	MaxNodes = 1024

	// ReasonIDMismatch fails a register whose id is not NodeIDOf(publicKey).
	ReasonIDMismatch = "id_mismatch"
	// ReasonBadSignature fails a register or deregister whose signature is
	// not the node key's over the method's digest.
	ReasonBadSignature = "bad_signature"
	// ReasonStaleSeq fails a register or deregister whose seq is not greater
	// than the id's current seq (a replay, or a change older than the last).
	ReasonStaleSeq = "stale_seq"
	// ReasonNoSuchNode fails a deregister of an id not registered.
	ReasonNoSuchNode = "no_such_node"
	// ReasonTooManyNodes fails a register of a new id when MaxNodes are.
	ReasonTooManyNodes = "too_many_nodes"
)

// NodeEntry is a registered node: the answer of the nodes contract's node
// read.
type NodeEntry struct {
	// ID is the node id, NodeIDOf(PublicKey).
	ID string `json:"id"`
	// PublicKey is the node's ed25519 public key, 64 lowercase hex.
	PublicKey string `json:"publicKey"`
	// Fingerprint is the SHA-256 of its TLS certificate's DER, 64 lowercase
	// hex.
	Fingerprint string `json:"fingerprint"`
	// Endpoint is where it listens for its peers, host:port.
	Endpoint string `json:"endpoint"`
	// Seq is the seq of the register that wrote this entry.
	Seq uint64 `json:"seq"`
	// Height is the height of the block that included that register.
	Height uint64 `json:"height"`
}

// NodeSeq is the answer of the nodes contract's seq read.
type NodeSeq struct {
	ID string `json:"id"`
	// Seq is the id's current seq: the last register's or deregister's, 0
	// if none.
	Seq uint64 `json:"seq"`
	// Registered says whether the id has an entry.
	Registered bool `json:"registered"`
}

// NodeRegistered is the data of the nodes contract's NodeRegistered event.
type NodeRegistered struct {
	ID          string `json:"id"`
	PublicKey   string `json:"publicKey"`
	Fingerprint string `json:"fingerprint"`
	Endpoint    string `json:"endpoint"`
	Seq         uint64 `json:"seq"`
}

// NodeDeregistered is the data of the nodes contract's NodeDeregistered
// event.
type NodeDeregistered struct {
	ID  string `json:"id"`
	Seq uint64 `json:"seq"`
}

// Name returns "nodes".
func (Nodes) Name() string { return NodesContract }

func nodeKey(id string) string    { return "node/" + id }
func nodeSeqKey(id string) string { return "seq/" + id }

const nodeIndexKey = "index"

// Apply executes register or deregister.
func (Nodes) Apply(x *Exec, method string, args json.RawMessage) error {
	switch method {
	case NodesRegister:
		return nodesRegister(x, args)
	case NodesDeregister:
		return nodesDeregister(x, args)
	}
	return Fail("nodes: unknown method %q", method)
}

func nodesRegister(x *Exec, args json.RawMessage) error {
	a, err := decodeNodeRegister(args)
	if err != nil {
		return err
	}
	if a.ID != NodeIDOf(a.pub) {
		return Fail(ReasonIDMismatch)
	}
	d := NodeRegistrationDigest(a.ID, a.Fingerprint, a.Endpoint, a.Seq)
	if !ed25519.Verify(a.pub, d[:], a.sig) {
		return Fail(ReasonBadSignature)
	}
	old, found, err := nodeLoad(x, a.ID)
	if err != nil {
		return err
	}
	if found && old.PublicKey != a.PublicKey { // only a SHA-256 collision gets here
		return Fail(ReasonIDMismatch)
	}
	cur, err := nodeSeq(x, a.ID)
	if err != nil {
		return err
	}
	if a.Seq <= cur {
		return Fail(ReasonStaleSeq)
	}
	if !found {
		ids, err := nodeIndex(x)
		if err != nil {
			return err
		}
		if len(ids) >= MaxNodes {
			return Fail(ReasonTooManyNodes)
		}
		i, _ := slices.BinarySearch(ids, a.ID)
		if err := nodeSetIndex(x, slices.Insert(ids, i, a.ID)); err != nil {
			return err
		}
	}
	e := NodeEntry{ID: a.ID, PublicKey: a.PublicKey, Fingerprint: a.Fingerprint, Endpoint: a.Endpoint, Seq: a.Seq, Height: x.Height}
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("nodes: entry of %s: %w", a.ID, err)
	}
	x.Set(nodeKey(a.ID), b)
	x.Set(nodeSeqKey(a.ID), []byte(strconv.FormatUint(a.Seq, 10)))
	return x.Emit("NodeRegistered", NodeRegistered{ID: e.ID, PublicKey: e.PublicKey, Fingerprint: e.Fingerprint, Endpoint: e.Endpoint, Seq: e.Seq})
}

func nodesDeregister(x *Exec, args json.RawMessage) error {
	a, err := decodeNodeDeregister(args)
	if err != nil {
		return err
	}
	old, found, err := nodeLoad(x, a.ID)
	if err != nil {
		return err
	}
	if !found {
		return Fail(ReasonNoSuchNode)
	}
	pub, err := hex.DecodeString(old.PublicKey)
	if err != nil || len(pub) != ed25519.PublicKeySize {
		return fmt.Errorf("nodes: corrupt public key of %s", a.ID)
	}
	d := NodeDeregistrationDigest(a.ID, a.Seq)
	if !ed25519.Verify(pub, d[:], a.sig) {
		return Fail(ReasonBadSignature)
	}
	cur, err := nodeSeq(x, a.ID)
	if err != nil {
		return err
	}
	if a.Seq <= cur {
		return Fail(ReasonStaleSeq)
	}
	ids, err := nodeIndex(x)
	if err != nil {
		return err
	}
	if i, ok := slices.BinarySearch(ids, a.ID); ok {
		if err := nodeSetIndex(x, slices.Delete(ids, i, i+1)); err != nil {
			return err
		}
	}
	x.Set(nodeKey(a.ID), nil)
	x.Set(nodeSeqKey(a.ID), []byte(strconv.FormatUint(a.Seq, 10)))
	return x.Emit("NodeDeregistered", NodeDeregistered{ID: a.ID, Seq: a.Seq})
}

// nodeLoad reads an id's entry; found is false when it is not registered.
func nodeLoad(r StateReader, id string) (e NodeEntry, found bool, err error) {
	raw, ok := r.Get(nodeKey(id))
	if !ok {
		return e, false, nil
	}
	if err := json.Unmarshal(raw, &e); err != nil {
		return e, false, fmt.Errorf("nodes: corrupt entry of %s: %w", id, err)
	}
	return e, true, nil
}

// nodeSeq reads an id's current seq, 0 if it never registered.
func nodeSeq(r StateReader, id string) (uint64, error) {
	raw, ok := r.Get(nodeSeqKey(id))
	if !ok {
		return 0, nil
	}
	n, err := strconv.ParseUint(string(raw), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("nodes: corrupt seq of %s: %w", id, err)
	}
	return n, nil
}

// nodeIndex reads the sorted list of registered ids.
func nodeIndex(r StateReader) ([]string, error) {
	raw, ok := r.Get(nodeIndexKey)
	if !ok {
		return nil, nil
	}
	var ids []string
	if err := json.Unmarshal(raw, &ids); err != nil {
		return nil, fmt.Errorf("nodes: corrupt index: %w", err)
	}
	return ids, nil
}

func nodeSetIndex(x *Exec, ids []string) error {
	if len(ids) == 0 {
		x.Set(nodeIndexKey, nil)
		return nil
	}
	b, err := json.Marshal(ids)
	if err != nil {
		return fmt.Errorf("nodes: index: %w", err)
	}
	x.Set(nodeIndexKey, b)
	return nil
}

// Call answers node {id}, nodes {} and seq {id}.
func (Nodes) Call(r StateReader, method string, args json.RawMessage) (json.RawMessage, error) {
	switch method {
	case "node", "seq":
		f, err := decodeObject(args, "nodes: "+method+" args", "id")
		if err != nil {
			return nil, err
		}
		id, err := nodeIDArg(f)
		if err != nil {
			return nil, err
		}
		raw, ok := r.Get(nodeKey(id))
		if method == "node" {
			if !ok {
				return nil, fmt.Errorf("%w: nodes: no node %q", chain.ErrNotFound, id)
			}
			return raw, nil
		}
		seq, err := nodeSeq(r, id)
		if err != nil {
			return nil, err
		}
		return json.Marshal(NodeSeq{ID: id, Seq: seq, Registered: ok})
	case "nodes":
		if err := decodeNoArgs(args, "nodes: nodes args"); err != nil {
			return nil, err
		}
		ids, err := nodeIndex(r)
		if err != nil {
			return nil, err
		}
		out := struct {
			Nodes []NodeEntry `json:"nodes"`
		}{Nodes: make([]NodeEntry, 0, len(ids))}
		for _, id := range ids {
			e, found, err := nodeLoad(r, id)
			if err != nil {
				return nil, err
			}
			if !found {
				return nil, fmt.Errorf("nodes: index names %s, which has no entry", id)
			}
			out.Nodes = append(out.Nodes, e)
		}
		return json.Marshal(out)
	}
	return nil, errNoMethod
}

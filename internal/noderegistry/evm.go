package noderegistry

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/sequencer/dispatch"
)

// EVMRegisterDomain opens the digest a node signs to register on an EVM
// chain's NodeRegistry.
const EVMRegisterDomain = "ordo/nodes/register/evm/v1"

// evmPage is how many entries one read of NodeRegistry.page asks for (its
// MAX_PAGE).
const evmPage = 256

// ErrMalformed is an argument of an EVM registration that is not what
// the registry takes (an address, an id, a fingerprint).
var ErrMalformed = errors.New("noderegistry: malformed")

// EVM is the Binding of the NodeRegistry contract (contracts/NodeRegistry.sol)
// on an EVM chain. The EVM cannot check an ed25519 signature: the
// contract checks that an id derives from its key and binds it to the
// account of its first register; the entry carries the node's signature
// over EVMRegistrationDigest, and Entries trusts only an entry whose
// signature verifies, so no one but the key's holder binds its id to an
// account a peer believes.
type EVM struct {
	// Contract is the registry's name among the backend's contracts.
	Contract string
	// ChainID and Registry (its address, 0x and 40 hex) are signed into
	// every registration: one signed for another chain or registry does
	// not verify here.
	ChainID  uint64
	Registry string
	// Account is the account this node registers from (0x and 40 hex):
	// the sender its registrations and replica-set updates go out on.
	Account string
}

var _ Binding = EVM{}

// EVMNodeID is the NodeRegistry's form of a node id: "0x" and the 40 hex
// digits of devchain's "n…".
func EVMNodeID(id string) (string, error) {
	if !devchain.ValidNodeID(id) {
		return "", fmt.Errorf("%w: node id %q", ErrMalformed, id)
	}
	return "0x" + id[1:], nil
}

// NodeIDOfEVM is the node id of the NodeRegistry's "0x…" form.
func NodeIDOfEVM(s string) (string, error) {
	id := "n" + strings.TrimPrefix(strings.ToLower(s), "0x")
	if !strings.HasPrefix(s, "0x") || !devchain.ValidNodeID(id) {
		return "", fmt.Errorf("%w: registry node id %q", ErrMalformed, s)
	}
	return id, nil
}

func hexBytes(s string, n int, what string) ([]byte, error) {
	b, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	if err != nil || len(b) != n {
		return nil, fmt.Errorf("%w: %s %q", ErrMalformed, what, s)
	}
	return b, nil
}

// EVMRegistrationDigest is the digest a node's ed25519 key signs to
// register on an EVM chain: SHA-256 over the domain tag (length-prefixed),
// the chain id (8 bytes, big-endian), the registry's and the account's
// addresses (20 bytes each), the id's 20 bytes, the fingerprint's 32, the
// endpoint (length-prefixed) and seq (8 bytes, big-endian).
func EVMRegistrationDigest(chainID uint64, registry, account, id, fingerprint, endpoint string, seq uint64) ([32]byte, error) {
	reg, err := hexBytes(registry, 20, "registry address")
	if err != nil {
		return [32]byte{}, err
	}
	acc, err := hexBytes(account, 20, "account")
	if err != nil {
		return [32]byte{}, err
	}
	if !devchain.ValidNodeID(id) {
		return [32]byte{}, fmt.Errorf("%w: node id %q", ErrMalformed, id)
	}
	idb, _ := hex.DecodeString(id[1:])
	fp, err := hexBytes(fingerprint, sha256.Size, "fingerprint")
	if err != nil {
		return [32]byte{}, err
	}
	b := binary.AppendUvarint(nil, uint64(len(EVMRegisterDomain)))
	b = append(b, EVMRegisterDomain...)
	b = binary.BigEndian.AppendUint64(b, chainID)
	b = append(append(append(append(b, reg...), acc...), idb...), fp...)
	b = binary.AppendUvarint(b, uint64(len(endpoint)))
	b = append(b, endpoint...)
	b = binary.BigEndian.AppendUint64(b, seq)
	return sha256.Sum256(b), nil
}

// Register returns NodeRegistry.register of key's node, signed over
// EVMRegistrationDigest for e's chain, registry and account.
func (e EVM) Register(key ed25519.PrivateKey, fingerprint, endpoint string, seq uint64) (dispatch.Call, error) {
	pub := key.Public().(ed25519.PublicKey)
	id := devchain.NodeIDOf(pub)
	d, err := EVMRegistrationDigest(e.ChainID, e.Registry, e.Account, id, fingerprint, endpoint, seq)
	if err != nil {
		return dispatch.Call{}, err
	}
	body, err := json.Marshal(map[string]any{
		"id": "0x" + id[1:], "publicKey": "0x" + hex.EncodeToString(pub), "fingerprint": "0x" + fingerprint,
		"endpoint": endpoint, "seq": strconv.FormatUint(seq, 10), "signature": "0x" + hex.EncodeToString(ed25519.Sign(key, d[:])),
	})
	if err != nil {
		return dispatch.Call{}, fmt.Errorf("nodes: register args: %w", err)
	}
	return dispatch.Call{Contract: e.Contract, Method: "register", Args: body}, nil
}

// Seq reads NodeRegistry.nodeSeq.
func (e EVM) Seq(ctx context.Context, c chain.Chain, id string) (uint64, error) {
	eid, err := EVMNodeID(id)
	if err != nil {
		return 0, err
	}
	args, _ := json.Marshal(map[string]string{"id": eid})
	raw, err := c.Call(ctx, e.Contract, "node_seq", args)
	if err != nil {
		return 0, fmt.Errorf("read seq: %w", err)
	}
	var out struct {
		Seq string `json:"seq"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return 0, fmt.Errorf("read seq: %w", err)
	}
	n, err := strconv.ParseUint(out.Seq, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("read seq: %w", err)
	}
	return n, nil
}

// EVMEntry is one entry of NodeRegistry.page as the chain seam returns it.
type EVMEntry struct {
	ID          string `json:"id"`
	Account     string `json:"account"`
	Seq         string `json:"seq"`
	Registered  bool   `json:"registered"`
	PublicKey   string `json:"publicKey"`
	Fingerprint string `json:"fingerprint"`
	Endpoint    string `json:"endpoint"`
	Signature   string `json:"signature"`
}

// ErrUntrusted is an EVM registry entry a peer must not trust: its id does
// not derive from its key, or its signature is not that key's over
// EVMRegistrationDigest of this chain, registry and the entry's account.
var ErrUntrusted = errors.New("noderegistry: untrusted entry")

// Verify checks one entry read from the registry at e.Registry on chain
// e.ChainID and returns it as an Entry.
func (e EVM) Verify(x EVMEntry) (Entry, error) {
	id, err := NodeIDOfEVM(x.ID)
	if err != nil {
		return Entry{}, fmt.Errorf("%w: %w", ErrUntrusted, err)
	}
	pub, err := hexBytes(x.PublicKey, ed25519.PublicKeySize, "public key")
	if err != nil || devchain.NodeIDOf(pub) != id {
		return Entry{}, fmt.Errorf("%w: %s: its id is not its key's", ErrUntrusted, id)
	}
	sig, err := hexBytes(x.Signature, ed25519.SignatureSize, "signature")
	if err != nil {
		return Entry{}, fmt.Errorf("%w: %s: %w", ErrUntrusted, id, err)
	}
	fp := strings.TrimPrefix(x.Fingerprint, "0x")
	seq, err := strconv.ParseUint(x.Seq, 10, 64)
	if err != nil {
		return Entry{}, fmt.Errorf("%w: %s: seq %q", ErrUntrusted, id, x.Seq)
	}
	d, err := EVMRegistrationDigest(e.ChainID, e.Registry, x.Account, id, fp, x.Endpoint, seq)
	if err != nil || !ed25519.Verify(pub, d[:], sig) {
		return Entry{}, fmt.Errorf("%w: %s: not signed by its key for account %s on this chain and registry", ErrUntrusted, id, x.Account)
	}
	if !devchain.ValidNodeEndpoint(x.Endpoint) {
		return Entry{}, fmt.Errorf("%w: %s: endpoint %q", ErrUntrusted, id, x.Endpoint)
	}
	return Entry{ID: id, PublicKey: pub, Fingerprint: fp, Endpoint: x.Endpoint}, nil
}

// Entries reads every page of NodeRegistry and returns the registered
// entries that Verify trusts; the others are left out.
func (e EVM) Entries(ctx context.Context, c chain.Chain) ([]Entry, error) {
	var out []Entry
	for start := 0; ; start += evmPage {
		args, _ := json.Marshal(map[string]int{"start": start, "limit": evmPage})
		raw, err := c.Call(ctx, e.Contract, "page", args)
		if err != nil {
			return nil, fmt.Errorf("read nodes: %w", err)
		}
		var page []EVMEntry
		if err := json.Unmarshal(raw, &page); err != nil {
			return nil, fmt.Errorf("decode nodes: %w", err)
		}
		for _, x := range page {
			if !x.Registered {
				continue
			}
			if en, err := e.Verify(x); err == nil {
				out = append(out, en)
			}
		}
		if len(page) < evmPage {
			return out, nil
		}
	}
}

package devchain

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"net"
	"strconv"
	"strings"
)

// Domain tags that open the nodes contract's digests, so that a signature
// over one never passes for a signature over anything else (another method,
// another contract's digest).
const (
	nodeRegisterDomain   = "ordo/nodes/register/v1"
	nodeDeregisterDomain = "ordo/nodes/deregister/v1"
)

// NodeIDOf returns the node id of an ed25519 public key: "n" followed by the
// first 20 bytes of SHA-256(pub) as 40 lowercase hex characters. It is the
// only id the nodes contract accepts for pub.
func NodeIDOf(pub ed25519.PublicKey) string {
	s := sha256.Sum256(pub)
	return "n" + hex.EncodeToString(s[:NodeIDBytes])
}

// ValidNodeID reports whether s has the form of a node id: "n" and
// 2*NodeIDBytes lowercase hex characters.
func ValidNodeID(s string) bool {
	return len(s) == 1+2*NodeIDBytes && s[0] == 'n' && isLowerHex(s[1:])
}

// ValidNodeFingerprint reports whether s is 64 lowercase hex characters: a
// SHA-256 (of a TLS certificate's DER).
func ValidNodeFingerprint(s string) bool { return len(s) == 2*sha256.Size && isLowerHex(s) }

// ValidNodeEndpoint reports whether s is an endpoint the nodes contract
// accepts: host:port of 1-MaxNodeEndpoint bytes, where port is a decimal
// 1-65535 without leading zeros and host is either a name of letters, digits,
// '.', '-' and '_' that starts with a letter or digit, or an IPv6 literal in
// brackets. It is a pure function of s (a replay gives the same answer).
func ValidNodeEndpoint(s string) bool {
	if len(s) == 0 || len(s) > MaxNodeEndpoint {
		return false
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil || host == "" || port == "" || port[0] == '0' {
		return false
	}
	if p, err := strconv.ParseUint(port, 10, 16); err != nil || p == 0 {
		return false
	}
	if strings.HasPrefix(s, "[") {
		ip := net.ParseIP(host)
		return ip != nil && strings.Contains(host, ":") && !strings.Contains(host, "%")
	}
	if !isAlnum(host[0]) {
		return false
	}
	for i := 0; i < len(host); i++ {
		if c := host[i]; !isAlnum(c) && c != '.' && c != '-' && c != '_' {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// nodeDigest is SHA-256 over the domain tag and the strings, each
// length-prefixed (uvarint), then seq (8 bytes, big-endian): no two inputs
// share an encoding.
func nodeDigest(domain string, seq uint64, fields ...string) [32]byte {
	var b []byte
	for _, s := range append([]string{domain}, fields...) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.BigEndian.AppendUint64(b, seq)
	return sha256.Sum256(b)
}

// NodeRegistrationDigest is the digest a node's key signs to register (or
// change) its entry: SHA-256 over the domain tag "ordo/nodes/register/v1",
// the id, the fingerprint and the endpoint (each length-prefixed) and seq.
// The public key is bound through the id, which is derived from it.
func NodeRegistrationDigest(id, fingerprint, endpoint string, seq uint64) [32]byte {
	return nodeDigest(nodeRegisterDomain, seq, id, fingerprint, endpoint)
}

// NodeDeregistrationDigest is the digest a node's key signs to remove its
// entry: SHA-256 over the domain tag "ordo/nodes/deregister/v1", the id
// (length-prefixed) and seq.
func NodeDeregistrationDigest(id string, seq uint64) [32]byte {
	return nodeDigest(nodeDeregisterDomain, seq, id)
}

// NodeRegistration is the args of the nodes contract's register.
type NodeRegistration struct {
	// ID is the node id: NodeIDOf(PublicKey).
	ID string `json:"id"`
	// PublicKey is the node's ed25519 public key, 64 lowercase hex.
	PublicKey string `json:"publicKey"`
	// Fingerprint is the SHA-256 of the node's TLS certificate (DER), 64
	// lowercase hex.
	Fingerprint string `json:"fingerprint"`
	// Endpoint is where the node listens for its peers: host:port.
	Endpoint string `json:"endpoint"`
	// Seq orders the node's changes: greater than its entry's current seq.
	Seq uint64 `json:"seq"`
	// Signature is the node key's ed25519 signature over
	// NodeRegistrationDigest, 128 lowercase hex.
	Signature string `json:"signature"`
}

// NodeDeregistration is the args of the nodes contract's deregister.
type NodeDeregistration struct {
	ID  string `json:"id"`
	Seq uint64 `json:"seq"`
	// Signature is the node key's ed25519 signature over
	// NodeDeregistrationDigest, 128 lowercase hex.
	Signature string `json:"signature"`
}

// SignNodeRegistration returns the args of a register of id (normally
// NodeIDOf(key.Public())) at fingerprint and endpoint with seq, signed by
// key. It checks nothing: the contract does.
func SignNodeRegistration(key ed25519.PrivateKey, id, fingerprint, endpoint string, seq uint64) NodeRegistration {
	d := NodeRegistrationDigest(id, fingerprint, endpoint, seq)
	return NodeRegistration{
		ID: id, PublicKey: hex.EncodeToString(key.Public().(ed25519.PublicKey)), Fingerprint: fingerprint,
		Endpoint: endpoint, Seq: seq, Signature: hex.EncodeToString(ed25519.Sign(key, d[:])),
	}
}

// SignNodeDeregistration returns the args of a deregister of id with seq,
// signed by key.
func SignNodeDeregistration(key ed25519.PrivateKey, id string, seq uint64) NodeDeregistration {
	d := NodeDeregistrationDigest(id, seq)
	return NodeDeregistration{ID: id, Seq: seq, Signature: hex.EncodeToString(ed25519.Sign(key, d[:]))}
}

// nodeIDArg reads and checks an "id" field.
func nodeIDArg(f map[string]json.RawMessage) (string, error) {
	var id string
	if json.Unmarshal(f["id"], &id) != nil || !ValidNodeID(id) {
		return "", Fail("nodes: id must be \"n\" and %d characters of lowercase hex", 2*NodeIDBytes)
	}
	return id, nil
}

// nodeHexArg reads a string of exactly n bytes as lowercase hex.
func nodeHexArg(raw json.RawMessage, n int, what string) ([]byte, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil && len(s) == 2*n && isLowerHex(s) {
		if b, err := hex.DecodeString(s); err == nil {
			return b, nil
		}
	}
	return nil, Fail("nodes: %s must be %d characters of lowercase hex", what, 2*n)
}

// nodeSeqArg reads a "seq" field: an integer from 1 to 2^64-1.
func nodeSeqArg(f map[string]json.RawMessage) (uint64, error) {
	var seq uint64
	if json.Unmarshal(f["seq"], &seq) != nil || seq == 0 {
		return 0, Fail("nodes: seq must be an integer from 1 to 18446744073709551615")
	}
	return seq, nil
}

// nodeRegisterArgs are a register's decoded args.
type nodeRegisterArgs struct {
	NodeRegistration
	pub ed25519.PublicKey
	sig []byte
}

func decodeNodeRegister(args json.RawMessage) (nodeRegisterArgs, error) {
	var a nodeRegisterArgs
	f, err := decodeObject(args, "nodes: register args", "id", "publicKey", "fingerprint", "endpoint", "seq", "signature")
	if err != nil {
		return a, err
	}
	if a.ID, err = nodeIDArg(f); err != nil {
		return a, err
	}
	pub, err := nodeHexArg(f["publicKey"], ed25519.PublicKeySize, "publicKey")
	if err != nil {
		return a, err
	}
	a.pub, a.PublicKey = pub, hex.EncodeToString(pub)
	if json.Unmarshal(f["fingerprint"], &a.Fingerprint) != nil || !ValidNodeFingerprint(a.Fingerprint) {
		return a, Fail("nodes: fingerprint must be 64 characters of lowercase hex")
	}
	if json.Unmarshal(f["endpoint"], &a.Endpoint) != nil || !ValidNodeEndpoint(a.Endpoint) {
		return a, Fail("nodes: endpoint must be host:port, at most %d bytes of letters, digits and .-_ (or [IPv6]), port 1-65535", MaxNodeEndpoint)
	}
	if a.Seq, err = nodeSeqArg(f); err != nil {
		return a, err
	}
	if a.sig, err = nodeHexArg(f["signature"], ed25519.SignatureSize, "signature"); err != nil {
		return a, err
	}
	a.Signature = hex.EncodeToString(a.sig)
	return a, nil
}

// nodeDeregisterArgs are a deregister's decoded args.
type nodeDeregisterArgs struct {
	ID  string
	Seq uint64
	sig []byte
}

func decodeNodeDeregister(args json.RawMessage) (nodeDeregisterArgs, error) {
	var a nodeDeregisterArgs
	f, err := decodeObject(args, "nodes: deregister args", "id", "seq", "signature")
	if err != nil {
		return a, err
	}
	if a.ID, err = nodeIDArg(f); err != nil {
		return a, err
	}
	if a.Seq, err = nodeSeqArg(f); err != nil {
		return a, err
	}
	a.sig, err = nodeHexArg(f["signature"], ed25519.SignatureSize, "signature")
	return a, err
}

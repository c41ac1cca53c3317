package devchain

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"unicode/utf8"
)

// privacyDigestDomain opens every PrivacyDigest, so that a signature over
// one never passes for a signature over anything else.
const privacyDigestDomain = "ordo/privacygroup/intent/v1"

// PrivacyDigest is the digest a member signs to endorse an intent: SHA-256
// over a domain tag and the group, the txId, the spent ids in order and the
// created states in order (id, owner, data as compact JSON), each string
// length-prefixed (uvarint) and each list count-prefixed, so that no two
// different intents share an encoding. The engine computes it with this
// function; the contract checks endorsements against it.
func PrivacyDigest(group, txID string, spends []string, creates []PrivacyState) [32]byte {
	var b []byte
	str := func(s []byte) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	str([]byte(privacyDigestDomain))
	str([]byte(group))
	str([]byte(txID))
	b = binary.AppendUvarint(b, uint64(len(spends)))
	for _, s := range spends {
		str([]byte(s))
	}
	b = binary.AppendUvarint(b, uint64(len(creates)))
	for _, c := range creates {
		str([]byte(c.ID))
		str([]byte(c.Owner))
		str(compactJSON(c.Data))
	}
	return sha256.Sum256(b)
}

// EndorsePrivacy returns member's endorsement of an intent: its signature
// with key over the intent's PrivacyDigest.
func EndorsePrivacy(member string, key ed25519.PrivateKey, digest [32]byte) PrivacyEndorsement {
	return PrivacyEndorsement{Member: member, Signature: hex.EncodeToString(ed25519.Sign(key, digest[:]))}
}

// compactJSON returns data as compact JSON, or as it is when it is not JSON.
func compactJSON(data []byte) []byte {
	var buf bytes.Buffer
	if json.Compact(&buf, data) != nil {
		return data
	}
	return buf.Bytes()
}

// validGroupName reports whether s is 1-MaxPrivacyGroupName characters of
// [a-z0-9_.-].
func validGroupName(s string) bool {
	return len(s) <= MaxPrivacyGroupName && ValidToolName(s)
}

// groupArg reads and checks the "group" field.
func groupArg(f map[string]json.RawMessage) (string, error) {
	var g string
	if json.Unmarshal(f["group"], &g) != nil || !validGroupName(g) {
		return "", Fail("privacygroup: group must be 1-%d characters of [a-z0-9_.-]", MaxPrivacyGroupName)
	}
	return g, nil
}

// idArg reads an id: a string of 1-MaxPrivacyID bytes of UTF-8.
func idArg(raw json.RawMessage, what string) (string, error) {
	var s string
	if json.Unmarshal(raw, &s) != nil || s == "" || len(s) > MaxPrivacyID || !utf8.ValidString(s) {
		return "", Fail("privacygroup: %s must be a string of 1-%d bytes", what, MaxPrivacyID)
	}
	return s, nil
}

// hexArg reads a string of exactly n bytes as lowercase hex.
func hexArg(raw json.RawMessage, n int, what string) ([]byte, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if b, err := hex.DecodeString(s); err == nil && len(b) == n && hex.EncodeToString(b) == s {
			return b, nil
		}
	}
	return nil, Fail("privacygroup: %s must be %d characters of lowercase hex", what, 2*n)
}

// listArg reads a JSON array of at most maxLen elements (at least one when
// nonEmpty; a missing field is an empty list otherwise).
func listArg(raw json.RawMessage, maxLen int, nonEmpty bool, what string) ([]json.RawMessage, error) {
	var l []json.RawMessage
	if raw == nil && !nonEmpty {
		return nil, nil
	}
	least := 0
	if nonEmpty {
		least = 1
	}
	if json.Unmarshal(raw, &l) != nil || l == nil || len(l) < least || len(l) > maxLen {
		return nil, Fail("privacygroup: %s must be a list of %d-%d", what, least, maxLen)
	}
	return l, nil
}

func decodeDeploy(args json.RawMessage) (PrivacyGroupInfo, error) {
	var g PrivacyGroupInfo
	f, err := decodeObject(args, "privacygroup: deploy args", "group", "members", "threshold")
	if err != nil {
		return g, err
	}
	if g.Group, err = groupArg(f); err != nil {
		return g, err
	}
	ms, err := listArg(f["members"], MaxPrivacyMembers, true, "members")
	if err != nil {
		return g, err
	}
	ids, keys := map[string]bool{}, map[string]bool{}
	for _, raw := range ms {
		mf, err := decodeObject(raw, "privacygroup: a member", "id", "publicKey")
		if err != nil {
			return g, err
		}
		var m PrivacyMember
		if m.ID, err = idArg(mf["id"], "a member's id"); err != nil {
			return g, err
		}
		k, err := hexArg(mf["publicKey"], ed25519.PublicKeySize, "a member's publicKey")
		if err != nil {
			return g, err
		}
		m.PublicKey = hex.EncodeToString(k)
		if ids[m.ID] || keys[m.PublicKey] {
			return g, Fail("privacygroup: members must have distinct ids and keys")
		}
		ids[m.ID], keys[m.PublicKey] = true, true
		g.Members = append(g.Members, m)
	}
	g.Threshold = len(g.Members)
	if raw, ok := f["threshold"]; ok {
		var t int
		if json.Unmarshal(raw, &t) != nil || t < 1 || t > len(g.Members) {
			return g, Fail("privacygroup: threshold must be an integer from 1 to the number of members")
		}
		g.Threshold = t
	}
	return g, nil
}

// statesArg reads a list of states to create, with ids distinct (else
// ReasonStateExists).
func statesArg(raw json.RawMessage, nonEmpty bool, what string) ([]PrivacyState, error) {
	l, err := listArg(raw, MaxPrivacyIO, nonEmpty, what)
	if err != nil {
		return nil, err
	}
	out := make([]PrivacyState, 0, len(l))
	seen := map[string]bool{}
	for _, r := range l {
		sf, err := decodeObject(r, "privacygroup: a state", "id", "owner", "data")
		if err != nil {
			return nil, err
		}
		var s PrivacyState
		if s.ID, err = idArg(sf["id"], "a state's id"); err != nil {
			return nil, err
		}
		if o, ok := sf["owner"]; ok {
			if json.Unmarshal(o, &s.Owner) != nil || len(s.Owner) > MaxPrivacyID || !utf8.ValidString(s.Owner) {
				return nil, Fail("privacygroup: a state's owner must be a string of at most %d bytes", MaxPrivacyID)
			}
		}
		s.Data = compactJSON(sf["data"])
		if len(s.Data) == 0 || len(s.Data) > MaxPrivacyData {
			return nil, Fail("privacygroup: a state's data is required: any JSON of at most %d bytes", MaxPrivacyData)
		}
		if seen[s.ID] {
			return nil, Fail(ReasonStateExists)
		}
		seen[s.ID] = true
		out = append(out, s)
	}
	return out, nil
}

func decodeMint(args json.RawMessage) (string, []PrivacyState, error) {
	f, err := decodeObject(args, "privacygroup: mint args", "group", "states")
	if err != nil {
		return "", nil, err
	}
	g, err := groupArg(f)
	if err != nil {
		return "", nil, err
	}
	states, err := statesArg(f["states"], true, "states")
	return g, states, err
}

// confirmArgs are a confirm's decoded args.
type confirmArgs struct {
	Group        string
	TxID         string
	Spends       []string
	Creates      []PrivacyState
	Endorsements []PrivacyEndorsement
	sigs         [][]byte // the endorsements' signatures, decoded
}

func decodeConfirm(args json.RawMessage) (confirmArgs, error) {
	var c confirmArgs
	f, err := decodeObject(args, "privacygroup: confirm args", "group", "txId", "spends", "creates", "endorsements")
	if err != nil {
		return c, err
	}
	if c.Group, err = groupArg(f); err != nil {
		return c, err
	}
	if c.TxID, err = idArg(f["txId"], "txId"); err != nil {
		return c, err
	}
	sp, err := listArg(f["spends"], MaxPrivacyIO, false, "spends")
	if err != nil {
		return c, err
	}
	for _, r := range sp {
		id, err := idArg(r, "a spent state's id")
		if err != nil {
			return c, err
		}
		c.Spends = append(c.Spends, id)
	}
	if c.Creates, err = statesArg(f["creates"], false, "creates"); err != nil {
		return c, err
	}
	es, err := listArg(f["endorsements"], MaxPrivacyMembers, true, "endorsements")
	if err != nil {
		return c, err
	}
	for _, r := range es {
		ef, err := decodeObject(r, "privacygroup: an endorsement", "member", "signature")
		if err != nil {
			return c, err
		}
		var e PrivacyEndorsement
		if e.Member, err = idArg(ef["member"], "an endorsement's member"); err != nil {
			return c, err
		}
		sig, err := hexArg(ef["signature"], ed25519.SignatureSize, "an endorsement's signature")
		if err != nil {
			return c, err
		}
		e.Signature = hex.EncodeToString(sig)
		c.Endorsements = append(c.Endorsements, e)
		c.sigs = append(c.sigs, sig)
	}
	return c, nil
}

// endorsed checks c's endorsements against g: each by a member, no member
// twice, each a valid signature over the intent's digest, and at least the
// threshold of them. It returns the endorsers in order.
func (c *confirmArgs) endorsed(g PrivacyGroupInfo) ([]string, bool) {
	keys := make(map[string]ed25519.PublicKey, len(g.Members))
	for _, m := range g.Members {
		k, err := hex.DecodeString(m.PublicKey)
		if err != nil || len(k) != ed25519.PublicKeySize {
			return nil, false
		}
		keys[m.ID] = k
	}
	d := PrivacyDigest(c.Group, c.TxID, c.Spends, c.Creates)
	seen := map[string]bool{}
	out := make([]string, 0, len(c.Endorsements))
	for i, e := range c.Endorsements {
		k, ok := keys[e.Member]
		if !ok || seen[e.Member] || !ed25519.Verify(k, d[:], c.sigs[i]) {
			return nil, false
		}
		seen[e.Member] = true
		out = append(out, e.Member)
	}
	return out, len(out) >= g.Threshold
}

package chaintest

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
)

// suiteNode is a node identity of the nodes suite: its key, id and the
// fingerprint of a certificate.
type suiteNode struct {
	key ed25519.PrivateKey
	id  string
	fp  string
}

func newSuiteNode(name string) suiteNode {
	k := chain.KeyFromSeed("chaintest/nodes/" + name)
	fp := sha256.Sum256([]byte("certificate of " + name))
	return suiteNode{key: k, id: devchain.NodeIDOf(k.Public().(ed25519.PublicKey)), fp: hex.EncodeToString(fp[:])}
}

func (n suiteNode) pub() string { return hex.EncodeToString(n.key.Public().(ed25519.PublicKey)) }

// reg is n's signed register at endpoint with seq.
func (n suiteNode) reg(endpoint string, seq uint64) devchain.NodeRegistration {
	return devchain.SignNodeRegistration(n.key, n.id, n.fp, endpoint, seq)
}

// dereg is n's signed deregister with seq.
func (n suiteNode) dereg(seq uint64) devchain.NodeDeregistration {
	return devchain.SignNodeDeregistration(n.key, n.id, seq)
}

// entry is the entry n's register at endpoint with seq writes at height.
func (n suiteNode) entry(endpoint string, seq, height uint64) devchain.NodeEntry {
	return devchain.NodeEntry{ID: n.id, PublicKey: n.pub(), Fingerprint: n.fp, Endpoint: endpoint, Seq: seq, Height: height}
}

// registeredEvent is the NodeRegistered event of n's register.
func (n suiteNode) registeredEvent(endpoint string, seq uint64) devchain.NodeRegistered {
	return devchain.NodeRegistered{ID: n.id, PublicKey: n.pub(), Fingerprint: n.fp, Endpoint: endpoint, Seq: seq}
}

func (c *caller) nodes(method string, args any) chain.Hash {
	c.e.t.Helper()
	s, ok := args.(string)
	if !ok {
		s = c.e.mustJSON(args)
	}
	return c.send(devchain.NodesContract, method, s)
}

// node reads id's entry; ok is false when it is not registered.
func (e *env) node(id string) (devchain.NodeEntry, bool) {
	e.t.Helper()
	raw, err := e.read(devchain.NodesContract, "node", fmt.Sprintf(`{"id":%q}`, id))
	if errors.Is(err, chain.ErrNotFound) {
		return devchain.NodeEntry{}, false
	}
	var v devchain.NodeEntry
	if err != nil || json.Unmarshal(raw, &v) != nil {
		e.t.Fatalf("node %s: %s, %v", id, raw, err)
	}
	return v, true
}

// wantNode checks id's entry is want.
func (e *env) wantNode(want devchain.NodeEntry) {
	e.t.Helper()
	if got, ok := e.node(want.ID); !ok || got != want {
		e.t.Fatalf("node %s: %+v (registered %v), want %+v", want.ID, got, ok, want)
	}
}

// nodeList reads the nodes read.
func (e *env) nodeList() []devchain.NodeEntry {
	e.t.Helper()
	var v struct {
		Nodes []devchain.NodeEntry `json:"nodes"`
	}
	e.mustRead(devchain.NodesContract, "nodes", `{}`, &v)
	return v.Nodes
}

// nodeSeq reads the seq read of id.
func (e *env) nodeSeq(id string) devchain.NodeSeq {
	e.t.Helper()
	var v devchain.NodeSeq
	e.mustRead(devchain.NodesContract, "seq", fmt.Sprintf(`{"id":%q}`, id), &v)
	return v
}

// testNodes: the nodes contract's register, update and deregister, every
// failure reason (no one but the key of an id changes its entry; no signed
// change applies twice or out of order), its events and reads, malformed
// args, a reorg that removes a registration, and a restart.
func testNodes(t *testing.T, f Factory) {
	e := newEnv(t, f)
	a, b := e.caller(e.dev[0]), e.caller(e.dev[1])
	N1, N2, N3 := newSuiteNode("n1"), newSuiteNode("n2"), newSuiteNode("n3")
	nc := devchain.NodesContract

	t.Run("register from any account, update, list", func(t *testing.T) {
		h1 := a.nodes(devchain.NodesRegister, N1.reg("node1.test:7001", 1))
		h2 := b.nodes(devchain.NodesRegister, N2.reg("[::1]:7002", 5)) // any account submits any node's signed entry
		blk := e.mine()
		e.wantEvent(h1, nc, "NodeRegistered", e.mustJSON(N1.registeredEvent("node1.test:7001", 1)))
		e.wantEvent(h2, nc, "NodeRegistered", e.mustJSON(N2.registeredEvent("[::1]:7002", 5)))
		e.wantNode(N1.entry("node1.test:7001", 1, blk.Height))
		e.wantNode(N2.entry("[::1]:7002", 5, blk.Height))
		if _, ok := e.node(N3.id); ok {
			t.Fatal("a node never registered is found")
		}
		want := []devchain.NodeEntry{N1.entry("node1.test:7001", 1, blk.Height), N2.entry("[::1]:7002", 5, blk.Height)}
		if want[0].ID > want[1].ID {
			want[0], want[1] = want[1], want[0]
		}
		if got := e.nodeList(); e.mustJSON(got) != e.mustJSON(want) {
			t.Fatalf("nodes %+v, want %+v by id", got, want)
		}

		// Two updates of one node in one block, in seq order, from another
		// account than the first registration's: both apply.
		u1 := b.nodes(devchain.NodesRegister, N1.reg("node1.test:8001", 2))
		u2 := a.nodes(devchain.NodesRegister, N1.reg("node1.test:9001", 7))
		blk = e.mine()
		e.wantEvent(u1, nc, "NodeRegistered", e.mustJSON(N1.registeredEvent("node1.test:8001", 2)))
		e.wantEvent(u2, nc, "NodeRegistered", e.mustJSON(N1.registeredEvent("node1.test:9001", 7)))
		e.wantNode(N1.entry("node1.test:9001", 7, blk.Height))
		if s := e.nodeSeq(N1.id); s != (devchain.NodeSeq{ID: N1.id, Seq: 7, Registered: true}) {
			t.Fatalf("seq of N1 %+v", s)
		}
		if s := e.nodeSeq(N3.id); s != (devchain.NodeSeq{ID: N3.id}) {
			t.Fatalf("seq of a node never registered %+v", s)
		}
	})

	t.Run("no one else changes an entry", func(t *testing.T) {
		before, _ := e.node(N1.id)
		// N2 claims N1's id with its own key.
		claim := N2.reg("evil.test:1", 100)
		claim.ID = N1.id
		// N2 signs an entry for N1's id and key.
		forged := devchain.SignNodeRegistration(N2.key, N1.id, N2.fp, "evil.test:1", 100)
		forged.PublicKey = N1.pub()
		// N1's own signature, the endpoint changed after signing.
		tampered := N1.reg("node1.test:9001", 100)
		tampered.Endpoint = "evil.test:1"
		tamperedFP := N1.reg("node1.test:9001", 100)
		tamperedFP.Fingerprint = N2.fp
		tamperedSeq := N1.reg("node1.test:9001", 100)
		tamperedSeq.Seq = 101
		// A deregister signature passed off as a register's.
		crossSig := N1.reg("node1.test:9001", 100)
		crossSig.Signature = N1.dereg(100).Signature
		cases := []struct {
			args   devchain.NodeRegistration
			reason string
		}{
			{claim, devchain.ReasonIDMismatch},
			{forged, devchain.ReasonBadSignature},
			{tampered, devchain.ReasonBadSignature},
			{tamperedFP, devchain.ReasonBadSignature},
			{tamperedSeq, devchain.ReasonBadSignature},
			{crossSig, devchain.ReasonBadSignature},
			{N1.reg("node1.test:1", 1), devchain.ReasonStaleSeq}, // a replay
			{N1.reg("node1.test:2", 7), devchain.ReasonStaleSeq}, // the current seq
			{N1.reg("node1.test:3", 2), devchain.ReasonStaleSeq}, // older
		}
		var hs []chain.Hash
		for _, c := range cases {
			hs = append(hs, b.nodes(devchain.NodesRegister, c.args))
		}
		// In one block: the later seq first, then the earlier one.
		late := a.nodes(devchain.NodesRegister, N2.reg("[::1]:7012", 9))
		early := a.nodes(devchain.NodesRegister, N2.reg("[::1]:7011", 8))
		blk := e.mine()
		for i, c := range cases {
			e.wantIncluded(hs[i], false, c.reason)
			e.wantNoEvents(hs[i])
		}
		e.wantNode(before)
		e.wantIncluded(late, true, "")
		e.wantIncluded(early, false, devchain.ReasonStaleSeq)
		e.wantNode(N2.entry("[::1]:7012", 9, blk.Height))
	})

	t.Run("deregister", func(t *testing.T) {
		other := devchain.SignNodeDeregistration(N1.key, N2.id, 20) // N1's key on N2's id
		sigOfReg := devchain.NodeDeregistration{ID: N2.id, Seq: 20, Signature: N2.reg("[::1]:7012", 20).Signature}
		cases := []struct {
			args   devchain.NodeDeregistration
			reason string
		}{
			{other, devchain.ReasonBadSignature},
			{sigOfReg, devchain.ReasonBadSignature},
			{N2.dereg(9), devchain.ReasonStaleSeq},
			{N3.dereg(1), devchain.ReasonNoSuchNode},
		}
		var hs []chain.Hash
		for _, c := range cases {
			hs = append(hs, a.nodes(devchain.NodesDeregister, c.args))
		}
		ok := b.nodes(devchain.NodesDeregister, N2.dereg(10))
		e.mine()
		for i, c := range cases {
			e.wantIncluded(hs[i], false, c.reason)
			e.wantNoEvents(hs[i])
		}
		e.wantEvent(ok, nc, "NodeDeregistered", e.mustJSON(devchain.NodeDeregistered{ID: N2.id, Seq: 10}))
		if _, found := e.node(N2.id); found {
			t.Fatal("a deregistered node is found")
		}
		if got := e.nodeList(); len(got) != 1 || got[0].ID != N1.id {
			t.Fatalf("nodes after the deregister %+v", got)
		}
		if s := e.nodeSeq(N2.id); s != (devchain.NodeSeq{ID: N2.id, Seq: 10}) {
			t.Fatalf("seq of a deregistered node %+v", s)
		}

		// The seq survives: neither an old register nor the deregister is
		// applied again; a newer register is.
		replayReg := a.nodes(devchain.NodesRegister, N2.reg("[::1]:7012", 9))
		replayDereg := a.nodes(devchain.NodesDeregister, N2.dereg(10))
		back := a.nodes(devchain.NodesRegister, N2.reg("n2.test:7002", 11))
		blk := e.mine()
		e.wantIncluded(replayReg, false, devchain.ReasonStaleSeq)
		e.wantIncluded(replayDereg, false, devchain.ReasonNoSuchNode)
		e.wantEvent(back, nc, "NodeRegistered", e.mustJSON(N2.registeredEvent("n2.test:7002", 11)))
		e.wantNode(N2.entry("n2.test:7002", 11, blk.Height))
		again := a.nodes(devchain.NodesDeregister, N2.dereg(10))
		e.mine()
		e.wantIncluded(again, false, devchain.ReasonStaleSeq)
	})

	t.Run("reads", func(t *testing.T) {
		for _, c := range []struct {
			name, method, args string
			want               error
		}{
			{"unknown read", "list", `{}`, chain.ErrUnknownMethod},
			{"not registered", "node", fmt.Sprintf(`{"id":%q}`, N3.id), chain.ErrNotFound},
			{"no id", "node", `{}`, chain.ErrCallFailed},
			{"bad id", "node", `{"id":"n1"}`, chain.ErrCallFailed},
			{"upper-case id", "node", fmt.Sprintf(`{"id":%q}`, strings.ToUpper(N1.id)), chain.ErrCallFailed},
			{"unknown field", "node", fmt.Sprintf(`{"id":%q,"x":1}`, N1.id), chain.ErrCallFailed},
			{"nodes with args", "nodes", `{"id":"x"}`, chain.ErrCallFailed},
			{"seq bad id", "seq", `{"id":7}`, chain.ErrCallFailed},
		} {
			if _, err := e.read(nc, c.method, c.args); !errors.Is(err, c.want) {
				t.Fatalf("Call %s = %v, want %v", c.name, err, c.want)
			}
		}
	})

	t.Run("malformed", func(t *testing.T) {
		good := N3.reg("n3.test:7003", 1)
		with := func(field, value string) string {
			m := map[string]any{"id": good.ID, "publicKey": good.PublicKey, "fingerprint": good.Fingerprint,
				"endpoint": good.Endpoint, "seq": good.Seq, "signature": good.Signature}
			delete(m, field)
			s := e.mustJSON(m)
			if value == "" {
				return s
			}
			return s[:len(s)-1] + fmt.Sprintf(`,%q:%s}`, field, value)
		}
		const (
			id  = `nodes: id must be "n" and 40 characters of lowercase hex`
			pub = "nodes: publicKey must be 64 characters of lowercase hex"
			fp  = "nodes: fingerprint must be 64 characters of lowercase hex"
			ep  = "nodes: endpoint must be host:port, at most 255 bytes of letters, digits and .-_ (or [IPv6]), port 1-65535"
			seq = "nodes: seq must be an integer from 1 to 18446744073709551615"
			sig = "nodes: signature must be 128 characters of lowercase hex"
		)
		cases := []struct{ method, args, reason string }{
			{devchain.NodesRegister, ``, "nodes: register args must be a JSON object"},
			{devchain.NodesRegister, `null`, "nodes: register args must be a JSON object"},
			{devchain.NodesRegister, with("id", ""), id},
			{devchain.NodesRegister, with("id", `"`+strings.ToUpper(good.ID)+`"`), id},
			{devchain.NodesRegister, with("publicKey", `"`+strings.ToUpper(good.PublicKey)+`"`), pub},
			{devchain.NodesRegister, with("publicKey", `"`+good.PublicKey[:62]+`"`), pub},
			{devchain.NodesRegister, with("fingerprint", ""), fp},
			{devchain.NodesRegister, with("fingerprint", `"`+good.Fingerprint[:62]+`"`), fp},
			{devchain.NodesRegister, with("endpoint", `"n3.test"`), ep},
			{devchain.NodesRegister, with("endpoint", `"n3.test:0"`), ep},
			{devchain.NodesRegister, with("endpoint", `"http://n3.test:80"`), ep},
			{devchain.NodesRegister, with("endpoint", `"`+strings.Repeat("h", 256)+`:1"`), ep},
			{devchain.NodesRegister, with("seq", ""), seq},
			{devchain.NodesRegister, with("seq", "0"), seq},
			{devchain.NodesRegister, with("seq", "-1"), seq},
			{devchain.NodesRegister, with("seq", "1.5"), seq},
			{devchain.NodesRegister, with("seq", `"1"`), seq},
			{devchain.NodesRegister, with("seq", "18446744073709551616"), seq},
			{devchain.NodesRegister, with("signature", `"abc"`), sig},
			{devchain.NodesRegister, with("signature", ""), sig},
			{devchain.NodesRegister, with("height", "1"), `nodes: register args has an unknown field "height"`},
			{devchain.NodesDeregister, `{}`, id},
			{devchain.NodesDeregister, fmt.Sprintf(`{"id":%q,"signature":%q}`, N1.id, good.Signature), seq},
			{devchain.NodesDeregister, fmt.Sprintf(`{"id":%q,"seq":9}`, N1.id), sig},
			{devchain.NodesDeregister, fmt.Sprintf(`{"id":%q,"seq":9,"signature":%q,"endpoint":"x:1"}`, N1.id, good.Signature), `nodes: deregister args has an unknown field "endpoint"`},
			{"update", `{}`, `nodes: unknown method "update"`},
		}
		var hs []chain.Hash
		for _, c := range cases {
			hs = append(hs, a.nodes(c.method, c.args))
		}
		e.mine()
		for i, c := range cases {
			e.wantIncluded(hs[i], false, c.reason)
			e.wantNoEvents(hs[i])
		}
		if _, ok := e.node(N3.id); ok {
			t.Fatal("a malformed register registered N3")
		}
	})

	t.Run("a reorg removes a registration", func(t *testing.T) {
		h := a.nodes(devchain.NodesRegister, N3.reg("n3.test:7003", 1))
		e.mine()
		ev := e.wantEvent(h, nc, "NodeRegistered", e.mustJSON(N3.registeredEvent("n3.test:7003", 1)))
		e.setFaults(devchain.FaultUpdate{Reorg: ptr(uint64(1))})
		if _, ok := e.node(N3.id); ok {
			t.Fatal("the registration of a reorged block is still there")
		}
		if s := e.nodeSeq(N3.id); s.Seq != 0 {
			t.Fatalf("seq after the reorg %+v", s)
		}
		e.wantState(h, chain.TxPending)
		blk := e.mine()
		e.wantIncluded(h, true, "")
		if again := e.wantEvent(h, nc, "NodeRegistered", string(ev.Data)); again.Cursor <= ev.Cursor {
			t.Fatalf("event after the reorg at cursor %d, before %d", again.Cursor, ev.Cursor)
		}
		e.wantNode(N3.entry("n3.test:7003", 1, blk.Height))
	})

	t.Run("restart keeps the registry and its seqs", func(t *testing.T) {
		before := e.mustJSON([]any{e.nodeList(), e.nodeSeq(N1.id), e.nodeSeq(N2.id), e.nodeSeq(N3.id)})
		e.restart()
		if got := e.mustJSON([]any{e.nodeList(), e.nodeSeq(N1.id), e.nodeSeq(N2.id), e.nodeSeq(N3.id)}); got != before {
			t.Fatalf("nodes after restart %s, want %s", got, before)
		}
		a.nonce = e.account(a.from).Nonce
		h := a.nodes(devchain.NodesRegister, N1.reg("node1.test:1", 7))
		e.mine()
		e.wantIncluded(h, false, devchain.ReasonStaleSeq)
	})
}

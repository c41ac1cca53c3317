package contracts_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/ordolabs/ordo/internal/chain/evm/contracts"
)

var (
	nodesABI = contracts.NewNodeRegistry()
	setsABI  = contracts.NewReplicaSets()
)

// replNode is a node of seed 004: an ed25519 identity (its id derived as
// devchain's) and the account it registers from.
type replNode struct {
	id  [20]byte
	pub [32]byte
	acc actor
}

func newReplNode(t *testing.T, name string, acc actor) replNode {
	t.Helper()
	seed := sha256.Sum256([]byte("ordo/test/node/" + name))
	pub := ed25519.NewKeyFromSeed(seed[:]).Public().(ed25519.PublicKey)
	sum := sha256.Sum256(pub)
	var n replNode
	copy(n.id[:], sum[:20])
	copy(n.pub[:], pub)
	n.acc = acc
	return n
}

// register is the calldata of n's register at seq with endpoint ep; the
// contract stores the signature opaquely, so any 64 bytes do here.
func (n replNode) register(ep string, seq uint64) []byte {
	return nodesABI.PackRegister(n.id, n.pub, sha256.Sum256([]byte(ep)), ep, seq, make([]byte, 64))
}

// replHarness is the harness with a NodeRegistry and a ReplicaSets over it.
type replHarness struct {
	*harness
	reg, sets common.Address
}

func newReplHarness(t *testing.T) *replHarness {
	h := newHarness(t)
	reg := h.deploy(contracts.NodeRegistryMetaData.Bin, nodesABI.PackConstructor(h.router))
	return &replHarness{harness: h, reg: reg, sets: h.deploy(contracts.ReplicaSetsMetaData.Bin, setsABI.PackConstructor(h.router, reg))}
}

// refusal runs data from `from` as an eth_call and returns the reason of
// the contract's Refused error ("" when the call passes); a passing call is
// then sent and must succeed.
func (h *replHarness) refusal(from actor, to common.Address, data []byte) string {
	h.t.Helper()
	_, rd, err := h.call(from, to, data)
	if err == nil {
		if r := h.send(from, &to, data, 1_000_000); r.Status != types.ReceiptStatusSuccessful {
			h.t.Fatalf("%x passed as a call and reverted as a transaction", data[:4])
		}
		return ""
	}
	switch {
	case isError(rd, contracts.NodeRegistryRefusedErrorID()):
		if e, uerr := nodesABI.UnpackRefusedError(rd[4:]); uerr == nil {
			return e.Reason
		}
	case isError(rd, contracts.ReplicaSetsRefusedErrorID()):
		if e, uerr := setsABI.UnpackRefusedError(rd[4:]); uerr == nil {
			return e.Reason
		}
	}
	h.t.Fatalf("%x reverted with %x (%v), not Refused", data[:4], rd, err)
	return ""
}

// isError reports whether revert data rd is the custom error of id.
func isError(rd []byte, id common.Hash) bool {
	return len(rd) >= 4 && bytes.Equal(rd[:4], id[:4])
}

// calldataGas is the intrinsic gas of data: 4 per zero byte, 16 per other.
func calldataGas(data []byte) uint64 {
	var g uint64
	for _, b := range data {
		if b == 0 {
			g += 4
		} else {
			g += 16
		}
	}
	return g
}

func (h *replHarness) node(id [20]byte) (contracts.NodeRegistryNode, bool) {
	h.t.Helper()
	out, rd, err := h.call(h.stranger, h.reg, nodesABI.PackNode(id))
	if err != nil {
		if !isError(rd, contracts.NodeRegistryNotFoundErrorID()) {
			h.t.Fatalf("node: %v", err)
		}
		return contracts.NodeRegistryNode{}, false
	}
	n, err := nodesABI.UnpackNode(out)
	if err != nil {
		h.t.Fatal(err)
	}
	return n, true
}

func (h *replHarness) set(queue string) (contracts.ReplicaSetsReplicaSet, bool) {
	h.t.Helper()
	out, rd, err := h.call(h.stranger, h.sets, setsABI.PackSet(queue))
	if err != nil {
		if !isError(rd, contracts.ReplicaSetsNotFoundErrorID()) {
			h.t.Fatalf("set: %v", err)
		}
		return contracts.ReplicaSetsReplicaSet{}, false
	}
	s, err := setsABI.UnpackSet(out)
	if err != nil {
		h.t.Fatal(err)
	}
	return s, true
}

func upd(queue string, primary replNode, replaces uint64, signer replNode, secondaries ...replNode) contracts.ReplicaSetsUpdate {
	u := contracts.ReplicaSetsUpdate{Queue: queue, Primary: primary.id, Secondaries: [][20]byte{}, Replaces: replaces, Signer: signer.id}
	for _, s := range secondaries {
		u.Secondaries = append(u.Secondaries, s.id)
	}
	return u
}

// TestNodeRegistry: an id is bound to the account of its first register
// and only that account changes or removes it; the id must derive from the
// public key; seqs only grow, across a deregister; through the router the
// account is the submitter (ERC-2771); page lists every id ever bound.
func TestNodeRegistry(t *testing.T) {
	t.Parallel()
	h := newReplHarness(t)
	n1, n2 := newReplNode(t, "n1", h.node1), newReplNode(t, "n2", h.node2)

	bad := n1
	bad.pub[0] ^= 1
	longEP := string(make([]byte, 256))
	for _, c := range []struct {
		name, want string
		data       []byte
	}{
		{"id not of the key", "id_mismatch", bad.register("n1.test:7001", 1)},
		{"empty endpoint", "bad_entry", n1.register("", 1)},
		{"endpoint too long", "bad_entry", n1.register(longEP, 1)},
		{"short signature", "bad_entry", nodesABI.PackRegister(n1.id, n1.pub, [32]byte{}, "n1.test:1", 1, make([]byte, 63))},
		{"seq 0", "stale_seq", n1.register("n1.test:7001", 0)},
	} {
		if got := h.refusal(h.node1, h.reg, c.data); got != c.want {
			t.Errorf("%s: refused %q, want %q", c.name, got, c.want)
		}
	}
	if got := h.refusal(h.node1, h.reg, n1.register("n1.test:7001", 1)); got != "" {
		t.Fatalf("n1's first register refused: %s", got)
	}
	e, ok := h.node(n1.id)
	if !ok || e.Account != h.node1.addr || e.Seq != 1 || !e.Registered || e.Endpoint != "n1.test:7001" || e.PublicKey != n1.pub {
		t.Fatalf("n1's entry: %+v (found %t)", e, ok)
	}
	for _, c := range []struct {
		name, want string
		from       actor
		data       []byte
	}{
		{"another account", "not_the_account", h.node2, n1.register("evil.test:1", 9)},
		{"a replay", "stale_seq", h.node1, n1.register("n1.test:7001", 1)},
		{"a deregister from another account", "not_the_account", h.stranger, nodesABI.PackDeregister(n1.id, 9)},
		{"an unknown id's deregister", "no_such_node", h.node2, nodesABI.PackDeregister(n2.id, 1)},
		{"a newer entry", "", h.node1, n1.register("n1.test:8001", 5)},
		{"an older entry", "stale_seq", h.node1, n1.register("n1.test:7001", 4)},
	} {
		if got := h.refusal(c.from, h.reg, c.data); got != c.want {
			t.Errorf("%s: refused %q, want %q", c.name, got, c.want)
		}
	}
	if e, _ := h.node(n1.id); e.Endpoint != "n1.test:8001" || e.Seq != 5 || e.Account != h.node1.addr {
		t.Errorf("after the changes n1 is %+v", e)
	}

	// node2 registers n2 through the router: its account is the submitter.
	if o := h.execute(h.node2, "reg-n2", []contracts.OrdoRouterCall{{Target: h.reg, Data: n2.register("[::1]:7002", 3)}}); o.kind != "applied" {
		t.Fatalf("n2's register through the router: %+v", o)
	}
	if e, ok := h.node(n2.id); !ok || e.Account != h.node2.addr {
		t.Fatalf("n2 through the router: %+v", e)
	}

	if got := h.refusal(h.node2, h.reg, nodesABI.PackDeregister(n2.id, 4)); got != "" {
		t.Fatalf("n2's deregister refused: %s", got)
	}
	if _, ok := h.node(n2.id); ok {
		t.Error("n2 is readable after its deregister")
	}
	seq, err := nodesABI.UnpackNodeSeq(libCall(h.harness, h.reg, nodesABI.PackNodeSeq(n2.id)))
	if err != nil || seq.Seq != 4 || seq.Registered {
		t.Errorf("n2's seq after deregister: %+v %v", seq, err)
	}
	acc, _ := nodesABI.UnpackAccountOf(libCall(h.harness, h.reg, nodesABI.PackAccountOf(n2.id)))
	if acc != (common.Address{}) {
		t.Errorf("a deregistered id has account %s", acc)
	}
	for _, c := range []struct {
		name, want string
		from       actor
		data       []byte
	}{
		{"a replayed register after the deregister", "stale_seq", h.node2, n2.register("[::1]:7002", 3)},
		{"another account's register of the removed id", "not_the_account", h.node1, n2.register("evil.test:1", 10)},
		{"its own account's register", "", h.node2, n2.register("n2.test:7002", 6)},
	} {
		if got := h.refusal(c.from, h.reg, c.data); got != c.want {
			t.Errorf("%s: refused %q, want %q", c.name, got, c.want)
		}
	}
	page, err := nodesABI.UnpackPage(libCall(h.harness, h.reg, nodesABI.PackPage(big.NewInt(0), big.NewInt(10))))
	if err != nil || len(page) != 2 || page[0].Id != n1.id || page[1].Id != n2.id || page[1].Seq != 6 {
		t.Errorf("page: %+v %v", page, err)
	}
	if s, _ := nodesABI.UnpackSequence(libCall(h.harness, h.reg, nodesABI.PackSequence())); s != 5 {
		t.Errorf("sequence %d after 4 registers and a deregister, want 5", s)
	}
}

// TestReplicaSets: a new queue's set comes from its primary; an update
// names the version it replaces and comes from a member's account; every
// member is registered; updateMany applies each update on the state the
// ones before it left and reports each refusal as an event.
func TestReplicaSets(t *testing.T) {
	t.Parallel()
	h := newReplHarness(t)
	n1, n2, n3 := newReplNode(t, "n1", h.node1), newReplNode(t, "n2", h.node2), newReplNode(t, "n3", h.owner)
	ghost := newReplNode(t, "ghost", h.stranger) // never registered
	for i, n := range []replNode{n1, n2, n3} {
		if got := h.refusal(n.acc, h.reg, n.register(fmt.Sprintf("n%d.test:7000", i+1), 1)); got != "" {
			t.Fatal(got)
		}
	}
	for _, c := range []struct {
		name, want string
		from       actor
		u          contracts.ReplicaSetsUpdate
	}{
		{"another account than the signer's", "not_the_signer", h.node2, upd("q", n1, 0, n1, n2)},
		{"a new queue not from its primary", "not_a_member", h.node1, upd("q", n2, 0, n1, n3)},
		{"replaces a version the queue does not have", "stale_replica_set", h.node1, upd("q", n1, 1, n1, n2)},
		{"an unknown secondary", "unknown_node", h.node1, upd("q", n1, 0, n1, ghost)},
		{"an unknown signer", "unknown_node", h.stranger, upd("q", ghost, 0, ghost)},
		{"a repeated secondary", "bad_update", h.node1, upd("q", n1, 0, n1, n2, n2)},
		{"the primary as secondary", "bad_update", h.node1, upd("q", n1, 0, n1, n1)},
		{"no queue", "bad_update", h.node1, upd("", n1, 0, n1, n2)},
		{"the first set", "", h.node1, upd("q", n1, 0, n1, n2)},
		{"a non-member", "not_a_member", h.owner, upd("q", n3, 1, n3, n1)},
		{"the secondary takes over", "", h.node2, upd("q", n2, 1, n2, n3)},
		{"the deposed primary, late", "stale_replica_set", h.node1, upd("q", n1, 1, n1, n2)},
		{"a deposed member", "not_a_member", h.node1, upd("q", n1, 2, n1, n2)},
	} {
		if got := h.refusal(c.from, h.sets, setsABI.PackUpdate(c.u)); got != c.want {
			t.Errorf("%s: refused %q, want %q", c.name, got, c.want)
		}
	}
	s, ok := h.set("q")
	if !ok || s.Primary != n2.id || !slices.Equal(s.Secondaries, [][20]byte{n3.id}) || s.Version != 2 || s.UpdatedBy != n2.id {
		t.Fatalf("q's set: %+v", s)
	}
	if _, ok := h.set("none"); ok {
		t.Error("a queue without a set is readable")
	}

	// One batch: a new queue, a stale update, then an update of the new
	// queue that needs the first one applied.
	r := h.send(h.node1, &h.sets, setsABI.PackUpdateMany([]contracts.ReplicaSetsUpdate{
		upd("a", n1, 0, n1, n2), upd("q", n1, 1, n1), upd("a", n1, 1, n1, n3),
	}), 1_000_000)
	var evs []string
	for _, l := range r.Logs {
		if e, err := setsABI.UnpackReplicaSetUpdatedEvent(l); err == nil {
			evs = append(evs, fmt.Sprintf("updated %s v%d", e.Queue, e.Version))
		} else if e, err := setsABI.UnpackReplicaSetRefusedEvent(l); err == nil {
			evs = append(evs, fmt.Sprintf("refused %s r%d %s", e.Queue, e.Replaces, e.Reason))
		}
	}
	if want := []string{"updated a v1", "refused q r1 stale_replica_set", "updated a v2"}; r.Status != 1 || !slices.Equal(evs, want) {
		t.Errorf("updateMany: status %d, events %q, want %q", r.Status, evs, want)
	}
	if got := h.refusal(h.node1, h.sets, setsABI.PackUpdateMany(nil)); got != "bad_update" {
		t.Errorf("an empty batch: refused %q", got)
	}

	// Through the router the signer's account is the submitter.
	u := upd("b", n2, 0, n2, n1)
	if o := h.execute(h.node2, "sets-b", []contracts.OrdoRouterCall{{Target: h.sets, Data: setsABI.PackUpdate(u)}}); o.kind != "applied" {
		t.Fatalf("an update through the router: %+v", o)
	}
	if o := h.execute(h.node1, "sets-b2", []contracts.OrdoRouterCall{{Target: h.sets, Data: setsABI.PackUpdate(upd("b", n1, 1, n2))}}); o.kind != "failed" {
		t.Errorf("n2's update submitted by n1's account: %+v", o)
	}

	// Pages of two, in the order of their first update.
	var queues []string
	after := ""
	for range 5 {
		p, err := setsABI.UnpackSets(libCall(h.harness, h.sets, setsABI.PackSets(after, big.NewInt(2))))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range p.Items {
			queues = append(queues, s.Queue)
		}
		if after = p.Next; after == "" {
			break
		}
	}
	if !slices.Equal(queues, []string{"q", "a", "b"}) {
		t.Errorf("pages: %q", queues)
	}
}

// TestReplicationGas logs each method's gas (the figures
// docs/evm-contracts.md gives), holds each under a budget about 5% above
// it, and checks that a new node and a new queue cost the same after many
// entries as before: no cost grows with the number of past entries.
func TestReplicationGas(t *testing.T) {
	t.Parallel()
	h := newReplHarness(t)
	type figures struct{ gas, exec map[string]uint64 }
	round := 0
	measure := func() figures {
		round++
		k := fmt.Sprintf("%08d", round) // fixed width: the same calldata length every round
		a, b, c := newReplNode(t, "a"+k, h.node1), newReplNode(t, "b"+k, h.node2), newReplNode(t, "c"+k, h.owner)
		ep := "node-" + k + ".test:7000"
		f := figures{map[string]uint64{}, map[string]uint64{}}
		// note sends data and keeps the gas it used, and that less its
		// calldata's intrinsic gas, which varies with the zero bytes of
		// each round's keys.
		note := func(name string, from actor, to common.Address, data []byte) {
			r := h.send(from, &to, data, 2_000_000)
			if r.Status != 1 {
				t.Fatalf("%s reverted", name)
			}
			if name != "" {
				f.gas[name], f.exec[name] = r.GasUsed, r.GasUsed-calldataGas(data)
			}
		}
		note("register (a new node)", h.node1, h.reg, a.register(ep, 1))
		note("register (again)", h.node1, h.reg, a.register(ep, 2))
		note("", h.node2, h.reg, b.register(ep, 1))
		note("", h.owner, h.reg, c.register(ep, 1))
		note("update (a new queue, 2 secondaries)", h.node1, h.sets, setsABI.PackUpdate(upd("q"+k, a, 0, a, b, c)))
		note("update (failover, 1 secondary)", h.node2, h.sets, setsABI.PackUpdate(upd("q"+k, b, 1, b, c)))
		batch := make([]contracts.ReplicaSetsUpdate, 8)
		for i := range batch {
			batch[i] = upd(fmt.Sprintf("m%s-%d", k, i), a, 0, a, b, c)
		}
		note("updateMany (8 new queues, 2 secondaries)", h.node1, h.sets, setsABI.PackUpdateMany(batch))
		for i := range batch {
			batch[i] = upd(fmt.Sprintf("m%s-%d", k, i), b, 1, a, c)
		}
		note("updateMany (8 failovers)", h.node1, h.sets, setsABI.PackUpdateMany(batch))
		note("deregister", h.node1, h.reg, nodesABI.PackDeregister(a.id, 3))
		return f
	}
	measure() // the contracts' first entries also set their counters
	first := measure()
	for range 20 {
		measure()
	}
	last := measure()
	budgets := map[string]uint64{
		"register (a new node)": 188_800, "register (again)": 58_600, "deregister": 36_600,
		"update (a new queue, 2 secondaries)": 223_400, "update (failover, 1 secondary)": 69_600,
		"updateMany (8 new queues, 2 secondaries)": 1_533_700, "updateMany (8 failovers)": 352_200,
	}
	for _, name := range slices.Sorted(maps.Keys(first.gas)) {
		g := first.gas[name]
		t.Logf("%-42s %d gas", name, g)
		if g > budgets[name] {
			t.Errorf("%s used %d gas, over its budget %d", name, g, budgets[name])
		}
		if last.exec[name] != first.exec[name] {
			t.Errorf("%s: %d gas past its calldata after 20 rounds of entries, %d before: its cost grows with past entries",
				name, last.exec[name], first.exec[name])
		}
	}
}

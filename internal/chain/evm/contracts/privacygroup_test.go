package contracts_test

import (
	"fmt"
	"maps"
	"math/big"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/ordolabs/ordo/internal/chain/evm"
	"github.com/ordolabs/ordo/internal/chain/evm/contracts"
)

var pgABI = contracts.NewPrivacyGroup()

// pgEnv is a PrivacyGroup on the harness's chain with group "g": members
// A, B, C (endorsing keys of their own), threshold 2, minted m1..m4 by the
// harness's owner.
type pgEnv struct {
	*harness
	pg      common.Address
	members map[string]actor
}

func newPGEnv(t *testing.T) *pgEnv {
	t.Helper()
	h := newHarness(t)
	e := &pgEnv{harness: h, pg: h.deploy(contracts.PrivacyGroupMetaData.Bin, pgABI.PackConstructor(h.router)), members: map[string]actor{}}
	var ms []contracts.PrivacyGroupMember
	for _, id := range []string{"A", "B", "C"} {
		a := newActor(t, "endorser/"+id)
		e.members[id] = a
		ms = append(ms, contracts.PrivacyGroupMember{Id: id, Signer: a.addr})
	}
	e.ok(h.owner, pgABI.PackDeploy("g", ms, 2))
	e.ok(h.owner, pgABI.PackMint("g", []contracts.PrivacyGroupState{st("m1"), st("m2"), st("m3"), st("m4")}))
	return e
}

func st(id string) contracts.PrivacyGroupState {
	return contracts.PrivacyGroupState{Id: id, Owner: "alice@A", Data: `{"amount":"5"}`}
}

func (e *pgEnv) ok(from actor, data []byte) *types.Receipt {
	e.t.Helper()
	r := e.send(from, &e.pg, data, 2_000_000)
	if r.Status != types.ReceiptStatusSuccessful {
		e.t.Fatalf("%x reverted: %s", data[:4], e.why(from, data))
	}
	return r
}

// why is the custom error an eth_call of data reverts with, decoded.
func (e *pgEnv) why(from actor, data []byte) string {
	e.t.Helper()
	_, rd, err := e.call(from, e.pg, data)
	if err == nil {
		return "no revert"
	}
	v, uerr := pgABI.UnpackError(rd)
	if uerr != nil {
		return fmt.Sprintf("%v (%x)", err, rd)
	}
	return fmt.Sprintf("%T%+v", v, v)
}

// digest is the intent's EIP-712 digest as Go computes it.
func (e *pgEnv) digest(txID string, spends []string, creates []contracts.PrivacyGroupState) [32]byte {
	cs := make([]evm.PrivacyState, len(creates))
	for i, c := range creates {
		cs[i] = evm.PrivacyState{ID: c.Id, Owner: c.Owner, Data: c.Data}
	}
	return evm.PrivacyDigest(e.chainID, e.pg, "g", txID, spends, cs)
}

// confirm packs a confirm endorsed by the members named (each signing the
// digest with its own key).
func (e *pgEnv) confirm(txID string, spends []string, creates []contracts.PrivacyGroupState, by ...string) []byte {
	e.t.Helper()
	d := e.digest(txID, spends, creates)
	var ends []contracts.PrivacyGroupEndorsement
	for _, m := range by {
		sig, err := evm.SignPrivacy(e.members[m].key, d)
		if err != nil {
			e.t.Fatal(err)
		}
		ends = append(ends, contracts.PrivacyGroupEndorsement{Member: m, Signature: sig})
	}
	return pgABI.PackConfirm("g", txID, spends, creates, ends)
}

func (e *pgEnv) state(id string) contracts.StateOfOutput {
	e.t.Helper()
	out, _, err := e.call(e.stranger, e.pg, pgABI.PackStateOf("g", id))
	if err != nil {
		e.t.Fatalf("stateOf %s: %s", id, e.why(e.stranger, pgABI.PackStateOf("g", id)))
	}
	s, err := pgABI.UnpackStateOf(out)
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

func (e *pgEnv) confirmedEvents(r *types.Receipt) []*contracts.PrivacyGroupIntentConfirmed {
	e.t.Helper()
	var out []*contracts.PrivacyGroupIntentConfirmed
	id := pgABI.GetABI().Events["IntentConfirmed"].ID
	for _, l := range r.Logs {
		if l.Address == e.pg && l.Topics[0] == id {
			ev, err := pgABI.UnpackIntentConfirmedEvent(l)
			if err != nil {
				e.t.Fatal(err)
			}
			out = append(out, ev)
		}
	}
	return out
}

func TestPrivacyGroupDigestMatchesGo(t *testing.T) {
	t.Parallel()
	e := newPGEnv(t)
	for _, c := range []struct {
		txID    string
		spends  []string
		creates []contracts.PrivacyGroupState
	}{
		{"t", nil, nil},
		{"t1", []string{"m1", "m2"}, []contracts.PrivacyGroupState{st("x"), {Id: "y", Data: `{}`}}},
		{"a much longer transaction id than thirty-two bytes", []string{"m3"}, nil},
	} {
		out, _, err := e.call(e.stranger, e.pg, pgABI.PackDigestOf("g", c.txID, c.spends, c.creates))
		if err != nil {
			t.Fatal(err)
		}
		got, err := pgABI.UnpackDigestOf(out)
		if err != nil {
			t.Fatal(err)
		}
		if want := e.digest(c.txID, c.spends, c.creates); got != want {
			t.Fatalf("digestOf(%s) = %x, Go's PrivacyDigest %x", c.txID, got, want)
		}
	}
}

func TestPrivacyGroupConfirm(t *testing.T) {
	t.Parallel()
	e := newPGEnv(t)
	r := e.ok(e.stranger, e.confirm("t1", []string{"m1"}, []contracts.PrivacyGroupState{st("c1")}, "A", "B"))
	evs := e.confirmedEvents(r)
	if len(evs) != 1 || evs[0].TxId != "t1" || fmt.Sprint(evs[0].Spends, evs[0].Creates) != "[m1] [c1]" ||
		evs[0].Digest != e.digest("t1", []string{"m1"}, []contracts.PrivacyGroupState{st("c1")}) {
		t.Fatalf("IntentConfirmed events %+v", evs)
	}
	if s := e.state("m1"); !s.Spent || s.SpentAt != r.BlockNumber.Uint64() {
		t.Fatalf("m1 after its spend: %+v", s)
	}
	if s := e.state("c1"); s.Spent || s.CreatedAt != r.BlockNumber.Uint64() {
		t.Fatalf("c1 created: %+v", s)
	}
	out, _, err := e.call(e.stranger, e.pg, pgABI.PackIntentOf("g", "t1"))
	if err != nil {
		t.Fatal(err)
	}
	if at, _ := pgABI.UnpackIntentOf(out); at.Uint64() != r.BlockNumber.Uint64() {
		t.Fatalf("intentOf t1 = %v, want %v", at, r.BlockNumber)
	}

	// A signature whose s is the high twin of a valid one (EIP-2).
	highS := func() []byte {
		d := e.digest("t9", []string{"m2"}, nil)
		sig, _ := evm.SignPrivacy(e.members["A"].key, d)
		n, _ := new(big.Int).SetString("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141", 16)
		s := new(big.Int).Sub(n, new(big.Int).SetBytes(sig[32:64]))
		copy(sig[32:64], common.LeftPadBytes(s.Bytes(), 32))
		sig[64] ^= 1
		b, _ := evm.SignPrivacy(e.members["B"].key, d)
		return pgABI.PackConfirm("g", "t9", []string{"m2"}, nil, []contracts.PrivacyGroupEndorsement{{Member: "A", Signature: sig}, {Member: "B", Signature: b}})
	}()
	swap := func(txID string, by []string, sigOf func(i int) []byte) []byte {
		var ends []contracts.PrivacyGroupEndorsement
		for i, m := range by {
			ends = append(ends, contracts.PrivacyGroupEndorsement{Member: m, Signature: sigOf(i)})
		}
		return pgABI.PackConfirm("g", txID, []string{"m2"}, nil, ends)
	}
	sign := func(txID, who string) []byte {
		sig, err := evm.SignPrivacy(e.members[who].key, e.digest(txID, []string{"m2"}, nil))
		if err != nil {
			t.Fatal(err)
		}
		return sig
	}
	stranger := func(txID string) []byte {
		sig, _ := evm.SignPrivacy(e.stranger.key, e.digest(txID, []string{"m2"}, nil))
		return sig
	}
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"an empty signature", swap("t3", []string{"A", "B"}, func(int) []byte { return []byte{} }), "BadSignature"},
		{"a signature over another intent", swap("t3", []string{"A", "B"}, func(i int) []byte { return sign([]string{"t3", "other"}[i], []string{"A", "B"}[i]) }), "WrongSigner"},
		{"a truncated signature", swap("t3", []string{"A", "B"}, func(i int) []byte { return sign("t3", []string{"A", "B"}[i])[:64] }), "BadSignature"},
		{"a high s", highS, "BadSignature"},
		{"a member naming another's signature", swap("t3", []string{"A", "B"}, func(i int) []byte { return sign("t3", []string{"A", "C"}[i]) }), "WrongSigner"},
		{"an outsider's key", swap("t3", []string{"A", "B"}, func(i int) []byte {
			return []func() []byte{func() []byte { return sign("t3", "A") }, func() []byte { return stranger("t3") }}[i]()
		}), "WrongSigner"},
		{"a member that is none", swap("t3", []string{"A", "D"}, func(int) []byte { return sign("t3", "A") }), "WrongSigner"},
		{"a duplicate signer", swap("t3", []string{"A", "A"}, func(int) []byte { return sign("t3", "A") }), "DuplicateSigner"},
		{"below threshold", e.confirm("t3", []string{"m2"}, nil, "C"), "BelowThreshold"},
		{"no endorsement", e.confirm("t3", []string{"m2"}, nil), "BelowThreshold"},
		{"a double spend", e.confirm("t4", []string{"m1"}, nil, "A", "B"), "StateSpent"},
		{"a state listed twice", e.confirm("t5", []string{"m2", "m2"}, nil, "A", "B"), "StateSpent"},
		{"no such state", e.confirm("t6", []string{"zz"}, nil, "A", "B"), "NoSuchState"},
		{"a created id in use", e.confirm("t7", []string{"m2"}, []contracts.PrivacyGroupState{st("m3")}, "A", "B"), "StateExists"},
		{"the intent confirmed twice", e.confirm("t1", []string{"m2"}, nil, "A", "B"), "IntentAlreadyConfirmed"},
		{"a group never deployed", pgABI.PackConfirm("nope", "t8", nil, nil, nil), "NoSuchGroup"},
	}
	for _, c := range cases {
		r := e.send(e.stranger, &e.pg, c.data, 1_000_000)
		if r.Status != 0 {
			t.Fatalf("%s: included successfully", c.name)
		}
		if got := e.why(e.stranger, c.data); !containsType(got, c.want) {
			t.Fatalf("%s: reverts with %s, want %s", c.name, got, c.want)
		}
	}
	if s := e.state("m2"); s.Spent {
		t.Fatalf("m2 spent by a refused confirm: %+v", s)
	}
	// The refused ones leave the intent open: t3 confirms with good endorsements.
	e.ok(e.stranger, e.confirm("t3", []string{"m2"}, nil, "C", "A"))
}

func containsType(got, want string) bool {
	return len(got) >= len("*contracts.PrivacyGroup")+len(want) && got[len("*contracts.PrivacyGroup"):][:len(want)] == want
}

func TestPrivacyGroupDeployAndMint(t *testing.T) {
	t.Parallel()
	e := newPGEnv(t)
	a, b := e.members["A"], e.members["B"]
	cases := []struct {
		name string
		from actor
		data []byte
		want string
	}{
		{"a group deployed twice", e.stranger, pgABI.PackDeploy("g", []contracts.PrivacyGroupMember{{Id: "A", Signer: a.addr}}, 1), "GroupExists"},
		{"no members", e.stranger, pgABI.PackDeploy("h", nil, 0), "BadMembers"},
		{"a member twice", e.stranger, pgABI.PackDeploy("h", []contracts.PrivacyGroupMember{{Id: "A", Signer: a.addr}, {Id: "A", Signer: b.addr}}, 0), "BadMembers"},
		{"a signer twice", e.stranger, pgABI.PackDeploy("h", []contracts.PrivacyGroupMember{{Id: "A", Signer: a.addr}, {Id: "B", Signer: a.addr}}, 0), "BadMembers"},
		{"a threshold above the members", e.stranger, pgABI.PackDeploy("h", []contracts.PrivacyGroupMember{{Id: "A", Signer: a.addr}}, 2), "BadThreshold"},
		{"a mint by another than the deployer", e.stranger, pgABI.PackMint("g", []contracts.PrivacyGroupState{st("n")}), "NotDeployer"},
		{"a minted id in use", e.owner, pgABI.PackMint("g", []contracts.PrivacyGroupState{st("n"), st("m1")}), "StateExists"},
		{"a mint of a group never deployed", e.owner, pgABI.PackMint("h", []contracts.PrivacyGroupState{st("n")}), "NoSuchGroup"},
	}
	for _, c := range cases {
		if r := e.send(c.from, &e.pg, c.data, 1_000_000); r.Status != 0 {
			t.Fatalf("%s: included successfully", c.name)
		}
		if got := e.why(c.from, c.data); !containsType(got, c.want) {
			t.Fatalf("%s: reverts with %s, want %s", c.name, got, c.want)
		}
	}
	if _, _, err := e.call(e.stranger, e.pg, pgABI.PackStateOf("g", "n")); err == nil {
		t.Fatal("a refused mint created a state")
	}
	out, _, err := e.call(e.stranger, e.pg, pgABI.PackGroupOf("g"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := pgABI.UnpackGroupOf(out)
	if err != nil || g.Deployer != e.owner.addr || g.Threshold != 2 || g.Size != 3 {
		t.Fatalf("groupOf g = %+v, %v", g, err)
	}
	// Threshold 0 is every member.
	e.ok(e.stranger, pgABI.PackDeploy("all", []contracts.PrivacyGroupMember{{Id: "A", Signer: a.addr}, {Id: "B", Signer: b.addr}}, 0))
	out, _, _ = e.call(e.stranger, e.pg, pgABI.PackGroupOf("all"))
	if g, _ := pgABI.UnpackGroupOf(out); g.Threshold != 2 || g.Deployer != e.stranger.addr {
		t.Fatalf("groupOf all = %+v", g)
	}
}

// TestPrivacyGroupChainedInOneBlock: five confirms in one block, each
// spending the output of the one before; a sixth spending an output the
// chain spent already is refused.
func TestPrivacyGroupChainedInOneBlock(t *testing.T) {
	t.Parallel()
	e := newPGEnv(t)
	nonce, err := e.cl.PendingNonceAt(e.ctx, e.stranger.addr)
	if err != nil {
		t.Fatal(err)
	}
	var txs []*types.Transaction
	prev := "m3"
	for i := range 6 {
		next := fmt.Sprintf("k%d", i)
		data := e.confirm("chain"+next, []string{prev}, []contracts.PrivacyGroupState{st(next)}, "A", "B")
		if i == 5 {
			data = e.confirm("conflict", []string{"k1"}, nil, "A", "B")
		}
		tx := types.MustSignNewTx(e.stranger.key, types.LatestSignerForChainID(e.chainID), &types.DynamicFeeTx{
			ChainID: e.chainID, Nonce: nonce + uint64(i), GasTipCap: big.NewInt(gwei), GasFeeCap: big.NewInt(100 * gwei),
			Gas: 1_000_000, To: &e.pg, Data: data})
		if err := e.cl.SendTransaction(e.ctx, tx); err != nil {
			t.Fatal(err)
		}
		txs = append(txs, tx)
		prev = next
	}
	e.sim.Commit()
	var block uint64
	for i, tx := range txs {
		r, err := e.cl.TransactionReceipt(e.ctx, tx.Hash())
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			block = r.BlockNumber.Uint64()
		}
		if r.BlockNumber.Uint64() != block {
			t.Fatalf("confirm %d in block %v, want %d", i, r.BlockNumber, block)
		}
		if wantOK := i < 5; (r.Status == 1) != wantOK {
			t.Fatalf("confirm %d: status %d", i, r.Status)
		}
	}
	if s := e.state("k3"); !s.Spent || s.SpentAt != block {
		t.Fatalf("k3: %+v", s)
	}
	if s := e.state("k4"); s.Spent {
		t.Fatalf("k4 spent: %+v", s)
	}
}

// TestPrivacyGroupGas logs each method's gas, holds it under a budget
// about 5% above, and checks that no cost grows with the number of past
// groups, states and intents.
func TestPrivacyGroupGas(t *testing.T) {
	t.Parallel()
	e := newPGEnv(t)
	// exec is each method's gas less its calldata's (4 per zero byte, 16
	// per other): signatures differ in their zero bytes from round to round.
	exec := map[string]uint64{}
	gas := func(name string, data []byte) uint64 {
		used := e.ok(e.owner, data).GasUsed
		var cd uint64
		for _, b := range data {
			cd += map[bool]uint64{true: 4, false: 16}[b == 0]
		}
		exec[name] = used - cd
		return used
	}
	round := 0
	measure := func() (map[string]uint64, map[string]uint64) {
		clear(exec)
		round++
		k := fmt.Sprintf("%04d", round) // fixed width: the same calldata cost every round
		ms := []contracts.PrivacyGroupMember{{Id: "A", Signer: e.members["A"].addr}, {Id: "B", Signer: e.members["B"].addr}, {Id: "C", Signer: e.members["C"].addr}}
		out := map[string]uint64{
			"deploy (3 members)": gas("deploy (3 members)", pgABI.PackDeploy("g"+k, ms, 2)),
			"mint (2 states)":    gas("mint (2 states)", pgABI.PackMint("g", []contracts.PrivacyGroupState{st("a" + k), st("b" + k)})),
		}
		const c1, c2 = "confirm (1 in, 2 out, 2 of 3)", "confirm (2 in, 1 out, 3 of 3)"
		out[c1] = gas(c1, e.confirm("t"+k, []string{"a" + k}, []contracts.PrivacyGroupState{st("c" + k), st("d" + k)}, "A", "B"))
		out[c2] = gas(c2, e.confirm("u"+k, []string{"b" + k, "c" + k}, []contracts.PrivacyGroupState{st("e" + k)}, "A", "B", "C"))
		return out, maps.Clone(exec)
	}
	first, firstExec := measure()
	for range 20 {
		measure()
	}
	_, lastExec := measure()
	budgets := map[string]uint64{
		"deploy (3 members)": 208_000, "mint (2 states)": 93_800,
		"confirm (1 in, 2 out, 2 of 3)": 146_800, "confirm (2 in, 1 out, 3 of 3)": 136_000,
	}
	names := slices.Sorted(maps.Keys(first))
	for _, name := range names {
		g := first[name]
		t.Logf("%-31s %d gas", name, g)
		if b := budgets[name]; g > b {
			t.Errorf("%s used %d gas, over its budget %d", name, g, b)
		}
		if lastExec[name] != firstExec[name] {
			t.Errorf("%s: %d gas besides calldata after 20 rounds of entries, %d before: its cost grows with past entries", name, lastExec[name], firstExec[name])
		}
	}
}

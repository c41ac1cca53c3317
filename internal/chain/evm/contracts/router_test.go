package contracts_test

import (
	"bytes"
	"fmt"
	"math/big"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/ordolabs/ordo/internal/chain/evm/contracts"
)

// errData is the revert data of the custom error name of a with args.
func errData(a abi.ABI, name string, args ...any) []byte {
	e, ok := a.Errors[name]
	if !ok {
		panic("no error " + name)
	}
	enc, err := e.Inputs.Pack(args...)
	if err != nil {
		panic(err)
	}
	return append(slices.Clone(e.ID[:4]), enc...)
}

func uidOf(memo string) common.Hash { return crypto.Keccak256Hash([]byte(memo)) }

// step is one router transaction and the outcome its receipt must show.
type step struct {
	by    string // node1, node2 or stranger
	memo  string
	calls func(h *harness) []contracts.OrdoRouterCall
	want  string // applied, duplicate, conflict, failed, reverted
	index uint64 // failed: the failing call
	// reason is the failing call's revert data (failed), or the revert data
	// of the transaction itself, read by eth_call (reverted).
	reason func(h *harness) []byte
}

func (h *harness) actor(name string) actor {
	switch name {
	case "node1":
		return h.node1
	case "node2":
		return h.node2
	case "stranger":
		return h.stranger
	}
	h.t.Fatalf("no actor %q", name)
	return actor{}
}

// TestRouterSemantics drives the router through intents on a simulated chain
// and checks the outcome event of each, and the Voting state afterwards.
func TestRouterSemantics(t *testing.T) {
	t.Parallel()
	createAndVote := func(h *harness) []contracts.OrdoRouterCall {
		return []contracts.OrdoRouterCall{h.create("c1"), h.vote("c1", "v1", true)}
	}
	createOther := func(h *harness) []contracts.OrdoRouterCall {
		return []contracts.OrdoRouterCall{h.create("c2")}
	}
	voteOnMissing := func(h *harness) []contracts.OrdoRouterCall {
		return []contracts.OrdoRouterCall{h.create("c1"), h.vote("missing", "v1", true)}
	}
	notFound := func(account string) func(h *harness) []byte {
		return func(*harness) []byte { return errData(votingABI.GetABI(), "NotFound", account) }
	}
	// claimIs checks the claim voting account c1, or that it does not exist.
	claimIs := func(exists bool, creator string, yes uint64) func(t *testing.T, h *harness) {
		return func(t *testing.T, h *harness) {
			c, rd := h.claim("c1")
			if !exists {
				if want := errData(votingABI.GetABI(), "NotFound", "c1"); !bytes.Equal(rd, want) {
					t.Errorf("claim c1 exists (%+v, revert %x): the failed batch was not rolled back", c, rd)
				}
				return
			}
			if rd != nil {
				t.Fatalf("claim c1: reverted %x", rd)
			}
			if c.Creator != h.actor(creator).addr || c.Yes != yes {
				t.Errorf("claim c1 = creator %s yes %d, want creator %s (%s) yes %d", c.Creator, c.Yes, h.actor(creator).addr, creator, yes)
			}
		}
	}

	tests := []struct {
		name  string
		steps []step
		check func(t *testing.T, h *harness)
	}{
		{
			name:  "applied, and the target saw the submitting account",
			steps: []step{{by: "node1", memo: "tx_a", calls: createAndVote, want: "applied"}},
			check: func(t *testing.T, h *harness) {
				claimIs(true, "node1", 1)(t, h)
				if n := h.votesBy(h.node1); n != 1 {
					t.Errorf("votesBy(node1) = %d, want 1", n)
				}
				if n := h.votesBy(h.stranger); n != 0 {
					t.Errorf("votesBy(stranger) = %d, want 0", n)
				}
			},
		},
		{
			name: "the same intent again is a duplicate, applied once",
			steps: []step{
				{by: "node1", memo: "tx_a", calls: createAndVote, want: "applied"},
				{by: "node1", memo: "tx_a", calls: createAndVote, want: "duplicate"},
			},
			check: claimIs(true, "node1", 1),
		},
		{
			name: "another node that took the queue over gets a duplicate",
			steps: []step{
				{by: "node1", memo: "tx_a", calls: createAndVote, want: "applied"},
				{by: "node2", memo: "tx_a", calls: createAndVote, want: "duplicate"},
			},
			check: claimIs(true, "node1", 1),
		},
		{
			name: "the same uid with other calls is a conflict, and they do not run",
			steps: []step{
				{by: "node1", memo: "tx_a", calls: createAndVote, want: "applied"},
				{by: "node2", memo: "tx_a", calls: createOther, want: "conflict"},
			},
			check: func(t *testing.T, h *harness) {
				if _, rd := h.claim("c2"); !bytes.Equal(rd, errData(votingABI.GetABI(), "NotFound", "c2")) {
					t.Errorf("claim c2 exists after a conflict (revert %x)", rd)
				}
			},
		},
		{
			name: "a failing 2nd call fails the intent and rolls the 1st back",
			steps: []step{
				{by: "node1", memo: "tx_f", calls: voteOnMissing, want: "failed", index: 1, reason: notFound("missing")},
			},
			check: claimIs(false, "", 0),
		},
		{
			name: "a failed intent records nothing: its retry applies",
			steps: []step{
				{by: "node1", memo: "tx_f", calls: voteOnMissing, want: "failed", index: 1, reason: notFound("missing")},
				{by: "node2", memo: "tx_f", calls: createAndVote, want: "applied"},
			},
			check: claimIs(true, "node2", 1),
		},
		{
			name: "a stranger copying a pending intent's memo cannot burn its uid",
			steps: []step{
				{by: "stranger", memo: "tx_a", calls: createOther, want: "reverted",
					reason: func(h *harness) []byte {
						return errData(routerABI.GetABI(), "NotSubmitter", h.stranger.addr)
					}},
				{by: "node1", memo: "tx_a", calls: createAndVote, want: "applied"},
			},
			check: claimIs(true, "node1", 1),
		},
		{
			name: "a call to the router itself fails",
			steps: []step{{by: "node1", memo: "tx_r", want: "failed", index: 1,
				calls: func(h *harness) []contracts.OrdoRouterCall {
					self := contracts.OrdoRouterCall{Target: h.router, Data: routerABI.PackSetSubmitter(h.stranger.addr, true)}
					return []contracts.OrdoRouterCall{h.create("c1"), self}
				},
				reason: func(*harness) []byte { return errData(routerABI.GetABI(), "TargetIsRouter") }}},
			check: claimIs(false, "", 0),
		},
		{
			name: "a call to an account without code fails",
			steps: []step{{by: "node1", memo: "tx_n", want: "failed", index: 0,
				calls: func(h *harness) []contracts.OrdoRouterCall {
					return []contracts.OrdoRouterCall{{Target: h.stranger.addr, Data: []byte{1, 2, 3, 4}}}
				},
				reason: func(h *harness) []byte { return errData(routerABI.GetABI(), "TargetHasNoCode", h.stranger.addr) }}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			for i, s := range tc.steps {
				from, calls := h.actor(s.by), s.calls(h)
				if s.want == "reverted" {
					_, rd, err := h.call(from, h.router, routerABI.PackExecute(s.memo, calls))
					if want := s.reason(h); err == nil || !bytes.Equal(rd, want) {
						t.Fatalf("step %d: eth_call reverts with %x (err %v), want %x", i, rd, err, want)
					}
				}
				o := h.execute(from, s.memo, calls)
				t.Logf("step %d: %s by %s: %s, %d gas", i, s.memo, s.by, o.kind, o.gas)
				if o.kind != s.want {
					t.Fatalf("step %d: outcome %s, want %s", i, o.kind, s.want)
				}
				if s.want == "reverted" {
					continue
				}
				if o.uid != uidOf(s.memo) || o.submitter != from.addr {
					t.Errorf("step %d: event uid %s submitter %s, want %s %s", i, o.uid, o.submitter, uidOf(s.memo), from.addr)
				}
				if s.want == "failed" {
					if want := s.reason(h); o.index != s.index || !bytes.Equal(o.reason, want) {
						t.Errorf("step %d: failed at %d with %x, want %d with %x", i, o.index, o.reason, s.index, want)
					}
				}
			}
			if tc.check != nil {
				tc.check(t, h)
			}
		})
	}
}

// TestAccessControl: only the router may run a batch, only the owner may
// change the submitters, and what the owner changes takes effect.
func TestAccessControl(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	calls := []contracts.OrdoRouterCall{h.create("c1")}
	var callsHash [32]byte
	copy(callsHash[:], mustCall(t, h, routerABI.PackCallsHashOf(calls)))
	refused := []struct {
		name string
		by   actor
		data []byte
		want []byte
	}{
		{"a stranger runs a batch", h.stranger, routerABI.PackApplyBatch(uidOf("tx_a"), callsHash, h.node1.addr, calls),
			errData(routerABI.GetABI(), "OnlySelf")},
		{"a submitter runs a batch", h.node1, routerABI.PackApplyBatch(uidOf("tx_a"), callsHash, h.node1.addr, calls),
			errData(routerABI.GetABI(), "OnlySelf")},
		{"a stranger adds itself", h.stranger, routerABI.PackSetSubmitter(h.stranger.addr, true),
			errData(routerABI.GetABI(), "NotOwner", h.stranger.addr)},
		{"a submitter adds a stranger", h.node1, routerABI.PackSetSubmitter(h.stranger.addr, true),
			errData(routerABI.GetABI(), "NotOwner", h.node1.addr)},
		{"a stranger takes the router over", h.stranger, routerABI.PackTransferOwnership(h.stranger.addr),
			errData(routerABI.GetABI(), "NotOwner", h.stranger.addr)},
	}
	for _, tc := range refused {
		if _, rd, err := h.call(tc.by, h.router, tc.data); err == nil || !bytes.Equal(rd, tc.want) {
			t.Errorf("%s: eth_call reverts with %x (err %v), want %x", tc.name, rd, err, tc.want)
		}
		if r := h.send(tc.by, &h.router, tc.data, 500_000); r.Status != 0 {
			t.Errorf("%s: the transaction succeeded", tc.name)
		}
	}
	if o := h.execute(h.node1, "tx_a", calls); o.kind != "applied" {
		t.Fatalf("tx_a after the refused attempts: %s, want applied", o.kind)
	}

	// The owner lets the stranger in and node2 out.
	for _, d := range [][]byte{routerABI.PackSetSubmitter(h.stranger.addr, true), routerABI.PackSetSubmitter(h.node2.addr, false)} {
		if r := h.send(h.owner, &h.router, d, 500_000); r.Status != 1 {
			t.Fatalf("owner's setSubmitter reverted")
		}
	}
	if o := h.execute(h.stranger, "tx_b", []contracts.OrdoRouterCall{h.create("c2")}); o.kind != "applied" {
		t.Errorf("an added submitter's intent: %s, want applied", o.kind)
	}
	if o := h.execute(h.node2, "tx_c", []contracts.OrdoRouterCall{h.create("c3")}); o.kind != "reverted" {
		t.Errorf("a removed submitter's intent: %s, want reverted", o.kind)
	}
}

// TestRecipientTrustsOnlyRouter: a target believes the appended sender only
// from the router; anyone else calling it directly is its own sender, whatever
// it appends.
func TestRecipientTrustsOnlyRouter(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	forged := append(votingABI.PackCreateClaimVotingAccount("c1", "forged"), h.node1.addr.Bytes()...)
	if r := h.send(h.stranger, &h.voting, forged, 500_000); r.Status != 1 {
		t.Fatalf("direct call reverted")
	}
	c, rd := h.claim("c1")
	if rd != nil {
		t.Fatalf("claim c1: reverted %x", rd)
	}
	if c.Creator != h.stranger.addr {
		t.Errorf("creator = %s, want the direct caller %s (not the forged %s)", c.Creator, h.stranger.addr, h.node1.addr)
	}
	out, _, err := h.call(h.stranger, h.voting, votingABI.PackIsTrustedForwarder(h.router))
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := votingABI.UnpackIsTrustedForwarder(out); err != nil || !ok {
		t.Errorf("isTrustedForwarder(router) = %v, %v; want true", ok, err)
	}
}

// TestExecuteStrict: eth_estimateGas on executeStrict gives a limit that
// execute applies with, and reverts with the reason where execute would
// report a failure, a duplicate or a conflict; a limit too small for the batch
// reverts the transaction rather than failing the intent.
func TestExecuteStrict(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	good := []contracts.OrdoRouterCall{h.create("c1"), h.vote("c1", "v1", true)}
	bad := []contracts.OrdoRouterCall{h.create("c2"), h.vote("missing", "v1", true)}

	strictGas, rd, err := h.estimate(h.node1, h.router, routerABI.PackExecuteStrict("tx_a", good))
	if err != nil {
		t.Fatalf("estimate executeStrict: %v (revert %x)", err, rd)
	}
	looseGas, _, err := h.estimate(h.node1, h.router, routerABI.PackExecute("tx_a", good))
	if err != nil {
		t.Fatalf("estimate execute: %v", err)
	}
	t.Logf("eth_estimateGas: executeStrict %d, execute %d", strictGas, looseGas)

	if o := h.outcome(h.send(h.node1, &h.router, routerABI.PackExecute("tx_a", good), strictGas)); o.kind != "applied" {
		t.Fatalf("execute with the strict estimate %d: %s, want applied", strictGas, o.kind)
	}

	// Too little gas for the batch: the transaction reverts, and the intent is
	// neither reported failed nor burnt. The intent is large, so that the 1/64
	// of the gas the router's frame keeps (EIP-150) suffices to report a
	// failure: without the out-of-gas guard, it would.
	var large []contracts.OrdoRouterCall
	for i := range 12 {
		large = append(large, h.create(fmt.Sprintf("large-%d", i)))
	}
	largeGas, rd, err := h.estimate(h.node1, h.router, routerABI.PackExecuteStrict("tx_large", large))
	if err != nil {
		t.Fatalf("estimate executeStrict: %v (revert %x)", err, rd)
	}
	for _, pct := range []uint64{45, 60, 75, 90, 99} {
		limit := largeGas * pct / 100
		if o := h.outcome(h.send(h.node1, &h.router, routerABI.PackExecute("tx_large", large), limit)); o.kind != "reverted" {
			t.Errorf("execute with %d gas (%d%% of the estimate %d): %s (call %d, %x), want reverted",
				limit, pct, largeGas, o.kind, o.index, o.reason)
		}
	}
	if o := h.outcome(h.send(h.node1, &h.router, routerABI.PackExecute("tx_large", large), largeGas)); o.kind != "applied" {
		t.Fatalf("execute with the strict estimate %d: %s, want applied", largeGas, o.kind)
	}

	uid := uidOf("tx_a")
	rec, err := routerABI.UnpackRecords(mustCall(t, h, routerABI.PackRecords(uid)))
	if err != nil {
		t.Fatal(err)
	}
	callsHash := mustCall(t, h, routerABI.PackCallsHashOf(good))
	if rec.AppliedAt == 0 || !bytes.Equal(rec.CallsHash[:], callsHash[:24]) {
		t.Fatalf("records(uid) = %+v after it applied, want a block and the first 24 bytes of %x", rec, callsHash)
	}

	tests := []struct {
		name  string
		memo  string
		calls []contracts.OrdoRouterCall
		want  []byte
	}{
		{"duplicate", "tx_a", good, errData(routerABI.GetABI(), "IntentAlreadyApplied", uid, rec.AppliedAt)},
		{"conflict", "tx_a", bad, errData(routerABI.GetABI(), "IntentConflicts", uid, rec.AppliedAt)},
		{"failed", "tx_b", bad, errData(routerABI.GetABI(), "CallFailed", big.NewInt(1), errData(votingABI.GetABI(), "NotFound", "missing"))},
	}
	for _, tc := range tests {
		g, rd, err := h.estimate(h.node1, h.router, routerABI.PackExecuteStrict(tc.memo, tc.calls))
		if err == nil || !bytes.Equal(rd, tc.want) {
			t.Errorf("%s: estimate executeStrict = %d, revert %x (err %v); want revert %x", tc.name, g, rd, err, tc.want)
		}
	}
	if o := h.outcome(h.send(h.node1, &h.router, routerABI.PackExecuteStrict("tx_b", bad), 1_000_000)); o.kind != "reverted" {
		t.Errorf("executeStrict of a failing intent: %s, want reverted", o.kind)
	}
}

func mustCall(t *testing.T, h *harness, data []byte) []byte {
	t.Helper()
	out, rd, err := h.call(h.stranger, h.router, data)
	if err != nil {
		t.Fatalf("call: %v (revert %x)", err, rd)
	}
	return out
}

// TestGasBudget applies, repeats and fails a one-vote intent on the pinned
// forks (through Osaka), logs the gas each used (the figures
// docs/evm-contracts.md gives) and holds each under a budget about 5% above
// it, so that a change that costs more (a second storage slot per intent is
// 22,100) is seen.
func TestGasBudget(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	if o := h.execute(h.node1, "tx_setup", []contracts.OrdoRouterCall{h.create("c1")}); o.kind != "applied" {
		t.Fatalf("setup: %s", o.kind)
	}
	vote := []contracts.OrdoRouterCall{h.vote("c1", "v1", true)}
	fail := []contracts.OrdoRouterCall{h.vote("c1", "v2", true), h.vote("missing", "v2", true)}
	for _, s := range []struct {
		memo   string
		calls  []contracts.OrdoRouterCall
		want   string
		budget uint64
	}{
		{"tx_vote", vote, "applied", 95_000},
		{"tx_vote", vote, "duplicate", 34_000},
		{"tx_fail", fail, "failed", 89_000},
	} {
		o := h.execute(h.node1, s.memo, s.calls)
		if o.kind != s.want {
			t.Fatalf("%s: %s, want %s", s.memo, o.kind, s.want)
		}
		t.Logf("%-9s (%d calls): %d gas", s.want, len(s.calls), o.gas)
		if o.gas > s.budget {
			t.Errorf("%s used %d gas, over its budget %d", s.want, o.gas, s.budget)
		}
	}
}

package contracts_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/ordolabs/ordo/internal/chain/evm/contracts"
)

// TestRouterVotingGas measures every method of the router and Voting that
// a transaction calls, holds each under a budget about 5% above, and
// checks that none costs more after twenty rounds of entries than before:
// every write is a slot found by a hash of its key. (Some cost less later:
// a counter per sender is written from zero once.) The figures are the
// README's table. applyBatch is the router's call to itself (refused from
// anyone else), measured inside execute.
func TestRouterVotingGas(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	gas := func(from actor, to common.Address, data []byte) uint64 {
		t.Helper()
		r := h.send(from, &to, data, 1_000_000)
		if r.Status != 1 {
			t.Fatalf("%x reverted", data[:4])
		}
		return r.GasUsed
	}
	intent := func(memo string, calls []contracts.OrdoRouterCall, want string) uint64 {
		t.Helper()
		o := h.execute(h.node1, memo, calls)
		if o.kind != want {
			t.Fatalf("%s: %s, want %s", memo, o.kind, want)
		}
		return o.gas
	}
	transfer := func() uint64 { // to the stranger and back: the owner stays
		g := gas(h.owner, h.router, routerABI.PackTransferOwnership(h.stranger.addr))
		gas(h.stranger, h.router, routerABI.PackTransferOwnership(h.owner.addr))
		return g
	}
	round := 0
	measure := func() map[string]uint64 {
		round++
		k := fmt.Sprintf("%08d", round) // fixed width: the same calldata cost every round
		fresh := common.BytesToAddress(crypto.Keccak256([]byte("submitter " + k)))
		vote := []contracts.OrdoRouterCall{h.vote("c"+k, "v", true)}
		return map[string]uint64{
			"setSubmitter (allow)":                 gas(h.owner, h.router, routerABI.PackSetSubmitter(fresh, true)),
			"setSubmitter (revoke)":                gas(h.owner, h.router, routerABI.PackSetSubmitter(fresh, false)),
			"transferOwnership":                    transfer(),
			"execute (create, applied)":            intent("tx_c"+k, []contracts.OrdoRouterCall{h.create("c" + k)}, "applied"),
			"execute (one vote, applied)":          intent("tx_v"+k, vote, "applied"),
			"execute (duplicate)":                  intent("tx_v"+k, vote, "duplicate"),
			"execute (conflict)":                   intent("tx_v"+k, []contracts.OrdoRouterCall{h.vote("c"+k, "w", true)}, "conflict"),
			"execute (failed)":                     intent("tx_f"+k, []contracts.OrdoRouterCall{h.vote("missing"+k, "v", true)}, "failed"),
			"createClaimVotingAccount (direct)":    gas(h.stranger, h.voting, votingABI.PackCreateClaimVotingAccount("d"+k, "title of d"+k)),
			"sendClaimVote (direct, first vote)":   gas(h.stranger, h.voting, votingABI.PackSendClaimVote("d"+k, "v", true)),
			"sendClaimVote (direct, another vote)": gas(h.stranger, h.voting, votingABI.PackSendClaimVote("d"+k, "w", false)),
		}
	}
	first := measure()
	for range 20 {
		measure()
	}
	last := measure()
	budgets := map[string]uint64{
		"setSubmitter (allow)": 50_200, "setSubmitter (revoke)": 27_200, "transferOwnership": 30_100,
		"execute (create, applied)": 113_500, "execute (one vote, applied)": 95_600, "execute (duplicate)": 34_000,
		"execute (conflict)": 34_300, "execute (failed)": 68_100,
		"createClaimVotingAccount (direct)": 75_000, "sendClaimVote (direct, first vote)": 57_200,
		"sendClaimVote (direct, another vote)": 59_200,
	}
	for _, name := range slices.Sorted(maps.Keys(first)) {
		g := first[name]
		t.Logf("%-37s %d gas", name, g)
		if g > budgets[name] {
			t.Errorf("%s used %d gas, over its budget %d", name, g, budgets[name])
		}
		if last[name] > g { // less is a slot written before (a sender's first vote)
			t.Errorf("%s: %d gas after 20 rounds of entries, %d before: its cost grows with past entries", name, last[name], g)
		}
	}
}

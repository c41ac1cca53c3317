package contracts_test

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/node"

	"github.com/ordolabs/ordo/internal/chain/evm/contracts"
)

const gwei = 1_000_000_000

var (
	routerABI = contracts.NewOrdoRouter()
	votingABI = contracts.NewVoting()
)

// actor is an account with its key: fixed per name, so runs are alike.
type actor struct {
	name string
	key  *ecdsa.PrivateKey
	addr common.Address
}

func newActor(t *testing.T, name string) actor {
	t.Helper()
	k, err := crypto.ToECDSA(crypto.Keccak256([]byte("ordo/test/" + name)))
	if err != nil {
		t.Fatal(err)
	}
	return actor{name: name, key: k, addr: crypto.PubkeyToAddress(k.PublicKey)}
}

// harness is a simulated chain with the router and Voting deployed: node1
// and node2 are the router's submitters (two ordo nodes' senders), owner
// deployed both, stranger is anyone else.
type harness struct {
	t                             *testing.T
	ctx                           context.Context
	sim                           *simulated.Backend
	cl                            simulated.Client
	chainID                       *big.Int
	router, voting                common.Address
	owner, node1, node2, stranger actor
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	h := &harness{t: t, ctx: t.Context(),
		owner: newActor(t, "owner"), node1: newActor(t, "node1"), node2: newActor(t, "node2"), stranger: newActor(t, "stranger")}
	alloc := types.GenesisAlloc{}
	ether := new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil)
	for _, a := range []actor{h.owner, h.node1, h.node2, h.stranger} {
		alloc[a.addr] = types.Account{Balance: new(big.Int).Mul(big.NewInt(1000), ether)}
	}
	h.sim = simulated.NewBackend(alloc, throughOsaka)
	t.Cleanup(func() {
		if err := h.sim.Close(); err != nil {
			t.Errorf("closing the simulated chain: %v", err)
		}
	})
	h.cl = h.sim.Client()
	id, err := h.cl.ChainID(h.ctx)
	if err != nil {
		t.Fatal(err)
	}
	h.chainID = id
	h.router = h.deploy(contracts.OrdoRouterMetaData.Bin, routerABI.PackConstructor([]common.Address{h.node1.addr, h.node2.addr}))
	h.voting = h.deploy(contracts.VotingMetaData.Bin, votingABI.PackConstructor(h.router))
	return h
}

// throughOsaka pins the simulated chain to the forks Ethereum runs today,
// through Osaka. Its default also turns on the unreleased Amsterdam and Bogota
// rules, whose state-gas metering (EIP-8037) triples the gas of an intent and
// defeats the router's out-of-gas guard (docs/evm-contracts.md).
func throughOsaka(_ *node.Config, e *ethconfig.Config) {
	cfg := *e.Genesis.Config
	cfg.AmsterdamTime, cfg.BogotaTime = nil, nil
	e.Genesis.Config = &cfg
}

func (h *harness) deploy(bin string, args []byte) common.Address {
	h.t.Helper()
	r := h.send(h.owner, nil, append(common.FromHex(bin), args...), 3_000_000)
	if r.Status != types.ReceiptStatusSuccessful {
		h.t.Fatalf("deploy failed: %+v", r)
	}
	return r.ContractAddress
}

// send signs an EIP-1559 transaction with the given gas limit, mines it and
// returns its receipt.
func (h *harness) send(from actor, to *common.Address, data []byte, gas uint64) *types.Receipt {
	h.t.Helper()
	nonce, err := h.cl.PendingNonceAt(h.ctx, from.addr)
	if err != nil {
		h.t.Fatal(err)
	}
	tx := types.MustSignNewTx(from.key, types.LatestSignerForChainID(h.chainID), &types.DynamicFeeTx{
		ChainID: h.chainID, Nonce: nonce, GasTipCap: big.NewInt(gwei), GasFeeCap: big.NewInt(100 * gwei),
		Gas: gas, To: to, Data: data,
	})
	if err := h.cl.SendTransaction(h.ctx, tx); err != nil {
		h.t.Fatalf("send: %v", err)
	}
	h.sim.Commit()
	r, err := h.cl.TransactionReceipt(h.ctx, tx.Hash())
	if err != nil {
		h.t.Fatalf("receipt: %v", err)
	}
	return r
}

// call runs an eth_call from `from` and returns its output, or the revert
// data with a non-nil error.
func (h *harness) call(from actor, to common.Address, data []byte) ([]byte, []byte, error) {
	h.t.Helper()
	out, err := h.cl.CallContract(h.ctx, ethereum.CallMsg{From: from.addr, To: &to, Data: data}, nil)
	return out, revertData(h.t, err), err
}

// estimate runs eth_estimateGas, returning the revert data with its error.
func (h *harness) estimate(from actor, to common.Address, data []byte) (uint64, []byte, error) {
	h.t.Helper()
	g, err := h.cl.EstimateGas(h.ctx, ethereum.CallMsg{From: from.addr, To: &to, Data: data})
	return g, revertData(h.t, err), err
}

// revertData is the revert data a JSON-RPC error carries (nil for none).
func revertData(t *testing.T, err error) []byte {
	t.Helper()
	var de interface{ ErrorData() any }
	if err == nil || !errors.As(err, &de) {
		return nil
	}
	s, ok := de.ErrorData().(string)
	if !ok {
		t.Fatalf("revert data of %v is %T, not a hex string", err, de.ErrorData())
	}
	return common.FromHex(s)
}

func (h *harness) create(account string) contracts.OrdoRouterCall {
	return contracts.OrdoRouterCall{Target: h.voting, Data: votingABI.PackCreateClaimVotingAccount(account, "title of "+account)}
}

func (h *harness) vote(account, voter string, yes bool) contracts.OrdoRouterCall {
	return contracts.OrdoRouterCall{Target: h.voting, Data: votingABI.PackSendClaimVote(account, voter, yes)}
}

// claim reads the claim voting account, or the revert data when it fails.
func (h *harness) claim(account string) (contracts.ClaimOutput, []byte) {
	h.t.Helper()
	out, rd, err := h.call(h.stranger, h.voting, votingABI.PackClaim(account))
	if err != nil {
		return contracts.ClaimOutput{}, rd
	}
	c, err := votingABI.UnpackClaim(out)
	if err != nil {
		h.t.Fatal(err)
	}
	return c, nil
}

func (h *harness) votesBy(a actor) uint64 {
	h.t.Helper()
	out, _, err := h.call(h.stranger, h.voting, votingABI.PackVotesBy(a.addr))
	if err != nil {
		h.t.Fatal(err)
	}
	n, err := votingABI.UnpackVotesBy(out)
	if err != nil {
		h.t.Fatal(err)
	}
	return n.Uint64()
}

func eventID(name string) common.Hash {
	e, ok := routerABI.GetABI().Events[name]
	if !ok {
		panic("no router event " + name)
	}
	return e.ID
}

// outcome is what a router transaction's receipt says of its intent.
type outcome struct {
	kind      string // applied, duplicate, conflict, failed, or reverted (status 0)
	uid       common.Hash
	submitter common.Address
	index     uint64
	reason    []byte
	gas       uint64
}

// outcome reads the one outcome event the router put in the receipt.
func (h *harness) outcome(r *types.Receipt) outcome {
	h.t.Helper()
	if r.Status != types.ReceiptStatusSuccessful {
		return outcome{kind: "reverted", gas: r.GasUsed}
	}
	var found []outcome
	for _, l := range r.Logs {
		if l.Address != h.router {
			continue
		}
		o := outcome{gas: r.GasUsed}
		var err error
		switch l.Topics[0] {
		case eventID("IntentApplied"):
			var e *contracts.OrdoRouterIntentApplied
			e, err = routerABI.UnpackIntentAppliedEvent(l)
			if err == nil {
				o.kind, o.uid, o.submitter = "applied", e.Uid, e.Submitter
			}
		case eventID("IntentDuplicate"):
			var e *contracts.OrdoRouterIntentDuplicate
			e, err = routerABI.UnpackIntentDuplicateEvent(l)
			if err == nil {
				o.kind, o.uid, o.submitter = "duplicate", e.Uid, e.Submitter
			}
		case eventID("IntentConflict"):
			var e *contracts.OrdoRouterIntentConflict
			e, err = routerABI.UnpackIntentConflictEvent(l)
			if err == nil {
				o.kind, o.uid, o.submitter = "conflict", e.Uid, e.Submitter
			}
		case eventID("IntentFailed"):
			var e *contracts.OrdoRouterIntentFailed
			e, err = routerABI.UnpackIntentFailedEvent(l)
			if err == nil {
				o.kind, o.uid, o.submitter, o.index, o.reason = "failed", e.Uid, e.Submitter, e.Index.Uint64(), e.Reason
			}
		default:
			continue
		}
		if err != nil {
			h.t.Fatalf("decoding the router's log: %v", err)
		}
		found = append(found, o)
	}
	if len(found) != 1 {
		h.t.Fatalf("the receipt has %d outcome events, want 1: %+v", len(found), found)
	}
	return found[0]
}

// execute sends router.execute(memo, calls) from `from` with a gas limit
// that is ample.
func (h *harness) execute(from actor, memo string, calls []contracts.OrdoRouterCall) outcome {
	h.t.Helper()
	return h.outcome(h.send(from, &h.router, routerABI.PackExecute(memo, calls), 2_000_000))
}

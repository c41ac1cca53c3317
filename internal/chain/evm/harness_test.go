package evm_test

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/evm"
	"github.com/ordolabs/ordo/internal/chain/evm/contracts"
)

const gwei = 1_000_000_000

// testKey is a fixed key per name, so runs are alike.
func testKey(t testing.TB, name string) *ecdsa.PrivateKey {
	t.Helper()
	k, err := crypto.ToECDSA(crypto.Keccak256([]byte("ordo/evm-test/" + name)))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// harness is a simulated chain with the router and Voting deployed (node1
// and node2 are the router's submitters, owner deployed both) and a
// Backend on it.
type harness struct {
	t                   testing.TB
	ctx                 context.Context
	sim                 *simulated.Backend
	b                   *evm.Backend
	router, voting      common.Address
	owner, node1, node2 *ecdsa.PrivateKey
	faucet, poor        *ecdsa.PrivateKey
}

// ether is 10^18 wei.
var ether = new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil)

func newHarness(t testing.TB, opts ...func(*node.Config, *ethconfig.Config)) *harness {
	t.Helper()
	h := &harness{t: t, ctx: t.Context(), owner: testKey(t, "owner"), node1: testKey(t, "node1"),
		node2: testKey(t, "node2"), faucet: testKey(t, "faucet"), poor: testKey(t, "poor")}
	alloc := types.GenesisAlloc{}
	for _, k := range []*ecdsa.PrivateKey{h.owner, h.node1, h.node2, h.faucet} {
		alloc[crypto.PubkeyToAddress(k.PublicKey)] = types.Account{Balance: new(big.Int).Mul(big.NewInt(1000), ether)}
	}
	alloc[crypto.PubkeyToAddress(h.poor.PublicKey)] = types.Account{Balance: big.NewInt(1000)}
	h.sim = simulated.NewBackend(alloc, append([]func(*node.Config, *ethconfig.Config){throughOsaka}, opts...)...)
	t.Cleanup(func() {
		if err := h.sim.Close(); err != nil {
			t.Errorf("closing the simulated chain: %v", err)
		}
	})
	h.router = h.deploy(contracts.OrdoRouterMetaData.Bin, contracts.NewOrdoRouter().PackConstructor(
		[]common.Address{crypto.PubkeyToAddress(h.node1.PublicKey), crypto.PubkeyToAddress(h.node2.PublicKey)}))
	h.voting = h.deploy(contracts.VotingMetaData.Bin, contracts.NewVoting().PackConstructor(h.router))
	votingABI, err := evm.BuiltinABI("Voting")
	if err != nil {
		t.Fatal(err)
	}
	h.b, err = evm.NewWithClients(h.ctx, evm.Config{
		ChainID:   1337,
		Router:    h.router,
		Contracts: map[string]evm.Contract{"voting": {Address: h.voting, ABI: votingABI}},
		FaucetKey: h.faucet,
	}, h.sim.Client())
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// throughOsaka pins the simulated chain to the forks through Osaka (see
// contracts/harness_test.go: the unreleased forks' gas metering defeats
// the router's out-of-gas guard).
func throughOsaka(_ *node.Config, e *ethconfig.Config) {
	cfg := *e.Genesis.Config
	cfg.AmsterdamTime, cfg.BogotaTime = nil, nil
	e.Genesis.Config = &cfg
}

// deploy creates a contract from owner and mines it.
func (h *harness) deploy(bin string, args []byte) common.Address {
	h.t.Helper()
	cl := h.sim.Client()
	from := crypto.PubkeyToAddress(h.owner.PublicKey)
	nonce, err := cl.PendingNonceAt(h.ctx, from)
	if err != nil {
		h.t.Fatal(err)
	}
	tx := types.MustSignNewTx(h.owner, types.LatestSignerForChainID(big.NewInt(1337)), &types.DynamicFeeTx{
		ChainID: big.NewInt(1337), Nonce: nonce, GasTipCap: big.NewInt(gwei), GasFeeCap: big.NewInt(100 * gwei),
		Gas: 9_000_000, Data: append(common.FromHex(bin), args...), // the router needs over 3M under the Amsterdam rules
	})
	if err := cl.SendTransaction(h.ctx, tx); err != nil {
		h.t.Fatal(err)
	}
	h.mine()
	r, err := cl.TransactionReceipt(h.ctx, tx.Hash())
	if err != nil || r.Status != types.ReceiptStatusSuccessful {
		h.t.Fatalf("deploy: %v %+v", err, r)
	}
	return r.ContractAddress
}

func addr(k *ecdsa.PrivateKey) chain.Address { return evm.KeyAddress(k) }

// tx is an unsigned transaction from k at its pending nonce with the
// chain's fee floor.
func (h *harness) tx(k *ecdsa.PrivateKey, memo, contract, method, args string) chain.Tx {
	h.t.Helper()
	a, err := h.b.Account(h.ctx, addr(k))
	if err != nil {
		h.t.Fatal(err)
	}
	fee, err := h.b.MinFee(h.ctx)
	if err != nil {
		h.t.Fatal(err)
	}
	tx := chain.Tx{From: addr(k), Nonce: a.PendingNonce, Fee: fee, Contract: contract, Method: method, Memo: memo}
	if args != "" {
		tx.Args = json.RawMessage(args)
	}
	return tx
}

// sign fills the gas limit as the sequencer does and signs.
func (h *harness) sign(tx *chain.Tx, k *ecdsa.PrivateKey) chain.Hash {
	h.t.Helper()
	if err := chain.FillGas(h.ctx, h.b, tx); err != nil {
		h.t.Fatalf("FillGas: %v", err)
	}
	hash, err := h.b.Signer().Sign(tx, k)
	if err != nil {
		h.t.Fatalf("Sign: %v", err)
	}
	return hash
}

// send signs and sends tx; it fails the test on an error.
func (h *harness) send(tx chain.Tx, k *ecdsa.PrivateKey) chain.Hash {
	h.t.Helper()
	want := h.sign(&tx, k)
	got, err := h.b.SendTx(h.ctx, tx)
	if err != nil {
		h.t.Fatalf("SendTx: %v", err)
	}
	if got != want {
		h.t.Fatalf("SendTx returned %s, Sign %s", got, want)
	}
	return got
}

// mined sends tx, mines a block and returns its status.
func (h *harness) mined(tx chain.Tx, k *ecdsa.PrivateKey) chain.TxStatus {
	h.t.Helper()
	hash := h.send(tx, k)
	h.mine()
	return h.status(hash)
}

func (h *harness) status(hash chain.Hash) chain.TxStatus {
	h.t.Helper()
	st, err := h.b.TxStatus(h.ctx, hash)
	if err != nil {
		h.t.Fatalf("TxStatus: %v", err)
	}
	return st
}

// commitUntil mines blocks until cond holds, at most n.
func (h *harness) commit(n int) {
	for range n {
		h.mine()
	}
}

// mine seals a block and waits until the pool has caught up with it.
// go-ethereum's pool resets to a new head on its own goroutine, and the
// simulated chain syncs it only before the next block: until then, a
// send is checked against the old head (a used nonce reads as a
// replacement). The pool has caught up when it holds no transaction
// below its sender's nonce at the head.
func (h *harness) mine() {
	h.t.Helper()
	h.sim.Commit()
	rc := h.rpcClient()
	deadline := time.Now().Add(10 * time.Second)
	for {
		stale, err := h.staleInPool(rc)
		if err == nil && stale == "" {
			return
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("the pool never caught up with the head: %s %v", stale, err)
		}
		time.Sleep(2 * time.Millisecond) // poll with a deadline
	}
}

// rpcClient is the RPC client under the simulated chain's ethclient. The
// simulated client embeds an *ethclient.Client, whose field name hides
// its Client method, so it is read by reflection.
func (h *harness) rpcClient() *rpc.Client {
	h.t.Helper()
	v := reflect.ValueOf(h.sim.Client())
	if v.Kind() == reflect.Struct && v.NumField() > 0 {
		if ec, ok := v.Field(0).Interface().(*ethclient.Client); ok && ec != nil {
			return ec.Client()
		}
	}
	h.t.Fatalf("the simulated client %T embeds no *ethclient.Client", h.sim.Client())
	return nil
}

// staleInPool names a pooled transaction whose nonce its sender has
// already used at the head, or "" when there is none.
func (h *harness) staleInPool(c *rpc.Client) (string, error) {
	var content map[string]map[common.Address]map[string]json.RawMessage
	if err := c.CallContext(h.ctx, &content, "txpool_content"); err != nil {
		return "", fmt.Errorf("txpool_content: %w", err)
	}
	for _, byAddr := range content {
		for a, byNonce := range byAddr {
			used, err := h.sim.Client().NonceAt(h.ctx, a, nil)
			if err != nil {
				return "", fmt.Errorf("nonce of %s: %w", a, err)
			}
			for n := range byNonce {
				if v, err := strconv.ParseUint(n, 10, 64); err == nil && v < used {
					return fmt.Sprintf("%s nonce %d (used up to %d)", a, v, used), nil
				}
			}
		}
	}
	return "", nil
}

// waitPending polls until a's pending nonce reaches n, for at most 10s.
func (h *harness) waitPending(a chain.Address, n uint64) {
	h.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		acct, err := h.b.Account(h.ctx, a)
		if err == nil && acct.PendingNonce >= n {
			return
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("pending nonce of %s never reached %d (%+v, %v)", a, n, acct, err)
		}
		time.Sleep(5 * time.Millisecond) // poll with a deadline
	}
}

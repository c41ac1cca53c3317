package node

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/evm"
	"github.com/ordolabs/ordo/internal/chain/evm/contracts"
	"github.com/ordolabs/ordo/internal/chain/evm/evmdev"
	"github.com/ordolabs/ordo/internal/distseq/evmledger"
	"github.com/ordolabs/ordo/internal/distseq/token"
	"github.com/ordolabs/ordo/internal/store"
)

// startEVM starts the committee's evmdev chain: a dev account per member
// besides account 0 (the router's and the group's deployer). It returns
// its closer.
func (h *committee) startEVM() func() {
	h.t.Helper()
	dev, err := evmdev.Start(h.ctx, evmdev.Config{HTTPAddr: "127.0.0.1:0", WSAddr: "127.0.0.1:0", BlockTime: h.cfg.BlockTime, Accounts: h.cfg.Nodes + 1})
	if err != nil {
		h.t.Fatal(err)
	}
	h.dev = dev
	return func() { _ = dev.Close() }
}

// useEVM points member i's config at the evmdev chain, sending from dev
// account i+1.
func (h *committee) useEVM(c *Config, i int) {
	c.Chain, c.DevSenders = "", 0
	c.UseEVMDev(h.dev, 0)
	c.Senders = []SenderFile{{KeyFile: h.dev.KeyFiles[i+1]}}
	c.EVM.ReorgDepth = 1
}

// evmClient dials the chain over plain JSON-RPC (not ordo's backend).
func (h *committee) evmClient() *ethclient.Client {
	h.t.Helper()
	ec, err := ethclient.DialContext(h.ctx, h.dev.HTTPURL)
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(ec.Close)
	return ec
}

// deployEVM deploys group "g" of every member on the evmdev chain's
// PrivacyGroup, each member's signer its derived endorsing address, and
// mints its coins (one mint per member), from dev account 0.
func (h *committee) deployEVM() {
	t := h.t
	pg := contracts.NewPrivacyGroup()
	var ms []contracts.PrivacyGroupMember
	for i, m := range h.ms {
		a, err := evmledger.EndorsingAddress(m.key.Private)
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, contracts.PrivacyGroupMember{Id: string(m.key.ID()), Signer: common.HexToAddress(a)})
		m.sender = chain.Address(strings.ToLower(h.dev.Accounts[i+1].Hex()))
	}
	ec := h.evmClient()
	evmSend(h.ctx, t, ec, h.dev.Keys[0], h.dev.PrivacyGroup, pg.PackDeploy("g", ms, uint8(h.cfg.Threshold)))
	for _, m := range ms {
		var ps []contracts.PrivacyGroupState
		for _, c := range token.Mint("m-"+m.Id+"-", auth.DevPrincipal+"@"+m.Id, h.cfg.Coins...) {
			ps = append(ps, contracts.PrivacyGroupState{Id: c.ID, Owner: c.Owner, Data: string(c.Data)})
		}
		evmSend(h.ctx, t, ec, h.dev.Keys[0], h.dev.PrivacyGroup, pg.PackMint("g", ps))
	}
}

// evmSend signs data to `to` from key with the chain's fees and waits for
// its receipt, which it returns (status unchecked).
func evmSend(ctx context.Context, t *testing.T, ec *ethclient.Client, key *ecdsa.PrivateKey, to common.Address, data []byte) *types.Receipt {
	t.Helper()
	from := crypto.PubkeyToAddress(key.PublicKey)
	id, err := ec.ChainID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	nonce, err := ec.PendingNonceAt(ctx, from)
	if err != nil {
		t.Fatal(err)
	}
	head, err := ec.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	tip := big.NewInt(1_000_000_000)
	tx := types.MustSignNewTx(key, types.LatestSignerForChainID(id), &types.DynamicFeeTx{ChainID: id, Nonce: nonce, GasTipCap: tip,
		GasFeeCap: new(big.Int).Add(tip, new(big.Int).Mul(head.BaseFee, big.NewInt(2))), Gas: 3_000_000, To: &to, Data: data})
	if err := ec.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		r, err := ec.TransactionReceipt(ctx, tx.Hash())
		switch {
		case err == nil:
			return r
		case !errors.Is(err, ethereum.NotFound):
			t.Fatal(err)
		case time.Now().After(deadline):
			t.Fatalf("no receipt for %s", tx.Hash().Hex())
		}
		time.Sleep(20 * time.Millisecond) // polling the chain for the receipt
	}
}

// pgConfirmed reads the IntentConfirmed events of txID in group "g" over
// plain JSON-RPC: the logs of PrivacyGroup, decoded by its binding.
func pgConfirmed(ctx context.Context, t *testing.T, ec *ethclient.Client, pgAddr common.Address, txID string) []*contracts.PrivacyGroupIntentConfirmed {
	t.Helper()
	pg := contracts.NewPrivacyGroup()
	logs, err := ec.FilterLogs(ctx, ethereum.FilterQuery{FromBlock: big.NewInt(0), Addresses: []common.Address{pgAddr},
		Topics: [][]common.Hash{{pg.GetABI().Events["IntentConfirmed"].ID}}})
	if err != nil {
		t.Fatal(err)
	}
	var out []*contracts.PrivacyGroupIntentConfirmed
	for _, l := range logs {
		e, err := pg.UnpackIntentConfirmedEvent(&l)
		if err != nil {
			t.Fatal(err)
		}
		if e.Group == "g" && e.TxId == txID {
			out = append(out, e)
		}
	}
	return out
}

// TestDistseqCommitteeOnEVM: three nodes on an evmdev chain (loopback
// JSON-RPC, the config of devchain but the evm: section) endorse with
// their derived secp256k1 keys; an intent submitted at one node is
// confirmed by PrivacyGroup once, its states reach every member, and the
// chain read over plain JSON-RPC refuses both the same intent again and
// another intent spending the same states, endorsed by every member.
func TestDistseqCommitteeOnEVM(t *testing.T) {
	h := newCommittee(t, committeeConfig{Nodes: 3, BlockTime: 100 * time.Millisecond, EVM: true})
	ctx := h.ctx
	txID := h.send(1, "k1", 150)
	waitUntil(t, 60*time.Second, "a successful receipt", func() bool {
		r := h.rpc(1, `{"jsonrpc":"2.0","id":2,"method":"ptx_getTransactionReceipt","params":["`+txID+`"]}`)
		return strings.Contains(string(r["result"]), `"success":true`)
	})
	if rec, err := h.ms[1].node.store.DistseqIntent(ctx, txID); err != nil || rec.Status != store.DistseqConfirmed {
		t.Fatalf("the sender's record: %+v, %v", rec, err)
	}
	ec := h.evmClient()
	evs := pgConfirmed(ctx, t, ec, h.dev.PrivacyGroup, txID)
	if len(evs) != 1 || len(evs[0].Spends) == 0 || len(evs[0].Creates) != 2 {
		t.Fatalf("IntentConfirmed events of %s on chain: %+v", txID, evs)
	}
	ev := evs[0]
	waitUntil(t, 30*time.Second, "the created states at every member", func() bool {
		for _, m := range h.ms {
			sts, _ := m.node.store.DistseqStates(ctx, "g", true)
			have := map[string]bool{}
			for _, s := range sts {
				have[s.ID] = len(s.Data) > 0
			}
			for _, c := range ev.Creates {
				if !have[c] {
					return false
				}
			}
		}
		return true
	})

	// The chain itself refuses a second confirm of the intent and a double
	// spend, with endorsements every member's key signed.
	id, err := ec.ChainID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pg := contracts.NewPrivacyGroup()
	endorsed := func(txID string, spends []string) []byte {
		d := evm.PrivacyDigest(id, h.dev.PrivacyGroup, "g", txID, spends, nil)
		var ends []contracts.PrivacyGroupEndorsement
		for _, m := range h.ms {
			k, err := evmledger.EndorsingKey(m.key.Private)
			if err != nil {
				t.Fatal(err)
			}
			sig, err := evm.SignPrivacy(k, d)
			if err != nil {
				t.Fatal(err)
			}
			ends = append(ends, contracts.PrivacyGroupEndorsement{Member: string(m.key.ID()), Signature: sig})
		}
		return pg.PackConfirm("g", txID, spends, nil, ends)
	}
	for _, c := range []struct {
		name, txID string
		want       string
	}{
		{"the intent again", txID, "IntentAlreadyConfirmed"},
		{"a double spend", "double-" + txID, "StateSpent"},
	} {
		data := endorsed(c.txID, ev.Spends)
		if r := evmSend(ctx, t, ec, h.dev.Keys[0], h.dev.PrivacyGroup, data); r.Status != types.ReceiptStatusFailed {
			t.Fatalf("%s: included successfully", c.name)
		}
		_, err := ec.CallContract(ctx, ethereum.CallMsg{To: &h.dev.PrivacyGroup, Data: data}, nil)
		var de interface{ ErrorData() any }
		if !errors.As(err, &de) {
			t.Fatalf("%s: eth_call gives %v, want a revert", c.name, err)
		}
		s, _ := de.ErrorData().(string)
		v, uerr := pg.UnpackError(common.FromHex(s))
		if uerr != nil || !strings.Contains(typeName(v), c.want) {
			t.Fatalf("%s: reverts with %T %v (%v), want %s", c.name, v, v, uerr, c.want)
		}
	}
	if evs := pgConfirmed(ctx, t, ec, h.dev.PrivacyGroup, txID); len(evs) != 1 {
		t.Fatalf("%d IntentConfirmed events of %s, want 1", len(evs), txID)
	}
}

// typeName is the type of a decoded custom error (*contracts.PrivacyGroupStateSpent).
func typeName(v any) string { return fmt.Sprintf("%T", v) }

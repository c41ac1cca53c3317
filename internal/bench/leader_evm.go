package bench

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"path/filepath"
	"slices"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/chain/evm/contracts"
	"github.com/ordolabs/ordo/internal/chain/evm/evmdev"
	"github.com/ordolabs/ordo/internal/node"
	"github.com/ordolabs/ordo/internal/tool"
)

// leaderEVM is Leader on a simulated EVM chain (evmdev on loopback
// JSON-RPC): the workflow and the registry are evmdev's Workflow and
// ToolRegistry; dev accounts 1..Channels are the node's senders and its
// leader accounts (evmdev grants each one cap); the next Requesters dev
// accounts send the requests to the workflow directly.
func leaderEVM(ctx context.Context, o LeaderOptions, dir string) (LeaderResult, error) {
	res := LeaderResult{Opts: o}
	if 1+o.Channels+o.Requesters > evmdev.MaxAccounts {
		return res, fmt.Errorf("channels %d and requesters %d: the simulated chain funds at most %d accounts", o.Channels, o.Requesters, evmdev.MaxAccounts-1)
	}
	dev, err := evmdev.Start(ctx, evmdev.Config{HTTPAddr: "127.0.0.1:0", WSAddr: "127.0.0.1:0", BlockTime: o.BlockTime,
		Accounts: 1 + o.Channels + o.Requesters, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return res, fmt.Errorf("the simulated EVM chain: %w", err)
	}
	defer dev.Close()
	ec, err := ethclient.DialContext(ctx, dev.HTTPURL)
	if err != nil {
		return res, err
	}
	defer ec.Close()
	toolSrv, err := tool.NewServer(noopTool{})
	if err != nil {
		return res, err
	}
	toolURL, stopTool, err := serve(toolSrv)
	if err != nil {
		return res, err
	}
	defer stopTool()
	wf, reg := contracts.NewWorkflow(), contracts.NewToolRegistry()
	m := noopTool{}.Meta()
	admin := newEVMSender(ec, dev.Keys[0])
	if err := admin.sendWait(ctx, dev.Registry, reg.PackRegister("noop", toolURL, string(m.InputSchema), string(m.OutputSchema))); err != nil {
		return res, fmt.Errorf("registering the tool: %w", err)
	}

	allowLoopback := true
	token := rand.Text()
	cfg := node.Config{Data: filepath.Join(dir, "node"), InclusionTimeoutBlocks: 20,
		Principals: []auth.PrincipalConfig{{Principal: "bench", Token: token, Roles: []auth.Role{auth.RoleAdmin}}},
		Egress:     node.EgressConfig{AllowLoopback: &allowLoopback}} // the tool is served on loopback
	cfg.UseEVMDev(dev, o.Channels)
	var accounts []string
	for _, a := range dev.Accounts[1 : 1+o.Channels] {
		accounts = append(accounts, evmdev.AddressString(a))
	}
	cfg.Leader = node.LeaderConfig{Accounts: accounts, Capacity: o.Capacity}
	n, err := node.StartLocal(ctx, cfg, node.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Workers: 128}, "127.0.0.1:0")
	if err != nil {
		return res, err
	}
	defer func() { _ = n.Stop() }()
	if n.Leader == nil {
		return res, errors.New("the node runs no leader")
	}
	c := &benchClient{base: "http://" + n.Addr, token: token, hc: &http.Client{}}
	if o.Progress != nil {
		fmt.Fprintf(o.Progress, "leader: %d channels on the simulated EVM chain; emitting %d requests\n", o.Channels, o.Requests)
	}

	// Emission: each requester sends its share at consecutive nonces.
	t0 := wall.Now()
	if err := parallel(o.Requesters, o.Requesters, func(r int) error {
		s := newEVMSender(ec, dev.Keys[1+o.Channels+r])
		for i := r; i < o.Requests; i += o.Requesters {
			if err := s.send(ctx, dev.Workflow, wf.PackRequest(fmt.Sprintf("w-%d", i), "noop", fmt.Sprintf(`{"i":%d}`, i))); err != nil {
				return fmt.Errorf("request %d: %w", i, err)
			}
		}
		return nil
	}); err != nil {
		return res, err
	}
	if err := res.waitEnded(ctx, c, o, t0); err != nil {
		return res, err
	}

	// Latency in blocks, from the workflow's record of each walk.
	lat := make([]uint64, 0, o.Requests)
	first, lastH := uint64(0), uint64(0)
	for i := range o.Requests {
		out, err := ec.CallContract(ctx, ethereum.CallMsg{To: &dev.Workflow, Data: wf.PackWalk(fmt.Sprintf("w-%d", i))}, nil)
		if err != nil {
			return res, fmt.Errorf("walk w-%d: %w", i, err)
		}
		w, err := wf.UnpackWalk(out)
		if err != nil {
			return res, fmt.Errorf("walk w-%d: %w", i, err)
		}
		if !w.Reported {
			return res, fmt.Errorf("walk w-%d ended in the node but has no result on chain", i)
		}
		lat = append(lat, w.ResultHeight-w.Height)
		if first == 0 || w.Height < first {
			first = w.Height
		}
		lastH = max(lastH, w.ResultHeight)
	}
	slices.Sort(lat)
	res.P50, res.P99 = lat[len(lat)/2], lat[min(len(lat)-1, len(lat)*99/100)]
	res.Blocks = lastH - first + 1
	res.PeakRSS = PeakRSS()
	return res, nil
}

// evmSender signs transactions from one key at consecutive nonces, with a
// fee cap far above the simulated chain's base fee.
type evmSender struct {
	ec    *ethclient.Client
	key   *ecdsa.PrivateKey
	from  common.Address
	nonce uint64
	gas   uint64 // the first estimate, doubled: every request costs alike
	ready bool
}

func newEVMSender(ec *ethclient.Client, key *ecdsa.PrivateKey) *evmSender {
	return &evmSender{ec: ec, key: key, from: crypto.PubkeyToAddress(key.PublicKey)}
}

// send signs and sends data to `to`; it does not wait.
func (s *evmSender) send(ctx context.Context, to common.Address, data []byte) error {
	_, err := s.sendTx(ctx, to, data)
	return err
}

func (s *evmSender) sendTx(ctx context.Context, to common.Address, data []byte) (*types.Transaction, error) {
	if !s.ready {
		n, err := s.ec.PendingNonceAt(ctx, s.from)
		if err != nil {
			return nil, err
		}
		g, err := s.ec.EstimateGas(ctx, ethereum.CallMsg{From: s.from, To: &to, Data: data})
		if err != nil {
			return nil, fmt.Errorf("estimating: %w", err)
		}
		s.nonce, s.gas, s.ready = n, 2*g, true
	}
	id, err := s.ec.ChainID(ctx)
	if err != nil {
		return nil, err
	}
	tx, err := types.SignNewTx(s.key, types.LatestSignerForChainID(id), &types.DynamicFeeTx{ChainID: id, Nonce: s.nonce,
		GasTipCap: big.NewInt(1_000_000_000), GasFeeCap: big.NewInt(100_000_000_000), Gas: s.gas, To: &to, Data: data})
	if err != nil {
		return nil, err
	}
	if err := s.ec.SendTransaction(ctx, tx); err != nil {
		return nil, err
	}
	s.nonce++
	return tx, nil
}

// sendWait sends data to `to` and waits for its receipt to succeed.
func (s *evmSender) sendWait(ctx context.Context, to common.Address, data []byte) error {
	tx, err := s.sendTx(ctx, to, data)
	if err != nil {
		return err
	}
	for {
		r, err := s.ec.TransactionReceipt(ctx, tx.Hash())
		switch {
		case err == nil && r.Status != types.ReceiptStatusSuccessful:
			return fmt.Errorf("transaction %s reverted", tx.Hash().Hex())
		case err == nil:
			return nil
		case !errors.Is(err, ethereum.NotFound):
			return err
		}
		if err := pause(ctx, 20*time.Millisecond); err != nil {
			return err
		}
	}
}

package evmdev

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/ordolabs/ordo/internal/chain/evm/contracts"
	"github.com/ordolabs/ordo/internal/clock"
)

// Deploy's defaults.
const (
	// DefaultPollInterval is how often Deploy asks for a receipt.
	DefaultPollInterval = 250 * time.Millisecond
	// DefaultDeployTimeout is how long Deploy waits for its receipts.
	DefaultDeployTimeout = 2 * time.Minute
	// gasMarginPercent is added to eth_estimateGas's answer for a deployment.
	gasMarginPercent = 20
)

// ErrDeployTimeout is returned by Deploy when a deployment has no receipt
// within its timeout.
var ErrDeployTimeout = errors.New("deployment not mined in time")

// ErrWrongChain is returned by Deploy for a chain whose id is not
// DeployConfig.ChainID.
var ErrWrongChain = errors.New("wrong chain")

// Backend is the JSON-RPC a deployment needs: *ethclient.Client and
// simulated.Client both satisfy it.
type Backend interface {
	ethereum.ChainIDReader
	ethereum.ChainReader
	ethereum.ChainStateReader
	ethereum.PendingStateReader
	ethereum.GasEstimator
	ethereum.GasPricer1559
	ethereum.TransactionReader
	ethereum.TransactionSender
}

// DeployConfig says what Deploy puts on chain and how it waits.
type DeployConfig struct {
	// Key signs the deployments; its account becomes the router's owner and a
	// submitter. Required.
	Key *ecdsa.PrivateKey
	// Submitters are the accounts authorized on the router besides Key's
	// (duplicates and Key's own address are ignored).
	Submitters []common.Address
	// ChainID, when not 0, is the chain id the deployment is meant for: Deploy
	// refuses a chain that answers another (ErrWrongChain). Default 0: any.
	ChainID uint64
	// Voting also deploys Voting (the demo's contract), trusting the router.
	// Default false.
	Voting bool
	// Library also deploys Library (the processor's test target: methods
	// that fail on demand, CallbackConfirmation events), trusting the
	// router. Default false.
	Library bool
	// Leader also deploys Workflow and ToolRegistry (the leader's contracts,
	// seed 001), trusting the router; Key's account is the workflow's admin.
	// Default false.
	Leader bool
	// LeaderCaps are accounts granted one leader cap each on the deployed
	// Workflow, from Key (with Leader only). Default none.
	LeaderCaps []common.Address
	// PrivacyGroup also deploys PrivacyGroup (the distributed sequencer's
	// base ledger), trusting the router. Default false.
	PrivacyGroup bool
	// Replication also deploys NodeRegistry and ReplicaSets over it
	// (replicated queues, seed 004), trusting the router. Default false.
	Replication bool
	// Mine, when set, is called once the transactions are sent, and again
	// after each receipt poll that found none (evmdev seals a block with it: a
	// block built under load may leave a transaction for the next). Default
	// nil: the chain mines on its own.
	Mine func()
	// Clock paces the receipt polls. Default clock.Real.
	Clock clock.Clock
	// PollInterval is the time between receipt polls. Default
	// DefaultPollInterval.
	PollInterval time.Duration
	// Timeout bounds the wait for every receipt. Default DefaultDeployTimeout.
	Timeout time.Duration
}

// Deployment is what Deploy put on chain.
type Deployment struct {
	// ChainID is the chain's id, as it answered eth_chainId.
	ChainID uint64
	// Owner is the deployer: the router's owner.
	Owner common.Address
	// Submitters are the accounts the router authorized: Owner first.
	Submitters []common.Address
	// Router is OrdoRouter's address.
	Router common.Address
	// Voting is Voting's address (zero when not deployed).
	Voting common.Address
	// Library is Library's address (zero when not deployed).
	Library common.Address
	// Workflow and Registry are Workflow's and ToolRegistry's addresses
	// (zero when not deployed).
	Workflow, Registry common.Address
	// PrivacyGroup is PrivacyGroup's address (zero when not deployed).
	PrivacyGroup common.Address
	// Nodes and ReplicaSets are NodeRegistry's and ReplicaSets' addresses
	// (zero when not deployed).
	Nodes, ReplicaSets common.Address
	// Block is the highest block holding one of the deployments.
	Block uint64
}

// Deploy deploys OrdoRouter (and Voting and Library when asked) from cfg.Key,
// waits for each receipt, checks each contract's code is on chain and returns
// their addresses. The transactions are sent at once, at consecutive nonces
// (Voting and Library take the router's address, known from the deployer's
// nonce); the fees are
// the chain's: its suggested tip, and twice the latest base fee plus the tip as
// the fee cap.
func Deploy(ctx context.Context, b Backend, cfg DeployConfig) (Deployment, error) {
	if cfg.Key == nil {
		return Deployment{}, errors.New("deploy: no key")
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = DefaultPollInterval
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultDeployTimeout
	}
	id, err := b.ChainID(ctx)
	if err != nil {
		return Deployment{}, fmt.Errorf("deploy: chain id: %w", err)
	}
	if !id.IsUint64() {
		return Deployment{}, fmt.Errorf("deploy: chain id %s does not fit 64 bits", id)
	}
	if cfg.ChainID != 0 && id.Uint64() != cfg.ChainID {
		return Deployment{}, fmt.Errorf("deploy: %w: the chain's id is %d, not %d", ErrWrongChain, id.Uint64(), cfg.ChainID)
	}
	owner := crypto.PubkeyToAddress(cfg.Key.PublicKey)
	d := Deployment{ChainID: id.Uint64(), Owner: owner, Submitters: []common.Address{owner}}
	seen := map[common.Address]bool{owner: true}
	for _, s := range cfg.Submitters {
		if !seen[s] {
			seen[s] = true
			d.Submitters = append(d.Submitters, s)
		}
	}
	nonce, err := b.PendingNonceAt(ctx, owner)
	if err != nil {
		return Deployment{}, fmt.Errorf("deploy: nonce of %s: %w", AddressString(owner), err)
	}
	tip, err := b.SuggestGasTipCap(ctx)
	if err != nil {
		return Deployment{}, fmt.Errorf("deploy: suggested tip: %w", err)
	}
	head, err := b.HeaderByNumber(ctx, nil)
	if err != nil {
		return Deployment{}, fmt.Errorf("deploy: head: %w", err)
	}
	feeCap := new(big.Int).Set(tip)
	if head.BaseFee != nil {
		feeCap.Add(feeCap, new(big.Int).Mul(head.BaseFee, big.NewInt(2)))
	}
	signer := types.LatestSignerForChainID(id)

	var sendTo func(name string, to *common.Address, data []byte) error
	var sent []pending
	send := func(name, bin string, args []byte) error {
		return sendTo(name, nil, append(common.FromHex(bin), args...))
	}
	sendTo = func(name string, to *common.Address, data []byte) error {
		gas, err := b.EstimateGas(ctx, ethereum.CallMsg{From: owner, To: to, Data: data, GasTipCap: tip, GasFeeCap: feeCap})
		if err != nil {
			return fmt.Errorf("deploy %s: estimating gas: %w", name, err)
		}
		gas += gas * gasMarginPercent / 100
		tx, err := types.SignNewTx(cfg.Key, signer, &types.DynamicFeeTx{
			ChainID: id, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap, Gas: gas, To: to, Data: data,
		})
		if err != nil {
			return fmt.Errorf("deploy %s: signing: %w", name, err)
		}
		if err := b.SendTransaction(ctx, tx); err != nil {
			return fmt.Errorf("deploy %s: sending: %w", name, err)
		}
		sent = append(sent, pending{name: name, addr: crypto.CreateAddress(owner, nonce), tx: tx})
		nonce++
		return nil
	}
	if err := send("OrdoRouter", contracts.OrdoRouterMetaData.Bin, contracts.NewOrdoRouter().PackConstructor(d.Submitters)); err != nil {
		return Deployment{}, err
	}
	d.Router = sent[0].addr
	if cfg.Voting {
		// Estimating Voting's gas needs no router code: its constructor only
		// stores the address.
		if err := send("Voting", contracts.VotingMetaData.Bin, contracts.NewVoting().PackConstructor(d.Router)); err != nil {
			return Deployment{}, err
		}
		d.Voting = sent[len(sent)-1].addr
	}
	if cfg.Library {
		if err := send("Library", contracts.LibraryMetaData.Bin, contracts.NewLibrary().PackConstructor(d.Router)); err != nil {
			return Deployment{}, err
		}
		d.Library = sent[len(sent)-1].addr
	}
	if cfg.Leader {
		if err := send("Workflow", contracts.WorkflowMetaData.Bin, contracts.NewWorkflow().PackConstructor(d.Router)); err != nil {
			return Deployment{}, err
		}
		d.Workflow = sent[len(sent)-1].addr
		if err := send("ToolRegistry", contracts.ToolRegistryMetaData.Bin, contracts.NewToolRegistry().PackConstructor(d.Router)); err != nil {
			return Deployment{}, err
		}
		d.Registry = sent[len(sent)-1].addr
	}
	if cfg.Replication {
		if err := send("NodeRegistry", contracts.NodeRegistryMetaData.Bin, contracts.NewNodeRegistry().PackConstructor(d.Router)); err != nil {
			return Deployment{}, err
		}
		d.Nodes = sent[len(sent)-1].addr
		// ReplicaSets' constructor only stores the registry's address: its
		// estimate needs no registry code yet.
		if err := send("ReplicaSets", contracts.ReplicaSetsMetaData.Bin, contracts.NewReplicaSets().PackConstructor(d.Router, d.Nodes)); err != nil {
			return Deployment{}, err
		}
		d.ReplicaSets = sent[len(sent)-1].addr
	}
	if cfg.PrivacyGroup {
		if err := send("PrivacyGroup", contracts.PrivacyGroupMetaData.Bin, contracts.NewPrivacyGroup().PackConstructor(d.Router)); err != nil {
			return Deployment{}, err
		}
		d.PrivacyGroup = sent[len(sent)-1].addr
	}
	wctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	if err := waitAll(ctx, wctx, b, cfg, sent, &d); err != nil {
		return Deployment{}, err
	}
	if !cfg.Leader || len(cfg.LeaderCaps) == 0 {
		return d, nil
	}
	// The grants need the workflow's code for their estimates: a second round.
	sent = sent[:0]
	wf := contracts.NewWorkflow()
	for _, a := range cfg.LeaderCaps {
		if err := sendTo("a leader cap for "+AddressString(a), &d.Workflow, wf.PackGrantLeaderCap(a)); err != nil {
			return Deployment{}, err
		}
	}
	if err := waitAll(ctx, wctx, b, cfg, sent, &d); err != nil {
		return Deployment{}, err
	}
	return d, nil
}

// pending is a transaction Deploy sent: a deployment (addr is where it
// creates its contract) or a call (addr zero).
type pending struct {
	name string
	addr common.Address
	tx   *types.Transaction
}

// waitAll mines (cfg.Mine) and waits for each receipt of sent, checks it
// succeeded and, for a deployment, that its code is on chain; d.Block
// becomes the highest block among them.
func waitAll(ctx, wctx context.Context, b Backend, cfg DeployConfig, sent []pending, d *Deployment) error {
	if cfg.Mine != nil {
		cfg.Mine()
	}
	for _, p := range sent {
		r, err := waitReceipt(wctx, b, cfg.Clock, cfg.PollInterval, p.tx.Hash(), cfg.Mine)
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
				err = fmt.Errorf("%w: no receipt for %s within %s", ErrDeployTimeout, p.tx.Hash().Hex(), cfg.Timeout)
			}
			return fmt.Errorf("deploy %s: %w", p.name, err)
		}
		if r.Status != types.ReceiptStatusSuccessful {
			return fmt.Errorf("deploy %s: transaction %s reverted (gas used %d of %d)", p.name, p.tx.Hash().Hex(), r.GasUsed, p.tx.Gas())
		}
		if p.tx.To() != nil {
			d.Block = max(d.Block, r.BlockNumber.Uint64())
			continue
		}
		if r.ContractAddress != p.addr {
			return fmt.Errorf("deploy %s: created %s, expected %s", p.name, AddressString(r.ContractAddress), AddressString(p.addr))
		}
		code, err := b.CodeAt(ctx, p.addr, r.BlockNumber)
		if err != nil {
			return fmt.Errorf("deploy %s: reading its code: %w", p.name, err)
		}
		if len(code) == 0 {
			return fmt.Errorf("deploy %s: no code at %s after block %s", p.name, AddressString(p.addr), r.BlockNumber)
		}
		d.Block = max(d.Block, r.BlockNumber.Uint64())
	}
	return nil
}

// waitReceipt polls for tx's receipt every interval until it has one, or ctx
// ends, calling mine (when not nil) after each miss. Only "not found" (ethereum.NotFound, and geth's "transaction indexing
// is in progress") is waited out; any other error is returned.
func waitReceipt(ctx context.Context, b Backend, c clock.Clock, interval time.Duration, tx common.Hash, mine func()) (*types.Receipt, error) {
	for {
		r, err := b.TransactionReceipt(ctx, tx)
		switch {
		case err == nil:
			return r, nil
		case !errors.Is(err, ethereum.NotFound) && !strings.Contains(err.Error(), "indexing is in progress"):
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("receipt of %s: %w", tx.Hex(), err)
		}
		if mine != nil {
			mine()
		}
		t := c.NewTimer(interval)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C():
		}
	}
}

// Named is a contract of the node config's evm.contracts: its name, the ABI
// ordo ships it with, its address.
type Named struct {
	Name, ABI string
	Address   common.Address
}

// LeaderContracts are the workflow and the registry of d, for ConfigYAML
// (none when d has no Workflow).
func (d Deployment) LeaderContracts() []Named {
	if d.Workflow == (common.Address{}) {
		return nil
	}
	return []Named{{"workflow", "Workflow", d.Workflow}, {"registry", "ToolRegistry", d.Registry}}
}

// Extra are d's contracts beyond the router, Voting and Library, under the
// names a node's config gives them: the leader's (LeaderContracts), the
// replicated queues' (ReplicationContracts), then the privacy group
// ("privacygroup", the distributed sequencer's), each when deployed.
func (d Deployment) Extra() []Named {
	out := append(d.LeaderContracts(), d.ReplicationContracts()...)
	if d.PrivacyGroup != (common.Address{}) {
		out = append(out, Named{"privacygroup", "PrivacyGroup", d.PrivacyGroup})
	}
	return out
}

// ReplicationContracts are the contracts of a deployment with Replication
// as replicated queues name them: nodes and replicasets (none when not
// deployed).
func (d Deployment) ReplicationContracts() []Named {
	if d.Nodes == (common.Address{}) {
		return nil
	}
	return []Named{{"nodes", "NodeRegistry", d.Nodes}, {"replicasets", "ReplicaSets", d.ReplicaSets}}
}

// ConfigYAML is the node config's `evm:` section for a chain at urls (the
// order a node tries them in) with these contracts: the router, Voting under
// the name voting and Library under the name library, each when deployed
// (not the zero address), then more.
func ConfigYAML(urls []string, chainID uint64, router, voting, library common.Address, more ...Named) string {
	var sb strings.Builder
	sb.WriteString("evm:\n")
	fmt.Fprintf(&sb, "  urls: [%s]\n", strings.Join(urls, ", "))
	fmt.Fprintf(&sb, "  chainId: %d\n", chainID)
	fmt.Fprintf(&sb, "  router: %q\n", AddressString(router))
	if voting != (common.Address{}) || library != (common.Address{}) || len(more) > 0 {
		sb.WriteString("  contracts:\n")
	}
	if voting != (common.Address{}) {
		fmt.Fprintf(&sb, "    voting: {address: %q, abi: Voting}\n", AddressString(voting))
	}
	if library != (common.Address{}) {
		fmt.Fprintf(&sb, "    library: {address: %q, abi: Library}\n", AddressString(library))
	}
	for _, c := range more {
		fmt.Fprintf(&sb, "    %s: {address: %q, abi: %s}\n", c.Name, AddressString(c.Address), c.ABI)
	}
	return sb.String()
}

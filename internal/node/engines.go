package node

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/leader"
	"github.com/ordolabs/ordo/internal/processor"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/sequencer/dispatch"
	"github.com/ordolabs/ordo/internal/tool"
)

// EngineTypes are the sequencer types the node's engines submit in
// process: the API refuses them to its callers (intake.typeRoles) and the
// sequencer's refusals do not list them.
var EngineTypes = []string{dispatch.CallType, processor.SubmitType}

// engineTypes adds to the sequencer the transaction types engines submit
// inside the node, and returns every type the sequencer accepts: "call"
// (a contract call or multi-call, with the node's retry policy or its own
// types.call entry) and the processor's "call-once" (the same, sent at most
// once: the processor owns retries). The API refuses both to its callers
// unless intake.typeRoles allows a role.
func engineTypes(allowed []string, ds map[string]sequencer.Dispatcher, ps map[string]sequencer.Policy, c chain.Chain, keys map[string]chain.Key) []string {
	key := func(id string) chain.Key { return keys[id] }
	types := slices.Clone(allowed)
	if _, ok := ds[dispatch.CallType]; !ok {
		ds[dispatch.CallType] = dispatch.NewCallDispatcher(ps[dispatch.CallType].MaxRetries, c, key)
		types = append(types, dispatch.CallType)
	}
	ds[processor.SubmitType] = dispatch.NewCallDispatcher(0, c, key)
	ps[processor.SubmitType] = sequencer.Policy{Delay: ps[dispatch.CallType].Delay}
	return append(types, processor.SubmitType)
}

// processor builds the processor engine on the node's store, sequencer and
// chain, with its trace next to the sequencer's when one is asked for.
func (n *Node) processor(seq *sequencer.Node, st Store, c chain.Chain, o Options) (*processor.Node, error) {
	pc := n.Config.Processor
	open := pc.openTick()
	pol, err := n.Config.Egress.policy(n.Config.DevMode)
	if err != nil {
		return nil, fmt.Errorf("egress.allow: %w", err)
	}
	cfg := processor.Config{Store: st, Sequencer: seq, Records: st, Chain: c, Clock: o.Clock, Core: pc.core(),
		DeliveryTimeout: time.Duration(pc.DeliveryTimeout), OpenTick: &open, Logger: o.Logger, Metrics: processor.NewMetrics(n.Registry),
		HTTP: pol.Client(0)} // callback URLs are the processor owners': the egress policy applies
	f, err := n.engineTrace(o, processor.TraceEngine)
	if err != nil {
		return nil, err
	}
	if f != nil {
		cfg.Trace = f
	}
	return processor.New(cfg)
}

// engineTrace opens an engine's trace file next to the sequencer's
// (Options.Trace + "." + engine), nil without one.
func (n *Node) engineTrace(o Options, engine string) (*os.File, error) {
	if o.Trace == "" {
		return nil, nil
	}
	f, err := os.OpenFile(o.Trace+"."+engine, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	n.traces = append(n.traces, f)
	return f, nil
}

// leaderAccounts checks that each of the leader's accounts is one of the
// node's keystore senders (no chain needed: Build checks it at once).
func (n *Node) leaderAccounts(keys map[string]chain.Key) error {
	for i, a := range n.Config.Leader.Accounts {
		if keys[a] == nil {
			return fmt.Errorf("leader.accounts[%d]: %s is not one of the node's keystore senders (senders: keyFile); a leader's results are signed by the account that holds the cap", i, a)
		}
	}
	return nil
}

// leaderChannels reads the caps of the leader's accounts when the config
// names any: one channel per cap, its queue leader/<i> pinned to the
// account. It refuses to start when an account is not a keystore sender,
// holds no cap or has no funds (leader.ErrCannotLead).
func (n *Node) leaderChannels(ctx context.Context, c chain.Chain, keys map[string]chain.Key) ([]string, map[string]string, error) {
	lc := n.Config.Leader
	if len(lc.Accounts) == 0 {
		return nil, nil, nil
	}
	if err := n.leaderAccounts(keys); err != nil {
		return nil, nil, err
	}
	addrs := make([]chain.Address, len(lc.Accounts))
	for i, a := range lc.Accounts {
		addrs[i] = chain.Address(a)
	}
	channels, err := leader.Channels(ctx, n.leaderChain(c), cmp.Or(lc.Workflow, leader.DefaultWorkflow), addrs)
	if err != nil {
		return nil, nil, err
	}
	pins := map[string]string{}
	for i, a := range channels {
		pins[fmt.Sprintf("%s%d", leader.QueuePrefix, i)] = a
	}
	return channels, pins, nil
}

// leader builds the leader engine on the node's store, sequencer and chain.
func (n *Node) leader(seq *sequencer.Node, st Store, c chain.Chain, keys map[string]chain.Key, channels []string, o Options) (*leader.Node, error) {
	lc := n.Config.Leader
	pol, err := n.Config.Egress.policy(n.Config.DevMode)
	if err != nil {
		return nil, fmt.Errorf("egress.allow: %w", err)
	}
	cfg := leader.Config{Store: st, Sequencer: seq, Records: st, Chain: n.leaderChain(c), Key: keys[lc.Accounts[0]], Core: lc.core(channels),
		Workflow: lc.Workflow, Registry: lc.Registry, ResultArgs: n.leaderResultArgs(), ToolTimeout: time.Duration(lc.ToolTimeout), Clock: o.Clock, Logger: o.Logger,
		Metrics: leader.NewMetrics(n.Registry),
		Tools:   &tool.Client{HTTP: pol.Client(0)}} // tool URLs come from the on-chain registry: the egress policy applies
	f, err := n.engineTrace(o, leader.TraceEngine)
	if err != nil {
		return nil, err
	}
	if f != nil {
		cfg.Trace = f
	}
	return leader.New(cfg)
}

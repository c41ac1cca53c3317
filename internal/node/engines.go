package node

import (
	"crypto/ed25519"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/processor"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/sequencer/dispatch"
	"github.com/ordolabs/ordo/internal/store/sqlite"
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
func engineTypes(allowed []string, ds map[string]sequencer.Dispatcher, ps map[string]sequencer.Policy, c chain.Chain, keys map[string]ed25519.PrivateKey) []string {
	key := func(id string) ed25519.PrivateKey { return keys[id] }
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
func (n *Node) processor(seq *sequencer.Node, st *sqlite.Store, c chain.Chain, o Options) (*processor.Node, error) {
	pc := n.Config.Processor
	open := pc.openTick()
	cfg := processor.Config{Store: st, Sequencer: seq, Records: st, Chain: c, Clock: o.Clock, Core: pc.core(),
		DeliveryTimeout: time.Duration(pc.DeliveryTimeout), OpenTick: &open, Logger: o.Logger, Metrics: processor.NewMetrics(n.Registry)}
	if o.Trace != "" {
		f, err := os.OpenFile(o.Trace+".processor", os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return nil, fmt.Errorf("trace: %w", err)
		}
		n.procTrace = f
		cfg.Trace = f
	}
	return processor.New(cfg)
}

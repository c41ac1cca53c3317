package node

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"

	"github.com/ordolabs/ordo/internal/api"
	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/httpjson"
	"github.com/ordolabs/ordo/internal/identity"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/smm"
	"github.com/ordolabs/ordo/internal/store"
)

// validateReplication checks the replication's config against the
// identity it needs.
func validateReplication(r smm.Config, d DistseqConfig, bad func(field, format string, args ...any)) {
	if !r.Enabled {
		return
	}
	if !d.enabled() || !d.Registry {
		bad("replication.enabled", "needs the node's identity and the nodes registry (distseq.key, distseq.cert and distseq.registry: true): replica sets name registered nodes")
	}
	if r.Secondaries < 0 || r.AckAfter < 0 || r.SliceSize < 0 || r.MaxFailedSyncs < 0 || r.PushPage < 0 {
		bad("replication", "secondaries, ackAfter, sliceSize, maxFailedSyncs and pushPage must not be negative")
	}
	if r.AckAfter > r.WithDefaults().Secondaries {
		bad("replication.ackAfter", "is %d, more than the %d secondaries a set has", r.AckAfter, r.WithDefaults().Secondaries)
	}
}

// pinReplication reserves a sender for the node's replica-set updates
// (queue smm.SetsQueue), so that a failover's write on chain never waits
// its turn behind the application queues: replication.sender, else the
// last sender by id that no other pin holds, when the node has more than
// one; with one, the updates share it (and a warning says so).
func pinReplication(r smm.Config, senders []sequencer.SenderConfig, pins map[string]string, log *slog.Logger) (map[string]string, error) {
	if !r.Enabled {
		return pins, nil
	}
	if pins == nil {
		pins = map[string]string{}
	}
	held := map[string]bool{}
	for _, s := range pins {
		held[s] = true
	}
	if r.Sender != "" {
		for _, s := range senders {
			if string(s.ID) == r.Sender {
				pins[smm.SetsQueue] = r.Sender
				return pins, nil
			}
		}
		return nil, fmt.Errorf("replication.sender: %s is not one of the node's senders", r.Sender)
	}
	ids := make([]string, 0, len(senders))
	for _, s := range senders {
		if !held[string(s.ID)] {
			ids = append(ids, string(s.ID))
		}
	}
	slices.Sort(ids)
	if len(ids) < 2 {
		log.Warn("replication: no sender to reserve for replica-set updates: they share the node's senders with the queues, and a failover waits its turn behind them; configure more senders or replication.sender")
		return pins, nil
	}
	pins[smm.SetsQueue] = ids[len(ids)-1]
	return pins, nil
}

// deposedQueues are the queues whose held replica set names another node
// primary: the sequencer starts them closed (sequencer.Config.Gated), so
// that a node deposed before it stopped does not dispatch copies of
// intents its queue's new primary owns. The state machine manager opens
// a queue when this node adopts it again.
func deposedQueues(ctx context.Context, cfg Config, st Store) ([]string, error) {
	if !cfg.Replication.Enabled {
		return nil, nil
	}
	key, _, err := identity.Load(cfg.Distseq.Key, cfg.Distseq.Cert)
	if err != nil {
		return nil, fmt.Errorf("replication: %w", err)
	}
	rs, ok := st.(store.ReplicaStore)
	if !ok {
		return nil, errors.New("replication: the store keeps no replica sets (replication needs the embedded store)")
	}
	sets, err := rs.ReplicaSets(ctx)
	if err != nil {
		return nil, fmt.Errorf("replication: held replica sets: %w", err)
	}
	var out []string
	for _, s := range sets {
		if s.Primary != string(key.ID()) {
			out = append(out, s.Queue)
		}
	}
	return out, nil
}

// replicationPipeline lets the node's replica-set updates be in flight
// together (a lost node's queues fail over in one block, not one per
// block).
func replicationPipeline(r smm.Config) []sequencer.Pipeline {
	if !r.Enabled {
		return nil
	}
	return []sequencer.Pipeline{{Prefix: smm.SetsQueue, InFlight: 64}}
}

// replication builds the state machine manager on the distributed
// sequencer's identity, transport and registry.
func (n *Node) replication(seq *sequencer.Node, st Store, ds *Distseq, authn *auth.Authenticator, o Options) (*smm.Node, error) {
	sst, ok := st.(smm.Store)
	if !ok {
		return nil, errors.New("the store keeps no replication log (replication needs the embedded store)")
	}
	f, err := n.engineTrace(o, smm.TraceEngine)
	if err != nil {
		return nil, err
	}
	var trace io.Writer
	if f != nil {
		trace = f
	}
	s, err := smm.New(smm.NodeConfig{Config: n.Config.Replication, Key: ds.key.Private, Store: sst, Transport: ds.Transport,
		Chain: n.Chain, Sequencer: seq, Registry: ds.registry, Sets: n.setsBinding(), Clock: o.Clock, Logger: o.Logger, Registerer: n.Registry, Trace: trace,
		Allow: func(principal, typ string) error {
			return allowForwarded(authn, n.Config.IntakeAccess.TypeRoles, principal, typ)
		}})
	if err != nil {
		return nil, err
	}
	ds.smm.Store(s)
	return s, nil
}

// allowForwarded is the primary's check of an intent another node
// forwards for principal: a principal of this node with submit, allowed
// the type by intake.typeRoles.
func allowForwarded(a *auth.Authenticator, typeRoles map[string][]auth.Role, principal, typ string) error {
	p, ok := a.ByName(principal)
	if !ok {
		return fmt.Errorf("principal %s is not one this node knows", principal)
	}
	if !p.Has(auth.RoleSubmit) {
		return fmt.Errorf("principal %s has no role submit on this node", principal)
	}
	if typeRoles == nil {
		typeRoles = api.DefaultTypeRoles()
	}
	if roles, listed := typeRoles[typ]; listed && !p.HasAny(roles) {
		return fmt.Errorf("principal %s may not submit type %s on this node (intake.typeRoles)", principal, sequencer.Excerpt(typ))
	}
	return nil
}

// smmIntake is the API's intake through the state machine manager, its
// errors given the API's codes.
type smmIntake struct{ s *smm.Node }

func (i smmIntake) Submit(ctx context.Context, principal string, in []sequencer.Intake) ([]store.EnqueueResult, error) {
	res, err := i.s.Submit(ctx, principal, in)
	switch {
	case errors.Is(err, smm.ErrForbidden):
		return res, httpjson.Errorf(api.CodeTypeForbidden, "%v", err)
	case errors.Is(err, smm.ErrNotReplicated):
		return res, httpjson.Errorf(api.CodeNotReplicated, "%v", err)
	case errors.Is(err, smm.ErrUnavailable):
		return res, httpjson.Errorf(api.CodeUnavailable, "%v", err)
	}
	return res, err
}

func (i smmIntake) QueueReplication(ctx context.Context, queue string) (any, bool, error) {
	q, err := i.s.Queue(ctx, queue)
	if errors.Is(err, smm.ErrNoReplicaSet) {
		return nil, false, nil
	}
	return q, err == nil, err
}

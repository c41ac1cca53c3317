package smm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ordolabs/ordo/internal/jobq"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/smm/smmpb"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/transport"
)

// The write path (issue 12, "Replica sets and the write path"): intake for
// a queue at any node reaches its primary. The receiving node forwards
// each intent over the node transport with the caller's principal; the
// primary commits it (the store appends its log entry in the same
// transaction), puts a manual sync of each secondary on the fast lane,
// and acknowledges, after AckAfter secondaries hold the entry when
// AckAfter > 0.

// Submit takes intents on behalf of principal (each intent's Principal,
// its idempotency key's scope, on this node and on the primary), each at
// its queue's primary, in order; results are in the order given. An error
// stops at the intent that failed (those before it are committed).
func (n *Node) Submit(ctx context.Context, principal string, in []sequencer.Intake) ([]store.EnqueueResult, error) {
	out := make([]store.EnqueueResult, 0, len(in))
	for _, it := range in {
		it.Principal = principal
		r, err := n.submitOne(ctx, principal, it)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

func (n *Node) submitOne(ctx context.Context, principal string, it sequencer.Intake) (store.EnqueueResult, error) {
	if err := checkNames(it); err != nil {
		return store.EnqueueResult{}, err
	}
	set, err := n.setFor(ctx, it.Queue)
	if err != nil {
		return store.EnqueueResult{}, err
	}
	for try := 0; ; try++ {
		if set.Primary == n.self {
			return n.submitLocal(ctx, it)
		}
		r, err := n.forward(ctx, set.Primary, principal, it)
		if CodeOf(err) != CodeNotPrimary || try > 0 {
			return r, err
		}
		// The primary we held was replaced: read the chain again.
		s, ok, err := n.refreshSet(ctx, it.Queue)
		if err != nil {
			return store.EnqueueResult{}, fmt.Errorf("%w: %s: the primary moved and the chain could not say where: %w", ErrUnavailable, it.Queue, err)
		}
		if !ok {
			return store.EnqueueResult{}, fmt.Errorf("%w: %s: the primary moved and the chain holds no set", ErrUnavailable, it.Queue)
		}
		set = s
	}
}

// submitLocal commits an intent of a queue this node is primary of.
func (n *Node) submitLocal(ctx context.Context, it sequencer.Intake) (store.EnqueueResult, error) {
	if err := n.ensureAdopted(ctx, it.Queue); err != nil {
		return store.EnqueueResult{}, fmt.Errorf("%w: %s: %w", ErrUnavailable, it.Queue, err)
	}
	res, err := n.cfg.Sequencer.Submit(ctx, []sequencer.Intake{it})
	if err != nil {
		return store.EnqueueResult{}, err
	}
	set, err := n.cfg.Store.ReplicaSet(ctx, it.Queue)
	if err != nil {
		return res[0], err
	}
	if res[0].Created {
		for _, s := range set.Secondaries {
			if _, _, err := n.insert(ctx, KindManualSync, jobq.QueueManualSync, syncArgs{Queue: it.Queue, Secondary: s}, "push/"+it.Queue+"/"+s, time.Time{}); err != nil {
				n.log.Warn("smm: manual sync not queued", "queue", it.Queue, "secondary", s, "err", err)
			}
		}
	}
	if n.c.AckAfter > 0 {
		if len(set.Secondaries) < n.c.AckAfter {
			return res[0], fmt.Errorf("%w: %s has %d secondaries, ackAfter asks %d", ErrNotReplicated, it.Queue, len(set.Secondaries), n.c.AckAfter)
		}
		head, err := n.cfg.Store.LogHead(ctx, it.Queue)
		if err != nil {
			return res[0], err
		}
		if err := n.waitAcked(ctx, it.Queue, set.Secondaries, head.Clock, n.c.AckAfter); err != nil {
			return res[0], err
		}
	}
	return res[0], nil
}

// ErrNotReplicated is an intent committed on its primary whose
// secondaries did not hold it within AckTimeout (AckAfter > 0): it is not
// acknowledged; a retry with its idempotency key finds it.
var ErrNotReplicated = errors.New("smm: committed on the primary, not held by enough secondaries in time")

// waitAcked waits until k of secondaries (the queue's, in the set the
// intent was committed under: a former secondary's ack does not count)
// hold its log up to clock.
func (n *Node) waitAcked(ctx context.Context, queue string, secondaries []string, clock uint64, k int) error {
	ctx, cancel := n.withTimeout(ctx, n.c.AckTimeout)
	defer cancel()
	for {
		n.mu.Lock()
		held := n.core.HeldBy(queue, secondaries, clock)
		wake := n.ackWake
		n.mu.Unlock()
		if held >= k {
			return nil
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return fmt.Errorf("%w: %s at clock %d", ErrNotReplicated, queue, clock)
		}
	}
}

// noteAcked records that secondary holds queue's log up to clock.
func (n *Node) noteAcked(queue, secondary string, clock uint64) {
	_, _ = n.step(context.Background(), Acked(queue, secondary, clock)) // no job: no context needed
}

// forward sends an intent to its queue's primary; one found unanswered,
// before or while the intent waits on it, is not waited for (a client is
// told at once to come back). A forward's silence finds no node lost: the
// primary may be waiting for its secondaries.
func (n *Node) forward(ctx context.Context, primary, principal string, it sequencer.Intake) (store.EnqueueResult, error) {
	if since, _ := n.unhealthySince(primary); !since.IsZero() {
		return store.EnqueueResult{}, fmt.Errorf("%w: %s: its primary %s has not answered since %s; its replacement is under way", ErrUnavailable, it.Queue, primary, since.Format(time.RFC3339))
	}
	ctx, cancel := context.WithTimeout(ctx, n.c.RequestTimeout+n.c.AckTimeout)
	defer cancel()
	ctx, stop := n.untilLost(ctx, primary) // a primary found unanswered meanwhile is not waited for either
	defer stop()
	resp, err := n.rpc.call(ctx, transport.NodeID(primary), &smmpb.Request{Body: &smmpb.Request_Forward{Forward: &smmpb.ForwardRequest{
		Principal: principal, Queue: it.Queue, Type: it.Type, Data: it.Data, IdempotencyKey: it.IdempotencyKey}}})
	switch {
	case err == nil:
		n.m.Forwarded.WithLabelValues("ok").Inc()
	case CodeOf(err) == "" || CodeOf(err) == CodeNotPrimary || CodeOf(err) == codeNotReplicated:
		n.m.Forwarded.WithLabelValues("unavailable").Inc()
	default:
		n.m.Forwarded.WithLabelValues("refused").Inc()
	}
	for _, c := range intakeCodes {
		if CodeOf(err) == c.code {
			return store.EnqueueResult{}, fmt.Errorf("%w: %s", c.err, resp.Error)
		}
	}
	switch {
	case CodeOf(err) == CodeNotPrimary:
		return store.EnqueueResult{}, err
	case err != nil:
		return store.EnqueueResult{}, fmt.Errorf("%w: %s: forwarding to its primary %s: %w", ErrUnavailable, it.Queue, primary, err)
	}
	f := resp.GetForward()
	var t store.Transaction
	if f == nil || json.Unmarshal(f.Transaction, &t) != nil {
		return store.EnqueueResult{}, fmt.Errorf("%w: %s: the primary %s answered no transaction", ErrUnavailable, it.Queue, primary)
	}
	return store.EnqueueResult{Transaction: t, Created: f.Created}, nil
}

// checkNames applies the sequencer's intake rule of names to the queue and
// the idempotency key of it (sequencer.IntakeRules.CheckIntake, without
// its type and data, which the primary's sequencer checks with its own
// rules) before anything replication does with them: a queue name that
// can never be a queue (too long, a zero-width character, ...) is refused
// with sequencer.ErrInvalid, as the sequencer refuses it without
// replication, rather than reaching the chain's replica sets, the job
// queue's keys or the primary.
func checkNames(it sequencer.Intake) error {
	return sequencer.IntakeRules{}.CheckIntake(sequencer.Intake{Queue: it.Queue, IdempotencyKey: it.IdempotencyKey})
}

// Codes of intake errors carried back to the forwarding node.
const (
	codeTypeNotAllowed = "type_not_allowed"
	codeIdempotency    = "idempotency_conflict"
	codeReserved       = "reserved_name"
	codeNotReplicated  = "not_replicated"
)

// intakeCodes map the intake errors a primary answers a forward with to
// their codes on the wire, and back at the forwarding node.
var intakeCodes = []struct {
	code string
	err  error
}{
	{CodeInvalid, sequencer.ErrInvalid},
	{codeTypeNotAllowed, sequencer.ErrTypeNotAllowed},
	{codeIdempotency, sequencer.ErrIdempotencyConflict},
	{codeReserved, sequencer.ErrReserved},
	{CodeForbidden, ErrForbidden},
	{codeNotReplicated, ErrNotReplicated},
}

// serveForward is the primary's side of forward.
func (n *Node) serveForward(ctx context.Context, from transport.NodeID, f *smmpb.ForwardRequest) *smmpb.Response {
	if err := checkNames(sequencer.Intake{Queue: f.Queue, IdempotencyKey: f.IdempotencyKey}); err != nil {
		return failure(0, CodeInvalid, err.Error())
	}
	set, err := n.cfg.Store.ReplicaSet(ctx, f.Queue)
	if err != nil || set.Primary != n.self {
		// Perhaps the chain names this node now: read it once.
		if s, ok, rerr := n.refreshSet(ctx, f.Queue); rerr != nil || !ok || s.Primary != n.self {
			return failure(0, CodeNotPrimary, fmt.Sprintf("%s is not the primary of %q", n.self, f.Queue))
		}
	}
	if sequencer.IsEnginePrincipal(f.Principal) {
		return failure(0, CodeForbidden, fmt.Sprintf("%s is an engine's principal: a forwarded intent is never an engine's", sequencer.Excerpt(f.Principal)))
	}
	if n.cfg.Allow != nil {
		if err := n.cfg.Allow(f.Principal, f.Type); err != nil {
			return failure(0, CodeForbidden, err.Error())
		}
	}
	r, err := n.submitLocal(ctx, sequencer.Intake{Queue: f.Queue, Type: f.Type, Data: f.Data, IdempotencyKey: f.IdempotencyKey, Principal: f.Principal})
	if err != nil {
		for _, c := range intakeCodes {
			if errors.Is(err, c.err) {
				return failure(0, c.code, err.Error())
			}
		}
		return failure(0, CodeInternal, err.Error())
	}
	body, _ := json.Marshal(r.Transaction)
	n.log.Debug("smm: forwarded intent committed", "from", from, "queue", f.Queue, "uid", r.Transaction.UID)
	return &smmpb.Response{Body: &smmpb.Response_Forward{Forward: &smmpb.ForwardResponse{Transaction: body, Created: r.Created}}}
}

package smm

import (
	"context"
	"errors"
	"fmt"

	"github.com/ordolabs/ordo/internal/replog"
	"github.com/ordolabs/ordo/internal/smm/smmpb"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/transport"
)

// The replication between a primary and its secondaries: heads asked by
// monitoring, entries pushed by the primary (manual sync) and pulled by a
// secondary (recurring sync). A secondary applies entries only through
// the store's AppendLog (replog.Extend: no gap, no fork, no deposed
// primary) or, when its log diverged, ResetLog from the primary's whole
// log.

// serve answers one request of another node.
func (n *Node) serve(ctx context.Context, from transport.NodeID, req *smmpb.Request) *smmpb.Response {
	switch b := req.Body.(type) {
	case *smmpb.Request_Heads:
		return n.serveHeads(ctx, b.Heads)
	case *smmpb.Request_Pull:
		return n.servePull(ctx, from, b.Pull)
	case *smmpb.Request_Push:
		return n.servePush(ctx, from, b.Push)
	case *smmpb.Request_Sync:
		return n.serveSync(ctx, from, b.Sync)
	case *smmpb.Request_Forward:
		return n.serveForward(ctx, from, b.Forward)
	}
	return failure(0, CodeInvalid, "an empty request")
}

func toPB(h replog.Head) *smmpb.Head {
	return &smmpb.Head{Clock: h.Clock, Hash: h.Hash[:], Version: h.Version}
}

func fromPB(h *smmpb.Head) replog.Head {
	var out replog.Head
	if h != nil {
		out.Clock, out.Version = h.Clock, h.Version
		copy(out.Hash[:], h.Hash)
	}
	return out
}

func entriesToPB(es []replog.Entry) []*smmpb.Entry {
	out := make([]*smmpb.Entry, len(es))
	for i, e := range es {
		out[i] = &smmpb.Entry{Queue: e.Queue, Clock: e.Clock, Version: e.Version, Prev: e.Prev[:], Payload: e.Payload, Hash: e.Hash[:]}
	}
	return out
}

func entriesFromPB(es []*smmpb.Entry) []replog.Entry {
	out := make([]replog.Entry, len(es))
	for i, e := range es {
		out[i] = replog.Entry{Queue: e.Queue, Clock: e.Clock, Version: e.Version, Payload: e.Payload}
		copy(out[i].Prev[:], e.Prev)
		copy(out[i].Hash[:], e.Hash)
	}
	return out
}

// serveHeads answers this node's head and known version of each queue.
func (n *Node) serveHeads(ctx context.Context, r *smmpb.HeadsRequest) *smmpb.Response {
	out := &smmpb.HeadsResponse{}
	for i, q := range r.Queues {
		var asking uint64
		if i < len(r.Versions) {
			asking = r.Versions[i]
		}
		v := n.fence(ctx, q, asking)
		h, err := n.cfg.Store.LogHead(ctx, q)
		if err != nil {
			return failure(0, CodeInternal, err.Error())
		}
		out.Heads = append(out.Heads, &smmpb.QueueHead{Queue: q, Head: toPB(h), Version: v})
	}
	return &smmpb.Response{Body: &smmpb.Response_Heads{Heads: out}}
}

// fence returns the replica-set version this node holds for queue, after
// reading the chain when the asker holds a newer one (asking): from then
// on the store refuses entries sent under an older version (AppendLog
// checks the held version in the same transaction), so a member that
// answered a new primary's catch-up takes nothing more from the primary
// it replaced. A chain that cannot be read leaves the old version, which
// the asker does not count as fenced.
func (n *Node) fence(ctx context.Context, queue string, asking uint64) uint64 {
	var held uint64
	if s, err := n.cfg.Store.ReplicaSet(ctx, queue); err == nil {
		held = s.Version
	}
	if asking <= held {
		return held
	}
	s, ok, err := n.refreshSet(ctx, queue)
	if err != nil || !ok {
		if err != nil {
			n.log.Warn("smm: reading a newer replica set an asker holds", "queue", queue, "err", err)
		}
		return held
	}
	n.m.Fenced.Inc()
	return max(held, s.Version)
}

// servePull answers a member's pull: the entries of this node's log after
// a clock. The primary serves its secondaries; any member serves a new
// primary catching up before it takes the queue on (adopt.go).
func (n *Node) servePull(ctx context.Context, from transport.NodeID, r *smmpb.PullRequest) *smmpb.Response {
	set, resp := n.admit(ctx, Asked(RequestPull, string(from), r.Queue, r.Version))
	if resp != nil {
		return resp
	}
	limit := min(int(r.Limit), n.c.PushPage)
	if limit <= 0 {
		limit = n.c.PushPage
	}
	es, err := n.cfg.Store.LogAfter(ctx, r.Queue, r.After, limit)
	if err != nil {
		return failure(0, CodeInternal, err.Error())
	}
	h, err := n.cfg.Store.LogHead(ctx, r.Queue)
	if err != nil {
		return failure(0, CodeInternal, err.Error())
	}
	return &smmpb.Response{Body: &smmpb.Response_Entries{Entries: &smmpb.EntriesResponse{Version: set.Version, Entries: entriesToPB(es), Head: toPB(h)}}}
}

// servePush is a secondary applying entries its primary pushed.
func (n *Node) servePush(ctx context.Context, from transport.NodeID, r *smmpb.PushRequest) *smmpb.Response {
	if _, resp := n.admit(ctx, Asked(RequestPush, string(from), r.Queue, r.Version)); resp != nil {
		return resp
	}
	es := entriesFromPB(r.Entries)
	var h replog.Head
	var err error
	if r.Reset_ {
		h, err = n.cfg.Store.ResetLog(ctx, r.Queue, r.Version, es)
	} else {
		h, err = n.cfg.Store.AppendLog(ctx, r.Queue, r.Version, es)
	}
	if err != nil {
		cur, _ := n.cfg.Store.LogHead(ctx, r.Queue)
		n.m.Refused.WithLabelValues(logCode(err)).Inc()
		n.log.Warn("smm: entries refused, nothing applied", "queue", r.Queue, "from", from, "version", r.Version, "head", cur.Clock, "err", err)
		resp := failure(0, logCode(err), err.Error())
		resp.Body = &smmpb.Response_Head{Head: &smmpb.HeadResponse{Head: toPB(cur)}}
		return resp
	}
	return &smmpb.Response{Body: &smmpb.Response_Head{Head: &smmpb.HeadResponse{Head: toPB(h)}}}
}

// admit has the core admit or refuse a request (InputAsked), reading the
// queue's set from the chain first when the core asks (a sender claiming
// a newer version or another primary: this node may have missed an
// update; a pull under a newer version fences the deposed primary out).
// It returns the set held, and the refusal (nil: admitted).
func (n *Node) admit(ctx context.Context, in Input) (store.ReplicaSet, *smmpb.Response) {
	rep, err := n.step(ctx, in)
	if err == nil && rep.Refresh {
		held := n.heldVersion(ctx, in.Queue)
		if s, ok, rerr := n.refreshSet(ctx, in.Queue); rerr != nil {
			n.log.Warn("smm: reading the replica set a request names", "queue", in.Queue, "from", in.Node, "err", rerr)
		} else if ok && in.Request == RequestPull && s.Version > held {
			n.m.Fenced.Inc()
		}
		in.Refreshed = true
		rep, err = n.step(ctx, in)
	}
	if err != nil {
		return store.ReplicaSet{}, failure(0, CodeInternal, err.Error())
	}
	if rep.Refused != "" {
		return store.ReplicaSet{}, failure(0, rep.Refused, rep.Reason)
	}
	s := rep.Set
	return store.ReplicaSet{Queue: s.Queue, Primary: s.Primary, Secondaries: s.Secondaries, Version: s.Version}, nil
}

// heldVersion is the version of the set held for queue (0: none).
func (n *Node) heldVersion(ctx context.Context, queue string) uint64 {
	if s, err := n.cfg.Store.ReplicaSet(ctx, queue); err == nil {
		return s.Version
	}
	return 0
}

// logCode is the stable code of an AppendLog or ResetLog error.
func logCode(err error) string {
	switch {
	case errors.Is(err, replog.ErrGap):
		return CodeGap
	case errors.Is(err, replog.ErrFork):
		return CodeFork
	case errors.Is(err, replog.ErrStaleVersion):
		return CodeStale
	case errors.Is(err, replog.ErrCorrupt):
		return CodeCorrupt
	}
	return CodeInternal
}

// serveSync is a secondary asked by its primary to catch up: it pulls
// until it holds target (or the primary has nothing more), resetting its
// log from the primary's when it diverged.
func (n *Node) serveSync(ctx context.Context, from transport.NodeID, r *smmpb.SyncRequest) *smmpb.Response {
	set, resp := n.admit(ctx, Asked(RequestSync, string(from), r.Queue, 0))
	if resp != nil {
		return resp
	}
	h, err := n.pull(ctx, set, fromPB(r.Target))
	if err != nil {
		return failure(0, logCode(err), err.Error())
	}
	return &smmpb.Response{Body: &smmpb.Response_Head{Head: &smmpb.HeadResponse{Head: toPB(h)}}}
}

// pull fetches and applies the primary's entries until this node holds
// target: its entry at target's clock is target (it may hold more, pushed
// since). A log whose entry at that clock differs — or that is longer
// than the primary's with another history, after a failover — diverged:
// it is reset from the primary's whole log.
func (n *Node) pull(ctx context.Context, set store.ReplicaSet, target replog.Head) (replog.Head, error) {
	head, err := n.cfg.Store.LogHead(ctx, set.Queue)
	if err != nil {
		return head, err
	}
	for range 1 << 16 {
		if head.Clock >= target.Clock {
			held, err := n.holds(ctx, set.Queue, target)
			if err != nil || held {
				return head, err
			}
			return n.resetFromPrimary(ctx, set)
		}
		es, version, err := n.pullPage(ctx, set, head.Clock)
		if err != nil {
			return head, err
		}
		if len(es) == 0 {
			return head, nil // the primary has nothing after our head: it moved on or back
		}
		n.m.Entries.Add(float64(len(es)))
		next, err := n.cfg.Store.AppendLog(ctx, set.Queue, version, es)
		if errors.Is(err, replog.ErrFork) {
			next, err = n.resetFromPrimary(ctx, set)
		}
		if err != nil || next == head {
			return next, err
		}
		head = next
	}
	return head, nil
}

// holds reports whether this node's log of queue has target at its clock.
func (n *Node) holds(ctx context.Context, queue string, target replog.Head) (bool, error) {
	if target.Clock == 0 {
		return true, nil
	}
	es, err := n.cfg.Store.LogAfter(ctx, queue, target.Clock-1, 1)
	if err != nil {
		return false, err
	}
	return len(es) == 1 && es[0].Clock == target.Clock && es[0].Hash == target.Hash, nil
}

// pullPage asks the primary for entries after a clock.
func (n *Node) pullPage(ctx context.Context, set store.ReplicaSet, after uint64) ([]replog.Entry, uint64, error) {
	return n.pullFrom(ctx, set.Primary, set.Queue, set.Version, after)
}

// pullFrom asks a member for the entries of its log after a clock.
// version is the set version this node holds (the member reads the chain
// first when it holds an older one: fence).
func (n *Node) pullFrom(ctx context.Context, member, queue string, version, after uint64) ([]replog.Entry, uint64, error) {
	rctx, cancel := context.WithTimeout(ctx, n.c.RequestTimeout)
	defer cancel()
	resp, err := n.rpc.call(rctx, transport.NodeID(member), &smmpb.Request{Body: &smmpb.Request_Pull{Pull: &smmpb.PullRequest{Queue: queue, After: after, Limit: uint32(n.c.PushPage), Version: version}}})
	if err != nil {
		return nil, 0, err
	}
	e := resp.GetEntries()
	if e == nil {
		return nil, 0, fmt.Errorf("smm: %s answered a pull of %q with no entries", member, queue)
	}
	return entriesFromPB(e.Entries), e.Version, nil
}

// resetFromPrimary replaces this node's log of a queue with the primary's
// whole log, read page by page.
func (n *Node) resetFromPrimary(ctx context.Context, set store.ReplicaSet) (replog.Head, error) {
	all, version, err := n.wholeLog(ctx, set.Primary, set.Queue, set.Version)
	if err != nil {
		return replog.Head{}, err
	}
	n.log.Warn("smm: replica log diverged from its primary's: replaced", "queue", set.Queue, "primary", set.Primary, "entries", len(all))
	return n.cfg.Store.ResetLog(ctx, set.Queue, version, all)
}

// wholeLog reads a member's whole log of a queue, page by page.
func (n *Node) wholeLog(ctx context.Context, member, queue string, held uint64) ([]replog.Entry, uint64, error) {
	var all []replog.Entry
	var version uint64
	for {
		es, v, err := n.pullFrom(ctx, member, queue, held, uint64(len(all)))
		if err != nil {
			return nil, 0, err
		}
		version = v
		all = append(all, es...)
		if len(es) < n.c.PushPage {
			return all, version, nil
		}
	}
}

package smm

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ordolabs/ordo/internal/jobq"
	"github.com/ordolabs/ordo/internal/replog"
	"github.com/ordolabs/ordo/internal/store"
)

// What the API shows of the state machine manager.

// MemberStatus is one member of a queue's replica set.
type MemberStatus struct {
	Node string `json:"node"`
	Role string `json:"role"` // primary | secondary
	// Clock and Hash are its head (this node's own, read now; another
	// member's, as monitoring last gathered it).
	Clock uint64 `json:"clock"`
	Hash  string `json:"hash"`
	// Reached is false when monitoring has not heard from it lately.
	Reached bool `json:"reached"`
	// UnhealthySince is when it stopped answering.
	UnhealthySince time.Time `json:"unhealthySince,omitzero"`
	// Lag is how many entries a secondary's head is behind the
	// primary's, as this node sees both (0 for the primary, and for a
	// secondary at or past it).
	Lag uint64 `json:"lag"`
}

// QueueStatus is a replicated queue as this node sees it.
type QueueStatus struct {
	Queue   string         `json:"queue"`
	Version uint64         `json:"version"`
	Primary string         `json:"primary"`
	Members []MemberStatus `json:"members"`
	// Self is this node's role: primary, secondary, or none.
	Self string `json:"self"`
}

// ErrNoReplicaSet is a queue with no replica set held here.
var ErrNoReplicaSet = errors.New("smm: no replica set held for this queue")

// Queue returns a queue's replica set and each member's clock.
func (n *Node) Queue(ctx context.Context, queue string) (QueueStatus, error) {
	set, err := n.cfg.Store.ReplicaSet(ctx, queue)
	if errors.Is(err, store.ErrNotFound) {
		return QueueStatus{}, fmt.Errorf("%w: %q", ErrNoReplicaSet, queue)
	}
	if err != nil {
		return QueueStatus{}, err
	}
	own, err := n.cfg.Store.LogHead(ctx, queue)
	if err != nil {
		return QueueStatus{}, err
	}
	var seen QueueState
	if st := n.stateOf([]string{queue}); len(st) > 0 {
		seen = st[0]
	}
	out := QueueStatus{Queue: queue, Version: set.Version, Primary: set.Primary, Self: "none"}
	for i, m := range set.Members() {
		role := "secondary"
		if i == 0 {
			role = "primary"
		}
		ms := MemberStatus{Node: m, Role: role}
		var h replog.Head
		if m == n.self {
			h, ms.Reached, out.Self = own, true, role
		} else if sm, ok := seen.Members[m]; ok {
			h, ms.Reached, ms.UnhealthySince = sm.Head, sm.Reached, sm.UnhealthySince
		}
		ms.Clock, ms.Hash = h.Clock, fmt.Sprintf("%x", h.Hash[:])
		out.Members = append(out.Members, ms)
	}
	if len(out.Members) > 0 {
		for i := range out.Members[1:] {
			if m := &out.Members[i+1]; m.Clock < out.Members[0].Clock {
				m.Lag = out.Members[0].Clock - m.Clock
			}
		}
	}
	return out, nil
}

// SetsPage is the body of GET /v1/smm/sets: the replica sets naming this
// node, by queue name, each as GET /v1/queues/{name} shows it; Next is the
// after= of the following page, "" on the last.
type SetsPage struct {
	Sets []QueueStatus `json:"sets"`
	Next string        `json:"next"`
}

// Sets returns up to limit of the replica sets naming this node whose
// queues sort after after.
func (n *Node) Sets(ctx context.Context, after string, limit int) (SetsPage, error) {
	sets, err := n.memberQueues(ctx)
	if err != nil {
		return SetsPage{}, err
	}
	i, _ := slices.BinarySearchFunc(sets, after, func(s store.ReplicaSet, q string) int { return strings.Compare(s.Queue, q) })
	if i < len(sets) && sets[i].Queue == after {
		i++
	}
	page := SetsPage{Sets: []QueueStatus{}}
	for _, s := range sets[i:min(i+limit, len(sets))] {
		q, err := n.Queue(ctx, s.Queue)
		if errors.Is(err, ErrNoReplicaSet) {
			continue // dropped since the list was read
		} else if err != nil {
			return SetsPage{}, err
		}
		page.Sets = append(page.Sets, q)
	}
	if i+limit < len(sets) {
		page.Next = sets[i+limit-1].Queue
	}
	return page, nil
}

// JobQueueStatus is one of the four job queues.
type JobQueueStatus struct {
	Name    string `json:"name"`
	Pending int    `json:"pending"`
	Running int    `json:"running"`
	Failed  int    `json:"failed"`
}

// Status is GET /v1/smm.
type Status struct {
	Node   string           `json:"node"`
	Queues []JobQueueStatus `json:"queues"`
	// Monitoring: the slice being monitored, and the last full cycle.
	Slice         []string  `json:"slice"`
	SliceOffset   int       `json:"sliceOffset"`
	Cycles        int       `json:"cycles"`
	LastCycle     string    `json:"lastCycle"`
	LastCycleEnd  time.Time `json:"lastCycleEnd,omitzero"`
	MappingFresh  bool      `json:"mappingFresh"`
	MappingReadAt time.Time `json:"mappingReadAt,omitzero"`
	// ReplicaSets counts the sets naming this node, by its role.
	Primary   int `json:"primaryOf"`
	Secondary int `json:"secondaryOf"`
}

// Status returns the job queues' counts and monitoring's progress.
func (n *Node) Status(ctx context.Context) (Status, error) {
	counts, err := n.cfg.Store.JobCounts(ctx)
	if err != nil {
		return Status{}, err
	}
	out := Status{Node: n.self, MappingFresh: n.mappingFresh()}
	for _, q := range jobq.SMMQueues() {
		c := counts[q.Name]
		out.Queues = append(out.Queues, JobQueueStatus{Name: q.Name,
			Pending: c[store.JobAvailable] + c[store.JobScheduled] + c[store.JobRetryable],
			Running: c[store.JobRunning], Failed: c[store.JobDead] + c[store.JobCancelled]})
	}
	sets, err := n.memberQueues(ctx)
	if err != nil {
		return Status{}, err
	}
	for _, s := range sets {
		if s.Primary == n.self {
			out.Primary++
		} else {
			out.Secondary++
		}
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	cy := n.core.Cycle()
	out.Slice = append([]string{}, cy.Slice...)
	out.SliceOffset, out.Cycles, out.LastCycleEnd, out.MappingReadAt = cy.Offset, cy.Cycles, cy.Finished, n.core.mapped
	if cy.Cycles > 0 {
		out.LastCycle = cy.Last.String()
	}
	return out, nil
}

// Sync queues a manual sync of every secondary of a queue this node is
// primary of (POST /v1/queues/{name}/sync), and returns how many.
func (n *Node) Sync(ctx context.Context, queue string) (int, error) {
	set, err := n.cfg.Store.ReplicaSet(ctx, queue)
	if errors.Is(err, store.ErrNotFound) {
		return 0, fmt.Errorf("%w: %q", ErrNoReplicaSet, queue)
	}
	if err != nil {
		return 0, err
	}
	if set.Primary != n.self {
		return 0, fmt.Errorf("%w: %s is the primary of %q", ErrNotPrimary, set.Primary, queue)
	}
	for _, s := range set.Secondaries {
		if _, _, err := n.insert(ctx, KindRecurringSync, jobq.QueueManualSync, syncArgs{Queue: queue, Secondary: s}, "sync/"+queue+"/"+s, time.Time{}); err != nil {
			return 0, err
		}
	}
	return len(set.Secondaries), nil
}

// ErrNotPrimary is a sync asked of a node that is not the queue's primary.
var ErrNotPrimary = errors.New("smm: this node is not the queue's primary")

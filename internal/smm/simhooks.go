package smm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ordolabs/ordo/internal/jobq"
	"github.com/ordolabs/ordo/internal/smm/smmpb"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/transport"
	"google.golang.org/protobuf/proto"
)

// Hooks for a simulation (internal/sim's `ordo sim smm`) that drives real
// Nodes from one goroutine: it runs no serveLoop and no worker of the job
// queue. The job queue still turns (jobq.Node.Run: an insert waits for its
// turn) but hands every job it starts back at once (SimDeferJobs); the
// simulation picks a due one from the store (SimDue) and runs it here
// (RunJob). A request is served in the caller's goroutine (SimServe).

// SimFar is how far a job handed back by SimDeferJobs is put off: the
// store then holds it due at SimFar after its due time (SimDue reads it
// back), so that the job queue never starts it again on its own. For
// simulations.
const SimFar = 100 * 365 * 24 * time.Hour

// SimDeferJobs replaces the worker of every job kind by one that hands the
// job back to the job queue at once, due SimFar after its due time. For
// simulations; call it after New and before Open.
func (n *Node) SimDeferJobs() {
	for _, kind := range simKinds {
		n.jobs.Register(kind, jobq.WorkerFunc(func(_ context.Context, j store.Job) error {
			return jobq.Snooze(SimFar + j.RunAt.Sub(n.clock.Now()))
		}))
	}
}

// simKinds are the job kinds the node registers.
var simKinds = []string{KindMonitorState, KindFindSyncRequests, KindFindReplicaSetUpdates, KindRecurringSync,
	KindManualSync, KindReplicaSetUpdate, KindRefreshMapping, KindProbeNode}

// SimJob is a job handed back (SimDeferJobs) with the time it is due.
type SimJob struct {
	Job store.Job
	Due time.Time
}

// SimDue returns the live jobs of the node's store handed back by
// SimDeferJobs with their due times, and whether the job queue is settled:
// no job running and none due by now that it has not handed back yet.
// For simulations.
func (n *Node) SimDue(ctx context.Context) ([]SimJob, bool, error) {
	live, err := n.cfg.Store.LiveJobs(ctx)
	if err != nil {
		return nil, false, err
	}
	now := n.clock.Now()
	far := now.Add(SimFar / 2)
	settled := true
	var out []SimJob
	for _, j := range live {
		switch {
		case j.State == store.JobRunning:
			settled = false
		case j.RunAt.After(far):
			out = append(out, SimJob{Job: j, Due: j.RunAt.Add(-SimFar)})
		case !j.RunAt.After(now):
			settled = false
		}
	}
	return out, settled, nil
}

// RunJob runs a job handed back by SimDeferJobs with its kind's worker, in
// the caller's goroutine, then ends it in the job queue as the outcome
// says, through jobq's API (it has none to finish a job it did not start):
// done or cancelled: cancelled (CancelJob: the store shows it cancelled,
// not completed); snoozed: cancelled and inserted again due after the
// snooze; failed: the same, due after jobq.Backoff of a first attempt
// (attempts are not counted), unless it has one attempt only.
// It returns the worker's error. For simulations.
func (n *Node) RunJob(ctx context.Context, j store.Job) error {
	f := n.simWorker(j.Kind)
	if f == nil {
		return fmt.Errorf("smm: no worker for job kind %q", j.Kind)
	}
	err := f(ctx, j)
	now := n.clock.Now()
	var again time.Time
	switch d, snoozed := snoozeOf(err); {
	case err == nil || jobq.IsCancel(err):
	case snoozed:
		again = now.Add(d)
	case j.MaxAttempts > 1:
		again = now.Add(jobq.Backoff(time.Second, time.Hour, j.ID, 1).Round(time.Millisecond))
	}
	if _, cerr := n.jobs.CancelJob(ctx, j.ID); cerr != nil {
		return errors.Join(err, fmt.Errorf("smm: end job %d: %w", j.ID, cerr))
	}
	if !again.IsZero() {
		_, _, ierr := n.jobs.Insert(ctx, jobq.InsertParams{Queue: j.Queue, Kind: j.Kind, Args: j.Args, UniqueKey: j.UniqueKey,
			RunAt: again, MaxAttempts: j.MaxAttempts})
		if ierr != nil && !errors.Is(ierr, jobq.ErrQueueFull) {
			return errors.Join(err, fmt.Errorf("smm: put job %d off: %w", j.ID, ierr))
		}
	}
	return err
}

// snoozeOf is the wait of a jobq.Snooze result and whether err is one
// (read from its message: jobq keeps the type to itself).
func snoozeOf(err error) (time.Duration, bool) {
	if err == nil {
		return 0, false
	}
	rest, ok := strings.CutPrefix(err.Error(), "jobq: snoozed for ")
	if !ok {
		return 0, false
	}
	d, perr := time.ParseDuration(rest)
	return d, perr == nil
}

// simWorker is the worker of kind, as registerJobs registers it.
func (n *Node) simWorker(kind string) func(context.Context, store.Job) error {
	switch kind {
	case KindMonitorState:
		return jobFunc(n.monitorState)
	case KindFindSyncRequests:
		return jobFunc(n.findSyncRequests)
	case KindFindReplicaSetUpdates:
		return jobFunc(n.findReplicaSetUpdates)
	case KindRecurringSync:
		return jobFunc(n.recurringSync)
	case KindManualSync:
		return jobFunc(n.manualSync)
	case KindReplicaSetUpdate:
		return jobFunc(n.replicaSetUpdate)
	case KindRefreshMapping:
		return func(ctx context.Context, _ store.Job) error { return n.refreshMapping(ctx) }
	case KindProbeNode:
		return jobFunc(n.probeNode)
	}
	return nil
}

// SimStart inserts the first monitor-state unless one is live, as Run
// does. For simulations.
func (n *Node) SimStart(ctx context.Context) error { return n.startMonitoring(ctx) }

// SimServe serves a request message of another node in the caller's
// goroutine and returns the response message to hand back to the caller's
// Handle (ok false: m is no request, or does not decode). For simulations.
func (n *Node) SimServe(ctx context.Context, m transport.Message) (transport.Message, bool) {
	if m.Kind != kindRequest {
		return transport.Message{}, false
	}
	var req smmpb.Request
	if proto.Unmarshal(m.Body, &req) != nil {
		return transport.Message{}, false
	}
	resp := n.serve(ctx, m.From, &req)
	resp.Id = req.Id
	body, err := proto.Marshal(resp)
	if err != nil {
		return transport.Message{}, false
	}
	return transport.Message{From: transport.NodeID(n.self), Kind: kindResponse, Assured: true, Body: body}, true
}

// SimCheckInvariants is the core's CheckInvariants, under the mutex that
// guards it. For simulations.
func (n *Node) SimCheckInvariants() []error {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.core.CheckInvariants()
}

// SimRunJobs turns the node's job queue until ctx ends, as Run does
// (without the workers SimDeferJobs replaced). For simulations.
func (n *Node) SimRunJobs(ctx context.Context) error { return n.jobs.Run(ctx) }

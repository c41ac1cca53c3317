package smm

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"
)

// CoreConfig is what the core decides with: the node's id and the
// replication's bounds (Config's fields of the same names).
type CoreConfig struct {
	Self           string        `json:"self"`
	Secondaries    int           `json:"secondaries"`
	MonitorEvery   time.Duration `json:"monitorEvery"`
	UnhealthyAfter time.Duration `json:"unhealthyAfter"`
	RequestTimeout time.Duration `json:"requestTimeout"`
	MappingEvery   time.Duration `json:"mappingEvery"`
	MaxFailedSyncs int           `json:"maxFailedSyncs"`
}

// CoreConfigOf is the core's part of c (defaults applied) for node self.
func CoreConfigOf(self string, c Config) CoreConfig {
	c = c.WithDefaults()
	return CoreConfig{Self: self, Secondaries: c.Secondaries, MonitorEvery: c.MonitorEvery, UnhealthyAfter: c.UnhealthyAfter,
		RequestTimeout: c.RequestTimeout, MappingEvery: c.MappingEvery, MaxFailedSyncs: c.MaxFailedSyncs}
}

// Core is the state machine manager's sans-I/O core: what this node knows
// of the others' health, the losses it has to plan for, what monitoring
// last saw of each queue, the failed-sync budgets and the mapping's age,
// and the decisions of seed 004's jobs over them. The driver (Node) steps
// it under one mutex and carries out its Ready; see doc.go.
type Core struct {
	cfg    CoreConfig
	now    time.Time
	peers  map[string]*peer
	losses []loss                // found unhealthy, job not queued yet
	losing map[string]time.Time  // losses whose job has not queued its updates yet
	seen   map[string]QueueState // queue → what monitoring last gathered
	failed map[string]failures   // queue/secondary → failed syncs on a day
	mapped time.Time             // when the registry was last read
	cycle  cycleStats
	queues map[string]*queue // by name: this node's role and the acks it knows
	ready  Ready
}

// Snapshot is what a core is built from: the sets this node holds (its
// role in each: a primary's queue is adopted again by its next job or
// intake). The rest of its state is soft: a restart asks
// every node again; the job queue is what persists.
type Snapshot struct {
	Sets []ReplicaSet `json:"sets,omitempty"`
}

// NewCore returns a core at now built from snap.
func NewCore(cfg CoreConfig, now time.Time, snap Snapshot) (*Core, error) {
	if cfg.Self == "" || cfg.UnhealthyAfter <= 0 || cfg.RequestTimeout <= 0 || cfg.MappingEvery <= 0 {
		return nil, errors.New("smm: core: self, UnhealthyAfter, RequestTimeout and MappingEvery are required")
	}
	c := &Core{cfg: cfg, now: now, peers: map[string]*peer{}, losing: map[string]time.Time{},
		seen: map[string]QueueState{}, failed: map[string]failures{}, queues: map[string]*queue{}}
	for _, s := range snap.Sets {
		q := c.queue(s.Queue)
		q.version, q.set = s.Version, s
		switch {
		case s.Primary == cfg.Self:
			q.becomePrimary()
		case s.Holds(cfg.Self):
			q.becomeSecondary()
		}
	}
	return c, nil
}

// Ready is what one step asks of the driver. The driver's duties (the
// synchronous variant of internal/engine's contract): step one input
// stamped with its clock, take Ready, call Advance, all under the mutex
// that guards the core; then, outside it, perform the Effects in order
// (EffectLost first: they come first) and use Reply as the step's answer.
// The core writes no store batch: the job queue's inserts are effects, and
// a failed insert the core must know of is stepped back
// (InputLossNotQueued).
type Ready struct {
	Effects []Effect `json:"effects,omitempty"`
	Reply   Reply    `json:"reply,omitzero"`
}

// Effect is one thing the driver does for the core.
type Effect struct {
	Kind EffectKind `json:"kind"`
	// Node: EffectLost's node.
	Node string `json:"node,omitempty"`
	// Job: EffectInsert's job.
	Job JobInsert `json:"job,omitzero"`
	// Queue: EffectGate's and EffectAcked's queue; Closed: EffectGate
	// closes (true) or opens its dispatch.
	Queue  string `json:"queue,omitempty"`
	Closed bool   `json:"closed,omitempty"`
}

// JobInsert is a job to insert: its kind, lane, JSON arguments, unique key
// (a live job holding it answers instead) and due time (zero: now).
type JobInsert struct {
	Kind   string          `json:"kind"`
	Lane   Lane            `json:"lane"`
	Args   json.RawMessage `json:"args"`
	Unique string          `json:"unique,omitempty"`
	At     time.Time       `json:"at,omitzero"`
	// Loss is the loss this job plans for (its insert failing is stepped
	// back as InputLossNotQueued).
	Loss *Loss `json:"loss,omitempty"`
}

// Loss is a node found unhealthy since Since.
type Loss struct {
	Node  string    `json:"node"`
	Since time.Time `json:"since"`
}

// loss is the core's name for Loss.
type loss = Loss

// Reply is a step's answer to the driver.
type Reply struct {
	// Syncs: InputFindSyncs' queues this node is primary of.
	Syncs []QueueSyncs `json:"syncs,omitempty"`
	// Plans: InputPlan's.
	Plans Plans `json:"plans,omitzero"`
	// Proceed: InputLossDue's node is still lost since the job's Since;
	// Replaceable lists the nodes unhealthy for UnhealthyAfter (a plan
	// replaces them without asking them again).
	Proceed     bool     `json:"proceed,omitempty"`
	Replaceable []string `json:"replaceable,omitempty"`
	// Promoted: InputSetHeld's set makes this node the queue's primary
	// (adopt it before intake or syncs).
	Promoted bool `json:"promoted,omitempty"`
	// Refresh: InputAsked needs the queue's set read from the chain
	// first (step it again with Refreshed). Otherwise Refused is the
	// refusal's code ("" admits), Reason its sentence, Set the set held.
	Refresh bool       `json:"refresh,omitempty"`
	Refused string     `json:"refused,omitempty"`
	Reason  string     `json:"reason,omitempty"`
	Set     ReplicaSet `json:"set,omitzero"`
}

// QueueSyncs is find-sync-requests' finding for one queue this node is
// primary of: Ahead when a secondary's log is more up to date than this
// node's (catch up from it first), and the syncs due within the budget.
type QueueSyncs struct {
	Queue    string        `json:"queue"`
	Ahead    bool          `json:"ahead,omitempty"`
	Requests []SyncRequest `json:"requests,omitempty"`
}

// Plans are the updates a round of states needs that this node signs.
type Plans struct {
	// Failovers move the primary; Others change secondaries only.
	Failovers []SetUpdate `json:"failovers,omitempty"`
	Others    []SetUpdate `json:"others,omitempty"`
	// Unsettled counts queues not plannable yet (ErrUnsettled,
	// ErrMappingStale): a loss's job snoozes and plans again.
	Unsettled int `json:"unsettled,omitempty"`
	// Refused are updates needed that cannot be planned (the driver logs
	// them).
	Refused []Refusal `json:"refused,omitempty"`
}

// SetUpdate is one planned update: the set it replaces, the next one,
// and the members replaced.
type SetUpdate struct {
	Old  ReplicaSet `json:"old"`
	Next ReplicaSet `json:"next"`
	Bad  []string   `json:"bad,omitempty"`
}

// Refusal is a queue whose needed update could not be planned.
type Refusal struct {
	Queue     string   `json:"queue"`
	Unhealthy []string `json:"unhealthy,omitempty"`
	Reason    string   `json:"reason"`
}

// Step takes one input. It panics on an unknown kind.
func (c *Core) Step(in Input) {
	if in.At.After(c.now) {
		c.now = in.At
	}
	switch in.Kind {
	case InputAnswered:
		c.onAnswered(in)
	case InputMonitored:
		c.onMonitored(in)
	case InputLossNotQueued:
		c.losses = append(c.losses, loss{Node: in.Node, Since: in.Since})
	case InputMapped:
		c.mapped = c.now
	case InputSyncFailed:
		c.noteFailedSync(in.Queue, in.Secondary)
	case InputFindSyncs:
		c.ready.Reply.Syncs = c.findSyncs(in.Queues)
	case InputPlan:
		c.ready.Reply.Plans = c.classify(in.States, in.Pool, in.Slice)
	case InputLossDue:
		c.onLossDue(in)
	case InputLossDone:
		if c.losing[in.Node].Equal(in.Since) {
			delete(c.losing, in.Node)
		}
	case InputSetHeld:
		c.onSetHeld(in)
	case InputAdopted:
		c.onAdopted(in.Queue)
	case InputAcked:
		c.onAcked(in)
	case InputAsked:
		c.onAsked(in)
	default:
		panic(fmt.Sprintf("smm: core: unknown input %v", in.Kind))
	}
}

// HasReady reports whether Ready carries anything.
func (c *Core) HasReady() bool {
	return len(c.ready.Effects) > 0 || !isZeroReply(c.ready.Reply)
}

func isZeroReply(r Reply) bool {
	return len(r.Syncs) == 0 && len(r.Replaceable) == 0 && !r.Proceed && !r.Promoted && !r.Refresh && r.Refused == "" && r.Set.Queue == "" && len(r.Plans.Failovers) == 0 &&
		len(r.Plans.Others) == 0 && r.Plans.Unsettled == 0 && len(r.Plans.Refused) == 0
}

// Ready returns what the steps since the last Advance ask.
func (c *Core) Ready() Ready { return c.ready }

// Advance drops the Ready taken.
func (c *Core) Advance() { c.ready = Ready{} }

// Now is the core's clock: the latest input's At.
func (c *Core) Now() time.Time { return c.now }

// UnhealthySince is when node stopped answering (zero: healthy or never
// asked) and whether it was ever asked.
func (c *Core) UnhealthySince(node string) (time.Time, bool) {
	p := c.peers[node]
	if p == nil {
		return time.Time{}, false
	}
	return p.since, true
}

// Health returns every node asked: unhealthy since (zero: healthy).
func (c *Core) Health() map[string]time.Time {
	out := make(map[string]time.Time, len(c.peers))
	for id, p := range c.peers {
		out[id] = p.since
	}
	return out
}

// Seen returns what monitoring last gathered of queues (those it saw).
func (c *Core) Seen(queues []string) []QueueState {
	var out []QueueState
	for _, q := range queues {
		if st, ok := c.seen[q]; ok {
			out = append(out, st)
		}
	}
	return out
}

// Cycle is monitoring's progress.
func (c *Core) Cycle() cycleStats { return c.cycle }

// MappingFresh reports whether the registry was read within 3 periods of
// the core's clock.
func (c *Core) MappingFresh() bool { return c.mappingFreshAt(c.now) }

func (c *Core) mappingFreshAt(now time.Time) bool {
	return !c.mapped.IsZero() && now.Sub(c.mapped) <= 3*c.cfg.MappingEvery
}

func (c *Core) peer(node string) *peer {
	p := c.peers[node]
	if p == nil {
		p = &peer{}
		c.peers[node] = p
	}
	return p
}

// onAnswered marks node's health: an unanswered request counts from when
// it was sent, not from its timeout; this node is never lost to itself.
func (c *Core) onAnswered(in Input) {
	if in.Node == c.cfg.Self || in.Node == "" {
		return
	}
	p := c.peer(in.Node)
	if in.OK {
		p.becomeHealthy(in.Asked)
		return
	}
	if p.becomeUnhealthy(in.Asked) {
		c.losses = append(c.losses, loss{Node: in.Node, Since: in.Asked})
		c.ready.Effects = append(c.ready.Effects, Effect{Kind: EffectLost, Node: in.Node})
	}
}

// onMonitored records a slice's states and queues what follows it: a
// probe-node for each registered node found unhealthy (at most once per
// RequestTimeout), a loss's job for each loss found since the last slice,
// the next monitor-state after MonitorEvery, and the slice's
// find-sync-requests and find-replica-set-updates.
func (c *Core) onMonitored(in Input) {
	if in.Offset == 0 {
		if !c.cycle.Started.IsZero() {
			c.cycle.Last, c.cycle.Finished = c.now.Sub(c.cycle.Started), c.now
			c.cycle.Cycles++
		}
		c.cycle.Started = c.now
	}
	c.cycle.Offset = in.Offset
	c.cycle.Slice = c.cycle.Slice[:0]
	names := make([]string, 0, len(in.States))
	for _, st := range in.States {
		c.seen[st.Set.Queue] = st
		names = append(names, st.Set.Queue)
		c.cycle.Slice = append(c.cycle.Slice, st.Set.Queue)
	}
	c.queueProbes(in.Registered)
	c.scheduleLosses()
	c.insert(KindMonitorState, LaneMonitoring, monitorArgs{Offset: in.Next}, "", c.now.Add(c.cfg.MonitorEvery), nil)
	if len(names) > 0 {
		c.insert(KindFindSyncRequests, LaneMonitoring, sliceArgs{Queues: names}, "", time.Time{}, nil)
		c.insert(KindFindReplicaSetUpdates, LaneMonitoring, sliceArgs{Queues: names}, "", time.Time{}, nil)
	}
}

func (c *Core) insert(kind string, lane Lane, args any, unique string, at time.Time, l *Loss) {
	b, err := json.Marshal(args)
	if err != nil {
		panic(fmt.Sprintf("smm: core: %s args: %v", kind, err))
	}
	c.ready.Effects = append(c.ready.Effects, Effect{Kind: EffectInsert, Job: JobInsert{Kind: kind, Lane: lane, Args: b, Unique: unique, At: at, Loss: l}})
}

// queueProbes: a probe-node for each registered node found unhealthy, at
// most once per RequestTimeout (failover.go).
func (c *Core) queueProbes(registered []string) {
	for _, node := range slices.Sorted(slices.Values(registered)) {
		p := c.peers[node]
		if node == c.cfg.Self || p == nil || p.state != unhealthy || c.now.Sub(p.probed) < c.cfg.RequestTimeout {
			continue
		}
		p.probed = c.now
		c.insert(KindProbeNode, LaneManualSync, probeArgs{Node: node}, "probe/"+node, time.Time{}, nil)
	}
}

// scheduleLosses: a find-replica-set-updates for each loss noted since the
// last slice, due when its node has been unhealthy for UnhealthyAfter.
func (c *Core) scheduleLosses() {
	for _, l := range c.losses {
		c.losing[l.Node] = l.Since
		key := fmt.Sprintf("lost/%s/%d", l.Node, l.Since.UnixNano())
		c.insert(KindFindReplicaSetUpdates, LaneReplicaSetUpdate, sliceArgs{Lost: l.Node, Since: l.Since}, key, l.Since.Add(c.cfg.UnhealthyAfter), &Loss{Node: l.Node, Since: l.Since})
	}
	c.losses = nil
}

// onLossDue: the loss's job goes on only while its node is still lost
// since the loss (it answered since, or was lost again later: that loss
// has its own job).
func (c *Core) onLossDue(in Input) {
	if p := c.peers[in.Node]; p == nil || p.state != unhealthy || !p.since.Equal(in.Since) {
		if c.losing[in.Node].Equal(in.Since) {
			delete(c.losing, in.Node)
		}
		return
	}
	c.ready.Reply.Proceed = true
	c.ready.Reply.Replaceable = c.replaceable()
}

// replaceable returns the nodes unhealthy for UnhealthyAfter or longer,
// sorted.
func (c *Core) replaceable() []string {
	var out []string
	for _, node := range slices.Sorted(maps.Keys(c.peers)) {
		if p := c.peers[node]; p.state == unhealthy && c.now.Sub(p.since) >= c.cfg.UnhealthyAfter {
			out = append(out, node)
		}
	}
	return out
}

// findSyncs is find-sync-requests over queues this node is primary of.
func (c *Core) findSyncs(queues []string) []QueueSyncs {
	var out []QueueSyncs
	for _, st := range c.Seen(queues) {
		if st.Set.Primary != c.cfg.Self {
			continue
		}
		out = append(out, QueueSyncs{Queue: st.Set.Queue, Ahead: aheadOfPrimary(st), Requests: FindSyncRequests(st, c.budget)})
	}
	return out
}

// aheadOfPrimary reports whether a reached secondary's log is more up to
// date than the primary's (replog.Head.Newer).
func aheadOfPrimary(st QueueState) bool {
	p := st.Members[st.Set.Primary]
	for _, s := range st.Set.Secondaries {
		if m := st.Members[s]; m.Reached && p.Reached && m.Head.Newer(p.Head) {
			return true
		}
	}
	return false
}

// failures counts a pair's failed syncs on one day.
type failures struct {
	day string
	n   int
}

func (c *Core) day() string { return c.now.UTC().Format(time.DateOnly) }

// budget allows a pair its MaxFailedSyncs failed syncs per day.
func (c *Core) budget(queue, secondary string) bool {
	f := c.failed[queue+"\x00"+secondary]
	return f.day != c.day() || f.n < c.cfg.MaxFailedSyncs
}

// noteFailedSync counts a failed sync of a pair today.
func (c *Core) noteFailedSync(queue, secondary string) {
	k, day := queue+"\x00"+secondary, c.day()
	f := c.failed[k]
	if f.day != day {
		f = failures{day: day}
	}
	f.n++
	c.failed[k] = f
}

// classify plans each state: the failovers and other updates this node
// signs, the queues not plannable yet, the updates that cannot be planned.
// A slice leaves to a loss's job the queues whose only replaced members
// are nodes that job has still to plan for.
func (c *Core) classify(states []QueueState, pool []Candidate, slice bool) Plans {
	var p Plans
	for _, st := range states {
		next, bad, err := c.plan(st, pool)
		switch {
		case errors.Is(err, ErrUnsettled) || errors.Is(err, ErrMappingStale):
			p.Unsettled++
		case errors.Is(err, ErrNothingToReplace) || (errors.Is(err, ErrNoCandidate) && len(bad) == 0) || (slice && c.losingOnly(bad)):
		case err != nil:
			p.Refused = append(p.Refused, Refusal{Queue: st.Set.Queue, Unhealthy: bad, Reason: err.Error()})
		case signer(st.Set, next) != c.cfg.Self:
		case next.Primary != st.Set.Primary:
			p.Failovers = append(p.Failovers, SetUpdate{Old: st.Set, Next: next, Bad: bad})
		default:
			p.Others = append(p.Others, SetUpdate{Old: st.Set, Next: next, Bad: bad})
		}
	}
	return p
}

// plan is the update a queue's set needs now: its members unhealthy for
// UnhealthyAfter replaced, or, when none is, the set grown back to
// Secondaries when it shrank. ErrNothingToReplace: none needed.
func (c *Core) plan(st QueueState, pool []Candidate) (ReplicaSet, []string, error) {
	cands := c.candidates(pool, st.Set.Members())
	bad := FindReplicaSetUpdates(st, c.now, c.cfg.UnhealthyAfter)
	if len(bad) > 0 {
		next, _, err := PlanReplicaSetUpdate(st, bad, cands, c.MappingFresh())
		return next, bad, err
	}
	for _, m := range st.Members {
		if !m.Healthy() {
			return ReplicaSet{}, nil, ErrNothingToReplace // not for long enough yet
		}
	}
	next, _, err := PlanGrow(st, c.cfg.Secondaries, cands, c.MappingFresh())
	return next, nil, err
}

// candidates are the pool's nodes outside exclude that are not found
// unhealthy, in the pool's order by node id.
func (c *Core) candidates(pool []Candidate, exclude []string) []Candidate {
	var out []Candidate
	for _, cand := range pool {
		if slices.Contains(exclude, cand.Node) {
			continue
		}
		if p := c.peers[cand.Node]; p != nil && p.state == unhealthy {
			continue
		}
		out = append(out, cand)
	}
	slices.SortFunc(out, func(a, b Candidate) int { return cmp.Compare(a.Node, b.Node) })
	return out
}

// losingOnly reports whether every member of bad is a node whose loss's
// job has not yet queued its updates, and is not late (RequestTimeout past
// its due time).
func (c *Core) losingOnly(bad []string) bool {
	for _, b := range bad {
		since, ok := c.losing[b]
		if !ok || !c.now.Before(since.Add(c.cfg.UnhealthyAfter+c.cfg.RequestTimeout)) {
			return false
		}
	}
	return len(bad) > 0
}

// signer is the member of old that signs the update to next: its primary,
// unless next moves the primary, then the promoted secondary.
func signer(old, next ReplicaSet) string {
	if next.Primary != old.Primary {
		return next.Primary
	}
	return old.Primary
}

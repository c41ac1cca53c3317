package node

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/store"
)

// Several nodes on one database (issue 13): a leaseKeeper holds this
// node's leases in the shared store and is the sequencer's Owner. Each
// cycle (every ttl/3) it renews what it holds, keeps its node lease (the
// live nodes are the holders of unexpired node leases), takes the leases
// of its configured senders that no live node holds, and takes free
// queues with work up to its fair share (the active queues over the live
// nodes, rounded up), giving back the excess above share+1 so that a node
// that joins gets work. A lease lost (expired while this node stalled,
// say) is dropped from what it holds; the sequencer then starts over
// without it, and its batches are fenced until it does.

// leaseStore is what the keeper needs of the store: the leases, and the
// finished transactions whose hook has not run (their queue is work too).
type leaseStore interface {
	store.LeaseStore
	PendingHooks(ctx context.Context, after int64, limit int) ([]store.Transaction, error)
}

// leaseKeeper keeps a node's leases; it is the sequencer's Owner.
type leaseKeeper struct {
	st      leaseStore
	holder  string
	ttl     time.Duration
	senders []string
	// engines are the engines that run on one node at a time: each has a
	// lease (engine/<name>) the keeper reaches for every cycle. Build sets
	// them, once it has built the engines, before the keeper runs.
	engines []string
	clock   clock.Clock
	log     *slog.Logger

	mu   sync.Mutex
	held map[string]int64 // lease name → token: queue/, sender/ and engine/ leases
	// until is when the leases held may start to expire, on this node's
	// clock (the last full cycle's start + ttl - ttl/5); gen counts the
	// cycles that lost a lease (sequencer.Owner.Until).
	until time.Time
	gen   uint64
	// active are the held queues with work, as of the last cycle (for
	// the intake watch's rescans).
	active []string
	// running is, for each engine running here, the fence of its lease's
	// token when it started (engineFence); retired are the engines stopped here for good
	// (their lease lost), whose lease the keeper gives back.
	running map[string]*store.Fence
	retired map[string]bool
	changed chan struct{}
	poke    chan struct{}
	// last is when the last cycle started (Run's first cycle waits for
	// the period after the one Build ran).
	last time.Time
	// draining is set once the node stops (shutdown.go): the keeper
	// renews what it holds and takes no new queue.
	draining atomic.Bool
}

// enginePrefixes are the sequencer queues each engine submits to: they
// follow the engine's lease (its OnFinish signals reach it only on the
// node that runs the queue).
var enginePrefixes = map[string]string{"processor": "processor/", "leader": "leader/", "distseq": "distseq/"}

func newLeaseKeeper(st leaseStore, holder string, ttl time.Duration, senders []string, clk clock.Clock, log *slog.Logger) *leaseKeeper {
	return &leaseKeeper{st: st, holder: holder, ttl: ttl, senders: senders, clock: clk, log: log,
		held: map[string]int64{}, changed: make(chan struct{}, 1), poke: make(chan struct{}, 1)}
}

// Held implements sequencer.Owner.
func (k *leaseKeeper) Held() sequencer.Held {
	k.mu.Lock()
	defer k.mu.Unlock()
	h := sequencer.Held{Queues: map[string]bool{}, Senders: map[string]bool{},
		Fence: &store.Fence{Holder: k.holder, Leases: map[string]int64{}}, Gen: k.gen}
	for name, tok := range k.held {
		if q, ok := strings.CutPrefix(name, store.LeaseQueue); ok {
			h.Queues[q] = true
		} else if s, ok := strings.CutPrefix(name, store.LeaseSender); ok {
			h.Senders[s] = true
		} else {
			continue // an engine's: not the sequencer's to fence
		}
		h.Fence.Leases[name] = tok
	}
	return h
}

// Changed implements sequencer.Owner.
func (k *leaseKeeper) Changed() <-chan struct{} { return k.changed }

// Until implements sequencer.Owner.
func (k *leaseKeeper) Until(gen uint64) time.Time {
	k.mu.Lock()
	defer k.mu.Unlock()
	if gen != k.gen {
		return time.Time{}
	}
	return k.until
}

// confirm extends the lapse time when the renewal kept every lease held
// (a later step of the cycle may fail: acquiring waits on a stalled
// writer's locks, say; the leases held are still surely held).
func (k *leaseKeeper) confirm(renewed map[string]int64, until time.Time) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for name, tok := range k.held {
		if t, ok := renewed[name]; !ok || t != tok {
			return
		}
	}
	k.until = until
}

// holdsQueue reports whether this node holds queue's lease.
func (k *leaseKeeper) holdsQueue(queue string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	_, ok := k.held[store.LeaseQueue+queue]
	return ok
}

// activeHeld are the held queues that had work at the last cycle.
func (k *leaseKeeper) activeHeld() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.active)
}

// Poke asks for a cycle now (intake for a queue no one holds).
func (k *leaseKeeper) Poke() {
	select {
	case k.poke <- struct{}{}:
	default:
	}
}

// period is how often the keeper renews (a third of the ttl), the most a
// cycle may take, and how often an engine's lease is looked at.
func (k *leaseKeeper) period() time.Duration { return max(k.ttl/3, 10*time.Millisecond) }

// start takes the node's leases for the first time, before its engines
// run: it first ends those its holder id still holds (a run of this node
// that died: kill -9), so that the cycle takes them back at once, each
// with a new fencing token (a write of the dead run still under way is
// fenced), rather than after their ttl as another holder would.
func (k *leaseKeeper) start(ctx context.Context) error {
	if err := k.st.ReleaseLeases(ctx, k.holder, nil); err != nil {
		return fmt.Errorf("end the leases of this holder's previous run: %w", err)
	}
	if err := k.cycle(ctx); err != nil {
		return err
	}
	// The sequencer has not loaded yet: it loads what is held now, so this
	// change is no reason to start over.
	select {
	case <-k.changed:
	default:
	}
	return nil
}

// Run keeps the leases until ctx ends, then releases them. Its first cycle
// comes a period after the last one (start's, run by Build): the leases
// the engines start on are not changed under them as they load.
func (k *leaseKeeper) Run(ctx context.Context) error {
	every := k.period()
	first := true
	for {
		wait := every
		if first && !k.last.IsZero() {
			wait = max(every-k.clock.Now().Sub(k.last), 0)
		} else if err := k.cycle(ctx); err != nil && ctx.Err() == nil {
			k.log.Warn("leases: a cycle failed; the leases held stay until they expire", "err", err)
		}
		first = false
		t := k.clock.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			if err := k.st.ReleaseLeases(rctx, k.holder, nil); err != nil {
				k.log.Warn("leases: release at stop", "err", err)
			}
			return ctx.Err()
		case <-k.poke:
			t.Stop()
		case <-t.C():
		}
	}
}

// cycle renews, takes and gives back leases, and signals a change. It
// gives up after ttl/3 (a database that does not answer, a lock held by a
// stalled node): the leases then lapse here first.
func (k *leaseKeeper) cycle(ctx context.Context) error {
	start := k.clock.Now()
	k.last = start
	ctx, cancel := context.WithTimeout(ctx, k.period())
	defer cancel()
	renewed, err := k.st.RenewLeases(ctx, k.holder, k.ttl)
	if err != nil {
		return fmt.Errorf("renew: %w", err)
	}
	next := map[string]int64{}
	for _, l := range renewed {
		next[l.Name] = l.Token
	}
	k.confirm(next, start.Add(k.ttl-k.ttl/5))
	want := []string{store.LeaseNode + k.holder}
	for _, s := range k.senders {
		if _, ok := next[store.LeaseSender+s]; !ok {
			want = append(want, store.LeaseSender+s)
		}
	}
	for _, e := range k.engines {
		if _, ok := next[leaseEngine+e]; !ok && !k.isRetired(e) {
			want = append(want, leaseEngine+e)
		}
	}
	got, err := k.st.AcquireLeases(ctx, k.holder, want, k.ttl)
	if err != nil {
		return fmt.Errorf("acquire node and senders: %w", err)
	}
	for _, l := range got {
		next[l.Name] = l.Token
	}
	active, idle, err := k.balance(ctx, next)
	if err != nil {
		return err
	}
	delete(next, store.LeaseNode+k.holder)
	k.set(next, start.Add(k.ttl-k.ttl/5), active, idle)
	return nil
}

// balance takes free active queues up to the fair share and gives back
// those above share+1, and the idle ones (ActiveQueues counts a queue
// while a transaction of it is not final or its hook has not run, so that
// the fence stays the size of the work); an engine's queues go to the node
// running the engine, outside the share. It reads the leases once and
// gives back in one call. It returns the active queues held, and the idle
// ones given back (no change for the sequencer: a batch for one is fenced
// anyway).
func (k *leaseKeeper) balance(ctx context.Context, next map[string]int64) (active []string, idle map[string]bool, err error) {
	live, err := k.st.Leases(ctx, "")
	if err != nil {
		return nil, nil, fmt.Errorf("leases: %w", err)
	}
	nodes, held := 0, map[string]bool{}
	for _, l := range live {
		if strings.HasPrefix(l.Name, store.LeaseNode) {
			nodes++
		} else if q, ok := strings.CutPrefix(l.Name, store.LeaseQueue); ok {
			held[q] = true
		}
	}
	all, err := k.activeQueues(ctx)
	if err != nil {
		return nil, nil, err
	}
	isActive := map[string]bool{}
	var mine, free, engine, giveBack []string
	for _, e := range k.engines {
		if _, ok := next[leaseEngine+e]; ok && k.isRetired(e) {
			giveBack = append(giveBack, leaseEngine+e) // and its queues, below
			delete(next, leaseEngine+e)
		}
	}
	for _, q := range all {
		isActive[q] = true
		_, ok := next[store.LeaseQueue+q]
		switch e, isEngine := k.engineOf(q); {
		case isEngine && !k.runs(next, e):
			if ok { // its engine runs elsewhere now: it goes there
				giveBack = append(giveBack, store.LeaseQueue+q)
			}
		case isEngine && !ok && !held[q]:
			engine = append(engine, q)
		case isEngine:
		case ok:
			mine = append(mine, q)
		case !held[q]:
			free = append(free, q)
		}
	}
	idle = map[string]bool{}
	for name := range next {
		if q, ok := strings.CutPrefix(name, store.LeaseQueue); ok && !isActive[q] {
			idle[name] = true
			giveBack = append(giveBack, name)
		}
	}
	share := (len(all) + max(nodes, 1) - 1) / max(nodes, 1)
	var take []string
	for _, q := range engine {
		take = append(take, store.LeaseQueue+q)
	}
	if k.draining.Load() {
		take, free = nil, nil // a stopping node takes no new work
	}
	if n := share - len(mine); n > 0 && len(free) > 0 {
		k.spread(free)
		for _, q := range free[:min(n, len(free))] {
			take = append(take, store.LeaseQueue+q)
		}
	}
	if excess := len(mine) - (share + 1); excess > 0 {
		k.spread(mine)
		for _, q := range mine[:excess] {
			giveBack = append(giveBack, store.LeaseQueue+q)
		}
		k.log.Info("leases: giving back queues above the fair share", "queues", excess, "share", share)
	}
	if len(take) > 0 {
		got, err := k.st.AcquireLeases(ctx, k.holder, take, k.ttl)
		if err != nil {
			return nil, nil, fmt.Errorf("acquire queues: %w", err)
		}
		for _, l := range got {
			next[l.Name] = l.Token
		}
	}
	if len(giveBack) > 0 {
		if err := k.st.ReleaseLeases(ctx, k.holder, giveBack); err != nil {
			return nil, nil, fmt.Errorf("give back queues: %w", err)
		}
		for _, name := range giveBack {
			delete(next, name)
		}
	}
	for name := range next {
		if q, ok := strings.CutPrefix(name, store.LeaseQueue); ok && isActive[q] {
			active = append(active, q)
		}
	}
	slices.Sort(active)
	return active, idle, nil
}

// engineOf reports the engine whose queue q is, if any.
func (k *leaseKeeper) engineOf(q string) (string, bool) {
	for e, p := range enginePrefixes {
		if strings.HasPrefix(q, p) {
			return e, true
		}
	}
	return "", false
}

// runs reports whether next holds engine e's lease.
func (k *leaseKeeper) runs(next map[string]int64, e string) bool {
	_, ok := next[leaseEngine+e]
	return ok
}

// activeQueues pages through the store's active queues, and adds the
// queues of finished transactions whose hook has not run (a node that
// died with one pending leaves it to the queue's next holder).
func (k *leaseKeeper) activeQueues(ctx context.Context) ([]string, error) {
	var out []string
	after := ""
	for {
		page, err := k.st.ActiveQueues(ctx, after, 1000)
		if err != nil {
			return nil, fmt.Errorf("active queues: %w", err)
		}
		out = append(out, page...)
		if len(page) < 1000 {
			break
		}
		after = page[len(page)-1]
	}
	for seq := int64(0); ; {
		hooks, err := k.st.PendingHooks(ctx, seq, 1000)
		if err != nil {
			return nil, fmt.Errorf("pending hooks: %w", err)
		}
		for _, t := range hooks {
			out = append(out, t.Queue)
			seq = t.Seq
		}
		if len(hooks) < 1000 {
			break
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// spread orders queues by a hash of this holder and the queue, so that
// nodes reaching for free queues at once mostly reach for different ones.
func (k *leaseKeeper) spread(qs []string) {
	key := func(q string) uint64 {
		h := fnv.New64a()
		h.Write([]byte(k.holder))
		h.Write([]byte{0})
		h.Write([]byte(q))
		return h.Sum64()
	}
	slices.SortFunc(qs, func(a, b string) int {
		ka, kb := key(a), key(b)
		switch {
		case ka < kb:
			return -1
		case ka > kb:
			return 1
		}
		return strings.Compare(a, b)
	})
}

// withoutEngines is m without the engines' leases.
func withoutEngines(m map[string]int64) map[string]int64 {
	out := make(map[string]int64, len(m))
	for k, v := range m {
		if !strings.HasPrefix(k, leaseEngine) {
			out[k] = v
		}
	}
	return out
}

// leaseEngine prefixes an engine's lease.
const leaseEngine = "engine/"

// holdsEngine reports whether this node holds the engine's lease.
func (k *leaseKeeper) holdsEngine(name string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	_, ok := k.held[leaseEngine+name]
	return ok
}

// leased runs an engine only while this node holds its lease: it waits
// for the lease (a standby node takes the engine over once its holder's
// lease expires), runs the engine, and stops it if the lease is lost.
//
// An engine that can run again (again is set: the processor, the leader)
// then stands by once more, as a standby node does, and runs again, its
// core built from the store, whenever this node holds the lease: after an
// outage of the database longer than the lease, a single node takes its
// engine back. Once again reports that the engine has started here, an
// error of the engine (a core it could not build again from a store that
// was away) is logged and the engine stands by the same way; before that,
// an error is the node's (it fails at start, as with a bad config).
//
// One that cannot (again is nil: distseq, whose transport closes with it)
// stays stopped until the node restarts (it says so), and its lease is
// given back (retire) so that a standby runs it; its errors are the
// node's.
func (k *leaseKeeper) leased(name string, again func() bool, run func(context.Context) error) func(context.Context) error {
	return func(ctx context.Context) error {
		for {
			err := k.runHeld(ctx, name, run)
			lost := errors.Is(err, errEngineLost)
			switch {
			case err == nil:
				return nil
			case ctx.Err() != nil && lost:
				return nil // lost as the node stopped
			case ctx.Err() != nil:
				return err
			case again == nil && lost:
				k.retire(name)
				k.Poke()
				k.log.Error("leases: the engine's lease was lost: it stopped here and its lease is given back, so that another node runs it; restart this node to stand by for it again", "engine", name, "stopped", err)
				<-ctx.Done()
				return nil
			case !lost && (again == nil || !again()):
				return err
			case lost:
				k.log.Error("leases: the engine's lease was lost: it stopped here, and runs again, built from the store, once this node holds its lease again", "engine", name, "stopped", err)
			default:
				k.log.Error("leases: the engine failed: it runs again, built from the store, once this node holds its lease", "engine", name, "err", err)
			}
			k.Poke()
			// A cycle of the keeper first (Poke), so that a lease the store
			// saw lost before the keeper did is not taken for held.
			t := k.clock.NewTimer(k.period())
			select {
			case <-ctx.Done():
				t.Stop()
				return nil
			case <-t.C():
			}
		}
	}
}

// errEngineLost is runHeld's answer when the engine stopped because its
// lease was lost (or its write fenced); it wraps what the engine returned.
var errEngineLost = errors.New("the engine's lease was lost")

// runHeld waits for engine name's lease and runs the engine until ctx ends
// (nil), the engine fails (its error), or the lease is lost (errEngineLost).
func (k *leaseKeeper) runHeld(ctx context.Context, name string, run func(context.Context) error) error {
	every := k.period()
	if err := k.waitFor(ctx, every, func() bool { return k.holdsEngine(name) }); err != nil {
		return nil // the node stops
	}
	k.log.Info("leases: this node runs the engine", "engine", name)
	tok := k.startEngine(name)
	defer k.stopEngine(name)
	ectx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- run(ectx) }()
	lost := make(chan struct{})
	go func() {
		// Lost, or taken again with a new token (it expired while the
		// database was away, and another node may have run the engine in
		// between): either way this engine's writes are fenced now.
		if k.waitFor(ectx, every, func() bool { return !k.holdsEngineToken(name, tok) }) == nil {
			close(lost)
		}
	}()
	select {
	case err := <-done:
		if !errors.Is(err, store.ErrFenced) {
			return err
		}
		// The store refused a write: the lease was lost before the keeper
		// saw it.
		return fmt.Errorf("%w: %w", errEngineLost, err)
	case <-lost:
		cancel()
		return fmt.Errorf("%w: %w", errEngineLost, <-done)
	}
}

// waitFor polls cond every period until it holds (nil) or ctx ends.
func (k *leaseKeeper) waitFor(ctx context.Context, every time.Duration, cond func() bool) error {
	for !cond() {
		t := k.clock.NewTimer(every)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C():
		}
	}
	return nil
}

// set replaces what is held, signalling a change of the queues and
// senders held (the sequencer's; engines watch their own lease); until is
// the new lapse time, which a cycle that lost a lease does not extend for
// the Held generations before it.
func (k *leaseKeeper) set(next map[string]int64, until time.Time, active []string, idle map[string]bool) {
	k.mu.Lock()
	k.active = active
	prev := withoutEngines(k.held)
	for name := range idle {
		delete(prev, name)
	}
	same := maps.Equal(prev, withoutEngines(next))
	lost := 0
	for name, tok := range prev {
		if t, ok := next[name]; !ok || t != tok {
			lost++
		}
	}
	k.held = next
	if lost > 0 {
		k.gen++
	}
	k.until = until
	k.mu.Unlock()
	if same {
		return
	}
	if lost > 0 {
		k.log.Warn("leases: leases dropped (expired, taken by another node, or given back)", "dropped", lost, "held", len(next))
	}
	select {
	case k.changed <- struct{}{}:
	default:
	}
}

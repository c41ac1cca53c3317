package sim

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"math/rand/v2"
	"slices"
	"sort"
	"time"

	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/replog"
	"github.com/ordolabs/ordo/internal/smm"
	"github.com/ordolabs/ordo/internal/store"
)

// The world of the state machine manager's model: nodes with their logs
// and the sets they hold, the chain (replica sets, the intents' nullifier),
// the model network and the virtual clock. Modelled after internal/smm:
//   - intake at a node goes to the primary of the set it holds; a node that
//     is not the primary answers NOT_PRIMARY and the sender reads the chain
//     once and tries again (submitOne);
//   - the primary seals a ChangeIntent entry under its set's version,
//     pushes it to each secondary (manual sync), and with AckAfter 1
//     acknowledges once a secondary of the set it was committed under has
//     a clock at the entry's (noteAcked records clocks, waitAcked counts
//     only those secondaries, as the driver does) within the ack timeout;
//     a set with fewer secondaries than AckAfter is refused an ack;
//   - a node that becomes a queue's primary, or finds itself one after a
//     restart, catches up with the most advanced member that answers and
//     adopts the queue before it takes intake, dispatches or syncs its
//     secondaries (smmadopt.go);
//   - a secondary takes a push or a pulled batch only from the primary of
//     the set it holds, reading the chain once when the sender claims a
//     newer version or is not its primary (checkPrimary), and only through
//     replog.Extend; a diverged one is reset to its primary's whole log
//     (also through Extend, from the empty head);
//   - dispatch is the primary's sequencer: the oldest intent its log does
//     not show final is applied on chain unless the nullifier holds it
//     (duplicate_intent: taken as applied), then a ChangeFinal is sealed.
//     That is adoption too: a new primary's open intents are checked
//     against the chain in log order before new ones;
//   - monitoring refreshes the sets it holds from the chain, observes the
//     members it reaches (their heads), and runs the pure decisions; a set
//     update lands on chain after a delay and fails when it names a
//     version that is no longer current (the loser of a race).

const (
	smmAckTimeout = 3 * time.Second
	smmQuietTick  = 500 * time.Millisecond
)

// smmNode is one node: its disk (logs and the sets it holds) and its
// memory (acknowledgements, health, intake waiting for an ack).
type smmNode struct {
	id   string
	up   bool
	logs map[string][]replog.Entry
	sets map[string]smm.ReplicaSet
	// memory
	acked     map[string]map[string]uint64
	unhealthy map[string]map[string]time.Time
	waiting   []smmWait
	updating  map[string]bool
	adopted   map[string]bool // queues adopted since it became their primary or restarted
}

// smmWait is an intent its primary took in, waiting for AckAfter of the
// secondaries of the set it was committed under to ack it.
type smmWait struct {
	id          string
	queue       string
	clock       uint64
	deadline    time.Time
	secondaries []string
}

// smmIntent is the checker's record of an intent taken in by a primary.
type smmIntent struct {
	id, queue string
	seq       int
	acked     bool
	// deposed: taken in by a primary the chain had already replaced,
	// that had not read the update (finding 4).
	deposed bool
	// holders are the nodes that held its entry and did not lose their
	// disk, nor were replaced out of its queue's set (as unhealthy), since:
	// with none left, more members failed than the ack allowed for.
	holders map[string]bool
}

// smmApplied is an intent applied on chain: by which node, and whether
// that node was deposed then (the chain's set names another primary, or
// a newer version than the one the node holds: it has not read the
// update yet).
type smmApplied struct {
	id, by  string
	seq     int
	deposed bool
}

// deposed is whether n dispatching q now is a deposed primary.
func (w *smmWorld) deposed(n *smmNode, q string) bool {
	c := w.sets[q]
	return c.Primary != n.id || c.Version != n.sets[q].Version
}

// smmUpdate is a replica-set update on its way to the chain.
type smmUpdate struct {
	at   time.Time
	next smm.ReplicaSet
	by   string
}

// smmMsg is a message on the model network.
type smmMsg struct {
	at       time.Time
	seq      int
	from, to string
	kind     string // push, pushed, pull, entries, hint
	queue    string
	version  uint64
	entries  []replog.Entry
	reset    bool
	head     replog.Head
	code     string
}

type smmWorld struct {
	cfg   SMMConfig
	clk   *clock.Virtual
	rng   *rand.Rand
	nodes []*smmNode
	names []string
	qs    []string
	// chain
	sets    map[string]smm.ReplicaSet
	applied map[string]int          // intent id -> applications (the nullifier refuses a second)
	order   map[string][]smmApplied // queue -> intents in the order applied
	// orderSeen[q] is how many of order[q] the intake-order check saw;
	// orderMax[q] the one of them with the highest intake sequence.
	orderSeen map[string]int
	orderMax  map[string]smmApplied
	// deposedLost: acknowledged intents taken in by a deposed primary and
	// lost (counted once).
	deposedLost map[string]bool
	updates     []smmUpdate
	// network
	msgs             []smmMsg
	msgSeq           int
	drop, dup, delay float64
	reorder          bool
	side             map[string]bool
	intents          map[string]*smmIntent
	intentOrder      []string
	seq              int
	touched          map[string]map[string]bool // node -> queues whose log changed this step
	budget           map[string]int
	digest           hash.Hash
	res              SMMResult
	stepNo           int
}

func newSMMWorld(cfg SMMConfig) *smmWorld {
	w := &smmWorld{cfg: cfg, clk: clock.NewVirtual(clock.Epoch), rng: rand.New(rand.NewPCG(cfg.Seed, 0x6e6574)),
		sets: map[string]smm.ReplicaSet{}, applied: map[string]int{}, order: map[string][]smmApplied{},
		orderSeen: map[string]int{}, orderMax: map[string]smmApplied{}, deposedLost: map[string]bool{}, side: map[string]bool{},
		intents: map[string]*smmIntent{}, touched: map[string]map[string]bool{}, budget: map[string]int{}, digest: sha256.New()}
	w.res.Seed = cfg.Seed
	for i := range cfg.Nodes {
		w.names = append(w.names, string(rune('A'+i)))
	}
	for q := range cfg.Queues {
		name := fmt.Sprintf("q%d", q)
		w.qs = append(w.qs, name)
		set := smm.ReplicaSet{Queue: name, Primary: w.names[q%cfg.Nodes], Version: 1}
		for k := 1; k < cfg.Replicas; k++ {
			set.Secondaries = append(set.Secondaries, w.names[(q+k)%cfg.Nodes])
		}
		w.sets[name] = set
	}
	for _, id := range w.names {
		n := &smmNode{id: id, up: true, logs: map[string][]replog.Entry{}, sets: map[string]smm.ReplicaSet{}}
		n.clearMemory()
		for q, s := range w.sets {
			n.sets[q] = cloneSet(s)
		}
		w.nodes = append(w.nodes, n)
	}
	return w
}

func cloneSet(s smm.ReplicaSet) smm.ReplicaSet {
	s.Secondaries = slices.Clone(s.Secondaries)
	return s
}

func (n *smmNode) clearMemory() {
	n.acked, n.unhealthy, n.waiting, n.updating = map[string]map[string]uint64{}, map[string]map[string]time.Time{}, nil, map[string]bool{}
	n.adopted = map[string]bool{}
}

func (w *smmWorld) node(id string) *smmNode { return w.nodes[int(id[0]-'A')] }

func headOf(log []replog.Entry) replog.Head {
	if len(log) == 0 {
		return replog.Head{}
	}
	return log[len(log)-1].Head()
}

func (w *smmWorld) reachable(a, b string) bool { return w.side[a] == w.side[b] }

// refreshSet reads queue's set from the chain into n's store when it is
// newer than the one n holds (a node it makes the primary catches up and
// adopts at once, as the driver's hold).
func (w *smmWorld) refreshSet(n *smmNode, q string) smm.ReplicaSet {
	if c := w.sets[q]; c.Version > n.sets[q].Version {
		old := n.sets[q]
		n.sets[q] = cloneSet(c)
		w.noteHeld(n, q, old)
	}
	return n.sets[q]
}

// send puts a message on the network, subject to its faults.
func (w *smmWorld) send(m smmMsg) {
	w.res.Messages++
	if w.rng.Float64() < w.drop {
		return
	}
	copies := 1
	if w.rng.Float64() < w.dup {
		copies = 2
	}
	for range copies {
		d := time.Duration(5+w.rng.IntN(45)) * time.Millisecond
		if w.rng.Float64() < w.delay {
			d += time.Duration(w.rng.IntN(3000)) * time.Millisecond
		}
		if w.reorder {
			d += time.Duration(w.rng.IntN(200)) * time.Millisecond
		}
		w.msgSeq++
		m.at, m.seq = w.clk.Now().Add(d), w.msgSeq
		m.entries = slices.Clone(m.entries)
		w.msgs = append(w.msgs, m)
	}
}

// touch notes that n's log of q changed this step.
func (w *smmWorld) touch(n, q string) {
	if w.touched[n] == nil {
		w.touched[n] = map[string]bool{}
	}
	w.touched[n][q] = true
}

// holdEntries records n as a holder of the intents among es, when n is a
// member of their queue's set on chain: a node already replaced out of it
// (as unhealthy: a failure, as a lost disk is) holds nothing that counts,
// though a deposed primary that has not read the update may still push it
// entries and count it for an ack (the failures then exceed the ack's).
func (w *smmWorld) holdEntries(n string, es []replog.Entry) {
	for _, e := range es {
		c, err := store.DecodeChange(e.Payload)
		if err == nil && c.Op == store.ChangeIntent {
			if it := w.intents[c.UID]; it != nil && w.sets[it.queue].Holds(n) {
				it.holders[n] = true
			}
		}
	}
}

// do performs one action and says what it did (for the digest).
func (w *smmWorld) do(a SMMAction) string {
	w.stepNo++
	w.touched = map[string]map[string]bool{}
	nd := w.nodes[a.Node%len(w.nodes)]
	q := w.qs[a.Queue%len(w.qs)]
	switch a.Kind {
	case SIntake:
		return w.intake(nd, q)
	case SAdvance:
		w.advance(time.Duration(a.DtMs) * time.Millisecond)
	case SDispatch:
		return w.dispatchAll(q)
	case SMonitor:
		if nd.up {
			w.monitor(nd)
		}
	case SPull:
		if nd.up {
			w.pull(nd, q, false)
		}
	case SNet:
		w.drop, w.dup, w.delay, w.reorder = a.Drop, a.Dup, a.Delay, a.Reorder
	case SPartition:
		for i, id := range w.names {
			w.side[id] = a.Mask&(1<<i) != 0
		}
	case SHeal:
		w.side = map[string]bool{}
	case SCrash, SWipe:
		if !nd.up {
			return "down"
		}
		nd.up = false
		nd.clearMemory()
		w.res.Crashes++
		// its requests in flight die with its connections: a restart at
		// the same virtual instant must not see its old pushes land after
		// its catch-up (a real restart takes longer than a request)
		w.msgs = slices.DeleteFunc(w.msgs, func(m smmMsg) bool { return m.from == nd.id })
		if a.Kind == SWipe && !w.cfg.NoWipes {
			w.res.Wipes++
			nd.logs, nd.sets = map[string][]replog.Entry{}, map[string]smm.ReplicaSet{}
			for _, it := range w.intents {
				delete(it.holders, nd.id)
			}
			for _, q := range w.qs {
				w.touch(nd.id, q)
			}
		}
	case SRestart:
		if nd.up {
			return "up"
		}
		nd.up = true
		for _, q := range w.qs { // Open: refreshSets
			if _, ok := nd.sets[q]; !ok {
				nd.sets[q] = cloneSet(w.sets[q]) // hold: none held before
				w.noteHeld(nd, q, smm.ReplicaSet{})
			}
			w.refreshSet(nd, q)
		}
	}
	return ""
}

// advance runs the world for dt: messages delivered in order of arrival,
// set updates landed, acknowledgements timed out.
func (w *smmWorld) advance(dt time.Duration) {
	end := w.clk.Now().Add(dt)
	for {
		sort.SliceStable(w.msgs, func(i, j int) bool {
			return w.msgs[i].at.Before(w.msgs[j].at) || w.msgs[i].at.Equal(w.msgs[j].at) && w.msgs[i].seq < w.msgs[j].seq
		})
		next := end
		if len(w.msgs) > 0 && w.msgs[0].at.Before(next) {
			next = w.msgs[0].at
		}
		for _, u := range w.updates {
			if u.at.Before(next) {
				next = u.at
			}
		}
		if next.After(w.clk.Now()) {
			w.clk.Set(next)
		}
		w.landUpdates()
		w.expireWaits()
		if len(w.msgs) > 0 && !w.msgs[0].at.After(w.clk.Now()) {
			m := w.msgs[0]
			w.msgs = w.msgs[1:]
			w.deliver(m)
			continue
		}
		if !w.clk.Now().Before(end) {
			return
		}
	}
}

// landUpdates applies the set updates whose time came, in order; one that
// names a version no longer current loses its race.
func (w *smmWorld) landUpdates() {
	now := w.clk.Now()
	var rest []smmUpdate
	for _, u := range w.updates {
		if u.at.After(now) {
			rest = append(rest, u)
			continue
		}
		w.node(u.by).updating[u.next.Queue] = false
		cur := w.sets[u.next.Queue]
		if cur.Version != u.next.Version {
			w.res.LostRaces++
			continue
		}
		u.next.Version++
		w.sets[u.next.Queue] = cloneSet(u.next)
		w.res.SetUpdates++
		for _, it := range w.intents { // a member replaced as unhealthy is a failure as a lost disk is
			if it.queue == u.next.Queue {
				for h := range it.holders {
					if cur.Holds(h) && !u.next.Holds(h) {
						delete(it.holders, h)
					}
				}
			}
		}
	}
	w.updates = rest
}

func (w *smmWorld) expireWaits() {
	now := w.clk.Now()
	for _, n := range w.nodes {
		n.waiting = slices.DeleteFunc(n.waiting, func(wt smmWait) bool { return !now.Before(wt.deadline) })
	}
}

// digestStep adds a step to the digest: the action, its outcome and every
// node's heads.
func (w *smmWorld) digestStep(i int, a SMMAction, out string) {
	fmt.Fprintf(w.digest, "%d|%s|%s|%d|", i, a, out, w.clk.Now().UnixNano())
	for _, n := range w.nodes {
		for _, q := range w.qs {
			h := headOf(n.logs[q])
			fmt.Fprintf(w.digest, "%s/%s:%d:%x,", n.id, q, h.Clock, h.Hash[:4])
		}
	}
	for _, q := range w.qs {
		s := w.sets[q]
		fmt.Fprintf(w.digest, "%s=%s%v@%d;", q, s.Primary, s.Secondaries, s.Version)
	}
}

func (w *smmWorld) result(steps int) SMMResult {
	r := w.res
	r.Steps = steps
	for _, n := range w.applied {
		if n > 0 {
			r.Applied++
		}
	}
	r.Digest = hex.EncodeToString(w.digest.Sum(nil))
	return r
}

package sim

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/replog"
	"github.com/ordolabs/ordo/internal/smm"
	"github.com/ordolabs/ordo/internal/store/sqlite"
	"github.com/ordolabs/ordo/internal/transport"
)

// The world of `ordo sim smm`: real smm.Nodes (internal/smm's driver and
// core, the code that ships) in one process, on one virtual clock and one
// in-process devchain, driven from one goroutine. Each node has its SQLite
// store, its ed25519 key registered in the chain's `nodes`, a sequencer
// of the simulation's (smmrealnet.go) and an end of the simulation's
// network, which serves a request in the caller's goroutine.
//
// Determinism. Each node's job queue turns on a goroutine of its own, but
// hands every job it starts back at once (smm's SimDeferJobs); the
// simulation picks a due job from the store and runs it (RunJob). Driver
// code runs only in tasks: a job's run or an intake, each on a goroutine
// that the simulation starts and waits for until it ends or parks, one
// at a time. A task parks when it waits on the clock (an intake waiting
// for its acknowledgement, AckTimeout; a recurring sync polling,
// SyncPoll): the node's clock hands those timers (and SyncTimeout's) to
// the simulation, which fires them one at a time as it moves the clock,
// and waits for the task woken until it ends or parks again. The three
// durations are made distinct (a few nanoseconds off the second) so that
// no other timer is taken for them.

// The durations of the nodes' config that the simulation's clock knows.
const (
	simAckTimeout  = 10*time.Second + 7
	simSyncPoll    = 2*time.Second + 11
	simSyncTimeout = 20*time.Second + 13
)

// realWorld is one run.
type realWorld struct {
	cfg    SMMConfig
	ctx    context.Context
	cancel context.CancelFunc
	dir    string
	clk    *clock.Virtual
	dc     *devchain.Chain
	from   chain.Address
	reg    *simRegistry
	nodes  []*realNode
	byID   map[string]*realNode
	qs     []string
	log    *slog.Logger

	mu      sync.Mutex // what tasks touch: the fields below
	chainMu sync.Mutex // the dev account's nonce
	rng     *rand.Rand
	drop    float64
	side    map[string]bool // a partition: the nodes on one side
	uid     int
	seq     int
	intents map[string]*realIntent
	sets    map[string]devchain.ReplicaSet // the queues' sets on chain, as last read
	order   []string                       // intents by commit
	res     SMMResult

	tmu    sync.Mutex // the tasks and their timers
	active *simTask
	timers []*simTimer
	tseq   uint64
	tasks  []*simTask // started and not reaped

	applied   map[string]int
	byQueue   map[string][]appliedIntent
	orderMax  map[string]appliedIntent
	deposedL  map[string]bool
	dispatchN int
	fatal     error // a failure of the simulation itself
}

// realNode is one node: its disk (the store's file) across crashes and
// its Node while up.
type realNode struct {
	w      *realWorld
	idx    int
	id     string
	name   string
	key    ed25519.PrivateKey
	gen    int // the disk's generation: a wipe starts a new file
	up     bool
	n      *smm.Node
	st     *sqlite.Store
	seq    *simSequencer
	ctx    context.Context
	cancel context.CancelFunc
	ran    chan struct{} // the job queue's Run returned
	jobIDs atomic.Int64
	clk    *simClock
	// running are the jobs whose task has not ended (a parked recurring
	// sync).
	running map[int64]bool
	// trace is this life's core trace (Replay); traces the lives before.
	trace  *bytes.Buffer
	traces []*bytes.Buffer
	// logs are the logs last read (checked when their head moves).
	logs  map[string][]replog.Entry
	heads map[string]replog.Head
}

// realIntent is the checker's record of an intent a primary committed.
type realIntent struct {
	uid     string
	queue   string
	seq     int
	by      string
	deposed bool // the chain named another primary when it was committed
	acked   bool
	// holders are the nodes whose log held it while the queue's set on
	// chain named them, and that neither lost their disk nor were
	// replaced out of the set since: with none left, more members failed
	// than the ack allowed for.
	holders map[string]bool
}

// appliedIntent is an intent applied on chain.
type appliedIntent struct {
	uid     string
	seq     int
	by      string
	deposed bool
}

// newRealWorld builds the chain and the nodes, and opens them.
func newRealWorld(cfg SMMConfig) (*realWorld, error) {
	ctx, cancel := context.WithCancel(context.Background())
	base := ""
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		base = "/dev/shm"
	}
	dir, err := os.MkdirTemp(base, "ordo-sim-smm-")
	if err != nil {
		cancel()
		return nil, err
	}
	clk := clock.NewVirtual(clock.Epoch)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	w := &realWorld{cfg: cfg, ctx: ctx, cancel: cancel, dir: dir, clk: clk, log: log, reg: &simRegistry{}, byID: map[string]*realNode{},
		rng: rand.New(rand.NewPCG(cfg.Seed, 0x6e6574)), side: map[string]bool{}, intents: map[string]*realIntent{}, sets: map[string]devchain.ReplicaSet{},
		applied: map[string]int{}, byQueue: map[string][]appliedIntent{}, orderMax: map[string]appliedIntent{}, deposedL: map[string]bool{}}
	w.res.Seed = cfg.Seed
	dc, err := devchain.New(devchain.Config{Seed: 1, Clock: clk, Logger: log})
	if err != nil {
		w.close()
		return nil, err
	}
	w.dc = dc
	accts, err := dc.DevAccounts(ctx)
	if err != nil {
		w.close()
		return nil, fmt.Errorf("sim smm: dev accounts: %w", err)
	}
	if len(accts) == 0 {
		w.close()
		return nil, errors.New("sim smm: the devchain has no dev account")
	}
	w.from = accts[0].Address
	for q := range cfg.Queues {
		w.qs = append(w.qs, fmt.Sprintf("q%d", q))
	}
	var keys []ed25519.PrivateKey
	for i := range cfg.Nodes {
		key := chain.KeyFromSeed(fmt.Sprintf("sim-smm/%d", i))
		id := devchain.NodeIDOf(key.Public().(ed25519.PublicKey))
		reg := devchain.SignNodeRegistration(key, id, strings.Repeat("ab", 32), fmt.Sprintf("node%d.sim:7000", i), 1)
		args, _ := json.Marshal(reg)
		if ok, reason := w.send(devchain.NodesContract, devchain.NodesRegister, args, ""); !ok {
			w.close()
			return nil, fmt.Errorf("sim smm: register node %d: %s", i, reason)
		}
		keys = append(keys, key)
	}
	// Node A has the lowest id (the decisions' ties go to it).
	slices.SortFunc(keys, func(a, b ed25519.PrivateKey) int {
		return strings.Compare(devchain.NodeIDOf(a.Public().(ed25519.PublicKey)), devchain.NodeIDOf(b.Public().(ed25519.PublicKey)))
	})
	for i, key := range keys {
		id := devchain.NodeIDOf(key.Public().(ed25519.PublicKey))
		rn := &realNode{w: w, idx: i, id: id, name: string(rune('A' + i)), key: key, running: map[int64]bool{},
			logs: map[string][]replog.Entry{}, heads: map[string]replog.Head{}}
		rn.clk = &simClock{w: w, v: clk}
		w.nodes = append(w.nodes, rn)
		w.byID[id] = rn
		w.reg.ids = append(w.reg.ids, transport.NodeID(id))
	}
	for _, rn := range w.nodes {
		if err := w.open(rn); err != nil {
			w.close()
			return nil, err
		}
	}
	return w, nil
}

// nodeConfig is the replication config of every node.
func (w *realWorld) nodeConfig() smm.Config {
	return smm.Config{Enabled: true, Secondaries: w.cfg.Replicas - 1, AckAfter: w.cfg.AckAfter, AckTimeout: simAckTimeout,
		SliceSize: 2, MonitorEvery: time.Second, UnhealthyAfter: w.cfg.UnhealthyAfter, SyncPoll: simSyncPoll,
		SyncTimeout: simSyncTimeout, MaxFailedSyncs: 20, MappingEvery: time.Minute, RequestTimeout: 5 * time.Second}
}

// path is the node's store file of its disk's generation.
func (rn *realNode) path() string {
	return filepath.Join(rn.w.dir, fmt.Sprintf("%s-%d.db", rn.name, rn.gen))
}

// open starts a node from its disk: its store, Node, job queue and first
// monitor-state.
func (w *realWorld) open(rn *realNode) error {
	if debugSMM {
		fmt.Fprintf(os.Stderr, "%v open %s\n", w.clk.Now().Sub(clock.Epoch), rn.name)
	}
	st, err := sqlite.Open(w.ctx, rn.path(), sqlite.Options{Synchronous: sqlite.SyncNormal, Now: w.clk.Now})
	if err != nil {
		return fmt.Errorf("sim smm: open %s's store: %w", rn.name, err)
	}
	rn.st = st
	rn.seq = &simSequencer{w: w, rn: rn, closed: map[string]bool{}}
	rn.ctx, rn.cancel = context.WithCancel(w.ctx)
	var tr io.Writer
	if w.cfg.Replay {
		rn.trace = &bytes.Buffer{}
		rn.traces = append(rn.traces, rn.trace)
		tr = rn.trace
	}
	n, err := smm.New(smm.NodeConfig{Trace: tr, Config: w.nodeConfig(), Key: rn.key, Store: st, Transport: &simEnd{w: w, self: rn.id},
		Chain: w.dc, Sequencer: rn.seq, Registry: w.reg, Clock: rn.clk, Logger: w.log, Sequential: true,
		NewJobID: func() int64 { return rn.jobIDs.Add(1) }})
	if err != nil {
		_ = st.Close()
		return fmt.Errorf("sim smm: node %s: %w", rn.name, err)
	}
	n.SimDeferJobs()
	rn.n, rn.up = n, true
	var openErr error
	w.runTask(&simTask{name: "open " + rn.name, owner: rn}, func(ctx context.Context) error {
		openErr = n.Open(ctx)
		return openErr
	})
	if openErr != nil {
		return fmt.Errorf("sim smm: open node %s: %w", rn.name, openErr)
	}
	rn.ran = make(chan struct{})
	go func() {
		defer close(rn.ran)
		_ = n.SimRunJobs(rn.ctx)
	}()
	w.runTask(&simTask{name: "start " + rn.name, owner: rn}, n.SimStart)
	return w.settleJobs()
}

// stop crashes a node: its tasks inside it end (their contexts are
// cancelled), its job queue stops, its store is closed. wipe loses the
// disk too.
func (w *realWorld) stop(rn *realNode, wipe bool) {
	if !rn.up {
		if wipe {
			w.wipeDisk(rn)
		}
		return
	}
	if debugSMM {
		fmt.Fprintf(os.Stderr, "%v crash %s (wipe %v)\n", w.clk.Now().Sub(clock.Epoch), rn.name, wipe)
	}
	rn.up = false
	rn.cancel()
	w.waitInside(rn)
	<-rn.ran
	_ = rn.st.Close()
	rn.n, rn.st = nil, nil
	rn.running = map[int64]bool{}
	w.res.Crashes++
	if wipe {
		w.wipeDisk(rn)
	}
}

// wipeDisk loses a down node's disk: a new empty store file, and the
// intents it held no longer counted as held by it.
func (w *realWorld) wipeDisk(rn *realNode) {
	for _, suffix := range []string{"", "-wal", "-shm"} {
		_ = os.Remove(rn.path() + suffix)
	}
	rn.gen++
	rn.logs, rn.heads = map[string][]replog.Entry{}, map[string]replog.Head{}
	w.mu.Lock()
	for _, it := range w.intents {
		delete(it.holders, rn.id)
	}
	w.mu.Unlock()
	w.res.Wipes++
}

// close stops every node and the chain and removes the files.
func (w *realWorld) close() {
	for _, rn := range w.nodes {
		if rn.up {
			rn.up = false
			rn.cancel()
		}
	}
	w.cancel()
	w.tmu.Lock()
	tasks := slices.Clone(w.tasks)
	w.tmu.Unlock()
	for _, t := range tasks {
		<-t.done
	}
	for _, rn := range w.nodes {
		if rn.ran != nil {
			<-rn.ran
		}
		if rn.st != nil {
			_ = rn.st.Close()
		}
	}
	if w.dc != nil {
		_ = w.dc.Close()
	}
	_ = os.RemoveAll(w.dir)
}

// stuckAfter bounds, on the wall clock (SMMConfig.Clock), how long the
// simulation waits for the nodes' goroutines: a task ending, a job queue
// handing back its jobs. Past it the run fails: they are stuck.
const stuckAfter = 20 * time.Second

// settlePoll is the pause between two looks at a job queue that has not
// settled yet (its loop turns on its own goroutine).
const settlePoll = 50 * time.Microsecond

// waitDone waits for done at most stuckAfter on the wall clock and
// reports whether it came.
func (w *realWorld) waitDone(done <-chan struct{}) bool {
	t := w.cfg.Clock.NewTimer(stuckAfter)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C():
		return false
	}
}

// settleJobs waits until every up node's job queue has handed back every
// job due by now (within stuckAfter: a queue that never settles is the
// simulation's failure).
func (w *realWorld) settleJobs() error {
	deadline := w.cfg.Clock.Now().Add(stuckAfter)
	for _, rn := range w.nodes {
		for rn.up {
			_, settled, err := rn.n.SimDue(w.ctx)
			if err != nil {
				return fmt.Errorf("sim smm: %s's jobs: %w", rn.name, err)
			}
			if settled {
				break
			}
			if w.cfg.Clock.Now().After(deadline) {
				return fmt.Errorf("sim smm: %s's job queue did not settle", rn.name)
			}
			t := w.cfg.Clock.NewTimer(settlePoll)
			<-t.C()
		}
	}
	return nil
}

// dueJobs returns a node's jobs due now and not running, by due time,
// then kind, unique key, arguments and id.
func (w *realWorld) dueJobs(rn *realNode) ([]smm.SimJob, error) {
	all, _, err := rn.n.SimDue(w.ctx)
	if err != nil {
		return nil, err
	}
	now := w.clk.Now()
	out := all[:0]
	for _, j := range all {
		if !j.Due.After(now) && !rn.running[j.Job.ID] {
			out = append(out, j)
		}
	}
	slices.SortFunc(out, func(a, b smm.SimJob) int {
		if c := a.Due.Compare(b.Due); c != 0 {
			return c
		}
		if c := strings.Compare(a.Job.Kind, b.Job.Kind); c != 0 {
			return c
		}
		if c := strings.Compare(a.Job.UniqueKey, b.Job.UniqueKey); c != 0 {
			return c
		}
		if c := strings.Compare(string(a.Job.Args), string(b.Job.Args)); c != 0 {
			return c
		}
		return int(a.Job.ID - b.Job.ID)
	})
	return out, nil
}

// runJobs runs up to limit of a node's due jobs, one task each.
func (w *realWorld) runJobs(rn *realNode, limit int) (int, error) {
	if !rn.up {
		return 0, nil
	}
	jobs, err := w.dueJobs(rn)
	if err != nil {
		return 0, err
	}
	ran := 0
	for _, j := range jobs {
		if ran == limit || !rn.up {
			break
		}
		n := rn.n
		rn.running[j.Job.ID] = true
		id := j.Job.ID
		w.runTask(&simTask{name: fmt.Sprintf("%s at %s", j.Job.Kind, rn.name), owner: rn, onDone: func(error) { delete(rn.running, id) }},
			func(ctx context.Context) error { return n.RunJob(ctx, j.Job) })
		w.res.Jobs++
		ran++
		if err := w.settleJobs(); err != nil {
			return ran, err
		}
	}
	return ran, nil
}

// digestWorld is the SHA-256 of the chain's head and every node's log
// heads and held sets.
func (w *realWorld) digestWorld() string {
	h := sha256.New()
	head, err := w.dc.Head(w.ctx)
	if err == nil {
		fmt.Fprintf(h, "chain|%d|%x\n", head.Height, head.Hash)
	}
	for _, rn := range w.nodes {
		fmt.Fprintf(h, "node|%s|%v|%d\n", rn.name, rn.up, rn.gen)
		if !rn.up {
			continue
		}
		for _, q := range w.qs {
			hd, _ := rn.st.LogHead(w.ctx, q)
			set, _ := rn.st.ReplicaSet(w.ctx, q)
			fmt.Fprintf(h, "%s|%d|%x|%d|%s|%v|%d\n", q, hd.Clock, hd.Hash, hd.Version, set.Primary, set.Secondaries, set.Version)
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// replayTraces replays every life's core trace of every node.
func (w *realWorld) replayTraces() error {
	for _, rn := range w.nodes {
		for i, b := range rn.traces {
			st, err := smm.Replay(bytes.NewReader(b.Bytes()))
			if err != nil {
				return fmt.Errorf("%s's core trace %d: %w", rn.name, i+1, err)
			}
			w.res.Replayed += st.Inputs
		}
	}
	return nil
}

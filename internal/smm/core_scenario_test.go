package smm

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/testkit"
)

// TestSMMCoreScenarios runs the scripts in testdata/scenarios/core: each
// steps the sans-I/O Core directly (NewCore, Step, Ready, Advance) on a
// virtual time that starts at clock.Epoch (printed "+0s"), checks
// CheckInvariants after every step (a broken one fails the test) and
// prints each step's Ready. After a change of behaviour, regenerate the
// files and read the diff:
//
//	go test ./internal/smm -run TestSMMCoreScenarios -rewrite
//
// Node ids are short (a, b, c, d, e); this node is a. Times are offsets
// from the start ("+30s"); durations are Go's. The command language (one
// command per directive; every command but config starts the core):
//
//	config [self=N] [nodes=a,b,c,d] [secondaries=K] [monitor-every=D]
//	       [unhealthy-after=D] [request-timeout=D] [mapping-every=D]
//	       [max-failed-syncs=K]
//	                      the core's configuration, before anything else;
//	                      defaults: self a, nodes a..d (the registry: the
//	                      default pool and registered nodes), Config's
//	                      defaults (secondaries 2, 1s, 30s, 5s, 10m, 20).
//	time +D               the clock moves on by D (the next input's At).
//	answered NODE ok|fail [asked=+D]
//	                      a request to NODE sent at asked (default now)
//	                      was answered or not.
//	monitored [offset=K] [next=K] [registered=a,b,...]
//	                      monitor-state gathered a slice; one queue state
//	                      per input line (below).
//	plan [slice] [pool=a:LOAD,b:LOAD,...]
//	                      the updates the states of the input lines need
//	                      that this node signs; pool defaults to the
//	                      config's nodes at load 0; slice: a monitoring
//	                      slice asks.
//	find-syncs QUEUE...   find-sync-requests over queues monitoring saw.
//	loss-due NODE since=+D
//	loss-done NODE since=+D
//	loss-not-queued NODE since=+D
//	                      the loss's job runs, ended, or was not inserted.
//	mapped                the node registry was read now.
//	sync-failed QUEUE SECONDARY
//	                      a recurring sync of the pair failed.
//	show                  the core's peers, losses, mapping and cycle.
//
// A queue state line is "QUEUE vN PRIMARY [SECONDARY...] : MEMBER..."
// where each MEMBER is NODE=CLOCK[#FORK][^ENTRYVERSION][@HELDVERSION][!+D]
// for a member that answered (its head: clock CLOCK on the history FORK,
// default the common one; its last entry written under ENTRYVERSION,
// default 1; the set's version it holds, default N) or NODE=-[!+D] for
// one not reached; !+D: unhealthy since +D. A member left out is not
// reached and healthy (never asked).
//
// A step prints its Ready: under "effects:" the lost nodes and the jobs
// to insert (kind, lane, unique key, due time, JSON args), then the
// reply: "syncs:" (per queue, ahead of its primary or not, each sync),
// "plans:" (failovers, others, refused; unsettled count), "proceed" with
// the replaceable nodes. "(no change)" is an empty Ready.
func TestSMMCoreScenarios(t *testing.T) {
	testkit.RunScenarios(t, "testdata/scenarios/core", func() func(*testing.T, *datadriven.TestData) string {
		return (&coreScenario{}).run
	})
}

// coreScenario is one script's world: the core and its clock.
type coreScenario struct {
	cfg   CoreConfig
	nodes []string
	core  *Core
	now   time.Time
}

func (s *coreScenario) run(t *testing.T, d *datadriven.TestData) string {
	if d.Cmd == "config" {
		if s.core != nil {
			d.Fatalf(t, "config must come first")
		}
		return s.config(t, d)
	}
	if s.core == nil {
		if s.cfg.Self == "" {
			s.config(t, &datadriven.TestData{})
		}
		c, err := NewCore(s.cfg, clock.Epoch, Snapshot{})
		if err != nil {
			d.Fatalf(t, "%v", err)
		}
		s.core, s.now = c, clock.Epoch
	}
	var in Input
	switch d.Cmd {
	case "time":
		s.now = s.now.Add(testkit.PosDuration(t, d, 0, "time +D"))
		return fmt.Sprintf("now %s\n", s.off(s.now))
	case "show":
		return s.show()
	case "answered":
		const usage = "answered NODE ok|fail [asked=+D]"
		in = Answered(testkit.Pos(t, d, 0, usage), s.at(t, d, "asked", s.now), testkit.OkFail(t, d, 1, usage))
	case "monitored":
		var offset, next int
		d.MaybeScanArgs(t, "offset", &offset)
		d.MaybeScanArgs(t, "next", &next)
		reg := s.nodes
		if a, ok := d.Arg("registered"); ok {
			reg = listArg(a)
		}
		in = Monitored(offset, next, parseStates(t, d), reg)
	case "plan":
		in = Plan(parseStates(t, d), s.pool(t, d), d.HasArg("slice"))
	case "find-syncs":
		var qs []string
		for _, a := range d.CmdArgs {
			qs = append(qs, a.Key)
		}
		in = FindSyncs(qs)
	case "loss-due", "loss-done", "loss-not-queued":
		usage := d.Cmd + " NODE since=+D"
		node, since := testkit.Pos(t, d, 0, usage), s.at(t, d, "since", time.Time{})
		if since.IsZero() {
			d.Fatalf(t, "usage: %s", usage)
		}
		in = map[string]func(string, time.Time) Input{"loss-due": LossDue, "loss-done": LossDone, "loss-not-queued": LossNotQueued}[d.Cmd](node, since)
	case "mapped":
		in = Mapped()
	case "sync-failed":
		const usage = "sync-failed QUEUE SECONDARY"
		in = SyncFailed(testkit.Pos(t, d, 0, usage), testkit.Pos(t, d, 1, usage))
	default:
		d.Fatalf(t, "unknown command %q", d.Cmd)
	}
	in.At = s.now
	s.core.Step(in)
	var bad []string
	for _, err := range s.core.CheckInvariants() {
		bad = append(bad, err.Error())
	}
	testkit.NoneBroken(t, "invariants broken", bad)
	rd := s.core.Ready()
	s.core.Advance()
	if s.core.HasReady() {
		t.Fatal("HasReady after Advance")
	}
	return fmtCoreReady(rd, s.off)
}

func (s *coreScenario) config(t *testing.T, d *datadriven.TestData) string {
	s.cfg = CoreConfigOf("a", Config{})
	s.nodes = []string{"a", "b", "c", "d"}
	dur := func(key string, dst *time.Duration) { testkit.ScanDuration(t, d, key, dst) }
	for _, a := range d.CmdArgs {
		switch a.Key {
		case "self":
			s.cfg.Self = a.SingleVal(t)
		case "nodes":
			s.nodes = listArg(a)
		case "secondaries":
			d.ScanArgs(t, a.Key, &s.cfg.Secondaries)
		case "max-failed-syncs":
			d.ScanArgs(t, a.Key, &s.cfg.MaxFailedSyncs)
		case "monitor-every":
			dur(a.Key, &s.cfg.MonitorEvery)
		case "unhealthy-after":
			dur(a.Key, &s.cfg.UnhealthyAfter)
		case "request-timeout":
			dur(a.Key, &s.cfg.RequestTimeout)
		case "mapping-every":
			dur(a.Key, &s.cfg.MappingEvery)
		default:
			d.Fatalf(t, "config: unknown key %q", a.Key)
		}
	}
	c := s.cfg
	return fmt.Sprintf("self=%s nodes=%s secondaries=%d monitor-every=%s unhealthy-after=%s request-timeout=%s mapping-every=%s max-failed-syncs=%d\n",
		c.Self, strings.Join(s.nodes, ","), c.Secondaries, c.MonitorEvery, c.UnhealthyAfter, c.RequestTimeout, c.MappingEvery, c.MaxFailedSyncs)
}

// off prints a time as its offset from the start.
func (s *coreScenario) off(at time.Time) string { return testkit.Offset(clock.Epoch, at) }

// at reads d's argument key as an offset from the start, def without it.
func (s *coreScenario) at(t *testing.T, d *datadriven.TestData, key string, def time.Time) time.Time {
	a, ok := d.Arg(key)
	if !ok {
		return def
	}
	return parseOffset(t, d, a.SingleVal(t))
}

// pool reads plan's pool=NODE:LOAD,... (default: the config's nodes at
// load 0).
func (s *coreScenario) pool(t *testing.T, d *datadriven.TestData) []Candidate {
	var out []Candidate
	a, ok := d.Arg("pool")
	if !ok {
		for _, n := range s.nodes {
			out = append(out, Candidate{Node: n})
		}
		return out
	}
	for _, v := range listArg(a) {
		node, load, found := strings.Cut(v, ":")
		c := Candidate{Node: node}
		if found {
			if _, err := fmt.Sscanf(load, "%d", &c.Load); err != nil {
				d.Fatalf(t, "pool: %q: %v", v, err)
			}
		}
		out = append(out, c)
	}
	return out
}

// show prints what the core holds: each peer's health, the losses found
// and being planned, the mapping's freshness, monitoring's progress.
func (s *coreScenario) show() string {
	c := s.core
	var b strings.Builder
	b.WriteString("peers:\n")
	for _, id := range slices.Sorted(maps.Keys(c.peers)) {
		p := c.peers[id]
		fmt.Fprintf(&b, "  %s %s", id, p.state)
		if p.state == unhealthy {
			fmt.Fprintf(&b, " since=%s", s.off(p.since))
		}
		if !p.answered.IsZero() {
			fmt.Fprintf(&b, " answered=%s", s.off(p.answered))
		}
		if !p.probed.IsZero() {
			fmt.Fprintf(&b, " probed=%s", s.off(p.probed))
		}
		b.WriteString("\n")
	}
	testkit.Section(&b, "losses found:", c.losses, func(l Loss) string { return l.Node + " since=" + s.off(l.Since) })
	testkit.Section(&b, "losses being planned:", slices.Sorted(maps.Keys(c.losing)), func(n string) string {
		return n + " since=" + s.off(c.losing[n])
	})
	fmt.Fprintf(&b, "mapping fresh=%v mapped=%s\n", c.MappingFresh(), s.off(c.mapped))
	fmt.Fprintf(&b, "cycle offset=%d slice=[%s] started=%s cycles=%d last=%s\n", c.cycle.Offset, strings.Join(c.cycle.Slice, " "),
		s.off(c.cycle.Started), c.cycle.Cycles, c.cycle.Last)
	return b.String()
}

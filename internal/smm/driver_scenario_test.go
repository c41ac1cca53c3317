package smm

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/ordolabs/ordo/internal/store/sqlite"
	"github.com/ordolabs/ordo/internal/testkit"
)

// TestSMMDriverScenarios runs the scripts in testdata/scenarios/driver:
// each drives the real driver on the jobs' harness (harness_test.go: N
// smm.Nodes with SQLite stores, one devchain, an in-memory network, a
// fake sequencer, a virtual clock starting at clock.Epoch; every job
// kind's worker parked, so a script runs each job by hand, as the
// harness's tests do). After a change of behaviour, regenerate the files
// and read the diff:
//
//	go test ./internal/smm -run TestSMMDriverScenarios -rewrite
//
// Nodes are named a, b, c, ... in node id order (ties of the decisions go
// to a); every id printed is replaced by its name. Times are offsets from
// the start ("+30s"). The command language (one command per directive;
// nodes comes first):
//
//	nodes N [ack-after=K] [secondaries=K] [slice-size=K] [max-failed-syncs=K]
//	                      the harness: N nodes, testConfig changed by the
//	                      keys given (slices of 2, RequestTimeout 1s of
//	                      wall time: a request to a node down waits it).
//	set QUEUE PRIMARY [SECONDARY...] [unread]
//	                      a set on chain (signed by the current primary),
//	                      read by every node (not read by any: unread).
//	intents NODE QUEUE [n=K]
//	                      K intents (default 1) committed by NODE's
//	                      sequencer (logged when it is the queue's primary
//	                      in the set it holds).
//	copy-log FROM TO QUEUE n=K
//	                      TO's log gets FROM's first K entries.
//	fork FROM TO QUEUE n=K extra=K
//	                      TO's log is FROM's first n entries and extra of
//	                      its own: another history.
//	submit NODE QUEUE [n=K] [key=K]
//	                      public intake at NODE (Submit); prints each
//	                      intent's record (its uid names the node whose
//	                      sequencer committed it) or the error.
//	run NODE JOB [ARGS]   runs one job on NODE and prints its error, if
//	                      any; JOB and ARGS:
//	                        monitor-state [offset=K]
//	                        find-sync-requests QUEUE...
//	                        find-replica-set-updates QUEUE... | lost=NODE since=+D
//	                        issue-recurring-sync-request QUEUE SECONDARY
//	                        manual-sync QUEUE SECONDARY
//	                        issue-replica-set-update QUEUE...
//	                        refresh-mapping
//	                        probe-node NODE
//	down NODE / up NODE   NODE's link off (it neither sends nor receives)
//	                      or on again.
//	wipe NODE             NODE restarts on an empty store with its key
//	                      (its disk lost): Open reads the registry and the
//	                      sets naming it from the chain; its log is empty.
//	registry fail|ok      the registry's refresh fails, or works again.
//	time +D               the virtual clock moves on by D.
//	set QUEUE             (no members given) prints the chain's set, the
//	                      version each node holds, the nodes whose
//	                      sequencer closed the queue.
//	heads QUEUE           each node's log head: clock^version/hash.
//	jobs NODE [KIND]      NODE's jobs (refresh-mapping's periodic ones
//	                      left out unless asked), by kind, due time, args.
//	health NODE           what NODE's core holds of the other nodes.
//
// After submit and run, the jobs each node inserted meanwhile are printed
// under "queued:".
func TestSMMDriverScenarios(t *testing.T) {
	testkit.RunScenarios(t, "testdata/scenarios/driver", func() func(*testing.T, *datadriven.TestData) string {
		return (&driverScenario{}).run
	})
}

// driverScenario is one script's world: the harness and the names of its
// nodes.
type driverScenario struct {
	h     *harness
	names *strings.Replacer
	// The nodes wipe restarted: their goroutines, contexts and stores.
	wg      sync.WaitGroup
	cancels []context.CancelFunc
	stores  []*sqlite.Store
}

func (s *driverScenario) run(t *testing.T, d *datadriven.TestData) string {
	if d.Cmd == "nodes" {
		if s.h != nil {
			d.Fatalf(t, "nodes comes once, first")
		}
		return s.start(t, d)
	}
	if s.h == nil {
		d.Fatalf(t, "nodes must come first")
	}
	h := s.h
	switch d.Cmd {
	case "set":
		if len(d.CmdArgs) == 1 {
			return s.name(s.showSet(testkit.Pos(t, d, 0, "set QUEUE")))
		}
		return s.putSet(t, d)
	case "intents":
		const usage = "intents NODE QUEUE [n=K]"
		k := 1
		d.MaybeScanArgs(t, "n", &k)
		h.intents(s.node(t, d, 0, usage), testkit.Pos(t, d, 1, usage), k)
		return ""
	case "copy-log":
		const usage = "copy-log FROM TO QUEUE n=K"
		var k int
		d.ScanArgs(t, "n", &k)
		h.copyLog(s.node(t, d, 0, usage), s.node(t, d, 1, usage), testkit.Pos(t, d, 2, usage), k)
		return ""
	case "fork":
		const usage = "fork FROM TO QUEUE n=K extra=K"
		var k, extra int
		d.ScanArgs(t, "n", &k)
		d.ScanArgs(t, "extra", &extra)
		h.fork(s.node(t, d, 0, usage), s.node(t, d, 1, usage), testkit.Pos(t, d, 2, usage), k, extra)
		return ""
	case "submit":
		before := s.jobIDs()
		out := s.submit(t, d)
		return s.name(out + s.queued(before))
	case "run":
		before := s.jobIDs()
		out := s.runJob(t, d)
		return s.name(out + s.queued(before))
	case "down", "up":
		h.net.setDown(s.node(t, d, 0, d.Cmd+" NODE").id, d.Cmd == "down")
		return ""
	case "wipe":
		n := s.node(t, d, 0, "wipe NODE")
		s.wipe(t, slices.Index(h.nodes, n))
		return ""
	case "registry":
		h.reg.fail.Store(!testkit.OkFail(t, d, 0, "registry ok|fail"))
		return ""
	case "time":
		dv := testkit.PosDuration(t, d, 0, "time +D")
		h.clk.Advance(dv)
		return "now " + s.off(h.clk.Now()) + "\n"
	case "heads":
		return s.name(s.heads(testkit.Pos(t, d, 0, "heads QUEUE")))
	case "jobs":
		n := s.node(t, d, 0, "jobs NODE [KIND]")
		kind := ""
		if len(d.CmdArgs) > 1 {
			kind = testkit.Pos(t, d, 1, "jobs NODE [KIND]")
		}
		var out []string
		for _, j := range sortJobs(h.jobs(n, kind)) {
			if kind == "" && j.Kind == KindRefreshMapping {
				continue
			}
			out = append(out, s.fmtJob(j))
		}
		if len(out) == 0 {
			return "(none)\n"
		}
		return s.name(strings.Join(out, "\n") + "\n")
	case "health":
		return s.name(s.health(s.node(t, d, 0, "health NODE")))
	}
	d.Fatalf(t, "unknown command %q", d.Cmd)
	return ""
}

// start builds the harness of nodes N.
func (s *driverScenario) start(t *testing.T, d *datadriven.TestData) string {
	n := int(testkit.PosInt64(t, d, 0, "nodes N [key=value...]"))
	var keys []string
	s.h = newHarness(t, harnessOpts{nodes: n, config: func(c *Config) {
		for _, a := range d.CmdArgs[1:] {
			switch a.Key {
			case "ack-after":
				d.ScanArgs(t, a.Key, &c.AckAfter)
			case "secondaries":
				d.ScanArgs(t, a.Key, &c.Secondaries)
			case "slice-size":
				d.ScanArgs(t, a.Key, &c.SliceSize)
			case "max-failed-syncs":
				d.ScanArgs(t, a.Key, &c.MaxFailedSyncs)
			default:
				d.Fatalf(t, "nodes: unknown key %q", a.Key)
			}
			keys = append(keys, a.String())
		}
	}})
	t.Cleanup(s.stopWiped) // runs before the harness's cleanup
	var pairs []string
	for i, tn := range s.h.nodes {
		pairs = append(pairs, tn.id, nodeName(i))
	}
	s.names = strings.NewReplacer(pairs...)
	c := s.h.nodes[0].c
	return fmt.Sprintf("%d nodes: secondaries=%d ack-after=%d slice-size=%d unhealthy-after=%s request-timeout=%s mapping-every=%s max-failed-syncs=%d\n",
		n, c.Secondaries, c.AckAfter, c.SliceSize, c.UnhealthyAfter, c.RequestTimeout, c.MappingEvery, c.MaxFailedSyncs)
}

// runJob runs the job d names.
func (s *driverScenario) runJob(t *testing.T, d *datadriven.TestData) string {
	const usage = "run NODE JOB [ARGS]"
	h, n, job := s.h, s.node(t, d, 0, usage), testkit.Pos(t, d, 1, usage)
	rest := d.CmdArgs[2:]
	var pos []string
	for _, a := range rest {
		if len(a.Vals) == 0 {
			pos = append(pos, a.Key)
		}
	}
	need := func(k int) {
		if len(pos) != k {
			d.Fatalf(t, "run %s: want %d arguments, got %v", job, k, pos)
		}
	}
	var err error
	switch job {
	case KindMonitorState:
		var off int
		d.MaybeScanArgs(t, "offset", &off)
		err = n.monitorState(h.ctx, monitorArgs{Offset: off})
	case KindFindSyncRequests:
		err = n.findSyncRequests(h.ctx, sliceArgs{Queues: pos})
	case KindFindReplicaSetUpdates:
		a := sliceArgs{Queues: pos}
		if v, ok := d.Arg("lost"); ok {
			a = sliceArgs{Lost: s.byName(t, d, v.SingleVal(t)).id, Since: parseOffset(t, d, testkit.Arg(d, "since", "+0s"))}
		}
		err = n.findReplicaSetUpdates(h.ctx, a)
	case KindRecurringSync, KindManualSync:
		need(2)
		a := syncArgs{Queue: pos[0], Secondary: s.byName(t, d, pos[1]).id}
		if job == KindManualSync {
			err = n.manualSync(h.ctx, a)
		} else {
			err = n.recurringSync(h.ctx, a)
		}
	case KindReplicaSetUpdate:
		err = n.replicaSetUpdate(h.ctx, updateArgs{Queues: pos})
	case KindRefreshMapping:
		err = n.refreshMapping(h.ctx)
	case KindProbeNode:
		need(1)
		err = n.probeNode(h.ctx, probeArgs{Node: s.byName(t, d, pos[0]).id})
	default:
		d.Fatalf(t, "run: unknown job %q", job)
	}
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	return "ok\n"
}

package smm

import (
	"bytes"
	"cmp"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/sqlite"
	"github.com/ordolabs/ordo/internal/testkit"
	"github.com/ordolabs/ordo/internal/transport"
)

// The driver scenarios' helpers (driver_scenario_test.go documents the
// commands).

// nodeName is the name of the i-th node: a, b, c, ...
func nodeName(i int) string { return string(rune('a' + i)) }

// name replaces every node id in out with the node's name.
func (s *driverScenario) name(out string) string { return s.names.Replace(out) }

// off prints a time as its offset from the start.
func (s *driverScenario) off(at time.Time) string { return testkit.Offset(clock.Epoch, at) }

// byName returns the node named v.
func (s *driverScenario) byName(t *testing.T, d *datadriven.TestData, v string) *testNode {
	for i, n := range s.h.nodes {
		if nodeName(i) == v {
			return n
		}
	}
	d.Fatalf(t, "no node %q", v)
	return nil
}

// node returns the node named by d's i-th positional argument.
func (s *driverScenario) node(t *testing.T, d *datadriven.TestData, i int, usage string) *testNode {
	return s.byName(t, d, testkit.Pos(t, d, i, usage))
}

// putSet writes the set "set QUEUE PRIMARY SECONDARY... [unread]" names.
func (s *driverScenario) putSet(t *testing.T, d *datadriven.TestData) string {
	const usage = "set QUEUE PRIMARY [SECONDARY...] [unread]"
	q, p := testkit.Pos(t, d, 0, usage), s.node(t, d, 1, usage)
	var secs []*testNode
	unread := false
	for i := 2; i < len(d.CmdArgs); i++ {
		if d.CmdArgs[i].Key == "unread" {
			unread = true
			continue
		}
		secs = append(secs, s.node(t, d, i, usage))
	}
	if unread {
		s.h.writeSet(q, p, secs...)
	} else {
		s.h.putSet(q, p, secs...)
	}
	return s.name(s.showSet(q))
}

// showSet prints the chain's set of queue, the version each node holds,
// and the nodes whose sequencer closed the queue.
func (s *driverScenario) showSet(queue string) string {
	h := s.h
	var b strings.Builder
	if cur, ok, err := h.nodes[0].chainSet(h.ctx, queue); err != nil || !ok {
		fmt.Fprintf(&b, "chain: none (%v)\n", err)
	} else {
		fmt.Fprintf(&b, "chain: v%d %s[%s]\n", cur.Version, cur.Primary, strings.Join(cur.Secondaries, " "))
	}
	var held, closed []string
	for i, n := range h.nodes {
		if set, err := n.st.ReplicaSet(h.ctx, queue); err == nil {
			held = append(held, fmt.Sprintf("%s=v%d", nodeName(i), set.Version))
		} else {
			held = append(held, nodeName(i)+"=none")
		}
		if n.seq.isClosed(queue) {
			closed = append(closed, nodeName(i))
		}
	}
	fmt.Fprintf(&b, "held: %s\n", strings.Join(held, " "))
	if len(closed) > 0 {
		fmt.Fprintf(&b, "closed at: %s\n", strings.Join(closed, " "))
	}
	return b.String()
}

// submit is "submit NODE QUEUE [n=K] [key=K]".
func (s *driverScenario) submit(t *testing.T, d *datadriven.TestData) string {
	const usage = "submit NODE QUEUE [n=K] [key=K]"
	h, n, q := s.h, s.node(t, d, 0, usage), testkit.Pos(t, d, 1, usage)
	k := 1
	d.MaybeScanArgs(t, "n", &k)
	var b strings.Builder
	for i := range k {
		key := testkit.Arg(d, "key", "")
		if key == "" {
			key = fmt.Sprintf("k%d", i)
		}
		in := []sequencer.Intake{{Queue: q, Type: "noop", Data: json.RawMessage(`{}`), IdempotencyKey: key}}
		res, err := n.Submit(h.ctx, "alice", in)
		if err != nil {
			fmt.Fprintf(&b, "error: %v\n", err)
			continue
		}
		r := res[0]
		fmt.Fprintf(&b, "%s created=%v state=%s\n", r.Transaction.UID, r.Created, r.Transaction.State)
	}
	return b.String()
}

// jobIDs returns each node's job ids.
func (s *driverScenario) jobIDs() []map[int64]bool {
	out := make([]map[int64]bool, len(s.h.nodes))
	for i, n := range s.h.nodes {
		out[i] = map[int64]bool{}
		for _, j := range s.h.jobs(n, "") {
			out[i][j.ID] = true
		}
	}
	return out
}

// queued prints the jobs each node holds that before did not.
func (s *driverScenario) queued(before []map[int64]bool) string {
	var lines []string
	for i, n := range s.h.nodes {
		for _, j := range sortJobs(s.h.jobs(n, "")) {
			if !before[i][j.ID] && j.Kind != KindRefreshMapping {
				lines = append(lines, "  "+nodeName(i)+": "+s.fmtJob(j))
			}
		}
	}
	if len(lines) == 0 {
		return ""
	}
	return "queued:\n" + strings.Join(lines, "\n") + "\n"
}

// sortJobs sorts jobs by kind, due time and args.
func sortJobs(js []store.Job) []store.Job {
	slices.SortStableFunc(js, func(a, b store.Job) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), a.RunAt.Compare(b.RunAt), bytes.Compare(a.Args, b.Args))
	})
	return js
}

// fmtJob prints a job: its kind, due time and args.
func (s *driverScenario) fmtJob(j store.Job) string {
	return fmt.Sprintf("%s at=%s %s", j.Kind, s.off(j.RunAt), j.Args)
}

// heads prints each node's head of queue.
func (s *driverScenario) heads(queue string) string {
	var parts []string
	for i, n := range s.h.nodes {
		hd := s.h.head(n, queue)
		p := fmt.Sprintf("%s=%d", nodeName(i), hd.Clock)
		if hd.Clock > 0 {
			p += fmt.Sprintf("^%d/%s", hd.Version, hex.EncodeToString(hd.Hash[:2]))
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, " ") + "\n"
}

// health prints what n's core holds of the other nodes.
func (s *driverScenario) health(n *testNode) string {
	n.mu.Lock()
	hs := n.core.Health()
	n.mu.Unlock()
	if len(hs) == 0 {
		return "(none asked)\n"
	}
	var b strings.Builder
	for _, id := range slices.Sorted(maps.Keys(hs)) {
		if hs[id].IsZero() {
			fmt.Fprintf(&b, "%s healthy\n", id)
		} else {
			fmt.Fprintf(&b, "%s unhealthy since %s\n", id, s.off(hs[id]))
		}
	}
	return b.String()
}

// wipe restarts the i-th node on an empty store, with its key (a disk
// lost): a new Node, built as newHarness builds one, takes the old one's
// place on the network; the old one is left detached. Its goroutines end
// with the script (stopWiped).
func (s *driverScenario) wipe(t *testing.T, i int) {
	h, old := s.h, s.h.nodes[i]
	ctx, cancel := context.WithCancel(h.ctx)
	s.cancels = append(s.cancels, cancel)
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "store.db"), sqlite.Options{Synchronous: sqlite.SyncNormal, Now: h.clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	s.stores = append(s.stores, st)
	tn := &testNode{id: old.id, key: old.key, st: st, allow: &allowRecorder{}}
	tn.seq = &fakeSequencer{h: h, st: st, prefix: fmt.Sprintf("n%dw-", i)}
	var jobIDs atomic.Int64
	n, err := New(NodeConfig{Config: old.cfg.Config, Key: old.key, Store: st, Transport: h.net.end(transport.NodeID(old.id)), Chain: h.dc,
		Sequencer: tn.seq, Registry: h.reg, Allow: tn.allow.allow, Clock: h.clk, Servers: 4,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), NewJobID: func() int64 { return jobIDs.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	tn.Node = n
	parked := func(ctx context.Context, _ store.Job) error { <-ctx.Done(); return ctx.Err() }
	for _, k := range []string{KindMonitorState, KindFindSyncRequests, KindFindReplicaSetUpdates, KindRecurringSync, KindManualSync, KindReplicaSetUpdate, KindRefreshMapping, KindProbeNode} {
		n.jobs.Register(k, jobWorker(parked))
	}
	h.net.attach(transport.NodeID(old.id), n.Handle)
	if err := n.Open(ctx); err != nil {
		t.Fatal(err)
	}
	for range n.cfg.Servers {
		s.wg.Go(func() { n.serveLoop(ctx) })
	}
	s.wg.Go(func() { _ = n.jobs.Run(ctx) })
	h.nodes[i] = tn
}

// stopWiped ends the goroutines of the nodes wipe restarted and closes
// their stores (before the harness closes its own).
func (s *driverScenario) stopWiped() {
	for _, cancel := range s.cancels {
		cancel()
	}
	s.wg.Wait()
	for _, st := range s.stores {
		_ = st.Close()
	}
}

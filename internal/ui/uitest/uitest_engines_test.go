package uitest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"go.yaml.in/yaml/v3"

	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/node"
	"github.com/ordolabs/ordo/internal/procs"
	"github.com/ordolabs/ordo/internal/testkit"
	"github.com/ordolabs/ordo/internal/tool"
)

// The engine views' rows (processors, leader, committee, replicas). They
// need nodes the core rows' node is not: a leader holds a cap granted on
// chain before it starts, so TestDashboardProcessorLeader runs its node
// (node.Build in process, like startNode's) over a devchain of its own;
// the committee and the replica sets need several nodes, so
// TestDashboardCommittee runs two `ordo serve` processes (internal/procs)
// with the distributed sequencer and replication on.

// runRows opens each row as the admin and the read-only principal, as
// TestDashboard does for the core views; then each at a phone's width
// (390 px), failing on a page wider than the screen.
func runRows(t *testing.T, b *browser, n *testNode, rows []viewCase, shots string) {
	defer t.Run("phone", func(t *testing.T) {
		s := &session{browser: b, node: n, role: Admin}
		s.signIn(t)
		s.do(t, "a phone's viewport", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
		defer s.do(t, "the desktop viewport", chromedp.EmulateViewport(1280, 800))
		for _, vc := range rows {
			s.open(t, vc.Hash(t, n), vc.Ready)
			if w := eval[int](t, s, `document.documentElement.scrollWidth`); w > 390 {
				t.Errorf("%s is %d px wide on a 390 px screen", vc.Name, w)
			}
			s.screenshot(t, shots, vc.Name+"-phone")
		}
		checkLogs(t, s, false)
	})
	for _, role := range []string{Admin, ReadOnly} {
		s := &session{browser: b, node: n, role: role}
		t.Run(role, func(t *testing.T) {
			s.signIn(t)
			for _, vc := range rows {
				t.Run(vc.Name, func(t *testing.T) {
					s.open(t, vc.Hash(t, n), vc.Ready)
					vc.Check(t, s)
					s.screenshot(t, shots, vc.Name+"-"+role)
					checkLogs(t, s, vc.HTTPErrors)
				})
			}
		})
	}
}

// TestDashboardProcessorLeader opens the processors and leader views of a
// node running both engines, with a processor holding queued and done
// batches and a leader with a Successful and a Dead event; as the admin it
// pauses and resumes the processor and retries the Dead event, and checks
// the API shows each change.
func TestDashboardProcessorLeader(t *testing.T) {
	testkit.NeedLong(t, "the engine views in a headless Chromium")
	chromium(t)
	dc, chainURL := standaloneChain(t)
	lead, keyFile := grantLeaderCap(t, dc)
	registerArith(t, dc)
	n := startNode(t, func(c *node.Config) {
		c.Chain = chainURL
		c.Devchain = node.DevchainConfig{}
		c.DevSenders = 1
		c.Senders = []node.SenderFile{{KeyFile: keyFile}}
		c.Leader.Accounts = []string{string(lead)}
		loop := true
		c.Egress.AllowLoopback = &loop // the tool is on 127.0.0.1
	})
	procSetup(t, n)
	leaderSetup(t, dc)
	runRows(t, newBrowser(t), n, []viewCase{
		{Name: "processors", Hash: fixed("#/processors"), Ready: `[data-view="processors"] tbody tr td a`, Check: checkProcessors},
		{Name: "processor", Hash: fixed("#/processors/payroll"), Ready: `[data-view="processors"] [data-callbacks] tbody tr td code`, Check: checkProcessor},
		{Name: "leader", Hash: fixed("#/leader"), Ready: `[data-view="leader"] [data-events] tbody tr td code`, Check: checkLeader},
	}, shotsDir(t))
}

// standaloneChain runs a devchain of 100 ms blocks behind an HTTP server
// for t.
func standaloneChain(t *testing.T) (*devchain.Chain, string) {
	t.Helper()
	dc, err := devchain.New(devchain.Config{BlockTime: 100 * time.Millisecond, DataDir: t.TempDir(), DevAccounts: 4})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(devchain.NewHandler(dc))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = dc.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done; srv.Close(); _ = dc.Close() })
	return dc, srv.URL
}

// chainAdmin sends workflow and registry calls from the last dev account,
// which becomes the workflow's admin; each waits for its inclusion.
type chainAdmin struct {
	t     *testing.T
	dc    *devchain.Chain
	from  chain.Address
	nonce uint64
}

func newChainAdmin(t *testing.T, dc *devchain.Chain) *chainAdmin {
	accts, err := dc.DevAccounts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return &chainAdmin{t: t, dc: dc, from: accts[len(accts)-1].Address}
}

func (a *chainAdmin) send(contract, method string, args any) {
	a.t.Helper()
	ctx := context.Background()
	if acct, err := a.dc.Account(ctx, a.from); err == nil {
		a.nonce = acct.PendingNonce
	}
	raw, _ := json.Marshal(args)
	h, err := a.dc.SendTx(ctx, chain.Tx{From: a.from, Nonce: a.nonce, Fee: 1000, Contract: contract, Method: method, Args: raw})
	if err != nil {
		a.t.Fatalf("%s.%s: %v", contract, method, err)
	}
	testkit.WaitFor(a.t, 20*time.Second, 50*time.Millisecond, contract+"."+method+" included", func() bool {
		st, err := a.dc.TxStatus(ctx, h)
		if err == nil && st.State == chain.TxIncluded && !st.Success {
			a.t.Fatalf("%s.%s failed: %s", contract, method, st.Reason)
		}
		return err == nil && st.State == chain.TxIncluded
	})
}

// grantLeaderCap makes dev account 0 a leader holding one cap and returns
// its address and a key file of its seed (senders: keyFile).
func grantLeaderCap(t *testing.T, dc *devchain.Chain) (chain.Address, string) {
	t.Helper()
	accts, err := dc.DevAccounts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	a, lead := newChainAdmin(t, dc), accts[0].Address
	a.send(devchain.WorkflowContract, devchain.WorkflowInit, map[string]any{})
	a.send(devchain.WorkflowContract, devchain.WorkflowGrantLeaderCap, map[string]any{"leader": lead})
	k, ok := dc.DevKey(lead)
	if !ok {
		t.Fatalf("no dev key for %s", lead)
	}
	file := filepath.Join(t.TempDir(), "leader.key")
	if err := os.WriteFile(file, []byte(fmt.Sprintf("%x", k.Seed())), 0o600); err != nil {
		t.Fatal(err)
	}
	return lead, file
}

// registerArith serves the example tool arith and registers it.
func registerArith(t *testing.T, dc *devchain.Chain) {
	t.Helper()
	srv, err := tool.NewServer(tool.Arith{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	m := srv.Meta()
	newChainAdmin(t, dc).send(devchain.RegistryContract, "register", map[string]any{"tool": m.Name, "url": ts.URL,
		"inputSchema": m.InputSchema, "outputSchema": m.OutputSchema})
}

// procSetup creates the processor payroll (owned by the submit
// principal), runs one batch to its outcome (a callback), then queues two
// High batches and one Medium.
func procSetup(t *testing.T, n *testNode) {
	t.Helper()
	post := func(path, role string, body any, want int) {
		t.Helper()
		if st, err := n.call(http.MethodPost, path, role, body, nil); err != nil || st != want {
			t.Fatalf("POST %s as %s: %d %v", path, role, st, err)
		}
	}
	batch := func(id, priority string) map[string]any {
		return map[string]any{"id": id, "priority": priority, "msgs": []any{map[string]any{"contract": "library", "method": "credit", "args": map[string]any{"amount": 1}}},
			"actionsConfig": map[string]any{"atomic": map[string]any{"actions": []any{map[string]any{}}}}}
	}
	post("/v1/processors", Admin, map[string]any{"name": "payroll", "owner": "app"}, http.StatusOK)
	post("/v1/processors", Admin, map[string]any{"name": "refunds", "owner": "alice"}, http.StatusOK)
	post("/v1/processors/payroll/batches", Admin, batch("march", "high"), http.StatusOK)
	testkit.WaitFor(t, 30*time.Second, 200*time.Millisecond, "march's callback", func() bool {
		post("/v1/processors/payroll/tick", "", map[string]any{}, http.StatusOK)
		var p struct{ Callbacks []any }
		n.get(t, "/v1/processors/payroll/callbacks", nil, &p)
		return len(p.Callbacks) == 1
	})
	post("/v1/processors/payroll/batches", Admin, batch("april", "high"), http.StatusOK)
	post("/v1/processors/payroll/batches", Admin, batch("may", "high"), http.StatusOK)
	post("/v1/processors/payroll/batches", Admin, batch("june", "medium"), http.StatusOK)
}

// leaderSetup requests two walks: one arith answers (Successful), one of a
// tool the registry does not hold (Dead), and waits for both.
func leaderSetup(t *testing.T, dc *devchain.Chain) {
	t.Helper()
	a := newChainAdmin(t, dc)
	a.send(devchain.WorkflowContract, devchain.WorkflowRequest, map[string]any{"walk": "w-mul", "tool": "arith", "input": map[string]any{"op": "mul", "a": 6, "b": 7}})
	a.send(devchain.WorkflowContract, devchain.WorkflowRequest, map[string]any{"walk": "w-nosuch", "tool": "nosuch", "input": map[string]any{}})
}

// leaderEvents reads the API's events (the first page; the test has two).
func leaderEvents(t *testing.T, n *testNode, status string) []leaderEvent {
	t.Helper()
	var p struct {
		Events []leaderEvent `json:"events"`
	}
	q := url.Values{}
	if status != "" {
		q.Set("status", status)
	}
	n.get(t, "/v1/leader/events", q, &p)
	return p.Events
}

type leaderEvent struct {
	ID      int64  `json:"id"`
	Walk    string `json:"walk"`
	Status  string `json:"status"`
	Reports int    `json:"reports"`
	Retried int    `json:"retried"`
}

// checkProcessors: the names listed are the API's.
func checkProcessors(t *testing.T, s *session) {
	var p struct {
		Processors []struct{ Name string } `json:"processors"`
	}
	s.node.get(t, "/v1/processors", nil, &p)
	var want []string
	for _, x := range p.Processors {
		want = append(want, x.Name)
	}
	if got := s.texts(t, `[data-view="processors"] tbody tr td:nth-child(1)`); len(want) != 2 || !slices.Equal(got, want) {
		t.Errorf("processors %q, the API lists %q", got, want)
	}
}

type procView struct {
	Processor struct {
		Paused bool   `json:"paused"`
		Owner  string `json:"owner"`
	} `json:"processor"`
	Counts struct {
		Queued map[string]int `json:"queued"`
		Done   int            `json:"done"`
	} `json:"counts"`
}

// checkProcessor: the counts, the High queue's batches and the callbacks
// are the API's; the admin pauses and resumes it (the API shows each), the
// read-only principal has no button and reads who may.
func checkProcessor(t *testing.T, s *session) {
	var pv procView
	s.node.get(t, "/v1/processors/payroll", nil, &pv)
	for stat, want := range map[string]int{"high": pv.Counts.Queued["high"], "medium": pv.Counts.Queued["medium"], "done": pv.Counts.Done} {
		if got := s.text(t, `[data-stat="`+stat+`"] .value`); got != strconv.Itoa(want) {
			t.Errorf("%s: %q, the API says %d", stat, got, want)
		}
	}
	var q struct {
		Batches []struct{ ID string } `json:"batches"`
	}
	s.node.get(t, "/v1/processors/payroll/queues/high", nil, &q)
	var ids []string
	for _, b := range q.Batches {
		ids = append(ids, b.ID)
	}
	if len(ids) != 2 {
		t.Errorf("the API's High queue %q, want 2 batches", ids)
	}
	// The view is ready once its callbacks show; each queue's table comes
	// from a request of its own, which may still be under way.
	highSel := `[data-view="processors"] [data-queue="high"] tbody tr td:nth-child(2)`
	testkit.WaitFor(t, 20*time.Second, 200*time.Millisecond, fmt.Sprintf("the High queue to list the API's %q", ids), func() bool {
		return slices.Equal(s.texts(t, highSel), ids)
	})
	var cb struct {
		Callbacks []struct {
			BatchID string `json:"batchId"`
			State   string `json:"state"`
		} `json:"callbacks"`
	}
	s.node.get(t, "/v1/processors/payroll/callbacks", nil, &cb)
	if got := s.texts(t, `[data-view="processors"] [data-callbacks] tbody tr td:nth-child(2)`); len(cb.Callbacks) != 1 || !slices.Equal(got, []string{cb.Callbacks[0].BatchID}) {
		t.Errorf("callbacks %q, the API's %+v", got, cb.Callbacks)
	}
	if s.role != Admin {
		if c := s.count(t, `[data-view="processors"] button[data-action]`); c != 0 {
			t.Errorf("%d pause/resume buttons for %s", c, s.role)
		}
		if got := s.text(t, `[data-view="processors"] .card .row`); !strings.Contains(got, "need the owner (app) or an admin") {
			t.Errorf("the read-only principal reads %q", got)
		}
		return
	}
	for _, step := range []struct {
		action, state string
		paused        bool
	}{{"pause", "Paused", true}, {"resume", "Running", false}} {
		s.do(t, step.action, chromedp.Click(chromedp.CSS(`[data-view="processors"] button[data-action="`+step.action+`"]`)))
		s.waitText(t, `[data-stat="state"] .value`, step.state)
		s.node.get(t, "/v1/processors/payroll", nil, &pv)
		if pv.Processor.Paused != step.paused {
			t.Errorf("after %s the API says paused=%v", step.action, pv.Processor.Paused)
		}
	}
}

// checkLeader: the events listed are the API's, the channel is; the admin
// retries the Dead event (the API shows it back in Queued, then with a
// second result), the read-only principal has no retry button.
func checkLeader(t *testing.T, s *session) {
	var evs []leaderEvent
	testkit.WaitFor(t, 30*time.Second, 200*time.Millisecond, "both events final", func() bool {
		evs = leaderEvents(t, s.node, "")
		final := 0
		for _, e := range evs {
			if e.Status == "Successful" || e.Status == "Dead" {
				final++
			}
		}
		return len(evs) == 2 && final == 2
	})
	var walks []string
	for _, e := range evs {
		walks = append(walks, e.Walk)
	}
	testkit.WaitFor(t, 20*time.Second, 200*time.Millisecond, "the page to list the API's events", func() bool {
		return slices.Equal(s.texts(t, `[data-view="leader"] [data-events] tbody tr td:nth-child(2)`), walks)
	})
	var chans []struct{ Index int }
	s.node.get(t, "/v1/leader/channels", nil, &chans)
	if len(chans) == 0 {
		t.Errorf("the API lists no channel")
	}
	testkit.WaitFor(t, 20*time.Second, 200*time.Millisecond, fmt.Sprintf("the page to list the API's %d channels", len(chans)), func() bool {
		return s.count(t, `[data-view="leader"] [data-channels] tbody tr`) == len(chans)
	})
	dead := leaderEvents(t, s.node, "Dead")
	if len(dead) != 1 {
		t.Fatalf("Dead events: %+v", dead)
	}
	buttons := s.count(t, `[data-view="leader"] button[data-retry]`)
	if s.role != Admin {
		if buttons != 0 {
			t.Errorf("%d retry buttons for %s", buttons, s.role)
		}
		return
	}
	if buttons != 1 {
		t.Fatalf("%d retry buttons, want 1 (the Dead event)", buttons)
	}
	id := strconv.FormatInt(dead[0].ID, 10)
	s.do(t, "retrying event "+id, chromedp.Click(chromedp.CSS(`[data-view="leader"] button[data-retry="`+id+`"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-retried="`+id+`"]`)))
	testkit.WaitFor(t, 30*time.Second, 200*time.Millisecond, "the retried event's second result", func() bool {
		var e leaderEvent
		s.node.get(t, "/v1/leader/events/"+id, nil, &e)
		return e.Reports == 2 && e.Status == "Dead"
	})
	// The page follows without a reload (its 5 s refresh): the event is
	// Dead again, its retry button back.
	s.do(t, "the page to show event "+id+" Dead again", chromedp.WaitVisible(chromedp.CSS(`[data-view="leader"] button[data-retry="`+id+`"]`)))
}

// TestDashboardCommittee opens the committee and replicas views of a node
// of a two-node committee (`ordo serve` processes, internal/procs) with
// replication on, after a private transfer and intents on a replicated
// queue, and checks them against the API.
func TestDashboardCommittee(t *testing.T) {
	testkit.NeedLong(t, "the committee and replicas views in a headless Chromium")
	chromium(t)
	ctx := t.Context()
	bin, err := procs.Build(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c, err := procs.Start(ctx, procs.Config{Bin: bin, Dir: t.TempDir(), Nodes: 2, BlockTime: 200 * time.Millisecond, Coins: 2,
		Replication: true, MonitorEvery: 200 * time.Millisecond, MappingEvery: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Stop(context.Background()) })
	// Node 1 again, with the test's principals in its config.
	m := c.Member(0)
	addPrincipals(t, m.Config)
	if err := c.Kill(0); err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx, 0); err != nil {
		t.Fatal(err)
	}
	n := &testNode{URL: m.API}
	testkit.WaitFor(t, 60*time.Second, 200*time.Millisecond, "both nodes in the registry, read by node 1", func() bool {
		var st struct {
			MappingFresh bool `json:"mappingFresh"`
		}
		var peers struct {
			Peers []struct{ State string } `json:"peers"`
		}
		s1, _ := n.call(http.MethodGet, "/v1/smm", Admin, nil, &st)
		s2, _ := n.call(http.MethodGet, "/v1/peers", Admin, nil, &peers)
		return s1 == http.StatusOK && s2 == http.StatusOK && st.MappingFresh && len(peers.Peers) == 1
	})
	for k := range 4 {
		body := map[string]any{"queue": "votes", "type": "CREATE_CLAIM_VOTING_ACCOUNT", "data": map[string]any{"title": fmt.Sprintf("vote %d", k)},
			"idempotencyKey": fmt.Sprintf("ui-votes-%d", k)}
		if st, err := n.call(http.MethodPost, "/v1/transactions", Admin, body, nil); err != nil || (st != http.StatusCreated && st != http.StatusOK) {
			t.Fatalf("intent %d on votes: %d %v", k, st, err)
		}
	}
	if _, err := c.Send(ctx, 0, "ui-transfer", "alice", 10); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, 60*time.Second, 200*time.Millisecond, "votes' set with its secondary caught up", func() bool {
		var p setsPage
		st, _ := n.call(http.MethodGet, "/v1/smm/sets", Admin, nil, &p)
		return st == http.StatusOK && len(p.Sets) == 1 && len(p.Sets[0].Members) == 2 && p.Sets[0].Members[1].Clock > 0 && p.Sets[0].Members[1].Lag == 0
	})
	runRows(t, newBrowser(t), n, []viewCase{
		{Name: "committee", Hash: fixed("#/committee"), Ready: `[data-view="committee"] [data-groups] tbody tr td code`, Check: checkCommittee},
		{Name: "replicas", Hash: fixed("#/replicas"), Ready: `[data-view="replicas"] [data-sets] tbody tr td a`, Check: checkReplicas},
	}, shotsDir(t))
}

// addPrincipals adds the test's admin and read-only principals (by their
// tokens' SHA-256) to a node's YAML config.
func addPrincipals(t *testing.T, path string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := yaml.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	ps, _ := cfg["principals"].([]any)
	for name, role := range map[string]string{Admin: "admin", ReadOnly: "read"} {
		ps = append(ps, map[string]any{"principal": "ui-" + name, "tokenSHA256": auth.TokenSHA256(tokens[name]), "roles": []string{role}})
	}
	cfg["principals"] = ps
	out, err := yaml.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
}

type setsPage struct {
	Sets []struct {
		Queue   string `json:"queue"`
		Version uint64 `json:"version"`
		Members []struct {
			Node  string `json:"node"`
			Role  string `json:"role"`
			Clock uint64 `json:"clock"`
			Lag   uint64 `json:"lag"`
		} `json:"members"`
	} `json:"sets"`
}

// checkCommittee: the peer and its connection, the coordinator per group
// are the API's (GET /v1/peers).
func checkCommittee(t *testing.T, s *session) {
	var p struct {
		Self  string `json:"self"`
		Peers []struct {
			ID    string `json:"id"`
			State string `json:"state"`
		} `json:"peers"`
		Contracts []struct {
			Coordinator string `json:"coordinator"`
		} `json:"contracts"`
	}
	s.node.get(t, "/v1/peers", nil, &p)
	if got := s.text(t, `[data-view="committee"] [data-self]`); got != p.Self {
		t.Errorf("self %q, the API's %q", got, p.Self)
	}
	var ids, states []string
	for _, x := range p.Peers {
		ids, states = append(ids, x.ID), append(states, x.State)
	}
	if got := s.texts(t, `[data-view="committee"] [data-peers] tbody tr td:nth-child(1)`); !slices.Equal(got, ids) {
		t.Errorf("peers %q, the API's %q", got, ids)
	}
	if got := s.texts(t, `[data-view="committee"] [data-peers] tbody tr td:nth-child(2)`); !slices.Equal(got, states) {
		t.Errorf("connections %q, the API's %q", got, states)
	}
	if len(p.Contracts) != 1 {
		t.Fatalf("contracts: %+v", p.Contracts)
	}
	got := s.text(t, `[data-view="committee"] [data-groups] tbody tr td:nth-child(2)`)
	if !strings.HasPrefix(got, p.Contracts[0].Coordinator) || p.Contracts[0].Coordinator == "" {
		t.Errorf("coordinator %q, the API's %q", got, p.Contracts[0].Coordinator)
	}
	if c := s.count(t, `[data-view="committee"] [data-states] table`); c != 2 {
		t.Errorf("%d state tables, want the sender's and the coordinator's", c)
	}
}

// checkReplicas: each member's role, head and lag are the API's (GET
// /v1/smm/sets), once the page's refresh and the API agree.
func checkReplicas(t *testing.T, s *session) {
	testkit.WaitFor(t, 20*time.Second, 300*time.Millisecond, "the page to show the API's heads and lags", func() bool {
		var p setsPage
		s.node.get(t, "/v1/smm/sets", nil, &p)
		var want []string
		for _, set := range p.Sets {
			for _, m := range set.Members {
				lag := strconv.FormatUint(m.Lag, 10)
				if m.Role == "primary" {
					lag = ""
				}
				want = append(want, set.Queue+" "+m.Role+" "+strconv.FormatUint(m.Clock, 10)+" "+lag)
			}
		}
		var got []string
		for i, q := range s.texts(t, `[data-view="replicas"] [data-sets] tbody tr td:nth-child(1)`) {
			row := fmt.Sprintf(`[data-view="replicas"] [data-sets] tbody tr:nth-child(%d) td:nth-child(%%d)`, i+1)
			got = append(got, strings.Join([]string{q, s.text(t, fmt.Sprintf(row, 4)), s.text(t, fmt.Sprintf(row, 5)), s.text(t, fmt.Sprintf(row, 6))}, " "))
		}
		return len(want) == 2 && slices.Equal(got, want)
	})
	if got := s.text(t, `[data-view="replicas"] [data-stat="primary-of"] .value`); got == "" {
		t.Errorf("no primary-of figure")
	}
}

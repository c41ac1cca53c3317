package uitest

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/ordolabs/ordo/internal/node"
	"github.com/ordolabs/ordo/internal/testkit"
)

// viewCase is a row of the browser test: one view, opened by each of its
// principals, checked against the API's answers, then photographed
// (<Name>-<role>.png).
type viewCase struct {
	// Name names the subtest and the screenshot.
	Name string
	// Hash is the route to open, such as "#/queues".
	Hash func(t *testing.T, n *testNode) string
	// Ready is a CSS selector visible once the view shows its data.
	Ready string
	// Check compares what the view shows with the API's answers, and may
	// act (s.role says who signed in).
	Check func(t *testing.T, s *session)
	// Roles are the principals that open it; nil: Admin and ReadOnly.
	Roles []string
	// HTTPErrors, when set, lets the page log failed requests (a 403 the
	// view shows): the browser logs each as an error.
	HTTPErrors bool
}

// viewCases are the rows, in the order they run: this file's in its
// init, the engine views' in uitest_engines_test.go's.
var viewCases []viewCase

// nodeTunes change the test node's config (the engine rows turn their
// engines on), nodeOptions its options (routes of its own, a logger);
// setups run once the node has served its traffic.
var (
	nodeTunes   []func(c *node.Config)
	nodeOptions []func(o *node.Options)
	setups      []func(t *testing.T, n *testNode)
)

func init() {
	viewCases = append(viewCases, coreViews...)
}

func fixed(hash string) func(*testing.T, *testNode) string {
	return func(*testing.T, *testNode) string { return hash }
}

var coreViews = []viewCase{
	{Name: "overview", Hash: fixed("#/overview"), Ready: `[data-view="overview"] [data-stat="intents-DONE"]`, Check: checkOverview},
	{Name: "queues", Hash: fixed("#/queues"), Ready: `[data-view="queues"] tbody tr td a`, Check: checkQueues},
	{Name: "queue", Hash: fixed("#/queues/q-0"), Ready: `[data-view="queues"] tbody tr td a.mono`, Check: checkQueue},
	{Name: "paging", Hash: fixed("#/queues/q-1?limit=4"), Ready: `[data-view="queues"] tbody tr td a.mono`, Check: checkPaging},
	{Name: "intent", Hash: func(t *testing.T, n *testNode) string {
		return "#/intent/" + n.list(t, url.Values{"state": {"DONE"}, "limit": {"1"}})[0].UID
	}, Ready: `[data-view="intent"] dl.record`, Check: checkIntent},
	{Name: "senders", Hash: fixed("#/senders"), Ready: `[data-view="senders"] tbody tr td code`, Check: checkSenders},
}

// TestDashboard opens every view in a headless Chromium as an admin and as
// a read-only principal, against a node that has served traffic, and
// checks each against the API; then the keyboard, a phone's width,
// signing out, the sign-in's refusal of a wrong token and of a principal
// without the read role (the API's sentences).
func TestDashboard(t *testing.T) {
	testkit.NeedLong(t, "the dashboard in a headless Chromium")
	chromium(t)
	n := startNode(t, func(c *node.Config) {
		for _, f := range nodeTunes {
			f(c)
		}
	})
	n.traffic(t, 48, 6)
	for _, f := range setups {
		f(t, n)
	}
	shots := shotsDir(t)
	b := newBrowser(t)
	for _, role := range []string{Admin, ReadOnly} {
		s := &session{browser: b, node: n, role: role}
		t.Run(role, func(t *testing.T) {
			s.signIn(t)
			if got := s.storage(t, "ordo.token"); got != tokens[role] {
				t.Errorf("sessionStorage ordo.token %q after signing in", got)
			}
			for _, vc := range viewCases {
				roles := vc.Roles
				if roles == nil {
					roles = []string{Admin, ReadOnly}
				}
				if !slices.Contains(roles, role) {
					continue
				}
				t.Run(vc.Name, func(t *testing.T) {
					s.open(t, vc.Hash(t, n), vc.Ready)
					vc.Check(t, s)
					s.screenshot(t, shots, vc.Name+"-"+role)
					checkLogs(t, s, vc.HTTPErrors)
				})
			}
		})
	}
	t.Run("keyboard", func(t *testing.T) {
		s := &session{browser: b, node: n, role: Admin}
		s.signIn(t)
		s.open(t, "#/overview", `[data-view="overview"] h1`)
		s.do(t, "Enter on the focused Queues link", chromedp.Focus(chromedp.CSS(`#nav-list a[href="#/queues"]`)),
			chromedp.KeyEvent("\r"), chromedp.WaitVisible(chromedp.CSS(`[data-view="queues"] tbody tr td a`)))
		if got := eval[string](t, s, `document.activeElement.getAttribute('href') || document.activeElement.tagName`); got != "#/queues" && got != "H1" {
			t.Errorf("focus after Enter on a link: %s", got)
		}
		if got := s.text(t, `#nav-list a[aria-current="page"]`); got != "Queues" {
			t.Errorf("the current page's link reads %q", got)
		}
		checkLogs(t, s, false)
	})
	t.Run("phone", func(t *testing.T) {
		s := &session{browser: b, node: n, role: Admin}
		s.signIn(t)
		s.do(t, "a phone's viewport", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
		defer s.do(t, "the desktop viewport", chromedp.EmulateViewport(1280, 800))
		for _, vc := range viewCases {
			s.open(t, vc.Hash(t, n), vc.Ready)
			if w := eval[int](t, s, `document.documentElement.scrollWidth`); w > 390 {
				t.Errorf("%s is %d px wide on a 390 px screen", vc.Name, w)
			}
			if vc.Name == "queue" {
				s.screenshot(t, shots, "queue-phone")
			}
		}
		checkLogs(t, s, false)
	})
	t.Run("wrong token", func(t *testing.T) {
		s := &session{browser: b, node: n, role: Admin}
		s.do(t, "signing out", chromedp.Navigate(n.URL+"/ui/#/signin"), chromedp.WaitVisible(chromedp.CSS("#sign-out")),
			chromedp.Click(chromedp.CSS("#sign-out")), chromedp.WaitNotVisible(chromedp.CSS("#sign-out")), chromedp.WaitVisible(chromedp.CSS("#token")))
		if got := s.storage(t, "ordo.token"); got != "" {
			t.Errorf("sessionStorage ordo.token %q after signing out", got)
		}
		s.do(t, "signing in with a wrong token", chromedp.SendKeys(chromedp.CSS("#token"), "not-a-token-of-this-node"),
			chromedp.Click(chromedp.CSS(`.signin button[type="submit"]`)), chromedp.WaitVisible(chromedp.CSS(".error")))
		var body struct {
			Error struct{ Message string } `json:"error"`
		}
		if st, err := n.request(http.MethodGet, "/v1/session", "not-a-token-of-this-node", nil, &body); err != nil || st != http.StatusUnauthorized {
			t.Fatalf("GET /v1/session with a wrong token: %d %v", st, err)
		}
		if got := s.text(t, ".error"); !strings.Contains(got, body.Error.Message) || body.Error.Message == "" {
			t.Errorf("the sign-in shows %q, not the API's sentence %q", got, body.Error.Message)
		}
		if got := s.storage(t, "ordo.token"); got != "" {
			t.Errorf("a refused token is kept: %q", got)
		}
		s.screenshot(t, shots, "signin")
		checkLogs(t, s, true)
	})
	t.Run("no read role", func(t *testing.T) {
		// A principal without the role read cannot read the session: the
		// sign-in shows the API's sentence and keeps no token.
		s := &session{browser: b, node: n, role: Submit}
		var body struct {
			Error struct{ Message string } `json:"error"`
		}
		if st, err := n.call(http.MethodGet, "/v1/session", Submit, nil, &body); err != nil || st != http.StatusForbidden {
			t.Fatalf("GET /v1/session as submit: %d %v", st, err)
		}
		s.do(t, "signing in without the role read", chromedp.Navigate("about:blank"), chromedp.Navigate(n.URL+"/ui/#/signin"),
			chromedp.WaitVisible(chromedp.CSS("#token")), chromedp.SendKeys(chromedp.CSS("#token"), tokens[Submit]),
			chromedp.Click(chromedp.CSS(`.signin button[type="submit"]`)), chromedp.WaitVisible(chromedp.CSS(".signin .error")))
		if got := s.text(t, ".signin .error"); !strings.Contains(got, body.Error.Message) || body.Error.Message == "" {
			t.Errorf("the sign-in shows %q, not the API's sentence %q", got, body.Error.Message)
		}
		if got := s.storage(t, "ordo.token"); got != "" {
			t.Errorf("a token without the role read is kept: %q", got)
		}
		checkLogs(t, s, true)
	})
}

// checkLogs fails t on what the page logged: any console error or
// warning, any uncaught exception; failed requests (the browser's network
// errors) only when httpErrors is false.
func checkLogs(t *testing.T, s *session, httpErrors bool) {
	t.Helper()
	for _, l := range s.take() {
		if httpErrors && strings.Contains(l, "Failed to load resource: the server responded with a status of 4") {
			continue
		}
		t.Errorf("the page logged: %s", l)
	}
}

// checkOverview: the DONE count is the API's, once the stats history has
// sampled it; the health is /healthz's; the engines are the session's.
func checkOverview(t *testing.T, s *session) {
	done := len(s.node.list(t, url.Values{"state": {"DONE"}}))
	s.waitText(t, `[data-stat="intents-DONE"] .value`, strconv.Itoa(done))
	var hz struct {
		Status string `json:"status"`
	}
	s.node.get(t, "/healthz", nil, &hz)
	if got := s.text(t, `[data-stat="health"]`); got != hz.Status {
		t.Errorf("health %q, /healthz says %q", got, hz.Status)
	}
	var sess struct {
		Engines []string `json:"engines"`
	}
	s.node.get(t, "/v1/session", nil, &sess)
	if got := s.texts(t, `[data-view="overview"] .engines .badge`); !slices.Equal(got, sess.Engines) {
		t.Errorf("engines %q, the session says %q", got, sess.Engines)
	}
}

// checkQueues: the queues' names and senders are the API's.
func checkQueues(t *testing.T, s *session) {
	var qs struct {
		Queues []struct{ Name, Sender string } `json:"queues"`
	}
	s.node.get(t, "/v1/queues", url.Values{"limit": {"25"}}, &qs)
	var names, senders []string
	for _, q := range qs.Queues {
		names = append(names, q.Name)
		senders = append(senders, cmpOr(q.Sender, "none"))
	}
	if got := s.texts(t, `[data-view="queues"] tbody tr td:nth-child(1)`); !slices.Equal(got, names) {
		t.Errorf("queues %q, the API lists %q", got, names)
	}
	if got := s.texts(t, `[data-view="queues"] tbody tr td:nth-child(4)`); !slices.Equal(got, senders) {
		t.Errorf("senders %q, the API says %q", got, senders)
	}
}

// checkQueue: q-0's intents in FIFO order, as the API lists them; as the
// admin, an intent submitted now appears without a reload (the change
// stream).
func checkQueue(t *testing.T, s *session) {
	want := func() []string {
		var out []string
		for _, x := range s.node.list(t, url.Values{"queue": {"q-0"}}) {
			out = append(out, strconv.FormatInt(x.Seq, 10))
		}
		return out
	}
	seqs := `[data-view="queues"] tbody tr td:nth-child(1)`
	if got, w := s.texts(t, seqs), want(); !slices.Equal(got, w) {
		t.Errorf("q-0 lists %q, the API %q", got, w)
	}
	if s.role != Admin {
		return
	}
	st, err := s.node.call(http.MethodPost, "/v1/transactions", Submit, map[string]any{"queue": "q-0", "type": "SEND_CLAIM_VOTE",
		"data": map[string]any{}, "idempotencyKey": "uitest-live"}, nil)
	if err != nil || st != http.StatusCreated {
		t.Fatalf("submitting to q-0: %d %v", st, err)
	}
	var got []string
	testkit.WaitFor(t, 20*time.Second, 200*time.Millisecond, "the new intent on q-0's page without a reload", func() bool {
		got = s.texts(t, seqs)
		return slices.Equal(got, want())
	})
}

// checkIntent: the state and every attempt's hash are the API's.
func checkIntent(t *testing.T, s *session) {
	uid := strings.TrimPrefix(eval[string](t, s, "location.hash"), "#/intent/")
	var r struct {
		Transaction tx `json:"transaction"`
	}
	s.node.get(t, "/v1/transactions/"+uid, nil, &r)
	if got := s.text(t, `[data-view="intent"] dl.record dd .badge`); got != r.Transaction.State {
		t.Errorf("state %q, the API says %q", got, r.Transaction.State)
	}
	var hashes []string
	for _, a := range r.Transaction.Attempts {
		hashes = append(hashes, a.Hash)
	}
	if got := s.texts(t, `#attempts tbody tr td:nth-child(2)`); len(hashes) == 0 || !slices.Equal(got, hashes) {
		t.Errorf("attempt hashes %q, the API's %q", got, hashes)
	}
}

// checkSenders: the senders and their nonces are the API's; only the
// admin sees the cancel buttons.
func checkSenders(t *testing.T, s *session) {
	var r struct {
		Senders []struct {
			ID        string `json:"id"`
			NextNonce uint64 `json:"nextNonce"`
		} `json:"senders"`
	}
	s.node.get(t, "/v1/senders", nil, &r)
	var ids, nonces []string
	for _, x := range r.Senders {
		ids = append(ids, x.ID)
		nonces = append(nonces, strconv.FormatUint(x.NextNonce, 10))
	}
	if got := s.texts(t, `[data-view="senders"] tbody tr td:nth-child(1)`); !slices.Equal(got, ids) {
		t.Errorf("senders %q, the API's %q", got, ids)
	}
	if got := s.texts(t, `[data-view="senders"] tbody tr td:nth-child(5)`); !slices.Equal(got, nonces) {
		t.Errorf("nonces %q, the API's %q", got, nonces)
	}
	buttons, want := s.count(t, `[data-view="senders"] tbody button`), 0
	if s.role == Admin {
		want = len(ids)
	}
	if buttons != want {
		t.Errorf("%d cancel buttons for %s, want %d", buttons, s.role, want)
	}
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// checkPaging: q-1's intents four at a time, Next and Previous as the
// API's cursors page them; then the state filter.
func checkPaging(t *testing.T, s *session) {
	var seqs []string
	for _, x := range s.node.list(t, url.Values{"queue": {"q-1"}}) {
		seqs = append(seqs, strconv.FormatInt(x.Seq, 10))
	}
	if len(seqs) <= 4 {
		t.Fatalf("q-1 holds %d intents: too few to page by 4", len(seqs))
	}
	cells := `[data-view="queues"] tbody tr td:nth-child(1)`
	if got := s.texts(t, cells); !slices.Equal(got, seqs[:4]) {
		t.Errorf("page 1: %q, want %q", got, seqs[:4])
	}
	s.do(t, "Next", chromedp.Click(chromedp.CSS(`.pager button:last-child`)))
	s.waitText(t, cells, seqs[4])
	if got := s.texts(t, cells); !slices.Equal(got, seqs[4:min(8, len(seqs))]) {
		t.Errorf("page 2: %q, want %q", got, seqs[4:min(8, len(seqs))])
	}
	s.do(t, "Previous", chromedp.Click(chromedp.CSS(`.pager button:first-child`)))
	s.waitText(t, cells, seqs[0])
	s.do(t, "filtering FAILED", chromedp.SetValue(chromedp.CSS(`.filters select`), "FAILED"))
	eval[bool](t, s, `document.querySelector('.filters select').dispatchEvent(new Event('change'))`)
	s.waitText(t, `[data-view="queues"] tbody tr td.empty`, "No intent in state FAILED.")
}

// TestDashboardDevMode opens the dashboard of a node in dev mode without
// a token: the overview shows straight away, as the principal "dev"
// holding every role, with nothing logged (not even a 401), and no token
// is stored.
func TestDashboardDevMode(t *testing.T) {
	testkit.NeedLong(t, "the dashboard of a dev-mode node in a headless Chromium")
	chromium(t)
	n := startNode(t, func(c *node.Config) { c.DevMode, c.Principals = true, nil })
	b := newBrowser(t)
	s := &session{browser: b, node: n, role: Admin}
	s.open(t, "#/overview", `[data-view="overview"] [data-stat="intents-DONE"]`)
	var sess struct {
		Principal string `json:"principal"`
		DevMode   bool   `json:"devMode"`
	}
	if st, err := n.request(http.MethodGet, "/v1/session", "", nil, &sess); err != nil || st != http.StatusOK || !sess.DevMode {
		t.Fatalf("GET /v1/session without a token in dev mode: %d %v %+v", st, err, sess)
	}
	if got := s.text(t, "#who .principal"); got != sess.Principal {
		t.Errorf("signed in as %q, the session says %q", got, sess.Principal)
	}
	if got := s.storage(t, "ordo.token"); got != "" {
		t.Errorf("a token is stored in dev mode: %q", got)
	}
	if s.count(t, "#sign-out:not([hidden])") != 0 {
		t.Errorf("Sign out shows without a token")
	}
	checkLogs(t, s, false)
}

package uitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/node"
	"github.com/ordolabs/ordo/internal/testkit"
)

// The principals of the test node, by the name the rows use.
const (
	Admin    = "admin"
	ReadOnly = "read"
	Submit   = "submit"
)

// tokens are the principals' tokens: made up for this test, never in an
// asset (internal/ui's tests look for token-looking strings).
var tokens = map[string]string{
	Admin:    "uitest-admin-token-0001",
	ReadOnly: "uitest-read-token-00001",
	Submit:   "uitest-submit-token-001",
}

// testNode is a node serving the API and the dashboard on a loopback port.
type testNode struct {
	URL string
	*node.Node
}

// chromium is the Chromium binary, or skips t (fails it under CI=true)
// when there is none.
func chromium(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("ORDO_CHROMIUM")
	if bin == "" {
		bin = "/usr/bin/chromium"
	}
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Chromium is missing at %s (ORDO_CHROMIUM): the browser test needs it under CI (apt-get install chromium)", bin)
		}
		t.Skipf("SKIPPED: the browser test needs Chromium, missing at %s: apt-get install chromium, or set ORDO_CHROMIUM", bin)
	}
	return bin
}

// startNode builds and serves a node with an in-process devchain (100 ms
// blocks), a sample of its figures every second, an explorer URL, and the
// three principals; tune, when not nil, changes its config
// first (the engine rows turn engines on). The node stops with t.
func startNode(t *testing.T, tune func(*node.Config)) *testNode {
	t.Helper()
	cfg := node.Config{Data: t.TempDir(), Principals: []auth.PrincipalConfig{
		{Principal: "alice", Token: tokens[Admin], Roles: []auth.Role{auth.RoleAdmin}},
		{Principal: "olga", Token: tokens[ReadOnly], Roles: []auth.Role{auth.RoleRead}},
		{Principal: "app", Token: tokens[Submit], Roles: []auth.Role{auth.RoleSubmit}},
	}}
	cfg.Devchain.BlockTime = node.Duration(100 * time.Millisecond)
	cfg.Dashboard.SampleInterval = node.Duration(time.Second)
	cfg.Dashboard.ExplorerTxURL = "https://explorer.example/tx/{hash}"
	if tune != nil {
		tune(&cfg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	opts := node.Options{Logger: slog.New(slog.DiscardHandler)}
	for _, f := range nodeOptions {
		f(&opts)
	}
	n, err := node.Build(ctx, cfg, opts)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		cancel()
		_ = n.Close()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- n.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("the node: %v", err)
		}
		if err := n.Close(); err != nil {
			t.Errorf("closing the node: %v", err)
		}
	})
	tn := &testNode{URL: "http://" + ln.Addr().String(), Node: n}
	testkit.WaitFor(t, 30*time.Second, 50*time.Millisecond, "the node to be ready", func() bool {
		st, _ := tn.call(http.MethodGet, "/readyz", "", nil, nil)
		return st == http.StatusOK
	})
	return tn
}

// call sends a request to the node's API with role's token ("" for none)
// and decodes its JSON answer into out (when not nil): the status, and an
// error when it could not be sent or read.
func (n *testNode) call(method, path, role string, body, out any) (int, error) {
	return n.request(method, path, tokens[role], body, out)
}

// request is call with a token ("" for none).
func (n *testNode) request(method, path, token string, body, out any) (int, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, n.URL+path, rd)
	if err != nil {
		return 0, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, err
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return resp.StatusCode, fmt.Errorf("%s %s: %d %s: %w", method, path, resp.StatusCode, b, err)
		}
	}
	return resp.StatusCode, nil
}

// get reads path?query as the admin into out, failing t on any status
// but 200.
func (n *testNode) get(t *testing.T, path string, query url.Values, out any) {
	t.Helper()
	if len(query) > 0 {
		path += "?" + query.Encode()
	}
	st, err := n.call(http.MethodGet, path, Admin, nil, out)
	if err != nil || st != http.StatusOK {
		t.Fatalf("GET %s: %d %v", path, st, err)
	}
}

// tx is what the test reads of a transaction.
type tx struct {
	UID      string `json:"uid"`
	Seq      int64  `json:"seq"`
	Queue    string `json:"queue"`
	State    string `json:"state"`
	Attempts []struct {
		Hash  string `json:"hash"`
		Nonce uint64 `json:"nonce"`
	} `json:"attempts"`
}

// list reads every transaction matching query, page by page.
func (n *testNode) list(t *testing.T, query url.Values) []tx {
	t.Helper()
	var all []tx
	q := url.Values{"limit": {"500"}}
	for k, v := range query {
		q[k] = v
	}
	for {
		var page struct {
			Transactions []tx   `json:"transactions"`
			Next         string `json:"next"`
		}
		n.get(t, "/v1/transactions", q, &page)
		all = append(all, page.Transactions...)
		if page.Next == "" {
			return all
		}
		q.Set("cursor", page.Next)
	}
}

// traffic submits count intents over queues q-0 … q-(queues-1) as the
// submit principal (each queue's claim account, then votes on it) and
// waits for every one to be DONE or FAILED.
func (n *testNode) traffic(t *testing.T, count, queues int) {
	t.Helper()
	batch := make([]map[string]any, 0, count)
	for i := range count {
		intent := map[string]any{"queue": fmt.Sprintf("q-%d", i%queues), "type": "SEND_CLAIM_VOTE", "data": map[string]any{},
			"idempotencyKey": fmt.Sprintf("uitest-%d", i)}
		if i < queues { // a queue's claim account first, then its votes
			intent["type"], intent["data"] = "CREATE_CLAIM_VOTING_ACCOUNT", map[string]any{"title": fmt.Sprintf("claim %d", i)}
		}
		batch = append(batch, intent)
	}
	var answers []struct {
		Error *struct{ Code, Message string } `json:"error"`
	}
	if st, err := n.call(http.MethodPost, "/v1/transactions", Submit, batch, &answers); err != nil || st != http.StatusOK || len(answers) != count {
		t.Fatalf("submitting %d intents: %d %v (%d answers)", count, st, err, len(answers))
	}
	for i, a := range answers {
		if a.Error != nil {
			t.Fatalf("intent %d refused: %s: %s", i, a.Error.Code, a.Error.Message)
		}
	}
	var open map[string]int
	testkit.WaitFor(t, 60*time.Second, 100*time.Millisecond, "every intent to be DONE or FAILED", func() bool {
		open = map[string]int{}
		for _, s := range []string{"WAITING", "REVISION", "RETRY"} {
			if c := len(n.list(t, url.Values{"state": {s}})); c > 0 {
				open[s] = c
			}
		}
		if len(open) > 0 {
			t.Logf("open intents: %v", open)
		}
		return len(open) == 0
	})
}

// browser is one headless Chromium with a tab at 1280×800, recording
// what its pages log.
type browser struct {
	ctx  context.Context
	mu   sync.Mutex
	logs []string // console errors and warnings, exceptions, browser log errors
}

// newBrowser starts Chromium with a fresh profile; it stops with t.
func newBrowser(t *testing.T) *browser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)),
		chromedp.NoSandbox,
		chromedp.Headless,
		chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 800),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true),
	)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	b := &browser{ctx: ctx}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800)); err != nil {
		cancelB()
		cancelA()
		t.Fatalf("starting Chromium: %v", err)
	}
	messages := chromedp.Console(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleWarning || m.Type == chromedp.ConsoleException {
				b.add(fmt.Sprintf("%s at %s:%d", m, m.URL, m.Line))
			}
		}
	}()
	t.Cleanup(func() {
		cancelB()
		cancelA()
		<-done
	})
	return b
}

func (b *browser) add(s string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.logs = append(b.logs, s)
}

// take returns what the pages logged since the last take.
func (b *browser) take() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := b.logs
	b.logs = nil
	return out
}

// session is a browser signed in to a node as one principal.
type session struct {
	*browser
	node *testNode
	role string // Admin, ReadOnly or Submit
}

// do runs steps with a deadline of 20 s, failing t on error.
func (s *session) do(t *testing.T, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(s.ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v (page logs: %q)", what, err, s.take())
	}
}

// eval evaluates the JavaScript expression js in the page into a T.
func eval[T any](t *testing.T, s *session, js string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(s.ctx, 10*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluating %s: %v", js, err)
	}
	return v
}

// open loads the dashboard afresh at the route hash ("#/queues"), through
// about:blank so that a route differing only in its fragment is a new
// load too, and waits until sel is visible.
func (s *session) open(t *testing.T, hash, sel string) {
	t.Helper()
	s.do(t, "opening "+hash, chromedp.Navigate("about:blank"), chromedp.Navigate(s.node.URL+"/ui/"+hash), chromedp.WaitVisible(chromedp.CSS(sel)))
}

// texts are the trimmed texts of every element sel matches (none: empty).
func (s *session) texts(t *testing.T, sel string) []string {
	t.Helper()
	return eval[[]string](t, s, fmt.Sprintf(`Array.from(document.querySelectorAll(%q)).map((e) => e.textContent.trim())`, sel))
}

// text is the trimmed text of the first element sel matches ("" for none).
func (s *session) text(t *testing.T, sel string) string {
	t.Helper()
	if all := s.texts(t, sel); len(all) > 0 {
		return all[0]
	}
	return ""
}

// count is how many elements sel matches.
func (s *session) count(t *testing.T, sel string) int {
	t.Helper()
	return eval[int](t, s, fmt.Sprintf(`document.querySelectorAll(%q).length`, sel))
}

// waitText polls (every 200 ms, for 20 s) until the text of sel is want.
func (s *session) waitText(t *testing.T, sel, want string) {
	t.Helper()
	testkit.WaitFor(t, 20*time.Second, 200*time.Millisecond, fmt.Sprintf("%s to read %q", sel, want), func() bool {
		return s.text(t, sel) == want
	})
}

// storage is sessionStorage's value of key in the page ("" when none).
func (s *session) storage(t *testing.T, key string) string {
	t.Helper()
	return eval[string](t, s, fmt.Sprintf(`sessionStorage.getItem(%q) || ""`, key))
}

// signIn opens the sign-in view and signs in with the role's token.
// Before it, the page asked GET /v1/session without a token (how it
// learns whether the node is in dev mode), and the browser logged the 401:
// signIn drops that line and fails on any other.
func (s *session) signIn(t *testing.T) {
	t.Helper()
	s.do(t, "signing in as "+s.role,
		chromedp.Navigate("about:blank"),
		chromedp.Navigate(s.node.URL+"/ui/#/signin"),
		chromedp.WaitVisible(chromedp.CSS("#token")),
		chromedp.Clear(chromedp.CSS("#token")),
		chromedp.SendKeys(chromedp.CSS("#token"), tokens[s.role]),
		chromedp.Click(chromedp.CSS(`.signin button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-view="overview"] h1`)))
	for _, l := range s.take() {
		if !strings.Contains(l, "status of 401") || !strings.Contains(l, "/v1/session") {
			t.Errorf("signing in, the page logged: %s", l)
		}
	}
}

// screenshot saves the tab (1280×800) as name.png in dir.
func (s *session) screenshot(t *testing.T, dir, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(s.ctx, 20*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("a screenshot: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// shotsDir is ORDO_UI_SHOTS (made when missing) or a temporary directory.
func shotsDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("ORDO_UI_SHOTS")
	if dir == "" {
		return t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

package ui_test

import (
	"encoding/json"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path"
	"regexp"
	"strings"
	"testing"

	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/httpjson"
	"github.com/ordolabs/ordo/internal/ui"
)

// router is a node's router with the dashboard mounted, outside dev mode
// and with one principal, so that a route asking for a token would refuse
// the anonymous requests these tests send.
func router(t *testing.T) *auth.Router {
	t.Helper()
	a, err := auth.New(auth.Config{Principals: []auth.PrincipalConfig{{Principal: "ops", Token: "ui-test-token-0123456789", Roles: []auth.Role{auth.RoleRead}}}})
	if err != nil {
		t.Fatal(err)
	}
	rt := auth.NewRouter(a, httpjson.Options{Logger: slog.New(slog.DiscardHandler), Name: "api"})
	ui.Routes{}.Register(rt)
	return rt
}

func serve(rt http.Handler, method, target string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	rt.ServeHTTP(w, httptest.NewRequest(method, target, nil))
	return w
}

// checkHeaders fails unless h carries the security headers of every /ui/
// answer and no cookie.
func checkHeaders(t *testing.T, what string, h http.Header) {
	t.Helper()
	want := map[string]string{
		"Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
			"base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
		"X-Content-Type-Options": "nosniff",
		"Referrer-Policy":        "no-referrer",
	}
	for k, v := range want {
		if got := h.Get(k); got != v {
			t.Errorf("%s: %s %q, want %q", what, k, got, v)
		}
	}
	if c := h.Values("Set-Cookie"); len(c) > 0 {
		t.Errorf("%s: sets cookies %q", what, c)
	}
}

// TestAssets serves every embedded asset anonymously with its content
// type and the security headers, and the index at /ui/.
func TestAssets(t *testing.T) {
	t.Parallel()
	rt := router(t)
	types := map[string]string{
		".html": "text/html; charset=utf-8", ".css": "text/css; charset=utf-8",
		".js": "text/javascript; charset=utf-8", ".svg": "image/svg+xml",
	}
	var n int
	err := fs.WalkDir(ui.Assets(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		want, ok := types[path.Ext(p)]
		if !ok {
			t.Errorf("asset %s has an extension the test does not know", p)
			return nil
		}
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			w := serve(rt, method, "/ui/"+p)
			if w.Code != http.StatusOK {
				t.Errorf("%s /ui/%s: %d %s", method, p, w.Code, w.Body)
				continue
			}
			if ct := w.Header().Get("Content-Type"); ct != want {
				t.Errorf("/ui/%s: Content-Type %q, want %q", p, ct, want)
			}
			checkHeaders(t, "/ui/"+p, w.Header())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 8 {
		t.Errorf("%d assets embedded; want index.html, the stylesheet and the modules", n)
	}
	w := serve(rt, http.MethodGet, "/ui/")
	if w.Code != http.StatusOK || w.Header().Get("Content-Type") != types[".html"] || !strings.Contains(w.Body.String(), `src="js/app.js"`) {
		t.Errorf("/ui/: %d %q, body without the app's module:\n%s", w.Code, w.Header().Get("Content-Type"), w.Body)
	}
	checkHeaders(t, "/ui/", w.Header())
}

// TestRedirectAndNotFound answers /ui with a 301 to /ui/, and a path that
// names no asset (a directory, an unknown file or extension) 404 in the
// API's JSON error body, with the security headers.
func TestRedirectAndNotFound(t *testing.T) {
	t.Parallel()
	rt := router(t)
	w := serve(rt, http.MethodGet, "/ui")
	if w.Code != http.StatusMovedPermanently || w.Header().Get("Location") != "/ui/" {
		t.Errorf("/ui: %d Location %q, want 301 /ui/", w.Code, w.Header().Get("Location"))
	}
	checkHeaders(t, "/ui", w.Header())
	for _, p := range []string{"/ui/nope.html", "/ui/js/", "/ui/js", "/ui/js/nope.js", "/ui/js/app.js.map", "/ui/assets/index.html", "/ui/.hidden"} {
		w := serve(rt, http.MethodGet, p)
		var body httpjson.ErrorBody
		if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || w.Code != http.StatusNotFound || body.Error.Code != httpjson.CodeRouteNotFound {
			t.Errorf("%s: %d %s, want 404 route_not_found", p, w.Code, w.Body)
		}
		if ct := w.Header().Get("Content-Type"); ct != "application/json" {
			t.Errorf("%s: Content-Type %q", p, ct)
		}
		checkHeaders(t, p, w.Header())
	}
	if w := serve(rt, http.MethodPost, "/ui/index.html"); w.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST /ui/index.html: %d, want 405", w.Code)
	}
}

// forbidden are what no asset may hold: inline scripts, style attributes
// and inline event handlers (which the CSP would refuse, so they would be
// dead code or a console error), HTML written from strings (the views
// write text only), and what looks like a secret.
var forbidden = []struct {
	name string
	re   *regexp.Regexp
}{
	{"an inline <script>", regexp.MustCompile(`(?i)<script(\s[^>]*)?>\s*[^<\s]`)},
	{"a <style> element", regexp.MustCompile(`(?i)<style[\s>]`)},
	{"a style= attribute", regexp.MustCompile(`(?i)\sstyle\s*=`)},
	{"an on*= handler", regexp.MustCompile(`(?i)\son[a-z]+\s*=\s*["'a-z]`)},
	{"innerHTML and kin", regexp.MustCompile(`innerHTML|outerHTML|insertAdjacentHTML|document\.write`)},
	{"eval", regexp.MustCompile(`\beval\(|new Function\(`)},
	{"a javascript: URL", regexp.MustCompile(`(?i)javascript:`)},
	{"a token in a Bearer header", regexp.MustCompile(`Bearer [A-Za-z0-9]`)},
	{"a long hex string", regexp.MustCompile(`(?i)\b[0-9a-f]{32,}\b`)},
	{"a JWT", regexp.MustCompile(`eyJ[A-Za-z0-9_-]{10,}`)},
	{"a private key", regexp.MustCompile(`PRIVATE KEY`)},
	{"a URL off the node", regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?(https?:)?//`)},
}

// TestNoInlineCodeNoSecrets fails on an asset holding what forbidden
// lists, and checks the checks on samples of each.
func TestNoInlineCodeNoSecrets(t *testing.T) {
	t.Parallel()
	samples := map[string]string{
		"an inline <script>":         `<script>alert(1)</script>`,
		"a <script> without src":     `<script type="module">`,
		"a <style> element":          `<style>p{}</style>`,
		"a style= attribute":         `<p style="color:red">`,
		"an on*= handler":            `<img onerror="x()">`,
		"innerHTML and kin":          `el.innerHTML = s`,
		"eval":                       `eval(s)`,
		"a javascript: URL":          `<a href="javascript:x()">`,
		"a token in a Bearer header": `'Bearer abc123'`,
		"a long hex string":          `0123456789abcdef0123456789abcdef`,
		"a JWT":                      `eyJhbGciOiJIUzI1NiJ9`,
		"a private key":              `-----BEGIN PRIVATE KEY-----`,
		"a URL off the node":         `<script src="https://cdn.example/x.js">`,
	}
	for _, f := range forbidden {
		s, ok := samples[f.name]
		if !ok || !f.re.MatchString(s) {
			t.Errorf("check %q does not catch its sample %q", f.name, s)
		}
	}
	scriptTag := regexp.MustCompile(`(?i)<script[^>]*>`)
	if !scriptWithoutSrc(scriptTag, []byte(`<script type="module">`)) || scriptWithoutSrc(scriptTag, []byte(`<script type="module" src="js/app.js">`)) {
		t.Errorf("the check of a <script> without src is wrong")
	}
	err := fs.WalkDir(ui.Assets(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(ui.Assets(), p)
		if err != nil {
			return err
		}
		if scriptWithoutSrc(scriptTag, b) {
			t.Errorf("%s holds a <script> without src", p)
		}
		for _, f := range forbidden {
			if loc := f.re.FindIndex(b); loc != nil {
				t.Errorf("%s holds %s: %q", p, f.name, b[loc[0]:min(loc[1]+20, len(b))])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// scriptWithoutSrc reports whether b holds a <script> tag without src=.
func scriptWithoutSrc(tag *regexp.Regexp, b []byte) bool {
	for _, m := range tag.FindAll(b, -1) {
		if !regexp.MustCompile(`(?i)\ssrc\s*=`).Match(m) {
			return true
		}
	}
	return false
}

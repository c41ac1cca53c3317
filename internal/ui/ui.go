package ui

import (
	"embed"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"

	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/httpjson"
)

//go:embed assets
var assets embed.FS

// Prefix is the path the dashboard is served under.
const Prefix = "/ui/"

// CSP is the Content-Security-Policy of every /ui/ answer: scripts, styles
// and images from the node only (images also as data: URLs), connections
// to the node only, nothing else, and no framing.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Patterns are the routes Routes mounts: the assets, and /ui redirected to
// /ui/.
var Patterns = []string{"GET /ui/", "GET /ui"}

// contentTypes are the media types of the assets' extensions; an asset of
// another extension is not served.
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".svg":  "image/svg+xml",
	".png":  "image/png",
	".ico":  "image/x-icon",
}

// Assets returns the embedded assets, rooted at the directory served as
// /ui/.
func Assets() fs.FS {
	sub, err := fs.Sub(assets, "assets")
	if err != nil {
		panic("ui: " + err.Error()) // a constant, valid path
	}
	return sub
}

// Routes mounts the dashboard on the node's router, behind auth.Public (the
// assets hold no data: see the package doc).
type Routes struct{}

// Register mounts GET /ui/ (the assets) and GET /ui (a 301 to /ui/).
func (Routes) Register(r *auth.Router) {
	h := Handler(r.Server())
	for _, p := range Patterns {
		r.Handle(p, auth.Public, h)
	}
}

// Handler serves the assets under /ui/ and redirects /ui to /ui/; srv
// writes the 404 of a path that names no asset.
func Handler(srv *httpjson.Server) http.Handler {
	root := Assets()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", CSP)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		if r.URL.Path == "/ui" {
			http.Redirect(w, r, Prefix, http.StatusMovedPermanently)
			return
		}
		name := strings.TrimPrefix(r.URL.Path, Prefix)
		if name == "" {
			name = "index.html"
		}
		ct, known := contentTypes[path.Ext(name)]
		var b []byte
		var err error
		if known && fs.ValidPath(name) {
			b, err = fs.ReadFile(root, name)
		}
		if !known || !fs.ValidPath(name) || err != nil {
			srv.WriteError(w, httpjson.Errorf(httpjson.CodeRouteNotFound, "no dashboard asset at %s; the dashboard is at %s",
				httpjson.Excerpt(r.URL.Path), Prefix))
			return
		}
		h.Set("Content-Type", ct)
		h.Set("Content-Length", strconv.Itoa(len(b)))
		h.Set("Cache-Control", "no-cache")
		w.WriteHeader(http.StatusOK)
		if r.Method != http.MethodHead {
			_, _ = w.Write(b)
		}
	})
}

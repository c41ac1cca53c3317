package api

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/ordolabs/ordo/internal/sequencer"
)

// CORS headers the node answers an allowed origin's preflight with.
const (
	corsMethods = "GET, HEAD, POST, PUT"
	corsHeaders = "Content-Type, Accept, Authorization"
	corsMaxAge  = "600"
)

// NormalizeOrigin checks that s is a web origin, scheme://host[:port] with
// scheme http or https and nothing after the authority, and returns it as a
// browser writes it in an Origin header: lower case, without a default port.
// "*" and "null" are refused: a node names the pages it trusts.
func NormalizeOrigin(s string) (string, error) {
	if s == "*" || s == "null" {
		return "", fmt.Errorf("%q is not accepted; list each origin, such as https://app.example.com", s)
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", fmt.Errorf("%s is not an origin: %w", sequencer.Excerpt(s), err)
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", fmt.Errorf("%s is not an origin: the scheme must be http or https, such as https://app.example.com", sequencer.Excerpt(s))
	}
	if u.Host == "" || u.User != nil || u.Opaque != "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		return "", fmt.Errorf("%s is not an origin: it must be scheme://host[:port] and nothing else", sequencer.Excerpt(s))
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host, nil
}

// CORS wraps h with CORS for the given origins. With none it returns h as it
// is: no response carries a CORS header, so a page on another origin can
// neither read the node's answers nor send it JSON (its preflight fails).
// With some, a request whose Origin is one of them gets
// Access-Control-Allow-Origin, and its preflight (OPTIONS with
// Access-Control-Request-Method) is answered 204 with the methods and
// headers the API takes; every other origin's preflight reaches h, which
// answers it 405 without CORS headers. Every response then carries
// Vary: Origin. Each origin must pass NormalizeOrigin.
func CORS(h http.Handler, origins []string) (http.Handler, error) {
	if len(origins) == 0 {
		return h, nil
	}
	allowed := make([]string, 0, len(origins))
	for _, o := range origins {
		n, err := NormalizeOrigin(o)
		if err != nil {
			return nil, fmt.Errorf("api: CORS origin: %w", err)
		}
		allowed = append(allowed, n)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Vary", "Origin")
		origin := r.Header.Get("Origin")
		if origin == "" || len(r.Header.Values("Origin")) != 1 || !slices.Contains(allowed, origin) {
			h.ServeHTTP(w, r)
			return
		}
		hd := w.Header()
		hd.Set("Access-Control-Allow-Origin", origin)
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			hd.Add("Vary", "Access-Control-Request-Method")
			hd.Add("Vary", "Access-Control-Request-Headers")
			hd.Set("Access-Control-Allow-Methods", corsMethods)
			hd.Set("Access-Control-Allow-Headers", corsHeaders)
			hd.Set("Access-Control-Max-Age", corsMaxAge)
			w.WriteHeader(http.StatusNoContent)
			return
		}
		h.ServeHTTP(w, r)
	}), nil
}

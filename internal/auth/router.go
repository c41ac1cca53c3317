package auth

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/ordolabs/ordo/internal/httpjson"
)

// Error codes of the access checks.
const (
	// CodeUnauthenticated (401): no token, a malformed Authorization
	// header, or a token no principal has. The answer carries
	// WWW-Authenticate: Bearer.
	CodeUnauthenticated = "unauthenticated"
	// CodeForbidden (403): a known principal without the right the route
	// (or the resource: not its owner) needs.
	CodeForbidden = "forbidden"
)

// Status maps the codes of this package to their HTTP statuses (401, 403,
// 429),
// and any other code to 0; an API's httpjson Options.Status consults it
// first. NewRouter does so for its Server.
func Status(code string) int {
	switch code {
	case CodeUnauthenticated:
		return http.StatusUnauthorized
	case CodeForbidden:
		return http.StatusForbidden
	case CodeRateLimited:
		return http.StatusTooManyRequests
	}
	return 0
}

// ruleKind is what a Rule asks of a caller.
type ruleKind uint8

const (
	rulePublic        ruleKind = iota // nobody is asked anything
	ruleRead                          // role read, unless reads are open
	ruleRole                          // a role
	ruleAuthenticated                 // any known principal
	ruleOpen                          // anyone: an operator's choice (OpenOr)
)

// Rule is what a route asks of its caller. Make one with Public, Read,
// Need, Authenticated or OpenOr; the zero Rule is Public.
type Rule struct {
	kind ruleKind
	role Role
}

// Public is the rule of a route anyone may call without a token (health,
// readiness). A Public route never authenticates: a wrong token is not
// refused there.
var Public = Rule{kind: rulePublic}

// Read is the rule of a route that reads the node's state: role read, or
// anyone when the operator opens reads (openReads).
var Read = Rule{kind: ruleRead}

// Authenticated is the rule of a route any known principal may call: its
// handler then decides from the resource (a processor's owner, say), with
// CheckOwner or Forbidden.
var Authenticated = Rule{kind: ruleAuthenticated}

// Need is the rule of a route that needs role r (admin holds every role).
func Need(r Role) Rule { return Rule{kind: ruleRole, role: r} }

// OpenOr is the rule of a route anyone may call while open is true (an
// operator's switch that defaults to open, such as a processor's tick), and
// rule when the operator turns it off.
func OpenOr(open bool, rule Rule) Rule {
	if open {
		return Rule{kind: ruleOpen}
	}
	return rule
}

// String names the rule: "public", "read", "authenticated", "need(ROLE)" or
// "open".
func (r Rule) String() string {
	switch r.kind {
	case rulePublic:
		return "public"
	case ruleRead:
		return "read"
	case ruleRole:
		return "need(" + string(r.role) + ")"
	case ruleAuthenticated:
		return "authenticated"
	case ruleOpen:
		return "open"
	}
	return "rule(" + strconv.Itoa(int(r.kind)) + ")"
}

// Role is the role the rule needs: "read" for Read, the role for Need, ""
// for the others.
func (r Rule) Role() Role {
	switch r.kind {
	case ruleRead:
		return RoleRead
	case ruleRole:
		return r.role
	default: // public, authenticated and open rules name no role
	}
	return ""
}

// Anonymous reports whether a caller without a token passes the rule under
// a: Public and OpenOr(true, …) always, Read with open reads, everything in
// open (dev) mode.
func (r Rule) Anonymous(a *Authenticator) bool {
	switch {
	case a.Open(), r.kind == rulePublic, r.kind == ruleOpen:
		return true
	case r.kind == ruleRead:
		return a.OpenReads()
	}
	return false
}

// Allow checks req against rule: it returns the caller (ok false when the
// rule let it through without authenticating), or an *httpjson.Error with
// code unauthenticated or forbidden.
func (a *Authenticator) Allow(req *http.Request, rule Rule) (p Principal, ok bool, err error) {
	if a.open {
		return devPrincipal(), true, nil
	}
	if rule.Anonymous(a) {
		return Principal{}, false, nil
	}
	p, err = a.Authenticate(req)
	switch {
	case errors.Is(err, ErrNoCredentials):
		return Principal{}, false, httpjson.Errorf(CodeUnauthenticated, "%s %s needs a token: %w", req.Method, req.URL.Path, err)
	case err != nil:
		return Principal{}, false, httpjson.Errorf(CodeUnauthenticated, "%w", err)
	}
	if role := rule.Role(); role != "" && !p.Has(role) {
		return Principal{}, false, httpjson.Errorf(CodeForbidden, "%s %s needs the role %s; principal %s has %s", req.Method, req.URL.Path, role, p.Name, rolesText(p.Roles))
	}
	return p, true, nil
}

// rolesText lists roles for a message.
func rolesText(rs []Role) string {
	if len(rs) == 0 {
		return "no roles"
	}
	s := make([]string, len(rs))
	for i, r := range rs {
		s[i] = string(r)
	}
	return "the roles " + strings.Join(s, ", ")
}

// Forbidden returns the error of a request a handler refuses to a known
// principal (not the resource's owner, say): code forbidden, 403.
func Forbidden(format string, args ...any) error {
	return httpjson.Errorf(CodeForbidden, format, args...)
}

// CheckOwner returns nil when the request's principal is owner or an admin,
// else a Forbidden error that names both (on an Authenticated route the
// router has put the principal in the request's context).
func CheckOwner(r *http.Request, owner, what string) error {
	p, ok := PrincipalFrom(r.Context())
	if !ok {
		return httpjson.Errorf(CodeUnauthenticated, "%s %s needs a token: %w", r.Method, r.URL.Path, ErrNoCredentials)
	}
	if p.Name == owner || p.Has(RoleAdmin) {
		return nil
	}
	return Forbidden("%s is owned by %s; principal %s is neither its owner nor an admin", what, owner, p.Name)
}

// RouteInfo is a registered route and its rule.
type RouteInfo struct {
	// Pattern is the net/http.ServeMux pattern ("POST /v1/transactions").
	Pattern string
	// Rule is what the route asks of its caller.
	Rule Rule
}

// Router is an httpjson.Server whose every route has a Rule: it
// authenticates each request before its handler runs, answers 401
// unauthenticated (with WWW-Authenticate: Bearer) or 403 forbidden without
// calling the handler, and puts the principal in the request's context
// (PrincipalFrom). A mutating request (POST, PUT, PATCH, DELETE) that
// passes its rule must then carry Content-Type: application/json, or it is
// answered 415 unsupported_media_type without calling the handler (no route
// can opt out). It records every route with its rule (Routes).
type Router struct {
	a      *Authenticator
	srv    *httpjson.Server
	routes []RouteInfo
	// codes are the statuses of engines' own error codes (MapStatus);
	// written only while routes are registered, before serving.
	codes map[string]int
	// intake limits each principal's intake (nil: no limit); set before
	// routes are registered.
	intake *Limiter
}

// SetIntakeLimiter sets the limiter the intake routes take their intents
// from (IntakeLimiter); nil limits nothing. Call it before registering
// routes.
func (rt *Router) SetIntakeLimiter(l *Limiter) { rt.intake = l }

// IntakeLimiter is the limiter of each principal's intake, for the routes
// that take intents (the sequencer's intake, a processor's batch adds):
// nil when no limit is set, which Take answers with nil.
func (rt *Router) IntakeLimiter() *Limiter { return rt.intake }

// NewRouter returns a Router with no routes over a new httpjson.Server
// made with opts, whose Status maps this package's codes (401, 403) first.
func NewRouter(a *Authenticator, opts httpjson.Options) *Router {
	rt := &Router{a: a, codes: map[string]int{}}
	status := opts.Status
	opts.Status = func(code string) int {
		if s := Status(code); s != 0 {
			return s
		}
		if s, ok := rt.codes[code]; ok {
			return s
		}
		if status == nil {
			return http.StatusInternalServerError
		}
		return status(code)
	}
	rt.srv = httpjson.New(opts)
	return rt
}

// MapStatus gives an engine's own error code its HTTP status (say
// "processor_paused" → 409), for the errors its handlers return as
// httpjson.Errorf(code, ...). Call it while registering routes, before the
// router serves. The codes of this package and of the Server's own Status
// keep theirs: it panics on a code this package defines.
func (rt *Router) MapStatus(code string, status int) {
	if Status(code) != 0 {
		panic("auth: MapStatus: " + code + " is a code of package auth")
	}
	rt.codes[code] = status
}

// Server is the router's httpjson.Server, for its helpers (WriteError,
// WriteJSON, ReadJSON, JSONOnly). Register routes on the Router, never on
// the Server, so that each has a rule.
func (rt *Router) Server() *httpjson.Server { return rt.srv }

// Authenticator is the router's authenticator.
func (rt *Router) Authenticator() *Authenticator { return rt.a }

// Handle registers h for pattern (a net/http.ServeMux pattern, with its
// method) behind rule. It panics, as ServeMux does, on a pattern
// registered twice.
func (rt *Router) Handle(pattern string, rule Rule, h http.Handler) {
	rt.srv.Handle(pattern, rt.guard(rule, h))
	rt.routes = append(rt.routes, RouteInfo{Pattern: pattern, Rule: rule})
}

// HandleJSON registers fn for pattern behind rule: fn's value is answered
// 200 in JSON, its error as httpjson's WriteError does.
func (rt *Router) HandleJSON(pattern string, rule Rule, fn func(*http.Request) (any, error)) {
	rt.Handle(pattern, rule, rt.srv.JSONHandler(fn))
}

// Routes returns every route registered, in the order of registration.
func (rt *Router) Routes() []RouteInfo {
	out := make([]RouteInfo, len(rt.routes))
	copy(out, rt.routes)
	return out
}

// ServeHTTP serves the request through the Server (unknown routes and
// methods answered in JSON, panics recovered, bodies limited).
func (rt *Router) ServeHTTP(w http.ResponseWriter, r *http.Request) { rt.srv.ServeHTTP(w, r) }

// guard wraps h with rule's check, then, for a mutating method (POST, PUT,
// PATCH, DELETE), with the Content-Type rule (httpjson.RequireJSON): a
// request without Content-Type: application/json is answered 415
// unsupported_media_type before h runs, whatever h is, so that no route
// registered on a Router can take a form, text/plain or a body without a
// type (which a page on another origin may send without a preflight).
// Access is checked first: a caller the rule refuses hears 401 or 403.
func (rt *Router) guard(rule Rule, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok, err := rt.a.Allow(r, rule)
		if err != nil {
			WriteError(w, err)
			return
		}
		if httpjson.Mutating(r.Method) {
			if err := httpjson.RequireJSON(r); err != nil {
				rt.srv.WriteError(w, err)
				return
			}
		}
		if ok {
			r = r.WithContext(WithPrincipal(r.Context(), p))
		}
		h.ServeHTTP(w, r)
	})
}

// WriteError answers err, an error of Allow, CheckOwner or Forbidden, with
// its status (401 with WWW-Authenticate: Bearer, or 403) and the JSON error
// body of every ordo API. Any other error is answered 500 "internal error".
func WriteError(w http.ResponseWriter, err error) {
	d := httpjson.ErrorDetail{Code: httpjson.CodeInternal, Message: "internal error"}
	status := http.StatusInternalServerError
	var e *httpjson.Error
	if errors.As(err, &e) && Status(e.Code) != 0 {
		d = httpjson.ErrorDetail{Code: e.Code, Message: e.Message}
		status = Status(e.Code)
	}
	b, _ := json.Marshal(httpjson.ErrorBody{Error: d}) // strings only: cannot fail
	b = append(b, '\n')
	h := w.Header()
	if status == http.StatusUnauthorized {
		h.Set("WWW-Authenticate", `Bearer realm="ordo"`)
	}
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// String describes a route for a test's failure message.
func (ri RouteInfo) String() string { return fmt.Sprintf("%s [%s]", ri.Pattern, ri.Rule) }

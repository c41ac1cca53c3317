package processor

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/httpjson"
	"github.com/ordolabs/ordo/internal/store"
)

// API error codes, beyond the Reply codes (not_found 404, forbidden 403,
// conflict 409, invalid 422, queue_full 429).
const (
	// CodeBadJSON (400): the body is not the expected JSON.
	CodeBadJSON = httpjson.CodeBadJSON
	// CodeBadQuery (400): a query parameter is malformed.
	CodeBadQuery = "bad_query"
	// CodeUnavailable (503): the engine is not running or a commit failed.
	CodeUnavailable = "unavailable"
)

// statuses are the HTTP statuses of the processor API's codes, given to
// the node's router (auth.Router.MapStatus).
var statuses = map[string]int{
	CodeNotFound:    http.StatusNotFound,
	CodeConflict:    http.StatusConflict,
	CodeInvalid:     http.StatusUnprocessableEntity,
	CodeQueueFull:   http.StatusTooManyRequests,
	CodeBadQuery:    http.StatusBadRequest,
	CodeUnavailable: http.StatusServiceUnavailable,

	CodeUnknownContract: http.StatusUnprocessableEntity,
}

// ProcessorView is the body of GET /v1/processors/{name}.
type ProcessorView struct {
	Processor store.Processor  `json:"processor"`
	Counts    store.ProcCounts `json:"counts"`
}

// ProcessorsPage is the body of GET /v1/processors: Next is the after= of
// the following page, "" on the last.
type ProcessorsPage struct {
	Processors []store.Processor `json:"processors"`
	Next       string            `json:"next"`
}

// BatchesPage is the body of GET /v1/processors/{name}/queues/{priority}.
type BatchesPage struct {
	Batches []store.ProcBatch `json:"batches"`
	Offset  int               `json:"offset"`
}

// CallbacksPage is the body of GET /v1/processors/{name}/callbacks: Next is
// the after= of the following page.
type CallbacksPage struct {
	Callbacks []store.Callback `json:"callbacks"`
	Next      int64            `json:"next"`
}

// Register mounts the processor's routes on rt, each with its rule: an
// admin creates processors; the owner (or an admin) adds, pauses,
// resumes, removes and confirms; anyone ticks unless the operator turned
// OpenTick off (then the owner); reads need the read role.
func (n *Node) Register(rt *auth.Router) {
	for code, status := range statuses {
		rt.MapStatus(code, status)
	}
	srv := rt.Server()
	n.srv = srv
	mut := func(pattern string, rule auth.Rule, fn func(*http.Request) (any, error)) {
		rt.Handle(pattern, rule, srv.JSONHandler(fn)) // the router takes only JSON
	}
	// owned is a route of the processor's owner (or an admin): the caller
	// is checked against the processor before its request is read, so a
	// caller who may not act on it hears 403, never what is wrong with its
	// body.
	owned := func(pattern string, fn func(*http.Request) (any, error)) {
		mut(pattern, auth.Authenticated, func(r *http.Request) (any, error) {
			if err := n.checkOwner(r); err != nil {
				return nil, err
			}
			return fn(r)
		})
	}
	a, limit := rt.Authenticator(), rt.IntakeLimiter()
	mut("POST /v1/processors", auth.Need(auth.RoleAdmin), func(r *http.Request) (any, error) { return n.apiCreate(r, a) })
	get := func(pattern string, fn func(*http.Request) (any, error)) {
		rt.Handle(pattern, auth.Read, srv.JSONHandler(fn))
	}
	get("GET /v1/processors", n.apiList)
	get("GET /v1/processors/{name}", n.apiGet)
	owned("POST /v1/processors/{name}/batches", func(r *http.Request) (any, error) {
		// A batch added is intake: it counts against the principal's
		// rate (api.intakeLimit), once its owner is known to be allowed.
		if err := limit.TakeRequest(r, 1); err != nil {
			return nil, err
		}
		return n.apiAdd(r)
	})
	mut("POST /v1/processors/{name}/tick", auth.OpenOr(*n.cfg.OpenTick, auth.Authenticated), n.apiTick)
	owned("POST /v1/processors/{name}/pause", n.apiPause(false))
	owned("POST /v1/processors/{name}/resume", n.apiPause(true))
	owned("DELETE /v1/processors/{name}/queues/{priority}/{position}", n.apiRemove)
	get("GET /v1/processors/{name}/batches/{id}", n.apiBatch)
	get("GET /v1/processors/{name}/queues/{priority}", n.apiQueue)
	get("GET /v1/processors/{name}/callbacks", n.apiCallbacks)
	owned("POST /v1/processors/{name}/confirmations", n.apiConfirm)
}

// checkOwner refuses (403 forbidden) a caller who is neither the owner of
// the request's processor nor an admin, and answers 404 not_found for a
// processor that does not exist. The core checks the owner again when it
// steps the request.
func (n *Node) checkOwner(r *http.Request) error {
	name := r.PathValue("name")
	p, err := n.cfg.Store.GetProcessor(r.Context(), name)
	if errors.Is(err, store.ErrNotFound) {
		return httpjson.Errorf(CodeNotFound, "no processor %s", httpjson.Excerpt(name))
	} else if err != nil {
		return err
	}
	return auth.CheckOwner(r, p.Owner, "processor "+httpjson.Excerpt(name))
}

// caller is the request's principal: its name and whether it is an admin.
func caller(r *http.Request) (string, bool) {
	p, _ := auth.PrincipalFrom(r.Context())
	return p.Name, p.Has(auth.RoleAdmin)
}

// do steps in for a request and turns its Reply into a body or an error.
func (n *Node) do(ctx context.Context, in Input) (any, error) {
	l := n.currentLoop()
	if l == nil {
		return nil, httpjson.Errorf(CodeUnavailable, "the processor engine has not started")
	}
	rep, err := l.Do(ctx, in)
	switch {
	case errors.Is(err, ErrRetired):
		return nil, httpjson.Errorf(CodeUnavailable, "%s", err)
	case err != nil:
		return nil, err
	case rep.Code == CodeForbidden:
		return nil, auth.Forbidden("%s", rep.Message)
	case rep.Code != "":
		return nil, httpjson.Errorf(rep.Code, "%s", rep.Message)
	}
	return rep.Body, nil
}

// apiCreate is POST /v1/processors: an admin creates a processor, owned by
// the principal its spec names (by default the admin): one of the node's
// principals (a, its authenticator: any name in dev mode, where every
// caller is the admin "dev").
func (n *Node) apiCreate(r *http.Request, a *auth.Authenticator) (any, error) {
	var s CreateSpec
	if err := n.readJSON(r, &s); err != nil {
		return nil, err
	}
	name, admin := caller(r)
	if s.Owner == "" {
		s.Owner = name
	}
	if _, ok := a.ByName(s.Owner); !ok {
		return nil, httpjson.Errorf(CodeInvalid, "owner: %s is no principal of this node; name one of the principals of its config (principals:), "+
			"who alone (with the admins) may add, pause, resume, remove and confirm", httpjson.Excerpt(s.Owner))
	}
	in := Create(time.Time{}, 0, name, s)
	in.Admin = admin
	return n.do(r.Context(), in)
}

func (n *Node) apiGet(r *http.Request) (any, error) {
	name := r.PathValue("name")
	p, err := n.cfg.Store.GetProcessor(r.Context(), name)
	if errors.Is(err, store.ErrNotFound) {
		return nil, httpjson.Errorf(CodeNotFound, "no processor %q", name)
	} else if err != nil {
		return nil, err
	}
	counts, err := n.cfg.Store.ProcessorCounts(r.Context(), name)
	if err != nil {
		return nil, err
	}
	return ProcessorView{Processor: p, Counts: counts}, nil
}

// apiList is GET /v1/processors?after=&limit=: the processors in name
// order, a page at a time (a dashboard's list; GET …/{name} has the
// counts).
func (n *Node) apiList(r *http.Request) (any, error) {
	q := r.URL.Query()
	for k, v := range q {
		if (k != "after" && k != "limit") || len(v) != 1 {
			return nil, httpjson.Errorf(CodeBadQuery, "the query takes after and limit, each at most once")
		}
	}
	limit, err := intQuery(r, "limit", 100)
	if err != nil {
		return nil, err
	}
	if limit < 1 || limit > maxPage {
		return nil, httpjson.Errorf(CodeBadQuery, "limit must be from 1 to %d, got %d", maxPage, limit)
	}
	ps, err := n.cfg.Store.ListProcessors(r.Context(), q.Get("after"), limit)
	if err != nil {
		return nil, err
	}
	page := ProcessorsPage{Processors: nonNil(ps)}
	if len(ps) == limit {
		page.Next = ps[len(ps)-1].Name
	}
	return page, nil
}

// apiBatch is GET …/batches/{id}: a batch in any state, its body holding
// its spec and progress (next action, failed attempts, the execution in
// flight and its sequencer record, the outcome).
func (n *Node) apiBatch(r *http.Request) (any, error) {
	name, id := r.PathValue("name"), r.PathValue("id")
	b, err := n.cfg.Store.GetBatch(r.Context(), name, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, httpjson.Errorf(CodeNotFound, "processor %s has no batch %s", httpjson.Excerpt(name), httpjson.Excerpt(id))
	}
	return b, err
}

func (n *Node) apiAdd(r *http.Request) (any, error) {
	body, err := n.srv.ReadBody(r)
	if err != nil {
		return nil, err
	}
	spec, err := DecodeBatch(body)
	var fe *FieldError
	switch {
	case errors.As(err, &fe):
		return nil, httpjson.Errorf(CodeInvalid, "%s", fe)
	case err != nil:
		return nil, httpjson.Errorf(CodeBadJSON, "%s", err)
	}
	if err := n.checkContracts(r.Context(), spec); err != nil {
		return nil, err
	}
	name, admin := caller(r)
	in := Add(time.Time{}, 0, name, r.PathValue("name"), spec, false)
	in.Admin = admin
	return n.do(r.Context(), in)
}

func (n *Node) apiTick(r *http.Request) (any, error) {
	proc := r.PathValue("name")
	if !*n.cfg.OpenTick {
		p, err := n.cfg.Store.GetProcessor(r.Context(), proc)
		if errors.Is(err, store.ErrNotFound) {
			return nil, httpjson.Errorf(CodeNotFound, "no processor %q", proc)
		} else if err != nil {
			return nil, err
		}
		if err := auth.CheckOwner(r, p.Owner, "processor "+strconv.Quote(proc)); err != nil {
			return nil, err
		}
	}
	return n.do(r.Context(), Tick(time.Time{}, 0, proc))
}

func (n *Node) apiPause(resume bool) func(*http.Request) (any, error) {
	return func(r *http.Request) (any, error) {
		name, admin := caller(r)
		in := Pause(time.Time{}, 0, name, r.PathValue("name"), resume)
		in.Admin = admin
		return n.do(r.Context(), in)
	}
}

func (n *Node) apiRemove(r *http.Request) (any, error) {
	pos, err := strconv.Atoi(r.PathValue("position"))
	if err != nil || pos < 0 {
		return nil, httpjson.Errorf(CodeInvalid, "position: must be a whole number from 0, got %s", httpjson.Excerpt(r.PathValue("position")))
	}
	name, admin := caller(r)
	in := Remove(time.Time{}, 0, name, r.PathValue("name"), Priority(r.PathValue("priority")), pos)
	in.Admin = admin
	return n.do(r.Context(), in)
}

// ConfirmRequest is the body of POST …/confirmations.
type ConfirmRequest struct {
	ExecutionID string `json:"executionId"`
	Success     *bool  `json:"success"`
}

func (n *Node) apiConfirm(r *http.Request) (any, error) {
	var b ConfirmRequest
	if err := n.readJSON(r, &b); err != nil {
		return nil, err
	}
	if b.ExecutionID == "" || b.Success == nil {
		return nil, httpjson.Errorf(CodeInvalid, "executionId and success are required")
	}
	name, admin := caller(r)
	in := ConfirmBy(time.Time{}, 0, name, r.PathValue("name"), b.ExecutionID, *b.Success)
	in.Admin = admin
	return n.do(r.Context(), in)
}

func (n *Node) apiQueue(r *http.Request) (any, error) {
	pr := Priority(r.PathValue("priority"))
	if !pr.Valid() {
		return nil, httpjson.Errorf(CodeNotFound, `no queue %s: the queues are "high" and "medium"`, httpjson.Excerpt(string(pr)))
	}
	offset, limit, err := n.page(r, "offset")
	if err != nil {
		return nil, err
	}
	bs, err := n.cfg.Store.QueuedBatches(r.Context(), r.PathValue("name"), string(pr), offset, limit)
	if err != nil {
		return nil, err
	}
	return BatchesPage{Batches: nonNil(bs), Offset: offset}, nil
}

func (n *Node) apiCallbacks(r *http.Request) (any, error) {
	after, limit, err := n.page(r, "after")
	if err != nil {
		return nil, err
	}
	cbs, err := n.cfg.Store.Callbacks(r.Context(), r.PathValue("name"), int64(after), limit)
	if err != nil {
		return nil, err
	}
	next := int64(after)
	if len(cbs) > 0 {
		next = cbs[len(cbs)-1].Seq
	}
	return CallbacksPage{Callbacks: nonNil(cbs), Next: next}, nil
}

// maxPage is the most records a paged read returns.
const maxPage = 1000

// page reads a page's start (the query parameter from, default 0) and
// limit (default 100) and checks that the processor exists.
func (n *Node) page(r *http.Request, from string) (start, limit int, err error) {
	if start, err = intQuery(r, from, 0); err != nil {
		return 0, 0, err
	}
	if limit, err = intQuery(r, "limit", 100); err != nil {
		return 0, 0, err
	}
	if limit < 1 || limit > maxPage {
		return 0, 0, httpjson.Errorf(CodeBadQuery, "limit must be from 1 to %d, got %d", maxPage, limit)
	}
	return start, limit, n.exists(r.Context(), r.PathValue("name"))
}

func (n *Node) exists(ctx context.Context, name string) error {
	_, err := n.cfg.Store.GetProcessor(ctx, name)
	if errors.Is(err, store.ErrNotFound) {
		return httpjson.Errorf(CodeNotFound, "no processor %s", httpjson.Excerpt(name))
	}
	return err
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// intQuery reads a whole-number query parameter from 0 up, def when absent.
func intQuery(r *http.Request, key string, def int) (int, error) {
	vs, ok := r.URL.Query()[key]
	if !ok {
		return def, nil
	}
	if len(vs) != 1 {
		return 0, httpjson.Errorf(CodeBadQuery, "%s is given %d times", key, len(vs))
	}
	v, err := strconv.Atoi(vs[0])
	if err != nil || v < 0 {
		return 0, httpjson.Errorf(CodeBadQuery, "%s must be a whole number from 0, got %s", key, httpjson.Excerpt(vs[0]))
	}
	return v, nil
}

func (n *Node) readJSON(r *http.Request, v any) error { return n.srv.ReadJSON(r, v) }

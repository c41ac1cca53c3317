package api

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/ordolabs/ordo/apispec"
	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/httpjson"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/store"
)

// DefaultMaxBody is the default limit on a request body, in bytes.
const DefaultMaxBody = httpjson.DefaultMaxBody

// DefaultListLimit is how many transactions GET /v1/transactions returns
// when no limit is given; MaxListLimit is the most it returns.
const (
	DefaultListLimit = 100
	MaxListLimit     = 1000
)

// Error codes. Each maps to one HTTP status.
const (
	CodeBadJSON          = httpjson.CodeBadJSON          // 400: the body is not a JSON object of the expected shape
	CodeBadQuery         = "bad_query"                   // 400: a query parameter is unknown, repeated or out of range
	CodeTooLarge         = httpjson.CodeTooLarge         // 413: the body is over Options.MaxBody
	CodeInvalid          = "invalid"                     // 422: well-formed but invalid intent (missing queue or type, ...)
	CodeTypeNotAllowed   = "type_not_allowed"            // 422: the type is outside the node's allowed set
	CodeIdempotency      = "idempotency_conflict"        // 409: a known idempotency key with another queue, type or data
	CodeNotFound         = "not_found"                   // 404: no such transaction or queue
	CodeRouteNotFound    = httpjson.CodeRouteNotFound    // 404: no such endpoint
	CodeMethodNotAllowed = httpjson.CodeMethodNotAllowed // 405: the endpoint exists, the method does not
	CodeInternal         = httpjson.CodeInternal         // 500: anything else
	// CodeUnsupportedMediaType (415): a request to a mutating route (POST,
	// PUT, PATCH, DELETE) without Content-Type: application/json.
	CodeUnsupportedMediaType = "unsupported_media_type"
	// CodeUnauthenticated (401, with WWW-Authenticate: Bearer): no token,
	// a malformed Authorization header, or a token the node does not know.
	CodeUnauthenticated = auth.CodeUnauthenticated
	// CodeForbidden (403): a known principal without the role the route
	// needs.
	CodeForbidden = auth.CodeForbidden
	// CodeTypeForbidden (403): an intent of a type the caller's roles do
	// not allow (Options.TypeRoles).
	CodeTypeForbidden = "type_forbidden"
	// CodeUnavailable (503): the queue's primary cannot be reached or is
	// changing (replication, issue 12); retry with the same idempotency
	// key.
	CodeUnavailable = "unavailable"
	// CodeNotReplicated (503): committed on the queue's primary but not
	// held by enough secondaries in time (replication.ackAfter); not
	// acknowledged: retry with the same idempotency key.
	CodeNotReplicated = "not_replicated"
	// CodeNotPrimary (409): an operation only a queue's primary performs,
	// asked of another member; the message names the primary.
	CodeNotPrimary = "not_primary"
)

// Options configures NewSequencerHandler. The zero value of each field means
// its default.
type Options struct {
	// MaxBody limits a request body, in bytes, but for the array form of
	// POST /v1/transactions. Defaults to DefaultMaxBody (1 MiB).
	MaxBody int64
	// MaxBatchBody limits the body of the array form of POST
	// /v1/transactions (up to MaxBatch intents), in bytes. Defaults to
	// DefaultMaxBatchBody (8 MiB); never below MaxBody. The router reads
	// that route's bodies up to the larger of the two (httpjson's Limit);
	// every other route, the engines' too, keeps MaxBody.
	MaxBatchBody int64
	// Registry is served at /metrics. When nil, /metrics answers 404.
	Registry *prometheus.Registry
	// Logger logs internal errors. Defaults to slog.Default().
	Logger *slog.Logger
	// Chain, when set, is the chain as GET /healthz reports it: whether it
	// answers, and its newest head and that head's age (chain.NewMetered
	// returns one). When nil, /healthz reports on the node alone.
	Chain chain.HealthReporter
	// ChainTimeout is how long the chain may go without answering before
	// GET /healthz answers 503 chain_unreachable. Defaults to
	// DefaultChainTimeout (30s).
	ChainTimeout time.Duration
	// Conditions, when set, returns the node's conditions, worst first
	// (health.go): GET /healthz answers 503 with the first one's code.
	// Defaults to none.
	Conditions func() []Condition
	// Auth authenticates every request against its route's rule. Defaults
	// to nil: an authenticator with no principals, so that every route but
	// the Public ones answers 401 (pass one in open mode for dev mode).
	Auth *auth.Authenticator
	// TypeRoles restricts intake by type: an intent whose type is a key is
	// accepted only from a principal with one of its roles (admin holds
	// every role; an empty list refuses every caller), else 403
	// type_forbidden. Types not listed are open to every submitter.
	// Defaults to DefaultTypeRoles when nil.
	TypeRoles map[string][]auth.Role
	// Engines mount their routes on the API's router, each with its rule
	// (DevchainRoutes, the processor's, ...). Defaults to none.
	Engines []Routes
	// Intake, when set, takes the intents of POST /v1/transactions
	// instead of the sequencer (replication routes each to its queue's
	// primary, on behalf of the caller's principal). Its errors wrap the
	// sequencer's, or carry their own code (httpjson.Errorf). Defaults to
	// the sequencer.
	Intake Intake
	// Replication, when set, adds each queue's replica set to GET
	// /v1/queues/{name}. Defaults to none.
	Replication Replication
	// IntakeLimiter limits each principal's intake: each intent of POST
	// /v1/transactions, and what the engines' intake routes take
	// (auth.Router.IntakeLimiter); past it, 429 rate_limited with
	// Retry-After. Defaults to nil: no limit.
	IntakeLimiter *auth.Limiter
	// Clock times the change stream's polls and keepalives (GET
	// /v1/changes). Defaults to the real clock.
	Clock clock.Clock
	// Streams, when set, ends the change streams at shutdown
	// (Streams.End). Defaults to a Streams never ended.
	Streams *Streams
	// Session is what GET /v1/session tells of the node. Defaults to
	// nil: no engine, no chain, no version.
	Session *Session
	// StatsHistory, when set, answers GET /v1/stats/history (the node's
	// sampler). Defaults to nil: no samples.
	StatsHistory func() StatsHistoryResponse
}

// Intake takes intents on behalf of a principal (Options.Intake).
type Intake interface {
	Submit(ctx context.Context, principal string, in []sequencer.Intake) ([]store.EnqueueResult, error)
}

// Replication reads a queue's replica set (Options.Replication): found
// false when the queue is not replicated here.
type Replication interface {
	QueueReplication(ctx context.Context, queue string) (any, bool, error)
}

// QueueResponse is the body of GET /v1/queues/{name}: the queue's binding
// and counts, and its replica set when it is replicated.
type QueueResponse struct {
	store.QueueStats
	Replication any `json:"replication,omitempty"`
}

// Error is the JSON body of every error response.
type Error = httpjson.ErrorBody

// ErrorDetail is an error's stable code and a sentence for people.
type ErrorDetail = httpjson.ErrorDetail

// statusOf maps the sequencer API's own error codes to HTTP statuses;
// httpjson maps the codes it shares with it (bad_json 400, too_large 413,
// route_not_found 404, method_not_allowed 405, internal 500).
func statusOf(code string) int {
	switch code {
	case CodeBadQuery:
		return http.StatusBadRequest
	case CodeInvalid, CodeTypeNotAllowed, CodeReserved:
		return http.StatusUnprocessableEntity
	case CodeNotFound, CodeNothingToCancel:
		return http.StatusNotFound
	case CodeIdempotency, CodeNotPrimary:
		return http.StatusConflict
	case CodeTypeForbidden:
		return http.StatusForbidden
	case CodeUnavailable, CodeNotReplicated, CodeStorageFull:
		return http.StatusServiceUnavailable
	case CodeUnsupportedMediaType:
		return http.StatusUnsupportedMediaType
	default:
		return http.StatusInternalServerError
	}
}

// TransactionResponse is the body of GET /v1/transactions/{uid}.
type TransactionResponse struct {
	Transaction store.Transaction    `json:"transaction"`
	History     []store.HistoryEntry `json:"history"`
}

// ListResponse is the body of GET /v1/transactions. Next is the cursor of
// the following page, empty when there is none (yet).
type ListResponse struct {
	Transactions []store.Transaction `json:"transactions"`
	Next         string              `json:"next"`
}

// QueuesResponse is the body of GET /v1/queues: a page of queues in the
// order of their names. Next is the cursor of the following page, empty when
// there is none (yet).
type QueuesResponse struct {
	Queues []store.Queue `json:"queues"`
	Next   string        `json:"next"`
}

// SendersResponse is the body of GET /v1/senders.
type SendersResponse struct {
	Senders []store.Sender `json:"senders"`
}

type server struct {
	n         *sequencer.Node
	st        store.Store
	api       *httpjson.Server
	health    *health
	typeRoles map[string][]auth.Role
	intake    Intake
	repl      Replication
	// maxBody is the limit of every body but an array of intents.
	maxBody int64
	// limit is each principal's intake rate (nil: none).
	limit *auth.Limiter
	log   *slog.Logger
	// clock and streams time and end the change streams.
	clock   clock.Clock
	streams *Streams
	sess    *Session
	history func() StatsHistoryResponse
}

// NewSequencerHandler returns the node's HTTP API over n: the sequencer's
// routes (listed in the package documentation) and those of
// Options.Engines, on one auth.Router, each behind its rule (Routes lists
// them). It reads through n.Store() and writes only through n.Submit.
func NewSequencerHandler(n *sequencer.Node, opts Options) *auth.Router {
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	a := opts.Auth
	if a == nil {
		a, _ = auth.New(auth.Config{}) // no principals: cannot fail
	}
	typeRoles := opts.TypeRoles
	if typeRoles == nil {
		typeRoles = DefaultTypeRoles()
	}
	maxBody := opts.MaxBody
	if maxBody <= 0 {
		maxBody = DefaultMaxBody
	}
	maxBatchBody := opts.MaxBatchBody
	if maxBatchBody <= 0 {
		maxBatchBody = DefaultMaxBatchBody
	}
	rt := auth.NewRouter(a, httpjson.Options{
		Status:  statusOf,
		MaxBody: maxBody,
		Logger:  log,
		Name:    "api",
	})
	rt.SetIntakeLimiter(opts.IntakeLimiter)
	s := &server{n: n, st: n.Store(), health: newHealth(opts.Chain, opts.ChainTimeout, opts.Conditions), api: rt.Server(), typeRoles: typeRoles,
		intake: opts.Intake, repl: opts.Replication, maxBody: maxBody, limit: opts.IntakeLimiter,
		log: log, clock: opts.Clock, streams: opts.Streams, sess: opts.Session, history: opts.StatsHistory}
	if s.clock == nil {
		s.clock = realClock
	}
	if s.streams == nil {
		s.streams = &Streams{}
	}
	// JSON only, as every mutating route of the router.
	rt.Handle("POST /v1/transactions", auth.Need(auth.RoleSubmit), http.HandlerFunc(s.submit))
	rt.Server().Limit("POST /v1/transactions", max(maxBody, maxBatchBody)) // its array form; every other route keeps MaxBody
	rt.HandleJSON("GET /v1/transactions", auth.Read, s.list)
	rt.HandleJSON("GET /v1/transactions/{uid}", auth.Read, s.get)
	rt.HandleJSON("GET /v1/queues", auth.Read, s.queues)
	rt.HandleJSON("GET /v1/queues/{name}", auth.Read, s.queue)
	rt.HandleJSON("GET /v1/senders", auth.Read, s.senders)
	rt.Handle("GET /v1/changes", auth.Read, http.HandlerFunc(s.changes))
	rt.HandleJSON("GET /v1/session", auth.Read, s.session)
	rt.HandleJSON("GET /v1/stats/history", auth.Read, s.statsHistory)
	rt.HandleJSON("POST /v1/senders/{id}/cancel", auth.Need(auth.RoleAdmin), s.cancelNonce)
	rt.Handle("GET /healthz", auth.Public, http.HandlerFunc(s.healthz))
	rt.Handle("GET /readyz", auth.Public, http.HandlerFunc(s.readyz))
	// /metrics tells what the reads tell (queue depths, types, senders):
	// it needs read too, unless reads are open. A Prometheus scrape sends
	// the token with its authorization: {credentials: ...} setting.
	if opts.Registry != nil {
		rt.Handle("GET /metrics", auth.Read, promhttp.HandlerFor(opts.Registry, promhttp.HandlerOpts{ErrorLog: slogPrintln{log}}))
	} else {
		rt.HandleJSON("GET /metrics", auth.Read, func(*http.Request) (any, error) {
			return nil, httpjson.Errorf(CodeRouteNotFound, "metrics are not enabled on this node")
		})
	}
	rt.Handle("GET "+OpenAPIPath, auth.Read, http.HandlerFunc(serveDocument(apispec.OpenAPI)))
	for _, e := range opts.Engines {
		e.Register(rt)
	}
	return rt
}

// OpenAPIPath is where the node serves its OpenAPI 3.1 document
// (apispec.OpenAPI), behind auth.Read.
const OpenAPIPath = "/openapi.json"

// serveDocument answers a committed JSON document as it is.
func serveDocument(doc []byte) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(doc)))
		_, _ = w.Write(doc)
	}
}

// slogPrintln adapts a slog.Logger to promhttp.Logger.
type slogPrintln struct{ l *slog.Logger }

func (p slogPrintln) Println(v ...any) { p.l.Error("api: metrics", "err", fmt.Sprint(v...)) }

// excerptQuoted returns msg, an error message made by code this package
// does not control (a decoder's, which quotes a field name of any length),
// with each Go-quoted string in it over 64 bytes cut to its excerpt
// (sequencer.Excerpt), so that no error echoes an oversized input back.
func excerptQuoted(msg string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(msg, '"')
		if i < 0 {
			b.WriteString(msg)
			return b.String()
		}
		b.WriteString(msg[:i])
		msg = msg[i:]
		q, err := strconv.QuotedPrefix(msg)
		if err != nil {
			b.WriteByte('"')
			msg = msg[1:]
			continue
		}
		if u, err := strconv.Unquote(q); err == nil && len(u) > 64 {
			b.WriteString(sequencer.Excerpt(u))
		} else {
			b.WriteString(q)
		}
		msg = msg[len(q):]
	}
}

// get is GET /v1/transactions/{uid}.
func (s *server) get(r *http.Request) (any, error) {
	uid := r.PathValue("uid")
	t, err := s.st.Get(r.Context(), uid)
	if errors.Is(err, store.ErrNotFound) {
		return nil, httpjson.Errorf(CodeNotFound, "no transaction %s", sequencer.Excerpt(uid))
	}
	if err != nil {
		return nil, fmt.Errorf("api: get %s: %w", uid, err)
	}
	h, err := s.st.History(r.Context(), uid)
	if err != nil {
		return nil, fmt.Errorf("api: history of %s: %w", uid, err)
	}
	if h == nil {
		h = []store.HistoryEntry{}
	}
	return TransactionResponse{Transaction: normTx(t), History: h}, nil
}

// pageQuery parses the query of a paged list: each parameter at most once,
// each one of names or limit (1 to MaxListLimit, default DefaultListLimit)
// or cursor (the next of a previous page, default none). It returns the
// values of names, the limit and the cursor; an empty value counts as
// absent.
func pageQuery(r *http.Request, names ...string) (params map[string]string, limit int, cursor string, err error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, 0, "", httpjson.Errorf(CodeBadQuery, "query string: %s", excerptQuoted(err.Error()))
	}
	params, limit = map[string]string{}, DefaultListLimit
	for k, vs := range q {
		if len(vs) != 1 {
			return nil, 0, "", httpjson.Errorf(CodeBadQuery, "query parameter %s is given %d times", sequencer.Excerpt(k), len(vs))
		}
		v := vs[0]
		switch {
		case k == "limit":
			if v == "" {
				continue
			}
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > MaxListLimit {
				return nil, 0, "", httpjson.Errorf(CodeBadQuery, "limit %s is not an integer from 1 to %d", sequencer.Excerpt(v), MaxListLimit)
			}
			limit = n
		case k == "cursor":
			cursor = v
		case slices.Contains(names, k):
			params[k] = v
		default:
			return nil, 0, "", httpjson.Errorf(CodeBadQuery, "unknown query parameter %s (parameters are %s)", sequencer.Excerpt(k), strings.Join(slices.Concat(names, []string{"limit", "cursor"}), ", "))
		}
	}
	return params, limit, cursor, nil
}

// badCursor is the error of a cursor that no page handed out.
func badCursor(v string) error {
	return httpjson.Errorf(CodeBadQuery, "cursor %s is not a cursor from a previous page", sequencer.Excerpt(v))
}

// list is GET /v1/transactions.
func (s *server) list(r *http.Request) (any, error) {
	params, limit, cursor, err := pageQuery(r, "queue", "state")
	if err != nil {
		return nil, err
	}
	f := store.Filter{Queue: params["queue"], Limit: limit}
	if v := params["state"]; v != "" {
		if f.State = store.TxState(v); !f.State.Valid() {
			return nil, httpjson.Errorf(CodeBadQuery, "state %s is not one of WAITING, REVISION, RETRY, DONE, FAILED", sequencer.Excerpt(v))
		}
	}
	if cursor != "" {
		c, err := strconv.ParseInt(cursor, 10, 64)
		if err != nil || c < 0 {
			return nil, badCursor(cursor)
		}
		f.After = c
	}
	txs, err := s.st.List(r.Context(), f)
	if err != nil {
		return nil, fmt.Errorf("api: list: %w", err)
	}
	resp := ListResponse{Transactions: make([]store.Transaction, 0, len(txs))}
	for _, t := range txs {
		resp.Transactions = append(resp.Transactions, normTx(t))
	}
	if len(txs) == f.Limit {
		// A full page: is there another? Ask for one more record rather
		// than hand out a cursor to an empty page.
		last := txs[len(txs)-1].Seq
		more, err := s.st.List(r.Context(), store.Filter{Queue: f.Queue, State: f.State, After: last, Limit: 1})
		if err != nil {
			return nil, fmt.Errorf("api: list: %w", err)
		}
		if len(more) > 0 {
			resp.Next = strconv.FormatInt(last, 10)
		}
	}
	return resp, nil
}

// queueCursor is the cursor of the page after the queue named name: the
// name in unpadded base64url, so that any name makes a cursor that needs no
// escaping in a URL.
func queueCursor(name string) string { return base64.RawURLEncoding.EncodeToString([]byte(name)) }

// queues is GET /v1/queues?limit=&cursor=: the queues in the order of their
// names (bytewise), a page at a time, as GET /v1/transactions pages
// transactions. Next is the cursor of the following page, empty when there
// is none (yet).
func (s *server) queues(r *http.Request) (any, error) {
	_, limit, cursor, err := pageQuery(r)
	if err != nil {
		return nil, err
	}
	var after string
	if cursor != "" {
		b, err := base64.RawURLEncoding.DecodeString(cursor)
		if err != nil || len(b) == 0 || len(b) > sequencer.MaxQueueName || !utf8.Valid(b) {
			return nil, badCursor(cursor) // no queue has such a name
		}
		after = string(b)
	}
	// The store has no paged read of queues: take them all and page here.
	qs, err := s.st.Queues(r.Context())
	if err != nil {
		return nil, fmt.Errorf("api: queues: %w", err)
	}
	slices.SortFunc(qs, func(a, b store.Queue) int { return strings.Compare(a.Name, b.Name) })
	if cursor != "" {
		i, found := slices.BinarySearchFunc(qs, after, func(q store.Queue, name string) int { return strings.Compare(q.Name, name) })
		if found {
			i++
		}
		qs = qs[i:]
	}
	resp := QueuesResponse{Queues: qs[:min(limit, len(qs))]}
	if len(qs) > limit {
		resp.Next = queueCursor(resp.Queues[limit-1].Name)
	}
	if resp.Queues == nil {
		resp.Queues = []store.Queue{}
	}
	return resp, nil
}

// queue is GET /v1/queues/{name}.
func (s *server) queue(r *http.Request) (any, error) {
	name := r.PathValue("name")
	st, err := s.st.QueueStats(r.Context(), name)
	var repl any
	var replicated bool
	if s.repl != nil {
		var rerr error
		if repl, replicated, rerr = s.repl.QueueReplication(r.Context(), name); rerr != nil {
			return nil, fmt.Errorf("api: queue %s: replication: %w", name, rerr)
		}
	}
	if errors.Is(err, store.ErrNotFound) && replicated {
		// A secondary holds the queue's log, not its records.
		st, err = store.QueueStats{Queue: store.Queue{Name: name, State: store.Free}, Counts: map[store.TxState]int{}}, nil
	}
	if errors.Is(err, store.ErrNotFound) {
		return nil, httpjson.Errorf(CodeNotFound, "no queue %s", sequencer.Excerpt(name))
	}
	if err != nil {
		return nil, fmt.Errorf("api: queue %s: %w", name, err)
	}
	return QueueResponse{QueueStats: st, Replication: repl}, nil
}

// CancelRequest is the body of POST /v1/senders/{id}/cancel: the stuck
// nonce, and what becomes of its transaction once a no-op took it ("fail"
// or "requeue").
type CancelRequest struct {
	Nonce uint64 `json:"nonce"`
	Then  string `json:"then"`
}

// CancelResponse is its answer: the transaction whose attempt is
// pending at the nonce; the cancel runs on the sequencer's loop, and the
// record's history says what became of it.
type CancelResponse struct {
	Sender string `json:"sender"`
	Nonce  uint64 `json:"nonce"`
	Then   string `json:"then"`
	UID    string `json:"uid"`
}

// CodeNothingToCancel is the code of a cancel that names no pending
// attempt (404).
const CodeNothingToCancel = "nothing_to_cancel"

// cancelNonce is POST /v1/senders/{id}/cancel (admin): an operator cancels
// a stuck nonce (sequencer.Node.CancelNonce).
func (s *server) cancelNonce(r *http.Request) (any, error) {
	var req CancelRequest
	if err := s.api.ReadJSON(r, &req); err != nil {
		return nil, err
	}
	id := r.PathValue("id")
	uid, err := s.n.CancelNonce(r.Context(), id, req.Nonce, req.Then)
	switch {
	case errors.Is(err, sequencer.ErrInvalid), errors.Is(err, sequencer.ErrCannotCancel):
		return nil, httpjson.Errorf(CodeInvalid, "%v", err)
	case errors.Is(err, sequencer.ErrNothingToCancel):
		return nil, httpjson.Errorf(CodeNothingToCancel, "%v", err)
	case err != nil:
		return nil, err
	}
	return CancelResponse{Sender: id, Nonce: req.Nonce, Then: req.Then, UID: uid}, nil
}

// senders is GET /v1/senders.
func (s *server) senders(r *http.Request) (any, error) {
	ss, err := s.st.Senders(r.Context())
	if err != nil {
		return nil, fmt.Errorf("api: senders: %w", err)
	}
	if ss == nil {
		ss = []store.Sender{}
	}
	return SendersResponse{Senders: ss}, nil
}

// normTx writes an absent attempts list as [] rather than null.
func normTx(t store.Transaction) store.Transaction {
	if t.Attempts == nil {
		t.Attempts = []store.Attempt{}
	}
	return t
}

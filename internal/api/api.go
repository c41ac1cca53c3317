package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/store"
)

// DefaultMaxBody is the default limit on a request body, in bytes.
const DefaultMaxBody = 1 << 20

// DefaultListLimit is how many transactions GET /v1/transactions returns
// when no limit is given; MaxListLimit is the most it returns.
const (
	DefaultListLimit = 100
	MaxListLimit     = 1000
)

// Error codes. Each maps to one HTTP status.
const (
	CodeBadJSON          = "bad_json"           // 400: the body is not a JSON object of the expected shape
	CodeBadQuery         = "bad_query"          // 400: a query parameter is unknown, repeated or out of range
	CodeTooLarge         = "too_large"          // 413: the body is over Options.MaxBody
	CodeInvalid          = "invalid"            // 422: well-formed but invalid intent (missing queue or type, ...)
	CodeTypeNotAllowed   = "type_not_allowed"   // 422: the type is outside the node's allowed set
	CodeNotFound         = "not_found"          // 404: no such transaction or queue
	CodeRouteNotFound    = "route_not_found"    // 404: no such endpoint
	CodeMethodNotAllowed = "method_not_allowed" // 405: the endpoint exists, the method does not
	CodeInternal         = "internal"           // 500: anything else
)

// Options configures NewSequencerHandler. The zero value of each field means
// its default.
type Options struct {
	// MaxBody limits a request body, in bytes. Defaults to DefaultMaxBody
	// (1 MiB).
	MaxBody int64
	// Registry is served at /metrics. When nil, /metrics answers 404.
	Registry *prometheus.Registry
	// Logger logs internal errors. Defaults to slog.Default().
	Logger *slog.Logger
}

// Error is the JSON body of every error response.
type Error struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail is an error's stable code and a sentence for people.
type ErrorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// apiError is an error answered with its own code and message.
type apiError struct {
	code string
	msg  string
}

func (e *apiError) Error() string { return e.msg }

func fail(code, format string, args ...any) error {
	return &apiError{code: code, msg: fmt.Sprintf(format, args...)}
}

func statusOf(code string) int {
	switch code {
	case CodeBadJSON, CodeBadQuery:
		return http.StatusBadRequest
	case CodeTooLarge:
		return http.StatusRequestEntityTooLarge
	case CodeInvalid, CodeTypeNotAllowed:
		return http.StatusUnprocessableEntity
	case CodeNotFound, CodeRouteNotFound:
		return http.StatusNotFound
	case CodeMethodNotAllowed:
		return http.StatusMethodNotAllowed
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

// QueuesResponse is the body of GET /v1/queues.
type QueuesResponse struct {
	Queues []store.Queue `json:"queues"`
}

// SendersResponse is the body of GET /v1/senders.
type SendersResponse struct {
	Senders []store.Sender `json:"senders"`
}

// HealthResponse is the body of GET /healthz.
type HealthResponse struct {
	Status string `json:"status"`
}

type server struct {
	n       *sequencer.Node
	st      store.Store
	mux     *http.ServeMux
	maxBody int64
	log     *slog.Logger
}

// NewSequencerHandler returns the sequencer's HTTP API over n (the routes
// are listed in the package documentation). It reads through n.Store() and
// writes only through n.Submit.
func NewSequencerHandler(n *sequencer.Node, opts Options) http.Handler {
	s := &server{n: n, st: n.Store(), mux: http.NewServeMux(), maxBody: opts.MaxBody, log: opts.Logger}
	if s.maxBody <= 0 {
		s.maxBody = DefaultMaxBody
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	s.mux.HandleFunc("POST /v1/transactions", s.submit)
	s.mux.Handle("GET /v1/transactions", s.json(s.list))
	s.mux.Handle("GET /v1/transactions/{uid}", s.json(s.get))
	s.mux.Handle("GET /v1/queues", s.json(s.queues))
	s.mux.Handle("GET /v1/queues/{name}", s.json(s.queue))
	s.mux.Handle("GET /v1/senders", s.json(s.senders))
	s.mux.HandleFunc("GET /healthz", s.health)
	if opts.Registry != nil {
		s.mux.Handle("GET /metrics", promhttp.HandlerFor(opts.Registry, promhttp.HandlerOpts{ErrorLog: slogPrintln{s.log}}))
	} else {
		s.mux.Handle("GET /metrics", s.json(func(*http.Request) (any, error) {
			return nil, fail(CodeRouteNotFound, "metrics are not enabled on this node")
		}))
	}
	return s
}

// slogPrintln adapts a slog.Logger to promhttp.Logger.
type slogPrintln struct{ l *slog.Logger }

func (p slogPrintln) Println(v ...any) { p.l.Error("api: metrics", "err", fmt.Sprint(v...)) }

// ServeHTTP routes the request, answering unknown routes and wrong methods
// in JSON rather than the mux's plain text, and a panic with a JSON 500.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.log.Error("api: panic", "method", r.Method, "path", r.URL.Path, "panic", v)
			s.writeError(w, fail(CodeInternal, "internal error"))
		}
	}()
	h, pattern := s.mux.Handler(r)
	if pattern != "" {
		s.mux.ServeHTTP(w, r)
		return
	}
	// No pattern: the mux would answer 404 or 405 in plain text. Find out
	// which and answer in JSON.
	rec := &headerRecorder{h: http.Header{}}
	h.ServeHTTP(rec, r)
	if rec.status == http.StatusMethodNotAllowed {
		allow := rec.h.Get("Allow")
		w.Header().Set("Allow", allow)
		s.writeError(w, fail(CodeMethodNotAllowed, "method %s is not allowed on %s (allowed: %s)", r.Method, r.URL.Path, allow))
		return
	}
	s.writeError(w, fail(CodeRouteNotFound, "no route %s %s", r.Method, r.URL.Path))
}

// headerRecorder captures the status and headers the mux's fallback handler
// writes; its body is discarded.
type headerRecorder struct {
	h      http.Header
	status int
}

func (r *headerRecorder) Header() http.Header { return r.h }

func (r *headerRecorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *headerRecorder) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return len(b), nil
}

// json adapts a read handler that returns a value or an error.
func (s *server) json(h func(*http.Request) (any, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, err := h(r)
		if err != nil {
			s.writeError(w, err)
			return
		}
		s.writeJSON(w, http.StatusOK, v)
	})
}

func (s *server) writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		s.writeError(w, fmt.Errorf("api: encoding the response: %w", err))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// writeError answers err with its own code (apiError) or a 500.
func (s *server) writeError(w http.ResponseWriter, err error) {
	d := ErrorDetail{Code: CodeInternal, Message: "internal error"}
	var ae *apiError
	if errors.As(err, &ae) {
		d = ErrorDetail{Code: ae.code, Message: ae.msg}
	} else {
		s.log.Error("api: internal error", "err", err)
	}
	b, _ := json.Marshal(Error{Error: d}) // strings only: cannot fail
	b = append(b, '\n')
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	h.Del("Content-Encoding")
	w.WriteHeader(statusOf(d.Code))
	_, _ = w.Write(b)
}

// submit is POST /v1/transactions.
func (s *server) submit(w http.ResponseWriter, r *http.Request) {
	it, err := s.readIntake(w, r)
	if err != nil {
		s.writeError(w, err)
		return
	}
	res, err := s.n.Submit(r.Context(), []sequencer.Intake{it})
	switch {
	case errors.Is(err, sequencer.ErrTypeNotAllowed):
		s.writeError(w, fail(CodeTypeNotAllowed, "%s", err.Error()))
		return
	case errors.Is(err, sequencer.ErrInvalid):
		s.writeError(w, fail(CodeInvalid, "%s", err.Error()))
		return
	case err != nil:
		s.writeError(w, fmt.Errorf("api: submit: %w", err))
		return
	case len(res) != 1:
		s.writeError(w, fmt.Errorf("api: submit returned %d results for one intent", len(res)))
		return
	}
	t := normTx(res[0].Transaction)
	status := http.StatusOK
	if res[0].Created {
		status = http.StatusCreated
		w.Header().Set("Location", "/v1/transactions/"+url.PathEscape(t.UID))
	}
	s.writeJSON(w, status, t)
}

var intakeFields = map[string]bool{"queue": true, "type": true, "data": true, "idempotencyKey": true}

// readIntake reads and checks the body of POST /v1/transactions. It accepts
// exactly one JSON object whose keys are the documented ones, spelled
// exactly, each at most once; queue, type and idempotencyKey are strings and
// data is any JSON value.
func (s *server) readIntake(w http.ResponseWriter, r *http.Request) (sequencer.Intake, error) {
	var it sequencer.Intake
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.maxBody))
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return it, fail(CodeTooLarge, "request body is over the limit of %d bytes", mbe.Limit)
	}
	if err != nil {
		return it, fail(CodeBadJSON, "reading the request body: %v", err)
	}
	if !utf8.Valid(b) {
		return it, fail(CodeBadJSON, "request body is not valid UTF-8")
	}
	fields, err := decodeObject(b)
	if err != nil {
		return it, fail(CodeBadJSON, "request body: %v", err)
	}
	str := func(name string, dst *string) error {
		v, ok := fields[name]
		if !ok {
			return nil
		}
		if len(v) == 0 || v[0] != '"' {
			return fail(CodeBadJSON, "request body: %s must be a string", name)
		}
		if err := json.Unmarshal(v, dst); err != nil {
			return fail(CodeBadJSON, "request body: %s: %v", name, err)
		}
		return nil
	}
	for _, f := range []struct {
		name string
		dst  *string
	}{{"queue", &it.Queue}, {"type", &it.Type}, {"idempotencyKey", &it.IdempotencyKey}} {
		if err := str(f.name, f.dst); err != nil {
			return it, err
		}
	}
	if v, ok := fields["data"]; ok {
		it.Data = v
	}
	if it.Queue == "" {
		return it, fail(CodeInvalid, "queue is required")
	}
	if it.Type == "" {
		return it, fail(CodeInvalid, "type is required; allowed types are %s", strings.Join(s.n.AllowedTypes(), ", "))
	}
	if hasControl(it.Queue) {
		return it, fail(CodeInvalid, "queue must not contain control characters")
	}
	if hasControl(it.IdempotencyKey) {
		return it, fail(CodeInvalid, "idempotencyKey must not contain control characters")
	}
	return it, nil
}

// decodeObject decodes b as exactly one JSON object with the intake's keys,
// spelled exactly and each at most once, and returns each key's raw value.
func decodeObject(b []byte) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if errors.Is(err, io.EOF) {
		return nil, errors.New("empty; expected a JSON object")
	}
	if err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	if tok != json.Delim('{') {
		return nil, errors.New("expected a JSON object")
	}
	out := map[string]json.RawMessage{}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, syntaxError(err)
		}
		key, ok := kt.(string)
		if !ok {
			return nil, errors.New("not valid JSON: expected an object key")
		}
		if !intakeFields[key] {
			return nil, fmt.Errorf("unknown field %q (fields are queue, type, data, idempotencyKey)", key)
		}
		if _, dup := out[key]; dup {
			return nil, fmt.Errorf("field %q appears twice", key)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("field %q: %w", key, syntaxError(err))
		}
		out[key] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, syntaxError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("data after the JSON object")
	}
	return out, nil
}

// syntaxError words a decoding error inside the object.
func syntaxError(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("not valid JSON: the body ends inside the object")
	}
	return fmt.Errorf("not valid JSON: %w", err)
}

func hasControl(s string) bool {
	return strings.IndexFunc(s, unicode.IsControl) >= 0
}

// get is GET /v1/transactions/{uid}.
func (s *server) get(r *http.Request) (any, error) {
	uid := r.PathValue("uid")
	t, err := s.st.Get(r.Context(), uid)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fail(CodeNotFound, "no transaction %q", uid)
	}
	if err != nil {
		return nil, fmt.Errorf("api: get %s: %w", uid, err)
	}
	h, err := s.st.History(r.Context(), uid)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("api: history of %s: %w", uid, err)
	}
	if h == nil {
		h = []store.HistoryEntry{}
	}
	return TransactionResponse{Transaction: normTx(t), History: h}, nil
}

// list is GET /v1/transactions.
func (s *server) list(r *http.Request) (any, error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, fail(CodeBadQuery, "query string: %v", err)
	}
	f := store.Filter{Limit: DefaultListLimit}
	for k, vs := range q {
		if len(vs) != 1 {
			return nil, fail(CodeBadQuery, "query parameter %q is given %d times", k, len(vs))
		}
		v := vs[0]
		switch k {
		case "queue":
			f.Queue = v
		case "state":
			if v == "" {
				continue
			}
			if f.State = store.TxState(v); !f.State.Valid() {
				return nil, fail(CodeBadQuery, "state %q is not one of WAITING, REVISION, RETRY, DONE, FAILED", v)
			}
		case "limit":
			if v == "" {
				continue
			}
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > MaxListLimit {
				return nil, fail(CodeBadQuery, "limit %q is not an integer from 1 to %d", v, MaxListLimit)
			}
			f.Limit = n
		case "cursor":
			if v == "" {
				continue
			}
			c, err := strconv.ParseInt(v, 10, 64)
			if err != nil || c < 0 {
				return nil, fail(CodeBadQuery, "cursor %q is not a cursor from a previous page", v)
			}
			f.After = c
		default:
			return nil, fail(CodeBadQuery, "unknown query parameter %q (parameters are queue, state, limit, cursor)", k)
		}
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

// queues is GET /v1/queues.
func (s *server) queues(r *http.Request) (any, error) {
	qs, err := s.st.Queues(r.Context())
	if err != nil {
		return nil, fmt.Errorf("api: queues: %w", err)
	}
	if qs == nil {
		qs = []store.Queue{}
	}
	return QueuesResponse{Queues: qs}, nil
}

// queue is GET /v1/queues/{name}.
func (s *server) queue(r *http.Request) (any, error) {
	name := r.PathValue("name")
	st, err := s.st.QueueStats(r.Context(), name)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fail(CodeNotFound, "no queue %q", name)
	}
	if err != nil {
		return nil, fmt.Errorf("api: queue %s: %w", name, err)
	}
	return st, nil
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

// health is GET /healthz.
func (s *server) health(w http.ResponseWriter, r *http.Request) {
	select {
	case <-s.n.Stopped():
		s.writeJSON(w, http.StatusServiceUnavailable, HealthResponse{Status: "stopped"})
	case <-s.n.Started():
		s.writeJSON(w, http.StatusOK, HealthResponse{Status: "ok"})
	default:
		s.writeJSON(w, http.StatusServiceUnavailable, HealthResponse{Status: "starting"})
	}
}

// normTx writes an absent attempts list as [] rather than null.
func normTx(t store.Transaction) store.Transaction {
	if t.Attempts == nil {
		t.Attempts = []store.Attempt{}
	}
	return t
}

// NewMux serves the node's whole API on one handler: the sequencer's routes
// (/v1/transactions, /v1/queues, /v1/senders, /healthz, /metrics) go to seq,
// every other /v1/ path goes to chainHandler (the in-process devchain's API)
// when it is not nil, and anything else goes to seq, which answers 404 in
// JSON.
func NewMux(seq http.Handler, chainHandler http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if chainHandler != nil && strings.HasPrefix(p, "/v1/") && !isSequencerPath(p) {
			chainHandler.ServeHTTP(w, r)
			return
		}
		seq.ServeHTTP(w, r)
	})
}

// isSequencerPath reports whether p belongs to the sequencer's API.
func isSequencerPath(p string) bool {
	for _, root := range []string{"/v1/transactions", "/v1/queues"} {
		if p == root || strings.HasPrefix(p, root+"/") {
			return true
		}
	}
	switch p {
	case "/v1/senders", "/healthz", "/metrics":
		return true
	}
	return false
}

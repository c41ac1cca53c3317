package httpjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"time"
)

// DefaultMaxBody is the default limit on a request body, in bytes.
const DefaultMaxBody = 1 << 20

// The codes this package answers with. Each has a fixed status, whatever
// Options.Status says (so has CodeUnsupportedMediaType, 415: see
// RequireJSON).
const (
	CodeBadJSON          = "bad_json"           // 400: the body is not JSON of the expected shape
	CodeTooLarge         = "too_large"          // 413: the body is over Options.MaxBody
	CodeRouteNotFound    = "route_not_found"    // 404: no such endpoint
	CodeMethodNotAllowed = "method_not_allowed" // 405: the endpoint exists, the method does not
	CodeInternal         = "internal"           // 500: anything else
)

// ErrorBody is the JSON body of every error response.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail is an error's stable code and a sentence for people.
type ErrorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Error is an error answered with its own code and message. Make one with
// Errorf.
type Error struct {
	// Code is the error's stable code; the API's Options.Status maps it to
	// an HTTP status.
	Code string
	// Message is shown to the client.
	Message string
	// Err is the error Message was made from (the %w operand of Errorf), or
	// nil.
	Err error
	// RetryAfter, when positive, is answered as a Retry-After header, in
	// whole seconds rounded up (a 429 or a 503 the client may retry).
	RetryAfter time.Duration
}

// RetryAfterSeconds is d as a Retry-After header gives it: whole seconds,
// rounded up, at least 1.
func RetryAfterSeconds(d time.Duration) int64 {
	return max(1, int64((d+time.Second-1)/time.Second))
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

// Unwrap returns the wrapped error, if any.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with code and a message formatted as fmt.Errorf
// does; an error given with %w is wrapped.
func Errorf(code, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &Error{Code: code, Message: err.Error(), Err: errors.Unwrap(err)}
}

// Options configures New. The zero value of each field means its default.
type Options struct {
	// Status maps each of the API's own error codes to an HTTP status. The
	// codes of this package have fixed statuses and never reach it. A nil
	// Status answers every other code 500.
	Status func(code string) int
	// Code, when set, gives the code of an error that is not an *Error (a
	// domain error that carries its own code, say); such an error is
	// answered with that code and err.Error() as its message. An empty code
	// means an internal error.
	Code func(err error) string
	// MaxBody limits every request body, in bytes. Defaults to
	// DefaultMaxBody (1 MiB).
	MaxBody int64
	// ReadErrorCode is the code of a request body that cannot be read for
	// a reason other than its size (a broken connection, a malformed
	// chunked encoding). Defaults to CodeBadJSON.
	ReadErrorCode string
	// Logger logs internal errors and panics. Defaults to slog.Default().
	Logger *slog.Logger
	// Name starts each log message, as in "api: internal error".
	Name string
}

// Server is one JSON API: a ServeMux whose unknown routes, wrong methods and
// panics are answered in JSON, with the helpers its handlers share.
type Server struct {
	mux  *http.ServeMux
	opts Options
	// limits are the routes' own body limits (Limit), by pattern.
	limits map[string]int64
}

// New returns a Server with no routes.
func New(opts Options) *Server {
	if opts.MaxBody <= 0 {
		opts.MaxBody = DefaultMaxBody
	}
	if opts.ReadErrorCode == "" {
		opts.ReadErrorCode = CodeBadJSON
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Server{mux: http.NewServeMux(), opts: opts, limits: map[string]int64{}}
}

// Limit sets the body limit of the requests routed to pattern (as it was
// registered), in place of Options.MaxBody: a route that takes larger
// bodies (an array form) raises its own limit, not every route's.
func (s *Server) Limit(pattern string, n int64) {
	s.limits[pattern] = n
}

// Handle registers h for pattern (a net/http.ServeMux pattern).
func (s *Server) Handle(pattern string, h http.Handler) {
	s.mux.Handle(pattern, h)
}

// HandleJSON registers for pattern a handler that returns a value or an
// error: the value is answered 200 in JSON, the error as WriteError does.
func (s *Server) HandleJSON(pattern string, h func(*http.Request) (any, error)) {
	s.mux.Handle(pattern, s.JSONHandler(h))
}

// JSONHandler is the handler HandleJSON registers for h: h's value is
// answered 200 in JSON, its error as WriteError does.
func (s *Server) JSONHandler(h func(*http.Request) (any, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, err := h(r)
		if err != nil {
			s.WriteError(w, err)
			return
		}
		s.WriteJSON(w, http.StatusOK, v)
	})
}

// ServeHTTP limits the request body to Options.MaxBody (or its route's
// Limit) and routes the
// request, answering unknown routes (404 route_not_found) and wrong methods
// (405 method_not_allowed, with Allow) in JSON rather than the mux's plain
// text, and a panic with a JSON 500.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler { //nolint:errorlint // a panic value, compared as net/http compares it
				panic(v)
			}
			s.opts.Logger.Error(s.opts.Name+": panic", "method", r.Method, "path", r.URL.Path, "panic", v)
			s.WriteError(w, Errorf(CodeInternal, "internal error"))
		}
	}()
	h, pattern := s.mux.Handler(r)
	if r.Body != nil {
		limit, ok := s.limits[pattern]
		if !ok {
			limit = s.opts.MaxBody
		}
		r.Body = http.MaxBytesReader(w, r.Body, limit)
	}
	if pattern != "" {
		s.mux.ServeHTTP(w, r)
		return
	}
	// No pattern: the mux would answer 404 or 405 in plain text (or redirect
	// an unclean path to a route that does not exist). Find out which and
	// answer in JSON.
	rec := &headerRecorder{h: http.Header{}}
	h.ServeHTTP(rec, r)
	if rec.status == http.StatusMethodNotAllowed {
		allow := rec.h.Get("Allow")
		w.Header().Set("Allow", allow)
		s.WriteError(w, Errorf(CodeMethodNotAllowed, "method %s is not allowed on %s (allowed: %s)", r.Method, r.URL.Path, allow))
		return
	}
	s.WriteError(w, Errorf(CodeRouteNotFound, "no route %s %s", r.Method, r.URL.Path))
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

// WriteJSON answers v in JSON, without HTML escaping, with status. A value
// that cannot be encoded is answered as an internal error.
func (s *Server) WriteJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		s.WriteError(w, fmt.Errorf("encoding the response: %w", err))
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// WriteError answers err as {"error":{"code","message"}}: with its own code
// and message when it is (or wraps) an *Error, with the code Options.Code
// gives it and its text otherwise, and else as a logged 500 "internal
// error".
func (s *Server) WriteError(w http.ResponseWriter, err error) {
	status, d := s.ErrorOf(err)
	b, _ := json.Marshal(ErrorBody{Error: d}) // strings only: cannot fail
	b = append(b, '\n')
	h := w.Header()
	if e := (*Error)(nil); errors.As(err, &e) && e.RetryAfter > 0 {
		h.Set("Retry-After", strconv.FormatInt(RetryAfterSeconds(e.RetryAfter), 10))
	}
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	h.Del("Content-Encoding")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// ErrorOf is the status and the code and message WriteError answers err
// with (an error without a code is logged and is an internal error): for a
// handler that reports errors inside its own answer (a batch's items).
func (s *Server) ErrorOf(err error) (int, ErrorDetail) {
	d := s.detail(err)
	return s.status(d.Code), d
}

// detail is the code and message WriteError answers err with.
func (s *Server) detail(err error) ErrorDetail {
	var e *Error
	if errors.As(err, &e) {
		return ErrorDetail{Code: e.Code, Message: e.Message}
	}
	if s.opts.Code != nil {
		if code := s.opts.Code(err); code != "" {
			return ErrorDetail{Code: code, Message: err.Error()}
		}
	}
	s.opts.Logger.Error(s.opts.Name+": internal error", "err", err)
	return ErrorDetail{Code: CodeInternal, Message: "internal error"}
}

// status maps an error code to its HTTP status.
func (s *Server) status(code string) int {
	switch code {
	case CodeBadJSON:
		return http.StatusBadRequest
	case CodeTooLarge:
		return http.StatusRequestEntityTooLarge
	case CodeRouteNotFound:
		return http.StatusNotFound
	case CodeMethodNotAllowed:
		return http.StatusMethodNotAllowed
	case CodeUnsupportedMediaType:
		return http.StatusUnsupportedMediaType
	case CodeInternal:
		return http.StatusInternalServerError
	}
	if s.opts.Status == nil {
		return http.StatusInternalServerError
	}
	return s.opts.Status(code)
}

// ReadBody reads the body of a request that s serves (ServeHTTP limits it).
// A body over Options.MaxBody is a too_large error, one that cannot be read
// an Options.ReadErrorCode error.
func (s *Server) ReadBody(r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(r.Body)
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return nil, Errorf(CodeTooLarge, "request body is over the limit of %d bytes", mbe.Limit)
	}
	if err != nil {
		return nil, Errorf(s.opts.ReadErrorCode, "reading the request body: %w", err)
	}
	return b, nil
}

// ReadJSON reads the body as ReadBody does and decodes it into v as
// DecodeStrict does.
func (s *Server) ReadJSON(r *http.Request, v any) error {
	b, err := s.ReadBody(r)
	if err != nil {
		return err
	}
	return DecodeStrict(b, v)
}

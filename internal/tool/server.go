package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"time"

	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/httpjson"
)

// The codes a tool server answers with, beyond httpjson's.
const (
	CodeInvalidInput  = "invalid_input"  // 422: the input fails the input schema, or the tool refuses it
	CodeUnsigned      = "unsigned"       // 401: a signature header is missing
	CodeBadSignature  = "bad_signature"  // 401: malformed headers, or a signature that does not verify
	CodeStale         = "stale"          // 401: the timestamp is outside the window
	CodeReplayed      = "replayed"       // 401: the same signed request was accepted before
	CodeUnknownLeader = "unknown_leader" // 403: the signer is not an allowed leader
	CodeToolFailed    = "tool_failed"    // 500: the tool failed; a retry may succeed
	CodeBadOutput     = "bad_output"     // 500: the tool's output fails its own output schema
	CodeUnhealthy     = "unhealthy"      // 503: the tool says it cannot serve
)

// ErrInvalidInput marks a tool's refusal of an input that passed its schema
// (a division by zero, say): Invoke returns an error wrapping it, answered
// 422 invalid_input with the error's text. Any other error is answered 500
// tool_failed.
var ErrInvalidInput = errors.New("invalid input")

// Meta describes a tool: what GET /meta answers.
type Meta struct {
	// Name is the tool's name, as the registry knows it.
	Name string `json:"name"`
	// Description says what the tool does.
	Description string `json:"description"`
	// InputSchema is the JSON Schema every input must match.
	InputSchema json.RawMessage `json:"inputSchema"`
	// OutputSchema is the JSON Schema every output matches.
	OutputSchema json.RawMessage `json:"outputSchema"`
	// Version is the tool's version.
	Version string `json:"version"`
}

// validate checks what a caller relies on: a name and two schemas that are
// JSON objects or booleans.
func (m Meta) validate() error {
	if m.Name == "" {
		return errors.New("no name")
	}
	for _, s := range []struct {
		name string
		raw  json.RawMessage
	}{{"inputSchema", m.InputSchema}, {"outputSchema", m.OutputSchema}} {
		var v any
		if err := json.Unmarshal(s.raw, &v); err != nil {
			return fmt.Errorf("%s is not JSON", s.name)
		}
		switch v.(type) {
		case map[string]any, bool:
		default:
			return fmt.Errorf("%s is not a JSON Schema (an object or a boolean)", s.name)
		}
	}
	return nil
}

// InvokeRequest is the body of POST /invoke.
type InvokeRequest struct {
	// Input is the tool's input, any JSON value its input schema allows.
	Input json.RawMessage `json:"input"`
}

// InvokeResponse is the body of a 200 from POST /invoke.
type InvokeResponse struct {
	// Output is the tool's output, matching its output schema.
	Output json.RawMessage `json:"output"`
}

// Tool is what a Server serves.
type Tool interface {
	// Meta describes the tool; the Server reads it once, at NewServer.
	Meta() Meta
	// Invoke runs the tool on input, which matches the input schema. An
	// error wrapping ErrInvalidInput refuses the input (422); any other
	// error is a failure a retry may cure (500).
	Invoke(ctx context.Context, input json.RawMessage) (json.RawMessage, error)
}

// Healther is implemented by tools that can tell whether they can serve;
// GET /health answers 503 unhealthy with the error's text when Health
// returns one.
type Healther interface {
	Health(ctx context.Context) error
}

// Option configures NewServer.
type Option func(*serverConfig)

type serverConfig struct {
	leaders []string
	window  time.Duration
	clock   clock.Clock
	maxBody int64
	logger  *slog.Logger
}

// RequireLeader makes the server refuse any POST /invoke not signed by one
// of the leaders (chain addresses: hex ed25519 public keys or 0x EVM
// addresses, see ValidLeader) within the window. Without it the
// signature headers are ignored.
func RequireLeader(allowed []string) Option {
	return func(c *serverConfig) { c.leaders = slices.Clone(allowed) }
}

// WithWindow sets how far a signature's timestamp may be from the server's
// clock. Defaults to DefaultWindow (5 minutes).
func WithWindow(d time.Duration) Option { return func(c *serverConfig) { c.window = d } }

// WithClock sets the clock signatures are checked against. Defaults to
// clock.Real.
func WithClock(c clock.Clock) Option { return func(sc *serverConfig) { sc.clock = c } }

// WithMaxBody limits a request body, in bytes. Defaults to
// httpjson.DefaultMaxBody (1 MiB).
func WithMaxBody(n int64) Option { return func(c *serverConfig) { c.maxBody = n } }

// WithLogger sets the logger of internal errors and refusals. Defaults to
// slog.Default().
func WithLogger(l *slog.Logger) Option { return func(c *serverConfig) { c.logger = l } }

// Server serves one Tool over the protocol: GET /meta, GET /health and
// POST /invoke. It is an http.Handler.
type Server struct {
	tool     Tool
	meta     Meta
	in, out  *schema
	verifier *Verifier // nil: signatures not required
	clock    clock.Clock
	log      *slog.Logger
	http     *httpjson.Server
}

// NewServer returns a Server for t. It fails when t's metadata has no name,
// when a schema does not compile, or when RequireLeader names something
// that is not a chain address.
func NewServer(t Tool, opts ...Option) (*Server, error) {
	cfg := serverConfig{clock: clock.Real{}, logger: slog.Default()}
	for _, o := range opts {
		o(&cfg)
	}
	m := t.Meta()
	if err := m.validate(); err != nil {
		return nil, fmt.Errorf("tool: metadata: %w", err)
	}
	in, err := compileSchema(m.Name+"/input", m.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("tool %s: input schema: %w", m.Name, err)
	}
	out, err := compileSchema(m.Name+"/output", m.OutputSchema)
	if err != nil {
		return nil, fmt.Errorf("tool %s: output schema: %w", m.Name, err)
	}
	s := &Server{tool: t, meta: m, in: in, out: out, clock: cfg.clock, log: cfg.logger}
	if cfg.leaders != nil {
		if len(cfg.leaders) == 0 {
			return nil, errors.New("tool: RequireLeader with no leader would refuse every invocation")
		}
		allowed := map[string]bool{}
		for _, l := range cfg.leaders {
			if err := ValidLeader(l); err != nil {
				return nil, fmt.Errorf("tool: required leader %q: %w", l, err)
			}
			allowed[l] = true
		}
		s.verifier = NewVerifier(func(l string) bool { return allowed[l] }, cfg.window)
	}
	s.http = httpjson.New(httpjson.Options{Status: statusOf, MaxBody: cfg.maxBody, Logger: cfg.logger, Name: "tool " + m.Name})
	s.http.HandleJSON("GET /meta", func(*http.Request) (any, error) { return s.meta, nil })
	s.http.HandleJSON("GET /health", s.health)
	s.http.Handle("POST /invoke", s.http.JSONOnly(s.http.JSONHandler(s.invoke)))
	return s, nil
}

// ServeHTTP serves the three routes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.http.ServeHTTP(w, r) }

// Meta returns the metadata the server answers.
func (s *Server) Meta() Meta { return s.meta }

func (s *Server) health(r *http.Request) (any, error) {
	if h, ok := s.tool.(Healther); ok {
		if err := h.Health(r.Context()); err != nil {
			return nil, httpjson.Errorf(CodeUnhealthy, "tool %s is unhealthy: %w", s.meta.Name, err)
		}
	}
	return map[string]string{"status": "ok"}, nil
}

func (s *Server) invoke(r *http.Request) (any, error) {
	body, err := s.http.ReadBody(r)
	if err != nil {
		return nil, err
	}
	if s.verifier != nil {
		if _, err := s.verifier.Verify(r, body, s.clock.Now()); err != nil {
			s.log.Warn("tool: refused an invocation", "tool", s.meta.Name, "remote", r.RemoteAddr, "err", err)
			return nil, httpjson.Errorf(signatureCode(err), "%w", err)
		}
	}
	var req InvokeRequest
	if err := httpjson.DecodeStrictRaw(body, &req); err != nil {
		return nil, err
	}
	if req.Input == nil {
		return nil, httpjson.Errorf(httpjson.CodeBadJSON, `request body has no "input"`)
	}
	if err := s.in.check("input", req.Input); err != nil {
		return nil, httpjson.Errorf(CodeInvalidInput, "%w", err)
	}
	out, err := s.tool.Invoke(r.Context(), req.Input)
	if errors.Is(err, ErrInvalidInput) {
		return nil, httpjson.Errorf(CodeInvalidInput, "%w", err)
	}
	if err != nil {
		s.log.Warn("tool: invocation failed", "tool", s.meta.Name, "err", err)
		return nil, httpjson.Errorf(CodeToolFailed, "tool %s failed: %w", s.meta.Name, err)
	}
	if err := s.out.check("output", out); err != nil {
		s.log.Error("tool: output breaks its own schema", "tool", s.meta.Name, "err", err)
		return nil, httpjson.Errorf(CodeBadOutput, "tool %s: %w", s.meta.Name, err)
	}
	return InvokeResponse{Output: out}, nil
}

// signatureCode is the code of a Verify error.
func signatureCode(err error) string {
	switch {
	case errors.Is(err, ErrUnsigned):
		return CodeUnsigned
	case errors.Is(err, ErrUnknownLeader):
		return CodeUnknownLeader
	case errors.Is(err, ErrStale):
		return CodeStale
	case errors.Is(err, ErrReplayed):
		return CodeReplayed
	}
	return CodeBadSignature
}

// statusOf maps the server's codes to HTTP statuses.
func statusOf(code string) int {
	switch code {
	case CodeInvalidInput:
		return http.StatusUnprocessableEntity
	case CodeUnsigned, CodeBadSignature, CodeStale, CodeReplayed:
		return http.StatusUnauthorized
	case CodeUnknownLeader:
		return http.StatusForbidden
	case CodeUnhealthy:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

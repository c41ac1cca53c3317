package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/egress"
	"github.com/ordolabs/ordo/internal/httpjson"
)

// DefaultTimeout bounds a call whose context has no deadline.
const DefaultTimeout = 30 * time.Second

// DefaultMaxResponse is the default limit on a tool's response body, in
// bytes.
const DefaultMaxResponse = 1 << 20

// The codes of the errors the client makes itself (a tool's own error
// keeps the tool's code).
const (
	CodeTimeout     = "timeout"     // retriable: no answer within the deadline
	CodeUnreachable = "unreachable" // retriable: refused, reset or unresolvable
	CodeProtocol    = "protocol"    // fatal: the tool broke the protocol
	CodeBadURL      = "bad_url"     // fatal: the tool's URL is not http(s)
	CodeToolError   = "tool_error"  // the tool answered an error without the error body
	CodeCanceled    = "canceled"    // retriable: the caller's context was cancelled
	CodeBadKey      = "bad_key"     // fatal: the signing key is neither ed25519 nor secp256k1
	// CodeEgressRefused is fatal: the node's egress policy refused the
	// address the tool's URL resolves to (internal/egress).
	CodeEgressRefused = "egress_refused"
)

// InvokeError is every error Invoke, Meta and Health return: whether the
// caller may retry, the HTTP status (0 when no answer came), the error's
// code (the tool's, or one of the Code constants) and a sentence.
type InvokeError struct {
	// Retriable says that the same call may succeed later: a timeout, a
	// cancelled context, a connection that failed, a 5xx, 408, 429 or 401
	// replayed. Otherwise
	// the failure is fatal: the input (or the tool) must change first.
	Retriable bool
	// Status is the HTTP status of the answer, 0 when none came.
	Status int
	// Code is the error's stable code.
	Code string
	// Message is a sentence for people.
	Message string
	// Err is the underlying error, if any (a transport error, a context's).
	Err error
}

// Error describes the failure.
func (e *InvokeError) Error() string {
	kind := "fatal"
	if e.Retriable {
		kind = "retriable"
	}
	if e.Status != 0 {
		return fmt.Sprintf("tool: %s: %d %s: %s", kind, e.Status, e.Code, e.Message)
	}
	return fmt.Sprintf("tool: %s: %s: %s", kind, e.Code, e.Message)
}

// Unwrap returns the underlying error.
func (e *InvokeError) Unwrap() error { return e.Err }

// IsRetriable reports whether err is (or wraps) a retriable *InvokeError.
func IsRetriable(err error) bool {
	var ie *InvokeError
	return errors.As(err, &ie) && ie.Retriable
}

// Client calls tools. The zero value is ready to use.
type Client struct {
	// HTTP sends the requests; its redirect policy is overridden (a
	// redirect is never followed). The node gives one whose transport
	// dials only what its egress policy allows (egress.Policy.Client): a
	// refused address is a fatal CodeEgressRefused. Defaults to a client
	// with no timeout of its own (the context's deadline rules) and no
	// egress policy.
	HTTP *http.Client
	// Timeout bounds a call whose context has no deadline. Defaults to
	// DefaultTimeout (30s).
	Timeout time.Duration
	// MaxResponse limits a response body, in bytes; a longer one is a
	// protocol break. Defaults to DefaultMaxResponse (1 MiB).
	MaxResponse int64
}

// DefaultClient is the Client the package's functions use.
var DefaultClient = &Client{}

// Invoke calls DefaultClient.Invoke. (Meta and Health are Client methods:
// DefaultClient.Meta(ctx, url).)
func Invoke(ctx context.Context, toolURL string, input json.RawMessage, key chain.Key, now time.Time) (json.RawMessage, error) {
	return DefaultClient.Invoke(ctx, toolURL, input, key, now)
}

// Invoke posts {"input": input} to the tool at toolURL (its base: the
// client appends /invoke), signed with key at now (the leader's account
// key, ed25519 or secp256k1: see Sign; a nil key sends it unsigned), and returns the tool's output. Every error is an
// *InvokeError saying whether a retry may succeed.
func (c *Client) Invoke(ctx context.Context, toolURL string, input json.RawMessage, key chain.Key, now time.Time) (json.RawMessage, error) {
	if !json.Valid(input) {
		return nil, &InvokeError{Code: httpjson.CodeBadJSON, Message: "the input is not valid JSON"}
	}
	body, err := json.Marshal(InvokeRequest{Input: input})
	if err != nil {
		return nil, &InvokeError{Code: httpjson.CodeBadJSON, Message: "encoding the input: " + err.Error(), Err: err}
	}
	var out InvokeResponse
	if err := c.call(ctx, http.MethodPost, toolURL, "/invoke", body, key, now, &out); err != nil {
		return nil, err
	}
	if out.Output == nil {
		return nil, &InvokeError{Status: http.StatusOK, Code: CodeProtocol, Message: `the tool broke the protocol: its answer has no "output"`}
	}
	return out.Output, nil
}

// Meta fetches the tool's metadata from GET /meta; an answer without a
// name or with schemas that are not JSON objects (or booleans) is a
// protocol break.
func (c *Client) Meta(ctx context.Context, toolURL string) (Meta, error) {
	var m Meta
	if err := c.call(ctx, http.MethodGet, toolURL, "/meta", nil, nil, time.Time{}, &m); err != nil {
		return m, err
	}
	if err := m.validate(); err != nil {
		return m, &InvokeError{Status: http.StatusOK, Code: CodeProtocol, Message: "the tool broke the protocol: /meta: " + err.Error()}
	}
	return m, nil
}

// Health asks GET /health; nil means the tool answered 200.
func (c *Client) Health(ctx context.Context, toolURL string) error {
	var st struct {
		Status string `json:"status"`
	}
	return c.call(ctx, http.MethodGet, toolURL, "/health", nil, nil, time.Time{}, &st)
}

// call sends one request and decodes a 2xx answer strictly into out.
func (c *Client) call(ctx context.Context, method, base, route string, body []byte, key chain.Key, now time.Time, out any) error {
	u, err := joinURL(base, route)
	if err != nil {
		return &InvokeError{Code: CodeBadURL, Message: err.Error(), Err: err}
	}
	if _, ok := ctx.Deadline(); !ok {
		timeout := c.Timeout
		if timeout <= 0 {
			timeout = DefaultTimeout
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return &InvokeError{Code: CodeBadURL, Message: err.Error(), Err: err}
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if !isNoKey(key) {
		if err := Sign(req, key, now); err != nil {
			return &InvokeError{Code: CodeBadKey, Message: err.Error(), Err: err}
		}
	}
	resp, err := c.httpClient().Do(req)
	if err != nil {
		return transportError(ctx, err)
	}
	defer func() { _ = resp.Body.Close() }()
	limit := c.MaxResponse
	if limit <= 0 {
		limit = DefaultMaxResponse
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		ie := transportError(ctx, err)
		ie.Status = resp.StatusCode
		return ie
	}
	if int64(len(b)) > limit {
		return &InvokeError{Status: resp.StatusCode, Code: CodeProtocol, Message: fmt.Sprintf("the tool broke the protocol: its answer is over %d bytes", limit)}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return statusError(resp.StatusCode, b)
	}
	if err := decodeAnswer(b, out); err != nil {
		return &InvokeError{Status: resp.StatusCode, Code: CodeProtocol, Message: fmt.Sprintf("the tool broke the protocol: %s %s answered %s", method, route, err), Err: err}
	}
	return nil
}

func (c *Client) httpClient() *http.Client {
	hc := http.Client{}
	if c.HTTP != nil {
		hc = *c.HTTP
	}
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &hc
}

// joinURL appends route to the tool's base URL, which must be http(s).
func joinURL(base, route string) (string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", fmt.Errorf("tool URL %q: %w", base, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("tool URL %q: want http:// or https:// and a host", base)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("tool URL %q: no query or fragment allowed", base)
	}
	return strings.TrimRight(base, "/") + route, nil
}

// transportError classifies a failure to get an answer: retriable, a
// timeout when the deadline passed, unless the node's egress policy refused
// the tool's address (fatal: the URL must change, or the operator's
// policy).
func transportError(ctx context.Context, err error) *InvokeError {
	var ne net.Error
	var re *egress.RefusedError
	switch {
	case errors.As(err, &re):
		return &InvokeError{Code: CodeEgressRefused, Message: "the tool's URL leads to an address the node's egress policy refuses: " + re.Error(), Err: err}
	case errors.Is(err, egress.ErrRefused):
		return &InvokeError{Code: CodeEgressRefused, Message: "the node's egress policy refused the tool's URL: " + err.Error(), Err: err}
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		return &InvokeError{Retriable: true, Code: CodeTimeout, Message: "no answer before the deadline: " + err.Error(), Err: err}
	case errors.Is(err, context.Canceled):
		return &InvokeError{Retriable: true, Code: CodeCanceled, Message: "the call was cancelled: " + err.Error(), Err: err}
	}
	return &InvokeError{Retriable: true, Code: CodeUnreachable, Message: err.Error(), Err: err}
}

// statusError classifies an answer that is not a 2xx.
func statusError(status int, body []byte) *InvokeError {
	ie := &InvokeError{Status: status, Code: CodeToolError, Message: http.StatusText(status)}
	var eb httpjson.ErrorBody
	if json.Unmarshal(body, &eb) == nil && eb.Error.Code != "" {
		ie.Code, ie.Message = eb.Error.Code, eb.Error.Message
	}
	switch {
	case status >= 500:
		ie.Retriable = true
	case status == http.StatusRequestTimeout, status == http.StatusTooManyRequests:
		ie.Retriable = true
	case status == http.StatusUnauthorized && ie.Code == CodeReplayed:
		ie.Retriable = true // the same second's signature: the next one differs
	case status >= 300 && status < 400:
		ie.Code, ie.Message = CodeProtocol, fmt.Sprintf("the tool broke the protocol: it redirected (%d); redirects are not followed", status)
	}
	return ie
}

// decodeAnswer decodes exactly one JSON object into out, refusing unknown
// fields and trailing data.
func decodeAnswer(b []byte, out any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(out); err != nil {
		if errors.Is(err, io.EOF) {
			return errors.New("an empty body")
		}
		return fmt.Errorf("a body that is not the expected JSON: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("data after the JSON value")
	}
	return nil
}

package client

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ordolabs/ordo/apitypes"
)

// Error codes the node answers with.
const (
	CodeBadJSON          = "bad_json"
	CodeBadQuery         = "bad_query"
	CodeTooLarge         = "too_large"
	CodeInvalid          = "invalid"
	CodeTypeNotAllowed   = "type_not_allowed"
	CodeIdempotency      = "idempotency_conflict"
	CodeNotFound         = "not_found"
	CodeRouteNotFound    = "route_not_found"
	CodeMethodNotAllowed = "method_not_allowed"
	// CodeUnsupportedMediaType: a mutating request without Content-Type:
	// application/json (the client always sends it).
	CodeUnsupportedMediaType = "unsupported_media_type"
	CodeInternal             = "internal"
	// CodeUnauthenticated (401): no token, or one the node does not know
	// (see WithToken).
	CodeUnauthenticated = "unauthenticated"
	// CodeForbidden (403): the token's principal lacks the role the call
	// needs (submit to Send, read to the reads).
	CodeForbidden = "forbidden"
	// CodeTypeForbidden (403): the principal may not submit this type
	// (the node's intake.typeRoles).
	CodeTypeForbidden = "type_forbidden"
	// CodeStarting is what Health reports while the node has not started.
	CodeStarting = "starting"
)

// Transaction states.
const (
	StateWaiting  = "WAITING"
	StateRevision = "REVISION"
	StateRetry    = "RETRY"
	StateDone     = "DONE"
	StateFailed   = "FAILED"
)

// Intake is a transaction intent for Send and SendMany.
type Intake struct {
	// Queue names the queue (for the built-in zkApp types, the zkApp).
	Queue string `json:"queue"`
	// Type is one of the node's allowed transaction types.
	Type string `json:"type"`
	// Data is any JSON value, stored as given. Empty means {}.
	Data json.RawMessage `json:"data,omitempty"`
	// IdempotencyKey, when set, makes a repeated Send return the record the
	// first one created.
	IdempotencyKey string `json:"idempotencyKey,omitempty"`
}

// The wire types the client reads: the node's own (package apitypes).
type (
	// Attempt is one dispatch of a transaction.
	Attempt = apitypes.Attempt
	// Transaction is a sequencer record.
	Transaction = apitypes.Transaction
	// TxState is a transaction's state (StateWaiting, ...).
	TxState = apitypes.TxState
	// HistoryEntry is one state transition of a transaction.
	HistoryEntry = apitypes.HistoryEntry
	// Queue is a queue and its binding to a sender.
	Queue = apitypes.Queue
	// QueueStats is a queue with its transaction counts by state, and its
	// replica set when it is replicated (GET /v1/queues/{name}).
	QueueStats = apitypes.QueueResponse
	// Sender is a signing account of the node.
	Sender = apitypes.Sender
	// Cancel is an operator's cancel of a sender's stuck nonce, as the
	// node took it: the transaction whose attempt is pending there, and
	// what becomes of it once a no-op holds the nonce (Then: "fail" or
	// "requeue").
	Cancel = apitypes.CancelResponse
)

// ListOptions select transactions for List. Zero fields are left out.
type ListOptions struct {
	Queue string
	State string
	// Limit is 1-1000; 0 means the node's default (100).
	Limit int
	// Cursor is the next value of a previous page.
	Cursor string
}

// PageOptions select a page of a list (Queues). Zero fields are left out.
type PageOptions struct {
	// Limit is 1-1000; 0 means the node's default (100).
	Limit int
	// Cursor is the next value of a previous page.
	Cursor string
}

// APIError is an error answered by the node.
type APIError struct {
	// Status is the HTTP status.
	Status int
	// Code is the API's stable error code (CodeInvalid, ...).
	Code string
	// Message is a sentence for people.
	Message string
}

// Error returns the code and message.
func (e *APIError) Error() string {
	return fmt.Sprintf("ordo: %s (%d): %s", e.Code, e.Status, e.Message)
}

// Client talks to one node. It is safe for concurrent use.
type Client struct {
	base  string
	hc    *http.Client
	token string
	// roots are the CAs an https:// node's certificate must chain to
	// (nil: the system's).
	roots *x509.CertPool
	// err is an option's error, returned by every call.
	err error
}

// Option configures New.
type Option func(*Client)

// WithToken makes every request carry Authorization: Bearer token, the
// token of one of the node's principals (`ordo token` makes one; the node's
// config lists it). Without it, a node outside dev mode answers 401
// unauthenticated to everything but its health.
func WithToken(token string) Option {
	return func(c *Client) { c.token = token }
}

// WithRootCAs makes the client trust only the certificate authorities of
// pool for a node served over HTTPS (api.tls in the node's config), in
// place of the system's: for a node whose certificate is self-signed or
// from a private CA. It applies to hc's transport when that is nil or an
// *http.Transport (a copy is changed, never hc itself).
func WithRootCAs(pool *x509.CertPool) Option {
	return func(c *Client) { c.roots = pool }
}

// WithCAFile is WithRootCAs with the PEM certificates of the file at
// path. A file that cannot be read or holds no certificate makes every
// call of the client return that error.
func WithCAFile(path string) Option {
	return func(c *Client) {
		pool, err := LoadCAFile(path)
		if err != nil {
			c.err = err
			return
		}
		c.roots = pool
	}
}

// LoadCAFile reads the PEM certificates of the file at path into a pool.
func LoadCAFile(path string) (*x509.CertPool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("ordo client: CA file: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		return nil, fmt.Errorf("ordo client: CA file %s holds no PEM certificate", path)
	}
	return pool, nil
}

// New returns a client of the node at baseURL (such as
// "http://127.0.0.1:7070", or https://… for a node that serves TLS: its
// certificate is checked against the system's CAs unless WithRootCAs or
// WithCAFile names others). A nil hc means http.DefaultClient.
func New(baseURL string, hc *http.Client, opts ...Option) *Client {
	if hc == nil {
		hc = http.DefaultClient
	}
	c := &Client{base: strings.TrimRight(baseURL, "/"), hc: hc}
	for _, o := range opts {
		o(c)
	}
	if c.roots != nil {
		c.hc = withRoots(hc, c.roots)
	}
	return c
}

// withRoots returns a copy of hc whose transport trusts roots.
func withRoots(hc *http.Client, roots *x509.CertPool) *http.Client {
	var tr *http.Transport
	switch t := hc.Transport.(type) {
	case nil:
		tr = http.DefaultTransport.(*http.Transport).Clone()
	case *http.Transport:
		tr = t.Clone()
	default:
		return hc
	}
	if tr.TLSClientConfig == nil {
		tr.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	tr.TLSClientConfig.RootCAs = roots
	cp := *hc
	cp.Transport = tr
	return &cp
}

// maxResponse bounds a response body the client reads.
const maxResponse = 64 << 20

// do sends a request and decodes a 2xx JSON answer into out. It returns the
// status.
func (c *Client) do(ctx context.Context, method, path string, body, out any) (int, error) {
	status, b, err := c.roundTrip(ctx, method, path, body)
	if err != nil {
		return status, err
	}
	if status < 200 || status > 299 {
		return status, decodeError(status, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return status, fmt.Errorf("ordo client: %s %s: decoding the response: %w", method, path, err)
		}
	}
	return status, nil
}

// roundTrip sends a request with an optional JSON body and returns the
// status and the body of the answer.
func (c *Client) roundTrip(ctx context.Context, method, path string, body any) (int, []byte, error) {
	if c.err != nil {
		return 0, nil, c.err
	}
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, fmt.Errorf("ordo client: encoding the request: %w", err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return 0, nil, fmt.Errorf("ordo client: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("ordo client: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil {
		return resp.StatusCode, nil, fmt.Errorf("ordo client: %s %s: reading the response: %w", method, path, err)
	}
	return resp.StatusCode, b, nil
}

// decodeError makes an *APIError of an error response, with or without the
// API's JSON body.
func decodeError(status int, b []byte) error {
	var body struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(b, &body) == nil && body.Error.Code != "" {
		return &APIError{Status: status, Code: body.Error.Code, Message: body.Error.Message}
	}
	msg := strings.TrimSpace(string(b))
	if len(msg) > 200 {
		msg = msg[:200] + "…"
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	return &APIError{Status: status, Code: "http_" + strconv.Itoa(status), Message: msg}
}

// Send submits an intent. created is true when the node made a new record
// and false when it found one by the idempotency key; either way the record
// is committed. A queue, type or key that is not valid UTF-8 is refused
// here: encoding it in JSON would replace its bad bytes with U+FFFD, so two
// distinct names would reach the node as one (which the node refuses too).
func (c *Client) Send(ctx context.Context, in Intake) (tx Transaction, created bool, err error) {
	if err := in.checkUTF8(); err != nil {
		return Transaction{}, false, fmt.Errorf("ordo client: %w", err)
	}
	status, err := c.do(ctx, http.MethodPost, "/v1/transactions", in, &tx)
	if err != nil {
		return Transaction{}, false, err
	}
	return tx, status == http.StatusCreated, nil
}

// checkUTF8 refuses a queue, type or key that is not valid UTF-8 (see
// Send).
func (in Intake) checkUTF8() error {
	for _, f := range []struct{ name, v string }{{"queue", in.Queue}, {"type", in.Type}, {"idempotencyKey", in.IdempotencyKey}} {
		if !utf8.ValidString(f.v) {
			return fmt.Errorf("%s is not valid UTF-8", f.name)
		}
	}
	return nil
}

// MaxSendMany is the most intents SendMany takes in one call (the node's
// limit on one request).
const MaxSendMany = 1000

// SendResult is one intent's result from SendMany: the record (Created as
// Send's created) or the error the node would have answered Send of that
// intent alone with, an *APIError.
type SendResult struct {
	Transaction Transaction
	Created     bool
	Err         error
}

// SendMany submits 1 to MaxSendMany intents in one request (the array form
// of POST /v1/transactions) and returns one result per intent, in order.
// The node commits the intents it accepts together and refuses the others
// one by one: a refused intent (invalid, a conflicting idempotency key, a
// type the principal may not submit) has its Err and does not stop the
// rest. err is for the request as a whole (it failed, or the node refused
// it); then no result is returned. As with Send, a queue, type or key that
// is not valid UTF-8 is refused here, and a request that fails may have
// committed its intents: send them again with their idempotency keys.
func (c *Client) SendMany(ctx context.Context, in []Intake) ([]SendResult, error) {
	if len(in) == 0 || len(in) > MaxSendMany {
		return nil, fmt.Errorf("ordo client: SendMany takes 1 to %d intents, got %d", MaxSendMany, len(in))
	}
	for i, it := range in {
		if err := it.checkUTF8(); err != nil {
			return nil, fmt.Errorf("ordo client: intent %d: %w", i, err)
		}
	}
	var items []apitypes.BatchResult
	if _, err := c.do(ctx, http.MethodPost, "/v1/transactions", in, &items); err != nil {
		return nil, err
	}
	if len(items) != len(in) {
		return nil, fmt.Errorf("ordo client: SendMany: %d results for %d intents", len(items), len(in))
	}
	out := make([]SendResult, len(in))
	for i, it := range items {
		switch {
		case it.Error != nil:
			out[i].Err = &APIError{Status: it.Status, Code: it.Error.Code, Message: it.Error.Message}
		case it.Transaction != nil:
			out[i] = SendResult{Transaction: *it.Transaction, Created: it.Created}
		default:
			return nil, fmt.Errorf("ordo client: SendMany: result %d has neither a transaction nor an error", i)
		}
	}
	return out, nil
}

// Get returns a transaction, with its attempts, and its history of state
// transitions, oldest first.
func (c *Client) Get(ctx context.Context, uid string) (Transaction, []HistoryEntry, error) {
	var out apitypes.TransactionResponse
	if _, err := c.do(ctx, http.MethodGet, "/v1/transactions/"+url.PathEscape(uid), nil, &out); err != nil {
		return Transaction{}, nil, err
	}
	return out.Transaction, out.History, nil
}

// List returns a page of transactions in the order the node accepted them,
// and the cursor of the next page (empty when there is none yet).
func (c *Client) List(ctx context.Context, o ListOptions) ([]Transaction, string, error) {
	q := url.Values{}
	if o.Queue != "" {
		q.Set("queue", o.Queue)
	}
	if o.State != "" {
		q.Set("state", o.State)
	}
	if o.Limit != 0 {
		q.Set("limit", strconv.Itoa(o.Limit))
	}
	if o.Cursor != "" {
		q.Set("cursor", o.Cursor)
	}
	path := "/v1/transactions"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	var out apitypes.ListResponse
	if _, err := c.do(ctx, http.MethodGet, path, nil, &out); err != nil {
		return nil, "", err
	}
	return out.Transactions, out.Next, nil
}

// QueuesPage returns a page of the node's queues with their bindings, in
// the order of their names, and the cursor of the next page (empty when
// there is none yet).
func (c *Client) QueuesPage(ctx context.Context, o PageOptions) ([]Queue, string, error) {
	q := url.Values{}
	if o.Limit != 0 {
		q.Set("limit", strconv.Itoa(o.Limit))
	}
	if o.Cursor != "" {
		q.Set("cursor", o.Cursor)
	}
	path := "/v1/queues"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	var out apitypes.QueuesResponse
	if _, err := c.do(ctx, http.MethodGet, path, nil, &out); err != nil {
		return nil, "", err
	}
	return out.Queues, out.Next, nil
}

// maxQueuePages bounds how many pages Queues follows.
const maxQueuePages = 100_000

// Queues returns every queue the node knows with its binding, in the order
// of their names, following the pages of GET /v1/queues.
func (c *Client) Queues(ctx context.Context) ([]Queue, error) {
	var all []Queue
	cursor := ""
	for range maxQueuePages {
		qs, next, err := c.QueuesPage(ctx, PageOptions{Limit: 1000, Cursor: cursor})
		if err != nil {
			return nil, err
		}
		all = append(all, qs...)
		if next == "" || next == cursor {
			return all, nil
		}
		cursor = next
	}
	return nil, fmt.Errorf("ordo client: GET /v1/queues: more than %d pages", maxQueuePages)
}

// Queue returns one queue with its transaction counts by state.
func (c *Client) Queue(ctx context.Context, name string) (QueueStats, error) {
	var out QueueStats
	if _, err := c.do(ctx, http.MethodGet, "/v1/queues/"+url.PathEscape(name), nil, &out); err != nil {
		return QueueStats{}, err
	}
	return out, nil
}

// Senders returns the node's senders.
func (c *Client) Senders(ctx context.Context) ([]Sender, error) {
	var out apitypes.SendersResponse
	if _, err := c.do(ctx, http.MethodGet, "/v1/senders", nil, &out); err != nil {
		return nil, err
	}
	return out.Senders, nil
}

// CancelNonce asks the node to cancel sender's stuck nonce (admin): a
// no-op takes the place of the attempt pending there, and its transaction
// then ends FAILED (then "fail") or is sent again at a fresh nonce
// ("requeue"). Its record's history says what became of it. No attempt
// pending at the nonce is an *APIError 404 nothing_to_cancel.
func (c *Client) CancelNonce(ctx context.Context, sender string, nonce uint64, then string) (Cancel, error) {
	var out Cancel
	body := apitypes.CancelRequest{Nonce: nonce, Then: then}
	if _, err := c.do(ctx, http.MethodPost, "/v1/senders/"+url.PathEscape(sender)+"/cancel", body, &out); err != nil {
		return Cancel{}, err
	}
	return out, nil
}

// Health returns nil once the node has started. While it is starting, the
// error is an *APIError with Status 503 and Code CodeStarting.
func (c *Client) Health(ctx context.Context) error {
	status, b, err := c.roundTrip(ctx, http.MethodGet, "/healthz", nil)
	if err != nil {
		return err
	}
	var h apitypes.HealthResponse
	if json.Unmarshal(b, &h) == nil && h.Status != "" {
		if status == http.StatusOK && h.Status == "ok" {
			return nil
		}
		return &APIError{Status: status, Code: h.Status, Message: "node is " + h.Status}
	}
	if status != http.StatusOK {
		return decodeError(status, b)
	}
	return fmt.Errorf("ordo client: GET /healthz: unexpected response %q", b)
}

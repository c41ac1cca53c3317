package devchain

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/httpjson"
)

// DefaultMaxBody is the largest request body the HTTP API reads, in bytes.
const DefaultMaxBody = httpjson.DefaultMaxBody

// MaxBlocksPerRequest is the most blocks GET /v1/blocks returns at once.
const MaxBlocksPerRequest = 1000

// MaxEventsPerRequest is the most events GET /v1/events returns at once.
const MaxEventsPerRequest = 1000

// Error codes the HTTP layer adds to the chain's own (chain.Error codes).
const (
	CodeBadJSON              = httpjson.CodeBadJSON              // 400: body is not JSON of the expected shape
	CodeBadQuery             = "bad_query"                       // 400: malformed, repeated, unknown or out-of-range query parameter (the node's API uses the same code)
	CodeBadHash              = "bad_hash"                        // 400: path hash is not 64 lowercase hex
	CodeBadAddress           = "bad_address"                     // 400: path address is not 64 lowercase hex
	CodeTooLarge             = httpjson.CodeTooLarge             // 413: body over the limit
	CodeUnsupportedMediaType = httpjson.CodeUnsupportedMediaType // 415: a POST or PUT without Content-Type: application/json (httpjson.RequireJSON, the node's rule too)
	CodeInvalidFaults        = "invalid_faults"                  // 422: fault update out of range
	CodeFaucetLimit          = "faucet_limit"                    // 422: faucet call over the per-call or per-account cap (ErrFaucetLimit)
	CodeReadOnly             = "read_only"                       // 403: a route that is not a read, on a handler made ReadOnly
	CodeRouteNotFound        = httpjson.CodeRouteNotFound        // 404: no such endpoint
	CodeMethodNotAllowed     = httpjson.CodeMethodNotAllowed     // 405: endpoint exists, method does not
	CodeInternal             = httpjson.CodeInternal             // 500: anything else
)

// statusOf maps a chain error code to an HTTP status.
//
// The mapping:
//   - 400: the request itself is malformed (bad_json, bad_query, bad_hash,
//     bad_address): syntax the server could not read. Every POST and PUT
//     body is read alike: invalid UTF-8, an unpaired surrogate escape, a
//     JSON null, unknown, duplicate or miscased fields and data after the
//     value are bad_json.
//   - 422: well-formed but invalid content that will never succeed as sent
//     (invalid_tx, bad_signature, unknown_contract, unknown_method,
//     call_failed, invalid_faults, faucet_limit). A memo with a NUL byte
//     and args with a key twice in one object are invalid_tx (call_failed
//     for a call's args).
//   - 409: the request conflicts with the chain's current state and may
//     succeed later or with other values (nonce_too_low, nonce_too_high,
//     fee_too_low, replacement_underpriced, insufficient_funds, rejected).
//   - 503: mempool_full (retry later); 404: not_found (also POST /v1/call
//     reading what the contract does not hold: a registry tool, a workflow
//     walk); 403: not_dev_mode, read_only; 500: anything without a code.
//   - 415: unsupported_media_type, a POST or PUT without Content-Type:
//     application/json (httpjson maps it).
//
// httpjson maps its own codes (bad_json 400, too_large 413, route_not_found
// 404, method_not_allowed 405, internal 500) before asking statusOf.
func statusOf(code string) int {
	switch code {
	case CodeBadQuery, CodeBadHash, CodeBadAddress:
		return http.StatusBadRequest
	case chain.ErrInvalidTx.Code, chain.ErrBadSignature.Code, chain.ErrUnknownContract.Code,
		chain.ErrUnknownMethod.Code, chain.ErrCallFailed.Code, CodeInvalidFaults, ErrFaucetLimit.Code:
		return http.StatusUnprocessableEntity
	case chain.ErrNonceTooLow.Code, chain.ErrNonceTooHigh.Code, chain.ErrFeeTooLow.Code,
		chain.ErrReplacementUnderpriced.Code, chain.ErrInsufficientFunds.Code, chain.ErrRejected.Code:
		return http.StatusConflict
	case chain.ErrMempoolFull.Code:
		return http.StatusServiceUnavailable
	case chain.ErrNotFound.Code:
		return http.StatusNotFound
	case chain.ErrNotDevMode.Code, CodeReadOnly:
		return http.StatusForbidden
	default:
		return http.StatusInternalServerError
	}
}

// HandlerOption configures NewHandler.
type HandlerOption func(*server)

// WithLogger sets the logger for internal errors (default slog.Default()).
func WithLogger(l *slog.Logger) HandlerOption {
	return func(s *server) {
		if l != nil {
			s.log = l
		}
	}
}

// ReadOnly makes the handler serve only the routes that read the chain
// (ReadRoutes); every other route (submitting a transaction, the fault
// knobs, the faucet, the dev accounts, mining) answers 403 read_only with a
// message that names the route and ends with why (for example how to turn
// the routes on). A node serves its in-process devchain so unless it runs
// in dev mode.
func ReadOnly(why string) HandlerOption {
	return func(s *server) {
		s.readOnly, s.why = true, why
	}
}

// ReadRoutes are the routes that only read the chain: what a handler made
// ReadOnly still serves. POST /v1/call runs a read-only contract method.
var ReadRoutes = []string{
	"GET /v1/head",
	"GET /v1/identity",
	"GET /v1/blocks",
	"GET /v1/blocks/subscribe",
	"GET /v1/tx/{hash}",
	"GET /v1/accounts/{address}",
	"GET /v1/minfee",
	"GET /v1/events",
	"POST /v1/call",
}

type server struct {
	c        *Chain
	api      *httpjson.Server
	maxBody  int64
	log      *slog.Logger
	readOnly bool
	why      string
}

// NewHandler returns the devchain's HTTP API over c. Every response but the
// head stream is JSON; every error is {"error":{"code","message"}} with a
// stable code (see statusOf for the statuses). Bad input gets a 4xx and
// changes nothing. Every POST and PUT needs Content-Type: application/json
// (else 415 unsupported_media_type before its body is read, as on the
// node's API), so a page on another origin cannot post a form or a text body
// to a devchain on localhost. The API has no authentication: it serves a
// test ledger (see ReadOnly for the routes a node serves outside dev mode).
//
// Routes:
//
//	GET  /v1/head                    BlockHeader
//	GET  /v1/identity                chain.Identity
//	GET  /v1/blocks?from=H&to=H      {"blocks":[Block...]} (at most 1000)
//	GET  /v1/blocks/subscribe        server-sent events: "head" per new block
//	GET  /v1/tx/{hash}               chain.TxStatus
//	POST /v1/tx                      one transaction → {"hash"}
//	GET  /v1/accounts/{address}      chain.Account
//	GET  /v1/minfee                  {"minFee"}
//	GET  /v1/events?cursor=C&limit=N {"events":[...],"next":C'}
//	POST /v1/call                    {"contract","method","args"} → {"result"}
//	GET  /v1/faults                  FaultState
//	PUT  /v1/faults                  FaultUpdate → FaultState
//	POST /v1/faucet                  {"address","amount"} → chain.Account
//	GET  /v1/dev/accounts            {"accounts":[DevAccount...]}
//	POST /v1/dev/mine                {"mined","head"} (body empty or {})
func NewHandler(c *Chain, opts ...HandlerOption) http.Handler {
	s := &server{c: c, maxBody: DefaultMaxBody, log: slog.Default()}
	for _, o := range opts {
		o(s)
	}
	s.api = httpjson.New(httpjson.Options{
		Status:  statusOf,
		Code:    chain.CodeOf,
		MaxBody: s.maxBody,
		Logger:  s.log,
		Name:    "devchain http",
	})
	routes := map[string]func(*http.Request) (any, error){
		"GET /v1/head":               s.head,
		"GET /v1/identity":           s.identity,
		"GET /v1/blocks":             s.blocks,
		"GET /v1/tx/{hash}":          s.txStatus,
		"POST /v1/tx":                s.sendTx,
		"GET /v1/accounts/{address}": s.account,
		"GET /v1/minfee":             s.minFee,
		"GET /v1/events":             s.events,
		"POST /v1/call":              s.call,
		"GET /v1/faults":             s.faults,
		"PUT /v1/faults":             s.setFaults,
		"POST /v1/faucet":            s.faucet,
		"GET /v1/dev/accounts":       s.devAccounts,
		"POST /v1/dev/mine":          s.mine,
	}
	for pattern, h := range routes {
		if s.readOnly && !slices.Contains(ReadRoutes, pattern) {
			h = s.refuse(pattern)
		}
		hh := s.api.JSONHandler(h)
		if method, _, _ := strings.Cut(pattern, " "); httpjson.Mutating(method) {
			hh = s.api.JSONOnly(hh)
		}
		s.api.Handle(pattern, hh)
	}
	s.api.Handle("GET /v1/blocks/subscribe", http.HandlerFunc(s.subscribe))
	return s.api
}

// refuse is the handler of a route a ReadOnly handler does not serve.
func (s *server) refuse(pattern string) func(*http.Request) (any, error) {
	return func(*http.Request) (any, error) {
		return nil, httpjson.Errorf(CodeReadOnly, "%s is not served here: %s", pattern, s.why)
	}
}

func (s *server) head(r *http.Request) (any, error) {
	return s.c.Head(r.Context())
}

func (s *server) identity(r *http.Request) (any, error) {
	return s.c.Identity(r.Context())
}

// BlocksResponse is the body of GET /v1/blocks.
type BlocksResponse struct {
	Blocks []chain.Block `json:"blocks"`
}

func (s *server) blocks(r *http.Request) (any, error) {
	q, err := parseQuery(r, "from", "to")
	if err != nil {
		return nil, err
	}
	from, _, err := queryUint(q, "from")
	if err != nil {
		return nil, err
	}
	to, hasTo, err := queryUint(q, "to")
	if err != nil {
		return nil, err
	}
	if !hasTo {
		to = from + 99
		if to < from { // overflow
			to = ^uint64(0)
		}
	}
	if to < from {
		return nil, httpjson.Errorf(CodeBadQuery, "to (%d) must not be below from (%d)", to, from)
	}
	bs, err := s.c.Blocks(r.Context(), from, to) // clamps to the head and MaxBlocksPerRequest
	if err != nil {
		return nil, err
	}
	if bs == nil {
		bs = []chain.Block{}
	}
	return BlocksResponse{Blocks: bs}, nil
}

// parseQuery parses the request's query string, refusing (bad_query) one
// that is malformed or that names a parameter other than allowed.
func parseQuery(r *http.Request, allowed ...string) (url.Values, error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, httpjson.Errorf(CodeBadQuery, "query string: %w", err)
	}
	for k := range q {
		if !slices.Contains(allowed, k) {
			return nil, httpjson.Errorf(CodeBadQuery, "unknown query parameter %q (parameters are %s)", k, strings.Join(allowed, ", "))
		}
	}
	return q, nil
}

func queryUint(q url.Values, name string) (v uint64, ok bool, err error) {
	vals, ok := q[name]
	if !ok {
		return 0, false, nil
	}
	if len(vals) != 1 {
		return 0, false, httpjson.Errorf(CodeBadQuery, "%s must be given once", name)
	}
	v, perr := strconv.ParseUint(vals[0], 10, 64)
	if perr != nil {
		return 0, false, httpjson.Errorf(CodeBadQuery, "%s must be an unsigned decimal integer, got %q", name, vals[0])
	}
	return v, true, nil
}

func (s *server) txStatus(r *http.Request) (any, error) {
	h := r.PathValue("hash")
	if !chain.IsHash(chain.Hash(h)) {
		return nil, httpjson.Errorf(CodeBadHash, "transaction hash must be 64 lowercase hex characters")
	}
	return s.c.TxStatus(r.Context(), chain.Hash(h))
}

// SendTxResponse is the body of POST /v1/tx.
type SendTxResponse struct {
	Hash chain.Hash `json:"hash"`
}

func (s *server) sendTx(r *http.Request) (any, error) {
	b, err := s.api.ReadBody(r)
	if err != nil {
		return nil, err
	}
	if len(b) > chain.MaxEncodedTx {
		return nil, httpjson.Errorf(CodeTooLarge, "transaction is %d bytes, the limit is %d", len(b), chain.MaxEncodedTx)
	}
	// Malformed JSON is a 400 here; SendTx normalizes and validates (422).
	var tx chain.Tx
	if err := decodeBody(b, &tx); err != nil {
		return nil, err
	}
	h, err := s.c.SendTx(r.Context(), tx)
	if err != nil {
		return nil, err
	}
	return SendTxResponse{Hash: h}, nil
}

func (s *server) account(r *http.Request) (any, error) {
	a := chain.Address(r.PathValue("address"))
	if err := chain.ValidateAddress(a); err != nil {
		return nil, httpjson.Errorf(CodeBadAddress, "%w", err)
	}
	return s.c.Account(r.Context(), a)
}

// MinFeeResponse is the body of GET /v1/minfee.
type MinFeeResponse struct {
	MinFee uint64 `json:"minFee"`
}

func (s *server) minFee(r *http.Request) (any, error) {
	f, err := s.c.MinFee(r.Context())
	if err != nil {
		return nil, err
	}
	return MinFeeResponse{MinFee: f}, nil
}

// EventsResponse is the body of GET /v1/events. Next is the cursor of the
// last event returned, or the request's cursor when there is none: pass it
// as the next request's cursor.
type EventsResponse struct {
	Events []chain.Event `json:"events"`
	Next   uint64        `json:"next"`
}

func (s *server) events(r *http.Request) (any, error) {
	q, err := parseQuery(r, "cursor", "limit")
	if err != nil {
		return nil, err
	}
	cursor, _, err := queryUint(q, "cursor")
	if err != nil {
		return nil, err
	}
	limit, hasLimit, err := queryUint(q, "limit")
	if err != nil {
		return nil, err
	}
	if !hasLimit {
		limit = 100
	}
	if limit < 1 || limit > MaxEventsPerRequest {
		return nil, httpjson.Errorf(CodeBadQuery, "limit must be between 1 and %d", MaxEventsPerRequest)
	}
	evs, err := s.c.Events(r.Context(), cursor, int(limit))
	if err != nil {
		return nil, err
	}
	resp := EventsResponse{Events: evs, Next: cursor}
	if len(evs) > 0 {
		resp.Next = evs[len(evs)-1].Cursor
	} else {
		resp.Events = []chain.Event{}
	}
	return resp, nil
}

// CallRequest is the body of POST /v1/call.
type CallRequest struct {
	Contract string          `json:"contract"`
	Method   string          `json:"method"`
	Args     json.RawMessage `json:"args,omitempty"`
}

// CallResponse is the body of a POST /v1/call answer.
type CallResponse struct {
	Result json.RawMessage `json:"result"`
}

func (s *server) call(r *http.Request) (any, error) {
	var req CallRequest
	if err := s.readJSON(r, &req); err != nil {
		return nil, err
	}
	out, err := s.c.Call(r.Context(), req.Contract, req.Method, req.Args)
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		out = json.RawMessage("null")
	} else if !json.Valid(out) {
		return nil, fmt.Errorf("contract %s returned invalid JSON from %s", req.Contract, req.Method)
	}
	return CallResponse{Result: out}, nil
}

func (s *server) faults(r *http.Request) (any, error) {
	return s.c.Faults(r.Context())
}

func (s *server) setFaults(r *http.Request) (any, error) {
	var u FaultUpdate
	if err := s.readJSON(r, &u); err != nil {
		return nil, err
	}
	fs, err := s.c.SetFaults(r.Context(), u)
	if ie := (*InvalidFaultsError)(nil); errors.As(err, &ie) {
		return nil, httpjson.Errorf(CodeInvalidFaults, "%w", err)
	}
	return fs, err
}

// FaucetRequest is the body of POST /v1/faucet.
type FaucetRequest struct {
	Address chain.Address `json:"address"`
	Amount  uint64        `json:"amount"`
}

func (s *server) faucet(r *http.Request) (any, error) {
	var req FaucetRequest
	if err := s.readJSON(r, &req); err != nil {
		return nil, err
	}
	return s.c.Faucet(r.Context(), req.Address, req.Amount)
}

// DevAccountsResponse is the body of GET /v1/dev/accounts.
type DevAccountsResponse struct {
	Accounts []DevAccount `json:"accounts"`
}

func (s *server) devAccounts(r *http.Request) (any, error) {
	as, err := s.c.DevAccounts(r.Context())
	if err != nil {
		return nil, err
	}
	return DevAccountsResponse{Accounts: as}, nil
}

// MineResponse is the body of POST /v1/dev/mine. Head is the new block's
// header, or the unchanged head when no block was mined (a stall).
type MineResponse struct {
	Mined bool              `json:"mined"`
	Head  chain.BlockHeader `json:"head"`
}

// MineRequest is the body of POST /v1/dev/mine: none, or {}.
type MineRequest struct{}

func (s *server) mine(r *http.Request) (any, error) {
	b, err := s.api.ReadBody(r)
	if err != nil {
		return nil, err
	}
	if len(b) > 0 { // no body: one block, as always; any other must parse
		if err := decodeBody(b, &MineRequest{}); err != nil {
			return nil, err
		}
	}
	hdr, ok, err := s.c.Mine(r.Context())
	if err != nil {
		return nil, err
	}
	if !ok {
		if hdr, err = s.c.Head(r.Context()); err != nil {
			return nil, err
		}
	}
	return MineResponse{Mined: ok, Head: hdr}, nil
}

// readJSON reads the body (as httpjson's ReadBody does) and decodes it into
// v as decodeBody does: every POST and PUT route reads its body so.
func (s *server) readJSON(r *http.Request, v any) error {
	b, err := s.api.ReadBody(r)
	if err != nil {
		return err
	}
	return decodeBody(b, v)
}

package ptx

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/ordolabs/ordo/apispec"
	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/distseq"
	"github.com/ordolabs/ordo/internal/httpjson"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/transport"
)

// Backend is what the API needs of the distributed sequencer.
type Backend interface {
	// Submit commits an intent on contract and returns its id.
	Submit(ctx context.Context, contract, key string, intent []byte) (string, error)
	// Prepare commits an intent for external submission and returns its
	// id; its prepared transaction appears in its record.
	Prepare(ctx context.Context, contract, key string, intent []byte) (string, error)
	// Intents reads the node's intents (its store).
	Intents() store.DistseqStore
	// ID is this node's identity: the node that qualifies its owners.
	ID() transport.NodeID
}

// JSON-RPC 2.0 error codes.
const (
	CodeParse          = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeServer         = -32000
)

// MaxBatch is the most calls one batch may hold.
const MaxBatch = 1000

// Error is a JSON-RPC error object.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

type request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// Tx is a transaction as ptx_sendTransaction takes it.
type Tx struct {
	Type           string          `json:"type,omitempty"`
	Domain         string          `json:"domain,omitempty"`
	Function       string          `json:"function,omitempty"`
	From           string          `json:"from,omitempty"`
	To             string          `json:"to"`
	Data           json.RawMessage `json:"data"`
	IdempotencyKey string          `json:"idempotencyKey,omitempty"`
}

// Transaction is a transaction as the reads answer it.
type Transaction struct {
	ID             string          `json:"id"`
	IdempotencyKey string          `json:"idempotencyKey,omitempty"`
	Type           string          `json:"type"`
	Domain         string          `json:"domain"`
	To             string          `json:"to"`
	Data           json.RawMessage `json:"data"`
	Status         string          `json:"status"`
	Reason         string          `json:"reason,omitempty"`
	Created        time.Time       `json:"created"`
}

// Receipt is a final transaction's outcome.
type Receipt struct {
	ID             string `json:"id"`
	Success        bool   `json:"success"`
	FailureMessage string `json:"failureMessage,omitempty"`
}

// Handler serves POST /rpc.
type Handler struct {
	B Backend
	// MaxAnswerBytes bounds one answer (a call or a batch). Defaults to
	// DefaultMaxAnswerBytes (8 MiB).
	MaxAnswerBytes int64
	// Budget is the node-wide budget of answers being built. Defaults to
	// one of DefaultMaxBuildingBytes (64 MiB) shared by every Handler
	// without one.
	Budget *Budget
	// Owners maps a principal's name to the owners of this node it acts
	// for besides the one of its own name ("*": every owner). Defaults to
	// none.
	Owners map[string][]string
}

// Methods are the ptx_ methods the handler serves, each described by the
// OpenRPC document (apispec.OpenRPC); any other method but Discover is
// answered CodeMethodNotFound.
var Methods = []string{
	"ptx_sendTransaction", "ptx_prepareTransaction", "ptx_sendTransactions", "ptx_prepareTransactions",
	"ptx_getTransaction", "ptx_getTransactionReceipt", "ptx_getTransactionFull", "ptx_getPreparedTransaction",
	"ptx_call", "ptx_queryTransactions",
}

// Discover is OpenRPC's discovery method: it answers the OpenRPC document
// of the methods (role read), as GET OpenRPCPath does.
const Discover = "rpc.discover"

// OpenRPCPath is where the node serves the OpenRPC document of POST /rpc
// (role read).
const OpenRPCPath = "/openrpc.json"

// Query is the parameter of ptx_queryTransactions: the status (pending,
// confirmed or reverted; empty for any), the privacy group, and how many
// at most (0: 100; at most 1000).
type Query struct {
	Status string `json:"status"`
	To     string `json:"to"`
	Limit  int    `json:"limit"`
}

// Register mounts POST /rpc (any known principal; each method checks its
// role) and GET OpenRPCPath (role read).
func (h Handler) Register(rt *auth.Router) {
	rt.Handle("POST /rpc", auth.Authenticated, h)
	rt.Handle("GET "+OpenRPCPath, auth.Read, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(apispec.OpenRPC)))
		_, _ = w.Write(apispec.OpenRPC)
	}))
}

func (h Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		write(w, response{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: &Error{Code: CodeParse, Message: "the body could not be read"}})
		return
	}
	p, _ := auth.PrincipalFrom(r.Context())
	trim := bytes.TrimSpace(body)
	if len(trim) > 0 && trim[0] == '[' {
		var calls []json.RawMessage
		if err := json.Unmarshal(trim, &calls); err != nil {
			write(w, parseError())
			return
		}
		if len(calls) == 0 || len(calls) > MaxBatch {
			write(w, response{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: &Error{Code: CodeInvalidRequest, Message: "a batch holds 1 to 1000 calls"}})
			return
		}
		a := h.newAnswer(w, true)
		for _, c := range calls {
			a.run(r.Context(), h, p, c)
		}
		a.finish()
		return
	}
	if !json.Valid(trim) {
		write(w, parseError())
		return
	}
	a := h.newAnswer(w, false)
	a.run(r.Context(), h, p, trim)
	a.finish()
}

func parseError() response {
	return response{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: &Error{Code: CodeParse, Message: "the body is not JSON"}}
}

func write(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// parseRequest decodes one call, or answers why it is no JSON-RPC 2.0
// request.
func parseRequest(raw json.RawMessage) (request, *response) {
	var req request
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil || req.JSONRPC != "2.0" || req.Method == "" {
		return req, &response{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: &Error{Code: CodeInvalidRequest, Message: "not a JSON-RPC 2.0 request: want {jsonrpc: \"2.0\", id, method, params}"}}
	}
	return req, nil
}

func invalid(msg string) *Error { return &Error{Code: CodeInvalidParams, Message: msg} }

func forbidden(role auth.Role) *Error {
	return &Error{Code: CodeServer, Message: "this principal lacks the role " + string(role), Data: map[string]string{"code": "forbidden"}}
}

// engineError maps the engine's errors: the caller's mistakes are bad
// params, with a stable code; the rest a server error.
func engineError(err error) *Error {
	switch {
	case errors.Is(err, distseq.ErrNoSuchGroup):
		return &Error{Code: CodeInvalidParams, Message: err.Error(), Data: map[string]string{"code": "no_such_group"}}
	case errors.Is(err, distseq.ErrBadIntent):
		return &Error{Code: CodeInvalidParams, Message: err.Error(), Data: map[string]string{"code": "bad_intent"}}
	case errors.Is(err, distseq.ErrKeyConflict): // a concurrent send with the key won
		return &Error{Code: CodeConflict, Message: err.Error(), Data: map[string]string{"code": "idempotency_conflict"}}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return &Error{Code: CodeServer, Message: err.Error(), Data: map[string]string{"code": "canceled"}}
	}
	// A send past its principal's intake rate (api.intakeLimit, counted by
	// the node's Backend): the code and when to come back, in seconds.
	if he := (*httpjson.Error)(nil); errors.As(err, &he) && he.Code == auth.CodeRateLimited {
		return &Error{Code: CodeServer, Message: he.Message, Data: map[string]any{"code": auth.CodeRateLimited, "retryAfter": httpjson.RetryAfterSeconds(he.RetryAfter)}}
	}
	return &Error{Code: CodeServer, Message: err.Error(), Data: map[string]string{"code": "internal"}}
}

package apidoc

import (
	"encoding/json"
	"reflect"

	"github.com/ordolabs/ordo/internal/api"
	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/leader"
	"github.com/ordolabs/ordo/internal/processor"
	"github.com/ordolabs/ordo/internal/ptx"
	"github.com/ordolabs/ordo/internal/smm"
	"github.com/ordolabs/ordo/internal/store"
)

// Op is what the document says of one route beyond its pattern and rule
// (which the router holds): its parameters, bodies and error codes.
type Op struct {
	// Pattern is the route's net/http.ServeMux pattern.
	Pattern string
	// Tag groups the route by engine.
	Tag string
	// Summary is one sentence.
	Summary string
	// Query are the query parameters.
	Query []Param
	// Request is the JSON body's Go type; nil for none.
	Request reflect.Type
	// RequestSchema, when set, is the body's schema instead of Request's
	// alone (ref marks a type in it).
	RequestSchema Schema
	// Status is the success status; 200 when zero.
	Status int
	// Response is the success body's Go type.
	Response reflect.Type
	// Also are more answers: other successes, or a status with a body
	// other than the error's (503 of /healthz).
	Also []Answer
	// Raw, when set, is the success body's media type and no schema is
	// given (exempt from validation: Exempt says why).
	Raw string
	// Exempt is why the route's bodies are not described, "" when they
	// are.
	Exempt string
	// Errors are the error codes the route's handler answers, beyond
	// those of its rule and method (401, 403, 415, bad_json, too_large,
	// internal).
	Errors []string
	// Devchain marks a route the in-process devchain serves: its codes'
	// statuses are the devchain's.
	Devchain bool
	// Intake marks a route whose intents count against the principal's
	// intake rate (429 rate_limited).
	Intake bool
}

// Param is a query parameter.
type Param struct {
	Name    string
	Summary string
	Schema  Schema
}

// Answer is a response of a status.
type Answer struct {
	Status int
	Type   reflect.Type
	// Schema is used when Type is nil.
	Schema Schema
}

func typ[T any]() reflect.Type { return reflect.TypeFor[T]() }

var (
	str      = Schema{"type": "string"}
	wholeNum = Schema{"type": "integer", "minimum": 0}
	limitOf  = func(max int) Param {
		return Param{"limit", "how many at most", Schema{"type": "integer", "minimum": 1, "maximum": max}}
	}
	chainTxEr = []string{chain.ErrInvalidTx.Code, chain.ErrBadSignature.Code, chain.ErrNonceTooLow.Code, chain.ErrNonceTooHigh.Code,
		chain.ErrFeeTooLow.Code, chain.ErrReplacementUnderpriced.Code, chain.ErrInsufficientFunds.Code, chain.ErrRejected.Code,
		chain.ErrMempoolFull.Code, chain.ErrNotDevMode.Code, devchain.CodeReadOnly, devchain.CodeTooLarge}
)

// Overrides are the schemas of the wire types that encode themselves.
var Overrides = map[reflect.Type]Schema{
	reflect.TypeFor[processor.RetryTimes](): {"oneOf": []any{
		Schema{"const": "indefinitely"},
		Schema{"type": "object", "properties": Schema{"amount": Schema{"type": "integer"}}, "required": []any{"amount"}, "additionalProperties": false},
	}},
	reflect.TypeFor[processor.RetryInterval](): {"oneOf": []any{
		Schema{"type": "object", "properties": Schema{"blocks": wholeNum}, "required": []any{"blocks"}, "additionalProperties": false},
		Schema{"type": "object", "properties": Schema{"duration": str}, "required": []any{"duration"}, "additionalProperties": false},
	}},
	reflect.TypeFor[devchain.Duration]():      {"type": "string", "description": "a Go duration, such as 1.5s"},
	reflect.TypeOf(api.IntakeRequest{}.Queue): str,
	reflect.TypeFor[json.RawMessage]():        {},
}

// Ops are the node's routes, with every engine on.
var Ops = []Op{
	// The sequencer.
	{Pattern: "POST /v1/transactions", Tag: "sequencer", Summary: "Submit an intent, or an array of up to 1000.",
		Request: typ[api.IntakeRequest](), Status: 201,
		RequestSchema: Schema{"oneOf": []any{ref[api.IntakeRequest](), Schema{"type": "array", "minItems": 1, "maxItems": api.MaxBatch,
			"description": "Up to MaxBatch intents; each is answered at its position (BatchResult), a refused one with its error."}}}, Response: typ[store.Transaction](),
		Also: []Answer{{Status: 200, Schema: Schema{"oneOf": []any{ref[store.Transaction](), Schema{"type": "array", "items": ref[api.BatchResult]()}}}}},
		Errors: []string{api.CodeInvalid, api.CodeTypeNotAllowed, api.CodeReserved, api.CodeIdempotency, api.CodeTypeForbidden,
			api.CodeUnavailable, api.CodeNotReplicated, api.CodeStorageFull, api.CodeNotPrimary}, Intake: true},
	{Pattern: "GET /v1/transactions", Tag: "sequencer", Summary: "List transactions, a page at a time.",
		Query: []Param{{"queue", "only this queue's", str}, {"state", "only those in this state",
			Schema{"enum": []any{"WAITING", "REVISION", "RETRY", "DONE", "FAILED"}}}, limitOf(api.MaxListLimit), {"cursor", "next of the previous page", str}},
		Response: typ[api.ListResponse](), Errors: []string{api.CodeBadQuery}},
	{Pattern: "GET /v1/transactions/{uid}", Tag: "sequencer", Summary: "A transaction and its history.",
		Response: typ[api.TransactionResponse](), Errors: []string{api.CodeNotFound}},
	{Pattern: "GET /v1/queues", Tag: "sequencer", Summary: "The queues in the order of their names, a page at a time.",
		Query: []Param{limitOf(api.MaxListLimit), {"cursor", "next of the previous page", str}}, Response: typ[api.QueuesResponse](), Errors: []string{api.CodeBadQuery}},
	{Pattern: "GET /v1/queues/{name}", Tag: "sequencer", Summary: "A queue's binding and counts, and its replica set.",
		Response: typ[api.QueueResponse](), Errors: []string{api.CodeNotFound}},
	{Pattern: "GET /v1/senders", Tag: "sequencer", Summary: "The senders and their nonces.", Response: typ[api.SendersResponse]()},
	{Pattern: "GET /v1/changes", Tag: "sequencer", Summary: "Server-sent events: change, per state transition of a record, resumable from an id.",
		Query: []Param{{"queue", "only this queue's changes", str},
			{"after", "resume after this change id, or now: only the changes to come (the Last-Event-ID header, when sent, wins)", str}},
		Raw: "text/event-stream", Exempt: "a server-sent event stream: each event's data is a Change (id, uid, queue, from, to, at, note), one JSON line",
		Errors: []string{api.CodeBadQuery}},
	{Pattern: "GET /v1/session", Tag: "node", Summary: "The caller's principal and roles, and the node's engines, chain and version.",
		Response: typ[api.SessionResponse]()},
	{Pattern: "GET /v1/stats/history", Tag: "node", Summary: "The node's recent figures: a sample every 5 seconds, the last 15 minutes.",
		Response: typ[api.StatsHistoryResponse]()},
	{Pattern: "POST /v1/senders/{id}/cancel", Tag: "sequencer", Summary: "Cancel a stuck nonce with a no-op.",
		Request: typ[api.CancelRequest](), Response: typ[api.CancelResponse](), Errors: []string{api.CodeInvalid, api.CodeNothingToCancel}},
	{Pattern: "GET /healthz", Tag: "node", Summary: "Whether the node is healthy: 503 with the worst condition's code when not.",
		Response: typ[api.HealthResponse](), Also: []Answer{{Status: 503, Type: typ[api.HealthResponse]()}}},
	{Pattern: "GET /readyz", Tag: "node", Summary: "Whether the node has started.",
		Response: typ[api.HealthResponse](), Also: []Answer{{Status: 503, Type: typ[api.HealthResponse]()}}},
	{Pattern: "GET /metrics", Tag: "node", Summary: "Prometheus metrics (404 route_not_found when the node has none).",
		Raw: "text/plain", Exempt: "Prometheus text exposition format, not JSON", Errors: []string{api.CodeRouteNotFound}},
	{Pattern: "GET " + api.OpenAPIPath, Tag: "node", Summary: "This document.", Raw: "application/json",
		Exempt: "the OpenAPI document itself, checked against the OpenAPI 3.1 schema"},
	{Pattern: "GET /ui/", Tag: "node", Summary: "The dashboard's assets (HTML, CSS, JavaScript modules, images); see docs/dashboard.md.",
		Raw: "text/html", Exempt: "the dashboard's static files, not JSON: their content types are their files' (checked by internal/ui's tests)",
		Errors: []string{api.CodeRouteNotFound}},
	{Pattern: "GET /ui", Tag: "node", Summary: "A 301 redirect to /ui/.", Status: 301, Raw: "text/html",
		Exempt: "a redirect to the dashboard, with no body to describe"},
	{Pattern: "GET " + ptx.OpenRPCPath, Tag: "ptx", Summary: "The OpenRPC document of the ptx_ methods of POST /rpc.", Raw: "application/json",
		Exempt: "the OpenRPC document itself"},

	// Processors.
	{Pattern: "POST /v1/processors", Tag: "processors", Summary: "Create a processor (admin).",
		Request: typ[processor.CreateSpec](), Response: typ[store.Processor](),
		Errors: []string{processor.CodeInvalid, processor.CodeConflict, processor.CodeUnavailable}},
	{Pattern: "GET /v1/processors", Tag: "processors", Summary: "The processors in the order of their names, a page at a time.",
		Query:    []Param{{"after", "next of the previous page", str}, limitOf(1000)},
		Response: typ[processor.ProcessorsPage](), Errors: []string{processor.CodeBadQuery}},
	{Pattern: "GET /v1/processors/{name}", Tag: "processors", Summary: "A processor and its counts.",
		Response: typ[processor.ProcessorView](), Errors: []string{processor.CodeNotFound}},
	{Pattern: "POST /v1/processors/{name}/batches", Tag: "processors", Summary: "Add a batch (the owner or an admin).",
		Request: typ[processor.BatchSpec](), Response: typ[processor.AddResult](), Intake: true,
		Errors: []string{processor.CodeNotFound, processor.CodeInvalid, processor.CodeConflict, processor.CodeQueueFull,
			processor.CodeUnknownContract, processor.CodeUnavailable}},
	{Pattern: "POST /v1/processors/{name}/tick", Tag: "processors", Summary: "Run the processor's next batch now.",
		Response: typ[processor.TickResult](), Errors: []string{processor.CodeNotFound, processor.CodeUnavailable}},
	{Pattern: "POST /v1/processors/{name}/pause", Tag: "processors", Summary: "Pause the processor (the owner or an admin).",
		Response: typ[map[string]bool](), Errors: []string{processor.CodeNotFound, processor.CodeUnavailable}},
	{Pattern: "POST /v1/processors/{name}/resume", Tag: "processors", Summary: "Resume the processor (the owner or an admin).",
		Response: typ[map[string]bool](), Errors: []string{processor.CodeNotFound, processor.CodeUnavailable}},
	{Pattern: "DELETE /v1/processors/{name}/queues/{priority}/{position}", Tag: "processors", Summary: "Remove a queued batch (the owner or an admin).",
		Response: typ[processor.RemoveResult](), Errors: []string{processor.CodeNotFound, processor.CodeInvalid, processor.CodeConflict, processor.CodeUnavailable}},
	{Pattern: "GET /v1/processors/{name}/batches/{id}", Tag: "processors", Summary: "A batch in any state, its spec and progress.",
		Response: typ[store.ProcBatch](), Errors: []string{processor.CodeNotFound}},
	{Pattern: "GET /v1/processors/{name}/queues/{priority}", Tag: "processors", Summary: "A page of a priority's queued batches.",
		Query: []Param{{"offset", "where the page starts", wholeNum}, limitOf(1000)}, Response: typ[processor.BatchesPage](),
		Errors: []string{processor.CodeNotFound, processor.CodeBadQuery}},
	{Pattern: "GET /v1/processors/{name}/callbacks", Tag: "processors", Summary: "A page of the processor's callbacks.",
		Query: []Param{{"after", "next of the previous page", wholeNum}, limitOf(1000)}, Response: typ[processor.CallbacksPage](),
		Errors: []string{processor.CodeNotFound, processor.CodeBadQuery}},
	{Pattern: "POST /v1/processors/{name}/confirmations", Tag: "processors", Summary: "Confirm an execution's outcome (the owner or an admin).",
		Request: typ[processor.ConfirmRequest](), Response: typ[processor.ConfirmResult](),
		Errors: []string{processor.CodeNotFound, processor.CodeInvalid, processor.CodeConflict, processor.CodeUnavailable}},

	// The leader.
	{Pattern: "GET /v1/leader/events", Tag: "leader", Summary: "A page of the leader's events.",
		Query: []Param{{"status", "only those of this status", Schema{"enum": []any{"", "Queued", "Active", "Successful", "Dead"}}},
			{"after", "next of the previous page", wholeNum}, limitOf(1000)},
		Response: typ[leader.EventsPage](), Errors: []string{leader.CodeBadQuery}},
	{Pattern: "GET /v1/leader/events/{id}", Tag: "leader", Summary: "An event.", Response: typ[store.LeaderEvent](), Errors: []string{leader.CodeNotFound}},
	{Pattern: "GET /v1/leader/channels", Tag: "leader", Summary: "The leader's channels.", Response: typ[[]leader.ChannelView]()},
	{Pattern: "POST /v1/leader/events/{id}/retry", Tag: "leader", Summary: "Retry a Dead event (admin).", Response: typ[store.LeaderEvent](),
		Errors: []string{leader.CodeNotFound, leader.CodeConflict, leader.CodeUnavailable}},

	// The distributed sequencer.
	{Pattern: "POST /rpc", Tag: "ptx", Summary: "The ptx_ JSON-RPC 2.0 methods: each checks its role (see /openrpc.json).",
		Raw: "application/json", Exempt: "JSON-RPC 2.0: described by the OpenRPC document at /openrpc.json"},
	{Pattern: "GET /v1/peers", Tag: "ptx", Summary: "This node's peers and privacy groups.", Response: typ[ptx.PeersPage]()},
	{Pattern: "GET /v1/distseq/intents", Tag: "ptx", Summary: "Each privacy group's intents in flight here, by seed 003 state.",
		Response: typ[ptx.IntentStates]()},

	// Replicated queues.
	{Pattern: "GET /v1/smm", Tag: "smm", Summary: "The state machine manager's status.", Response: typ[smm.Status](),
		Errors: []string{api.CodeRouteNotFound}},
	{Pattern: "GET /v1/smm/sets", Tag: "smm", Summary: "The replica sets naming this node, with each member's head and lag, a page at a time.",
		Query:    []Param{{"after", "next of the previous page", str}, limitOf(1000)},
		Response: typ[smm.SetsPage](), Errors: []string{api.CodeRouteNotFound, api.CodeBadQuery}},
	{Pattern: "POST /v1/queues/{name}/sync", Tag: "smm", Summary: "Sync each secondary of a queue this node is primary of (admin).",
		Response: typ[smm.SyncResponse](), Errors: []string{api.CodeRouteNotFound, api.CodeNotFound, api.CodeNotPrimary}},
	{Pattern: "GET /v1/queues/{name}/log", Tag: "smm", Summary: "This node's replica of a queue's log.",
		Query: []Param{{"after", "next of the previous page", wholeNum}, limitOf(1000)}, Response: typ[smm.LogPage](),
		Errors: []string{api.CodeRouteNotFound, api.CodeNotFound, api.CodeBadQuery}},

	// The in-process devchain.
	{Pattern: "GET /v1/head", Tag: "devchain", Devchain: true, Summary: "The chain's head.", Response: typ[chain.BlockHeader]()},
	{Pattern: "GET /v1/identity", Tag: "devchain", Devchain: true, Summary: "The chain's identity.", Response: typ[chain.Identity]()},
	{Pattern: "GET /v1/blocks", Tag: "devchain", Devchain: true, Summary: "Blocks from one height to another (at most 1000).",
		Query: []Param{{"from", "the first height", wholeNum}, {"to", "the last height", wholeNum}}, Response: typ[devchain.BlocksResponse](),
		Errors: []string{devchain.CodeBadQuery}},
	{Pattern: "GET /v1/blocks/subscribe", Tag: "devchain", Devchain: true, Summary: "Server-sent events: head, per new block.",
		Raw: "text/event-stream", Exempt: "a server-sent event stream"},
	{Pattern: "GET /v1/tx/{hash}", Tag: "devchain", Devchain: true, Summary: "A transaction's status.", Response: typ[chain.TxStatus](),
		Errors: []string{devchain.CodeBadHash}},
	{Pattern: "POST /v1/tx", Tag: "devchain", Devchain: true, Summary: "Send a signed transaction (dev mode).",
		Request: typ[chain.Tx](), Response: typ[devchain.SendTxResponse](), Errors: chainTxEr},
	{Pattern: "GET /v1/accounts/{address}", Tag: "devchain", Devchain: true, Summary: "An account.", Response: typ[chain.Account](),
		Errors: []string{devchain.CodeBadAddress}},
	{Pattern: "GET /v1/minfee", Tag: "devchain", Devchain: true, Summary: "The chain's minimum fee.", Response: typ[devchain.MinFeeResponse]()},
	{Pattern: "GET /v1/events", Tag: "devchain", Devchain: true, Summary: "A page of the chain's events.",
		Query:    []Param{{"cursor", "next of the previous page", wholeNum}, limitOf(devchain.MaxEventsPerRequest)},
		Response: typ[devchain.EventsResponse](), Errors: []string{devchain.CodeBadQuery}},
	{Pattern: "POST /v1/call", Tag: "devchain", Devchain: true, Summary: "Run a read-only contract method.",
		Request: typ[devchain.CallRequest](), Response: typ[devchain.CallResponse](),
		Errors: []string{chain.ErrUnknownContract.Code, chain.ErrUnknownMethod.Code, chain.ErrCallFailed.Code}},
	{Pattern: "GET /v1/faults", Tag: "devchain", Devchain: true, Summary: "The fault knobs (dev mode).", Response: typ[devchain.FaultState](),
		Errors: []string{devchain.CodeReadOnly}},
	{Pattern: "PUT /v1/faults", Tag: "devchain", Devchain: true, Summary: "Set the fault knobs (dev mode).",
		Request: typ[devchain.FaultUpdate](), Response: typ[devchain.FaultState](), Errors: []string{devchain.CodeReadOnly, devchain.CodeInvalidFaults}},
	{Pattern: "POST /v1/faucet", Tag: "devchain", Devchain: true, Summary: "Fund an account (dev mode).",
		Request: typ[devchain.FaucetRequest](), Response: typ[chain.Account](), Errors: []string{devchain.CodeReadOnly, devchain.CodeFaucetLimit}},
	{Pattern: "GET /v1/dev/accounts", Tag: "devchain", Devchain: true, Summary: "The dev accounts (dev mode).",
		Response: typ[devchain.DevAccountsResponse](), Errors: []string{devchain.CodeReadOnly}},
	{Pattern: "POST /v1/dev/mine", Tag: "devchain", Devchain: true, Summary: "Mine a block now (dev mode; body none or {}).",
		Request: typ[devchain.MineRequest](), Response: typ[devchain.MineResponse](), Errors: []string{devchain.CodeReadOnly}},
}

// ref is a marker schema for a response type, resolved by the builder.
func ref[T any]() Schema { return Schema{refMarker: reflect.TypeFor[T]()} }

// refMarker is the key of a marker schema ref makes.
const refMarker = "x-go-type"

// rateLimited is the code of the intake limit (429).
var rateLimited = auth.CodeRateLimited

package apidoc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/ptx"
)

// Method is what the OpenRPC document says of one ptx_ method: its one
// positional parameter, its result and its errors.
type Method struct {
	Name    string
	Summary string
	// Role is the role the method needs (admin holds every role).
	Role auth.Role
	// Param names the parameter and gives its Go type.
	Param     string
	ParamType reflect.Type
	// Result is the result's Go type; Nullable when it may be null (an
	// id this node does not know).
	Result   reflect.Type
	Nullable bool
	// Errors are the method's own errors: JSON-RPC code and data.code.
	Errors []RPCError
}

// RPCError is an error a method answers.
type RPCError struct {
	Code    int
	Message string
	// Data is the stable code in the error's data.code, "" for none.
	Data string
}

var (
	rpcForbidden   = RPCError{ptx.CodeServer, "the principal lacks the role", "forbidden"}
	rpcUnavailable = RPCError{ptx.CodeServer, "this node runs no distributed sequencer", "unavailable"}
	rpcInternal    = RPCError{ptx.CodeServer, "the engine failed", "internal"}
	rpcCanceled    = RPCError{ptx.CodeServer, "the call was canceled", "canceled"}
	rpcInvalid     = RPCError{ptx.CodeInvalidParams, "the params are not the method's", ""}
	rpcNoGroup     = RPCError{ptx.CodeInvalidParams, "no such privacy group", "no_such_group"}
	rpcCommon      = []RPCError{rpcForbidden, rpcUnavailable, rpcInternal, rpcCanceled, rpcInvalid,
		{ptx.CodeBudget, "this answer's byte budget is spent: ask again with fewer calls or a lower limit", ptx.BudgetAnswer},
		{ptx.CodeBudget, "the node's budget for answers being built is in use: ask again later", ptx.BudgetNode}}
	rpcSend = slices.Concat(rpcCommon, []RPCError{rpcNoGroup,
		{ptx.CodeInvalidParams, "the intent is not the domain's", "bad_intent"},
		{ptx.CodeConflict, "the idempotency key was used for other content", "idempotency_conflict"},
		{ptx.CodeRefused, "from is not an owner the principal acts for", "not_owner"},
		{ptx.CodeRefused, "from holds too few settled states", "insufficient_funds"},
		{ptx.CodeServer, "past the principal's intake rate", auth.CodeRateLimited}})
	rpcRead     = slices.Concat(rpcCommon, []RPCError{{ptx.CodeInvalidParams, "sent with ptx_sendTransaction, not prepared", "not_prepared"}})
	rpcCallErrs = slices.Concat(rpcCommon, []RPCError{rpcNoGroup, {ptx.CodeInvalidParams, "the call is not the domain's", "bad_call"}})
)

// RPCMethods are the ptx_ methods, as ptx.Methods lists them.
var RPCMethods = []Method{
	{Name: "ptx_sendTransaction", Summary: "Send a private transaction; answers its id.", Role: auth.RoleSubmit,
		Param: "transaction", ParamType: typ[ptx.Tx](), Result: typ[string](), Errors: rpcSend},
	{Name: "ptx_prepareTransaction", Summary: "Prepare a private transaction for external submission; answers its id.", Role: auth.RoleSubmit,
		Param: "transaction", ParamType: typ[ptx.Tx](), Result: typ[string](), Errors: rpcSend},
	{Name: "ptx_sendTransactions", Summary: "Send 1 to 1000 private transactions, all or none; answers their ids.", Role: auth.RoleSubmit,
		Param: "transactions", ParamType: typ[[]ptx.Tx](), Result: typ[[]string](), Errors: rpcSend},
	{Name: "ptx_prepareTransactions", Summary: "Prepare 1 to 1000 private transactions, all or none; answers their ids.", Role: auth.RoleSubmit,
		Param: "transactions", ParamType: typ[[]ptx.Tx](), Result: typ[[]string](), Errors: rpcSend},
	{Name: "ptx_getTransaction", Summary: "A transaction; null for an id this node does not know.", Role: auth.RoleRead,
		Param: "id", ParamType: typ[string](), Result: typ[ptx.Transaction](), Nullable: true, Errors: rpcCommon},
	{Name: "ptx_getTransactionReceipt", Summary: "A final transaction's receipt; null while it is pending or unknown.", Role: auth.RoleRead,
		Param: "id", ParamType: typ[string](), Result: typ[ptx.Receipt](), Nullable: true, Errors: rpcCommon},
	{Name: "ptx_getTransactionFull", Summary: "A transaction with its receipt and the states it spent and created.", Role: auth.RoleRead,
		Param: "id", ParamType: typ[string](), Result: typ[ptx.TransactionFull](), Nullable: true, Errors: rpcCommon},
	{Name: "ptx_getPreparedTransaction", Summary: "A prepared transaction; null until it is prepared.", Role: auth.RoleRead,
		Param: "id", ParamType: typ[string](), Result: typ[ptx.PreparedTransaction](), Nullable: true, Errors: rpcRead},
	{Name: "ptx_call", Summary: "Call a read of the domain (balanceOf, coins) on a privacy group's settled states.", Role: auth.RoleRead,
		Param: "call", ParamType: typ[ptx.Tx](), Result: typ[json.RawMessage](), Errors: rpcCallErrs},
	{Name: "ptx_queryTransactions", Summary: "This node's transactions, newest first, by status and group.", Role: auth.RoleRead,
		Param: "query", ParamType: typ[ptx.Query](), Result: typ[[]ptx.Transaction](), Errors: rpcCommon},
}

// BuildOpenRPC returns the OpenRPC 1.3 document of methods: an error names
// a method served without a description or described but not served.
func BuildOpenRPC(served []string, methods []Method) ([]byte, error) {
	var names []string
	s := newSchemas(Overrides)
	var out []any
	for _, m := range methods {
		names = append(names, m.Name)
		result := s.of(m.Result, response)
		if m.Nullable {
			result = Schema{"oneOf": []any{result, Schema{"type": "null"}}}
		}
		var errs []any
		for _, e := range m.Errors {
			o := map[string]any{"code": e.Code, "message": e.Message}
			if e.Data != "" {
				o["data"] = map[string]any{"code": e.Data}
			}
			errs = append(errs, o)
		}
		out = append(out, map[string]any{
			"name":           m.Name,
			"summary":        m.Summary,
			"paramStructure": "by-position",
			"params":         []any{map[string]any{"name": m.Param, "required": true, "schema": s.of(m.ParamType, request)}},
			"result":         map[string]any{"name": "result", "schema": result},
			"errors":         errs,
			"x-ordo-role":    string(m.Role),
		})
	}
	if !slices.Equal(slices.Sorted(slices.Values(names)), slices.Sorted(slices.Values(served))) {
		return nil, fmt.Errorf("apidoc: the methods served %q and those described %q differ", served, names)
	}
	if s.err != nil {
		return nil, s.err
	}
	doc := map[string]any{
		"openrpc": "1.3.2",
		"info": map[string]any{"title": "ordo ptx JSON-RPC", "version": Version,
			"description": "The ptx_ methods of POST /rpc (JSON-RPC 2.0, single calls or batches of up to 1000). Every call needs a " +
				"known principal's bearer token; x-ordo-role is the role the method checks. rpc.discover answers this document. " +
				"Besides each method's errors, any call may be answered -32700 (parse error), -32600 (not a JSON-RPC 2.0 request) or " +
				"-32601 (no such method). Generated by go run ./internal/apidoc/cmd/apidoc; see docs/api.md."},
		"servers":    []any{map[string]any{"name": "node", "url": "/rpc"}},
		"methods":    out,
		"components": map[string]any{"schemas": s.components},
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("apidoc: %w", err)
	}
	return buf.Bytes(), nil
}

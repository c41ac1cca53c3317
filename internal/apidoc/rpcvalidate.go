package apidoc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/ordolabs/ordo/internal/httpjson"
)

// rpcURL is the location the RPC validator's compiler knows the document
// by.
const rpcURL = "urn:ordo:openrpc.json"

// discover is OpenRPC's discovery method, which answers the document.
const discover = "rpc.discover"

// generic are the JSON-RPC errors any call may be answered: parse error,
// invalid request, method not found.
var generic = []int{-32700, -32600, -32601}

// RPCValidator checks JSON-RPC calls and their answers against an OpenRPC
// document, its schemas read as JSON Schema 2020-12.
type RPCValidator struct {
	methods map[string]int // name → index in the document's methods
	errs    map[string][]RPCError
	c       *jsonschema.Compiler
	mu      sync.Mutex
	cache   map[string]*jsonschema.Schema
}

// NewRPCValidator returns an RPCValidator of doc, an OpenRPC document.
func NewRPCValidator(doc []byte) (*RPCValidator, error) {
	var d struct {
		Methods []struct {
			Name   string `json:"name"`
			Errors []struct {
				Code int `json:"code"`
				Data struct {
					Code string `json:"code"`
				} `json:"data"`
			} `json:"errors"`
		} `json:"methods"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, fmt.Errorf("apidoc: %w", err)
	}
	v := &RPCValidator{methods: map[string]int{}, errs: map[string][]RPCError{}, c: jsonschema.NewCompiler(), cache: map[string]*jsonschema.Schema{}}
	for i, m := range d.Methods {
		v.methods[m.Name] = i
		for _, e := range m.Errors {
			v.errs[m.Name] = append(v.errs[m.Name], RPCError{Code: e.Code, Data: e.Data.Code})
		}
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, fmt.Errorf("apidoc: %w", err)
	}
	v.c.DefaultDraft(jsonschema.Draft2020)
	if err := v.c.AddResource(rpcURL, inst); err != nil {
		return nil, fmt.Errorf("apidoc: %w", err)
	}
	return v, nil
}

// rpcCall is a call as the validator reads it.
type rpcCall struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// rpcAnswer is an answer as the validator reads it.
type rpcAnswer struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code int `json:"code"`
		Data struct {
			Code string `json:"code"`
		} `json:"data"`
	} `json:"error"`
}

// Check returns why the document does not allow an exchange on POST /rpc,
// or nil: body is the request (a call or a batch), answer the response
// body (empty when every call was a notification). Each answer's error
// must be one its method lists (or a generic one); a call answered with a
// result must have params its method's schema allows, and the result must
// match the method's result schema.
func (v *RPCValidator) Check(body, answer []byte) error {
	var calls []json.RawMessage
	var answers []rpcAnswer
	batch := len(bytes.TrimSpace(body)) > 0 && bytes.TrimSpace(body)[0] == '['
	if batch {
		_ = json.Unmarshal(body, &calls) // a bad batch is answered with one error
	} else {
		calls = []json.RawMessage{body}
	}
	a := bytes.TrimSpace(answer)
	switch {
	case len(a) == 0:
		return nil
	case a[0] == '[':
		if err := json.Unmarshal(a, &answers); err != nil {
			return fmt.Errorf("the answer is not a JSON-RPC batch answer: %w: %s", err, httpjson.Excerpt(string(a)))
		}
	default:
		var one rpcAnswer
		if err := json.Unmarshal(a, &one); err != nil {
			return fmt.Errorf("the answer is not a JSON-RPC answer: %w: %s", err, httpjson.Excerpt(string(a)))
		}
		answers = []rpcAnswer{one}
	}
	var errs []error
	for _, an := range answers {
		c, ok := find(calls, an.ID)
		if !ok {
			if an.Error == nil || !slices.Contains(generic, an.Error.Code) {
				errs = append(errs, fmt.Errorf("an answer with id %s matches no call", an.ID))
			}
			continue
		}
		if err := v.check(c, an); err != nil {
			errs = append(errs, fmt.Errorf("%s (id %s): %w", c.Method, c.ID, err))
		}
	}
	return errors.Join(errs...)
}

// find is the call of id among calls.
func find(calls []json.RawMessage, id json.RawMessage) (rpcCall, bool) {
	for _, raw := range calls {
		var c rpcCall
		if json.Unmarshal(raw, &c) == nil && len(c.ID) > 0 && bytes.Equal(c.ID, id) {
			return c, true
		}
	}
	return rpcCall{}, false
}

// check checks one call's answer.
func (v *RPCValidator) check(c rpcCall, an rpcAnswer) error {
	i, known := v.methods[c.Method]
	if an.Error != nil {
		if slices.Contains(generic, an.Error.Code) {
			return nil
		}
		if c.Method == discover && an.Error.Code == rpcForbidden.Code && an.Error.Data.Code == rpcForbidden.Data {
			return nil // rpc.discover needs the role read
		}
		if !known {
			return fmt.Errorf("error %d to a method the document does not name", an.Error.Code)
		}
		if !slices.ContainsFunc(v.errs[c.Method], func(e RPCError) bool { return e.Code == an.Error.Code && e.Data == an.Error.Data.Code }) {
			return fmt.Errorf("error %d (data.code %q) is not among the method's errors", an.Error.Code, an.Error.Data.Code)
		}
		return nil
	}
	if !known {
		if c.Method == discover {
			return nil
		}
		return fmt.Errorf("a result to a method the document does not name")
	}
	var params []json.RawMessage
	if err := json.Unmarshal(c.Params, &params); err != nil || len(params) != 1 {
		return fmt.Errorf("answered a result to params that are not an array of one: %s", httpjson.Excerpt(string(c.Params)))
	}
	m := "#/methods/" + strconv.Itoa(i)
	if err := v.validate(m+"/params/0/schema", params[0], "params[0]"); err != nil {
		return err
	}
	result := an.Result
	if len(result) == 0 {
		result = json.RawMessage("null")
	}
	return v.validate(m+"/result/schema", result, "result")
}

// validate checks b, JSON, against the schema at the document's ptr.
func (v *RPCValidator) validate(ptr string, b []byte, what string) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("the %s is not JSON: %w", what, err)
	}
	v.mu.Lock()
	sch, ok := v.cache[ptr]
	if !ok {
		sch, err = v.c.Compile(rpcURL + ptr)
		if err != nil {
			v.mu.Unlock()
			return fmt.Errorf("the document's schema at %s does not compile: %w", ptr, err)
		}
		v.cache[ptr] = sch
	}
	v.mu.Unlock()
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("the %s does not match the document (%s): %s: %w", what, ptr, httpjson.Excerpt(string(b)), err)
	}
	return nil
}

package dispatch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/sequencer"
)

// Call is one contract call: the data of a CallType transaction
// (CallData), or one of a multi-call's (MultiCallData).
type Call struct {
	Contract string `json:"contract"`
	Method   string `json:"method"`
	// Args are the method's args, any JSON value; empty or null for none.
	Args json.RawMessage `json:"args,omitempty"`
}

// ErrCallData is wrapped by every error of a CallType transaction's data that
// could never be built (ParseCallData, CallTx, CallDispatcher.Build).
var ErrCallData = errors.New("invalid call data")

// ErrCallTooLarge is wrapped (with ErrCallData and chain.ErrInvalidTx) by
// the error of data whose transaction's args would be over chain.MaxArgs:
// the one rule the data's JSON Schema cannot say, which intake checks by a
// trial build.
var ErrCallTooLarge = errors.New("call args too large")

// CallData returns the data of a CallType transaction that calls
// contract.method with args (empty for none). args must be one JSON value:
// when it is not, the result is not JSON and intake refuses it.
func CallData(contract, method string, args json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	writeCall(&b, Call{Contract: contract, Method: method, Args: args})
	return b.Bytes()
}

// MultiCallData returns the data of a CallType transaction that makes calls
// in one all-or-nothing multi-call transaction. Each call's args must be one
// JSON value or empty, as for CallData.
func MultiCallData(calls []Call) json.RawMessage {
	var b bytes.Buffer
	b.WriteString(`{"calls":[`)
	for i, c := range calls {
		if i > 0 {
			b.WriteByte(',')
		}
		writeCall(&b, c)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// writeCall writes c as a JSON object; its args as given.
func writeCall(b *bytes.Buffer, c Call) {
	cs, _ := json.Marshal(c.Contract) // a string: never fails
	ms, _ := json.Marshal(c.Method)
	b.WriteString(`{"contract":`)
	b.Write(cs)
	b.WriteString(`,"method":`)
	b.Write(ms)
	if len(bytes.TrimSpace(c.Args)) > 0 {
		b.WriteString(`,"args":`)
		b.Write(c.Args)
	}
	b.WriteByte('}')
}

// ParseCallData decodes a CallType transaction's data: the one call of
// CallData (multi false), or the calls of MultiCallData (multi true). It
// refuses (ErrCallData) exactly what the dispatcher's JSON Schema refuses,
// and args over chain.MaxArgs (ErrCallTooLarge): keys are matched exactly
// (no other keys, no case folding), names are 1-64 characters of
// [a-z0-9_-], no call names MultiCallContract, a multi-call has 1 to
// MaxCalls calls. Null args are no args. The data is expected to have passed
// intake (valid UTF-8, no key twice in an object).
func ParseCallData(data json.RawMessage) (calls []Call, multi bool, err error) {
	top, err := object(data, "data")
	if err != nil {
		return nil, false, err
	}
	if raw, ok := top["calls"]; ok {
		if len(top) != 1 {
			return nil, false, fmt.Errorf("%w: data: calls comes alone, without contract, method or args", ErrCallData)
		}
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil || items == nil {
			return nil, false, fmt.Errorf("%w: data/calls must be an array", ErrCallData)
		}
		if len(items) < 1 || len(items) > MaxCalls {
			return nil, false, fmt.Errorf("%w: data/calls has %d calls; 1 to %d are allowed", ErrCallData, len(items), MaxCalls)
		}
		calls = make([]Call, len(items))
		for i, it := range items {
			if calls[i], err = parseCall(it, fmt.Sprintf("data/calls/%d", i)); err != nil {
				return nil, false, err
			}
		}
		if n := len(multiArgs(calls)); n > chain.MaxArgs {
			return nil, false, fmt.Errorf("%w: %w: %w: the multi-call's args are %d bytes, the limit is %d", ErrCallData, ErrCallTooLarge, chain.ErrInvalidTx, n, chain.MaxArgs)
		}
		return calls, true, nil
	}
	c, err := parseCall(data, "data")
	if err != nil {
		return nil, false, err
	}
	if n := len(c.Args); n > chain.MaxArgs {
		return nil, false, fmt.Errorf("%w: %w: %w: data/args is %d bytes, the limit is %d", ErrCallData, ErrCallTooLarge, chain.ErrInvalidTx, n, chain.MaxArgs)
	}
	return []Call{c}, false, nil
}

// CallTx returns the transaction's call part (Contract, Method, Args in
// canonical form) for a CallType transaction's data; ParseCallData says
// what it refuses.
func CallTx(data json.RawMessage) (chain.Tx, error) {
	calls, multi, err := ParseCallData(data)
	if err != nil {
		return chain.Tx{}, err
	}
	if multi {
		return chain.Tx{Contract: MultiCallContract, Method: MultiCallMethod, Args: multiArgs(calls)}, nil
	}
	return chain.Tx{Contract: calls[0].Contract, Method: calls[0].Method, Args: calls[0].Args}, nil
}

// multiArgs returns a multi-call's args in canonical form:
// {"calls":[{"args"?,"contract","method"}, ...]}.
func multiArgs(calls []Call) json.RawMessage {
	b, _ := json.Marshal(map[string][]Call{"calls": calls}) // args are canonical JSON: never fails
	return chain.CanonicalArgs(b)
}

// parseCall decodes one call object at field (for messages); its args come
// back canonical (nil when absent or null).
func parseCall(raw json.RawMessage, field string) (Call, error) {
	m, err := object(raw, field)
	if err != nil {
		return Call{}, err
	}
	for k := range m {
		if k != "contract" && k != "method" && k != "args" {
			return Call{}, fmt.Errorf("%w: %s has an unknown field %s (contract, method and args are allowed)", ErrCallData, field, sequencer.Excerpt(k))
		}
	}
	var c Call
	for _, f := range []struct {
		key string
		to  *string
	}{{"contract", &c.Contract}, {"method", &c.Method}} {
		v, ok := m[f.key]
		if !ok {
			return Call{}, fmt.Errorf("%w: %s/%s is required", ErrCallData, field, f.key)
		}
		if err := json.Unmarshal(v, f.to); err != nil || bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			return Call{}, fmt.Errorf("%w: %s/%s must be a string", ErrCallData, field, f.key)
		}
		if !chain.ValidName(*f.to) {
			return Call{}, fmt.Errorf("%w: %s/%s must be 1-%d characters of [a-z0-9_-]", ErrCallData, field, f.key, chain.MaxName)
		}
	}
	if c.Contract == MultiCallContract {
		return Call{}, fmt.Errorf("%w: %s/contract may not be %s (no nested multi-calls; use calls)", ErrCallData, field, MultiCallContract)
	}
	c.Args = chain.CanonicalArgs(m["args"])
	return c, nil
}

// object decodes a JSON object with its keys as written.
func object(raw json.RawMessage, field string) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, fmt.Errorf("%w: %s must be a JSON object", ErrCallData, field)
	}
	return m, nil
}

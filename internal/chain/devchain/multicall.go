package devchain

import (
	"encoding/json"
	"fmt"

	"github.com/ordolabs/ordo/internal/chain"
)

// The multicall contract applies several contract calls as one transaction,
// all or nothing: what an atomic batch is.
//
// Its one method, all {calls: [{contract, method, args?}, ...]}, runs the
// calls in order with one Exec (one sender, one block, one transaction
// hash): each call sees the writes of the calls before it. When every call
// succeeds, all their writes and events take effect, each event carrying
// its call's contract. When call i fails, the transaction fails with reason
// "call <i> (<contract>.<method>): <the call's reason>" (i from 0), no call's
// Set writes or events take effect, and the calls after it do not run; the
// SetAlways writes of the calls that ran do take effect (the failing
// library call's countdown counts the failure, so an atomic batch retried
// against a method set to fail n times succeeds at its attempt n+1).
//
// Limits, checked for the whole list before any call runs, each a failure
// with a stable reason: 1 to MaxMulticallCalls calls; each call an object
// with exactly contract, method and optionally args; contract and method
// valid names (as chain.Tx.Validate checks); a registered contract; no
// multicall inside a multicall. Args that are not such an object fail
// likewise. The name "multicall" is reserved: Config.Contracts cannot
// replace it.
type multicall struct {
	contracts map[string]Contract
}

// Multicall's names and limits.
const (
	// MulticallContract is the multicall contract's name.
	MulticallContract = "multicall"
	// MulticallMethod is its one method.
	MulticallMethod = "all"
	// MaxMulticallCalls is the most calls one multicall holds.
	MaxMulticallCalls = 64
)

// multicallArgsShape is the failure reason of args that are not a list of calls.
const multicallArgsShape = `multicall: args must be {"calls": [{"contract", "method", "args"?}, ...]}`

type innerCall struct {
	contract, method string
	args             json.RawMessage
}

// Name returns "multicall".
func (multicall) Name() string { return MulticallContract }

// Apply runs all: every call, or none.
func (m multicall) Apply(x *Exec, method string, args json.RawMessage) error {
	if method != MulticallMethod {
		return Fail("unknown method %q", method)
	}
	calls, err := m.parse(args)
	if err != nil {
		return err
	}
	outer := x.contract
	defer func() { x.contract = outer }()
	for i, c := range calls {
		x.contract = c.contract
		if err := m.contracts[c.contract].Apply(x, c.method, c.args); err != nil {
			return &Failure{Reason: fmt.Sprintf("call %d (%s.%s): %s", i, c.contract, c.method, err.Error()), cause: err}
		}
	}
	return nil
}

// parse decodes and checks the whole list of calls.
func (m multicall) parse(args json.RawMessage) ([]innerCall, error) {
	f, err := decodeObject(args, "multicall args", "calls")
	if err != nil {
		return nil, err
	}
	var raw []json.RawMessage
	if json.Unmarshal(f["calls"], &raw) != nil || raw == nil { // absent or null: nil
		return nil, Fail(multicallArgsShape)
	}
	if len(raw) == 0 || len(raw) > MaxMulticallCalls {
		return nil, Fail("multicall: 1-%d calls, got %d", MaxMulticallCalls, len(raw))
	}
	calls := make([]innerCall, len(raw))
	for i, r := range raw {
		cf, err := decodeObject(r, fmt.Sprintf("call %d", i), "contract", "method", "args")
		if err != nil {
			return nil, err
		}
		c := &calls[i]
		if json.Unmarshal(cf["contract"], &c.contract) != nil || !chain.ValidName(c.contract) {
			return nil, Fail("call %d: contract must be 1-%d characters of [a-z0-9_-]", i, chain.MaxName)
		}
		if json.Unmarshal(cf["method"], &c.method) != nil || !chain.ValidName(c.method) {
			return nil, Fail("call %d: method must be 1-%d characters of [a-z0-9_-]", i, chain.MaxName)
		}
		if c.contract == MulticallContract {
			return nil, Fail("call %d: a multicall cannot hold a multicall", i)
		}
		if _, ok := m.contracts[c.contract]; !ok {
			return nil, Fail("call %d (%s.%s): unknown contract", i, c.contract, c.method)
		}
		if a := cf["args"]; len(a) > 0 && string(a) != "null" {
			c.args = a
		}
	}
	return calls, nil
}

// Call has no methods: multicall has no state.
func (multicall) Call(StateReader, string, json.RawMessage) (json.RawMessage, error) {
	return nil, errNoMethod
}

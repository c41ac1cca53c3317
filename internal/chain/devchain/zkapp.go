package devchain

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// ZkApp is the `zkapp` contract: accounts created by `deploy`, each holding a
// small JSON object as state. Like a MINA account precondition, any method
// that changes a zkApp succeeds at most once per zkApp per block: a second
// change in the same block fails with reason "precondition". A caller may also
// pin the version it expects ("version" in args); a mismatch fails the same
// way.
//
// Methods (args are JSON objects; "zkapp" names the account):
//   - deploy {zkapp, state?}: create the account (fails "exists" if it does).
//   - set {zkapp, key, value}: state[key] = value.
//   - merge {zkapp, state}: shallow-merge an object into the state.
//   - append {zkapp, key, value}: append value to the list state[key].
//   - inc {zkapp, key, by}: add the integer by to state[key].
//
// Call get {zkapp} returns {zkapp, state, version, changed, owner}.
type ZkApp struct{}

// MaxZkAppState is the largest state one zkApp may hold, in bytes.
const MaxZkAppState = 16 << 10

// Name returns "zkapp".
func (ZkApp) Name() string { return "zkapp" }

type zkAccount struct {
	ZkApp   string                     `json:"zkapp"`
	State   map[string]json.RawMessage `json:"state"`
	Version uint64                     `json:"version"`
	Changed uint64                     `json:"changed"`
	Owner   string                     `json:"owner"`
}

type zkArgs struct {
	ZkApp   string                     `json:"zkapp"`
	Key     string                     `json:"key"`
	Value   json.RawMessage            `json:"value"`
	State   map[string]json.RawMessage `json:"state"`
	By      *int64                     `json:"by"`
	Version *uint64                    `json:"version"`
}

func parseZkArgs(args json.RawMessage) (zkArgs, error) {
	var a zkArgs
	if len(args) == 0 {
		return a, Fail("args must be an object naming the zkapp")
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return a, Fail("bad args: %w", err)
	}
	if a.ZkApp == "" || len(a.ZkApp) > 128 {
		return a, Fail("zkapp must be 1-128 characters")
	}
	return a, nil
}

// Apply executes a zkapp method.
func (ZkApp) Apply(x *Exec, method string, args json.RawMessage) error {
	a, err := parseZkArgs(args)
	if err != nil {
		return err
	}
	raw, exists := x.Get(a.ZkApp)
	var acc zkAccount
	if method == "deploy" {
		if exists {
			return Fail("exists")
		}
		acc = zkAccount{ZkApp: a.ZkApp, State: a.State, Owner: string(x.From)}
		if acc.State == nil {
			acc.State = map[string]json.RawMessage{}
		}
	} else {
		if !exists {
			return Fail("no such zkapp")
		}
		if err := json.Unmarshal(raw, &acc); err != nil {
			return fmt.Errorf("corrupt zkapp state: %w", err)
		}
		if acc.Changed == x.Height {
			return Fail(ReasonPrecondition)
		}
		if a.Version != nil && *a.Version != acc.Version {
			return Fail(ReasonPrecondition)
		}
		if err := acc.apply(method, a); err != nil {
			return err
		}
	}
	acc.Version++
	acc.Changed = x.Height
	out, err := json.Marshal(acc)
	if err != nil {
		return Fail("state: %v", err)
	}
	if len(out) > MaxZkAppState {
		return Fail("state too large")
	}
	x.Set(a.ZkApp, out)
	return x.Emit(method, map[string]any{"zkapp": a.ZkApp, "version": acc.Version})
}

func (acc *zkAccount) apply(method string, a zkArgs) error {
	switch method {
	case "set":
		if a.Key == "" {
			return Fail("key is required")
		}
		if len(a.Value) == 0 {
			return Fail("value is required")
		}
		acc.State[a.Key] = a.Value
	case "merge":
		for k, v := range a.State {
			acc.State[k] = v
		}
	case "append":
		if a.Key == "" || len(a.Value) == 0 {
			return Fail("key and value are required")
		}
		var list []json.RawMessage
		if cur, ok := acc.State[a.Key]; ok && !bytes.Equal(cur, []byte("null")) {
			if err := json.Unmarshal(cur, &list); err != nil {
				return failCause(err, "state[%s] is not a list", a.Key)
			}
		}
		list = append(list, a.Value)
		b, err := json.Marshal(list)
		if err != nil {
			return failCause(err, "state[%s]: value is not valid JSON", a.Key)
		}
		acc.State[a.Key] = b
	case "inc":
		if a.Key == "" || a.By == nil {
			return Fail("key and by are required")
		}
		var n int64
		if cur, ok := acc.State[a.Key]; ok {
			if err := json.Unmarshal(cur, &n); err != nil {
				return failCause(err, "state[%s] is not an integer", a.Key)
			}
		}
		n += *a.By
		acc.State[a.Key] = json.RawMessage(fmt.Sprint(n))
	default:
		return Fail("unknown method %q", method)
	}
	return nil
}

// Call answers get {zkapp}.
func (ZkApp) Call(s StateReader, method string, args json.RawMessage) (json.RawMessage, error) {
	if method != "get" {
		return nil, errNoMethod
	}
	a, err := parseZkArgs(args)
	if err != nil {
		return nil, err
	}
	raw, ok := s.Get(a.ZkApp)
	if !ok {
		return nil, Fail("no such zkapp")
	}
	return raw, nil
}

package evm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/evm/contracts"
)

// Contract is a contract the backend knows by name: where it is and its ABI.
type Contract struct {
	// Address is where the contract is deployed.
	Address common.Address
	// ABI is its interface: methods, events and errors.
	ABI abi.ABI
}

// RouterName is the registry name of the OrdoRouter (Config.Router):
// events it emits carry it as their Contract.
const RouterName = "router"

// Multi-call form of a transaction: Contract "multicall", Method "all",
// Args {"calls":[{"contract","method","args"}…]}, one router execute whose
// calls run all or none (the sequencer's dispatch.MultiCallData).
const (
	MultiCallContract = "multicall"
	MultiCallMethod   = "all"
)

// BuiltinABI returns the ABI of a contract whose artifact ordo commits
// (package contracts): "OrdoRouter", "Voting", "Library", "Workflow",
// "ToolRegistry", … (contracts.ArtifactNames).
func BuiltinABI(name string) (abi.ABI, error) {
	a, err := contracts.LoadArtifact(name)
	if err != nil {
		return abi.ABI{}, err
	}
	parsed, err := abi.JSON(bytes.NewReader(a.ABI))
	if err != nil {
		return abi.ABI{}, fmt.Errorf("artifact %s: %w", name, err)
	}
	return parsed, nil
}

// entry is one contract of the registry.
type entry struct {
	name    string
	addr    common.Address
	abi     abi.ABI
	methods map[string]*abi.Method // by ordo name (snake case) and ABI name
}

// method finds the ABI function of an ordo method name: its snake case
// ("cast_vote" for castVote) or its exact ABI name.
func (e *entry) method(name string) (*abi.Method, error) {
	if m, ok := e.methods[name]; ok {
		return m, nil
	}
	return nil, fmt.Errorf("%w: %s has no method %s", chain.ErrUnknownMethod, e.name, name)
}

// registry is the backend's contracts by name and by address.
type registry struct {
	byName map[string]*entry
	byAddr map[common.Address]*entry
	router *entry // nil when no router is configured
}

var routerABI = mustBuiltin("OrdoRouter")

func mustBuiltin(name string) abi.ABI {
	a, err := BuiltinABI(name)
	if err != nil {
		panic(err)
	}
	return a
}

// newRegistry builds the registry of cs and the router (zero: none).
func newRegistry(router common.Address, cs map[string]Contract) (*registry, error) {
	r := &registry{byName: map[string]*entry{}, byAddr: map[common.Address]*entry{}}
	names := make([]string, 0, len(cs))
	for n := range cs {
		names = append(names, n)
	}
	sort.Strings(names)
	add := func(name string, c Contract) error {
		if !chain.ValidName(name) || name == MultiCallContract {
			return fmt.Errorf("contract name %q: want 1-%d characters of [a-z0-9_-], not %q", name, chain.MaxName, MultiCallContract)
		}
		if prev, ok := r.byAddr[c.Address]; ok {
			return fmt.Errorf("contracts %s and %s have one address %s", prev.name, name, c.Address.Hex())
		}
		e := &entry{name: name, addr: c.Address, abi: c.ABI, methods: map[string]*abi.Method{}}
		mnames := make([]string, 0, len(c.ABI.Methods))
		for n := range c.ABI.Methods {
			mnames = append(mnames, n)
		}
		sort.Strings(mnames)
		for _, n := range mnames {
			m := c.ABI.Methods[n]
			e.methods[n] = &m
		}
		for _, n := range mnames { // snake names never shadow an exact one
			if s := snakeCase(n); e.methods[s] == nil {
				m := c.ABI.Methods[n]
				e.methods[s] = &m
			}
		}
		r.byName[name], r.byAddr[c.Address] = e, e
		return nil
	}
	for _, n := range names {
		if err := add(n, cs[n]); err != nil {
			return nil, err
		}
	}
	if router != (common.Address{}) {
		if e, ok := r.byAddr[router]; ok {
			r.router = e
		} else {
			if _, taken := r.byName[RouterName]; taken {
				return nil, fmt.Errorf("contract name %q is the router's; the router is at %s", RouterName, router.Hex())
			}
			if err := add(RouterName, Contract{Address: router, ABI: routerABI}); err != nil {
				return nil, err
			}
			r.router = r.byName[RouterName]
		}
	}
	return r, nil
}

func (r *registry) contract(name string) (*entry, error) {
	e, ok := r.byName[name]
	if !ok {
		return nil, fmt.Errorf("%w: %s", chain.ErrUnknownContract, name)
	}
	return e, nil
}

// pack encodes one call of contract.method with args.
func (r *registry) pack(contract, method string, args json.RawMessage) (common.Address, []byte, error) {
	e, err := r.contract(contract)
	if err != nil {
		return common.Address{}, nil, err
	}
	m, err := e.method(method)
	if err != nil {
		return common.Address{}, nil, err
	}
	enc, err := packArgs(m.Inputs, args)
	if err != nil {
		return common.Address{}, nil, fmt.Errorf("%s.%s: %w", contract, method, err)
	}
	return e.addr, append(append([]byte{}, m.ID...), enc...), nil
}

// routerCall is one call of an intent, as the router takes it.
type routerCall = contracts.OrdoRouterCall

// calls returns the calls of tx: the multi-call's, or tx's one call.
func (r *registry) calls(tx chain.Tx) ([]routerCall, error) {
	if tx.Contract != MultiCallContract {
		to, data, err := r.pack(tx.Contract, tx.Method, tx.Args)
		if err != nil {
			return nil, err
		}
		return []routerCall{{Target: to, Data: data}}, nil
	}
	if tx.Method != MultiCallMethod {
		return nil, fmt.Errorf("%w: %s has no method %s (only %s)", chain.ErrUnknownMethod, MultiCallContract, tx.Method, MultiCallMethod)
	}
	var m struct {
		Calls []struct {
			Contract string          `json:"contract"`
			Method   string          `json:"method"`
			Args     json.RawMessage `json:"args"`
		} `json:"calls"`
	}
	if err := json.Unmarshal(tx.Args, &m); err != nil || len(m.Calls) == 0 {
		return nil, fmt.Errorf(`%w: a multicall's args are {"calls":[{"contract","method","args"}…]} with at least one call`, chain.ErrInvalidTx)
	}
	out := make([]routerCall, len(m.Calls))
	for i, c := range m.Calls {
		to, data, err := r.pack(c.Contract, c.Method, c.Args)
		if err != nil {
			return nil, fmt.Errorf("call %d: %w", i, err)
		}
		out[i] = routerCall{Target: to, Data: data}
	}
	return out, nil
}

// errNoRouter is the error of a memo'd transaction without a router.
var errNoRouter = fmt.Errorf("%w: a transaction with a memo (an intent) goes through the router, and no router is configured", chain.ErrInvalidTx)

// encode returns the destination and calldata of tx: router.execute(memo,
// calls) when tx has a memo (strict: executeStrict), a direct call
// otherwise.
func (r *registry) encode(tx chain.Tx, strict bool) (common.Address, []byte, error) {
	if tx.IsNoop() { // a zero-value transfer to the sender itself
		to, err := parseAddress(tx.From)
		return to, nil, err
	}
	if tx.Memo == "" {
		if tx.Contract == MultiCallContract {
			return common.Address{}, nil, fmt.Errorf("%w: a multicall runs through the router and needs a memo", chain.ErrInvalidTx)
		}
		return r.pack(tx.Contract, tx.Method, tx.Args)
	}
	if r.router == nil {
		return common.Address{}, nil, errNoRouter
	}
	calls, err := r.calls(tx)
	if err != nil {
		return common.Address{}, nil, err
	}
	name := "execute"
	if strict {
		name = "executeStrict"
	}
	data, err := r.router.abi.Pack(name, tx.Memo, calls)
	if err != nil {
		return common.Address{}, nil, fmt.Errorf("%w: %w", chain.ErrInvalidTx, err)
	}
	return r.router.addr, data, nil
}

// decodedCall is one call read back from calldata.
type decodedCall struct {
	Contract string          `json:"contract"`
	Method   string          `json:"method"`
	Args     json.RawMessage `json:"args,omitempty"`
}

// decodeCall reads a call to `to` with data back into ordo's form; a call
// the registry cannot decode has Contract "" and Args {"to","data"}.
func (r *registry) decodeCall(to common.Address, data []byte) decodedCall {
	if e, ok := r.byAddr[to]; ok && len(data) >= 4 {
		if m, err := e.abi.MethodById(data[:4]); err == nil {
			if vals, err := m.Inputs.Unpack(data[4:]); err == nil {
				return decodedCall{Contract: e.name, Method: snakeCase(m.Name), Args: argsJSON(m.Inputs, vals)}
			}
		}
	}
	return decodedCall{Args: marshal(map[string]any{"to": addressOf(to), "data": hexOf(data)})}
}

// intent is a router transaction's calldata, decoded.
type intent struct {
	memo  string
	calls []routerCall
}

var errNotIntent = errors.New("not a router execute")

// decodeIntent reads execute(memo, calls) or executeStrict(memo, calls).
func (r *registry) decodeIntent(to *common.Address, data []byte) (intent, error) {
	if r.router == nil || to == nil || *to != r.router.addr || len(data) < 4 {
		return intent{}, errNotIntent
	}
	m, err := r.router.abi.MethodById(data[:4])
	if err != nil || (m.Name != "execute" && m.Name != "executeStrict") {
		return intent{}, errNotIntent
	}
	vals, err := m.Inputs.Unpack(data[4:])
	if err != nil || len(vals) != 2 {
		return intent{}, errNotIntent
	}
	memo, ok := vals[0].(string)
	calls, ok2 := abi.ConvertType(vals[1], new([]routerCall)).(*[]routerCall)
	if !ok || !ok2 {
		return intent{}, errNotIntent
	}
	return intent{memo: memo, calls: *calls}, nil
}

// decodeTx fills tx's Contract, Method, Args and Memo from a transaction to
// `to` with data.
func (r *registry) decodeTx(tx *chain.Tx, to *common.Address, data []byte, value string) {
	if in, err := r.decodeIntent(to, data); err == nil {
		tx.Memo = in.memo
		if len(in.calls) == 1 {
			c := r.decodeCall(in.calls[0].Target, in.calls[0].Data)
			tx.Contract, tx.Method, tx.Args = c.Contract, c.Method, c.Args
			return
		}
		cs := make([]decodedCall, len(in.calls))
		for i, c := range in.calls {
			cs[i] = r.decodeCall(c.Target, c.Data)
		}
		tx.Contract, tx.Method, tx.Args = MultiCallContract, MultiCallMethod, chain.CanonicalArgs(marshal(map[string]any{"calls": cs}))
		return
	}
	if to == nil {
		tx.Args = marshal(map[string]any{"create": true})
		return
	}
	if c := r.decodeCall(*to, data); c.Contract != "" {
		tx.Contract, tx.Method, tx.Args = c.Contract, c.Method, c.Args
		return
	}
	args := map[string]any{"to": addressOf(*to)}
	if len(data) > 0 {
		args["data"] = hexOf(data)
	}
	if value != "0" && value != "" {
		args["value"] = value
	}
	tx.Args = marshal(args)
}

// callName is "contract.method" of a call, for reasons.
func (r *registry) callName(c routerCall) string {
	d := r.decodeCall(c.Target, c.Data)
	if d.Contract == "" {
		return string(addressOf(c.Target))
	}
	return d.Contract + "." + d.Method
}

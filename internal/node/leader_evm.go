package node

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
)

// The leader on an EVM chain. Workflow.sol and ToolRegistry.sol keep
// devchain's names, but the ABI has no "any JSON" value: a walk's input and
// output and a tool's schemas are strings holding JSON text, integers come
// back as decimal strings, a walk's result is always there (with a
// reported flag), and submitResult takes all four of its arguments. The
// wiring below turns the EVM forms into devchain's for the leader, so the
// engine is the same on both chains.

// evmLowerAddress is an EVM account as the node names its senders.
var evmLowerAddress = regexp.MustCompile(`^0x[0-9a-f]{40}$`)

// leaderChain is the chain the leader engine reads: c itself on devchain;
// on an EVM chain, c with the workflow's walk and caps reads and the
// registry's tool read in devchain's shapes.
func (n *Node) leaderChain(c chain.Chain) chain.Chain {
	if !n.Config.EVM.enabled() {
		return c
	}
	lc := n.Config.Leader
	e := evmLeaderChain{Chain: c, workflow: lc.Workflow, registry: lc.Registry}
	if e.workflow == "" {
		e.workflow = devchain.WorkflowContract
	}
	if e.registry == "" {
		e.registry = devchain.RegistryContract
	}
	if sub, ok := c.(chain.HeadSubscriber); ok {
		return evmLeaderSubChain{e, sub}
	}
	return e
}

// leaderResultArgs is the leader's submit_result args builder: devchain's
// (nil: the engine's default), or Workflow.sol's on an EVM chain.
func (n *Node) leaderResultArgs() func(string, bool, json.RawMessage, string) json.RawMessage {
	if !n.Config.EVM.enabled() {
		return nil
	}
	return evmResultArgs
}

// evmResultArgs are the args of Workflow.sol's submitResult(walk, ok,
// output, error): the output's JSON text on a success, the message on a
// failure, the other one empty.
func evmResultArgs(walk string, ok bool, output json.RawMessage, errText string) json.RawMessage {
	args := map[string]any{"walk": walk, "ok": ok, "output": "", "error": ""}
	if ok {
		args["output"] = string(output)
	} else {
		args["error"] = errText
	}
	a, _ := json.Marshal(args)
	return a
}

// evmLeaderChain reshapes three reads of an EVM chain into devchain's.
type evmLeaderChain struct {
	chain.Chain
	workflow, registry string
}

// evmLeaderSubChain is evmLeaderChain over a chain that pushes heads.
type evmLeaderSubChain struct {
	evmLeaderChain
	sub chain.HeadSubscriber
}

// SubscribeHeads is the underlying chain's.
func (c evmLeaderSubChain) SubscribeHeads(ctx context.Context) (<-chan chain.BlockHeader, error) {
	return c.sub.SubscribeHeads(ctx)
}

// Call answers workflow.walk, workflow.caps and registry.tool in devchain's
// shapes (devchain.Walk, {"caps": n}, devchain.ToolDefinition), anything
// else as the chain does. A stored string that is not the JSON it should
// be is an error wrapping chain.ErrCallFailed.
func (c evmLeaderChain) Call(ctx context.Context, contract, method string, args json.RawMessage) (json.RawMessage, error) {
	raw, err := c.Chain.Call(ctx, contract, method, args)
	if err != nil {
		return raw, err
	}
	var out any
	switch {
	case contract == c.workflow && method == "walk":
		out, err = evmWalk(raw)
	case contract == c.workflow && method == "caps":
		var n uint64
		if n, err = evmUint(raw); err == nil {
			out = map[string]uint64{"caps": n}
		}
	case contract == c.registry && method == "tool":
		out, err = evmTool(raw)
	default:
		return raw, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s.%s: %w", chain.ErrCallFailed, contract, method, err)
	}
	return json.Marshal(out)
}

// evmWalk converts Workflow.sol's Walk tuple.
func evmWalk(raw json.RawMessage) (devchain.Walk, error) {
	var t struct {
		Walk, Tool, Input, Output, Reason string
		Requester, Leader                 chain.Address
		Height, ResultHeight              json.RawMessage
		Reported, OK                      bool
	}
	var w devchain.Walk
	if err := json.Unmarshal(raw, &t); err != nil {
		return w, fmt.Errorf("the walk: %w", err)
	}
	if !json.Valid([]byte(t.Input)) {
		return w, fmt.Errorf("walk %q: its input is not JSON: %.40q", t.Walk, t.Input)
	}
	h, err := evmUint(t.Height)
	if err != nil {
		return w, err
	}
	w = devchain.Walk{Walk: t.Walk, Tool: t.Tool, Input: compact(t.Input), Requester: t.Requester, Height: h}
	if !t.Reported {
		return w, nil
	}
	rh, err := evmUint(t.ResultHeight)
	if err != nil {
		return w, err
	}
	w.Result = &devchain.WalkResultRecord{OK: t.OK, Error: t.Reason, Leader: t.Leader, Height: rh}
	if t.OK {
		if w.Result.Output = compact(t.Output); !json.Valid([]byte(t.Output)) {
			w.Result.Output, _ = json.Marshal(t.Output) // another leader's text that is not JSON: a string
		}
	}
	return w, nil
}

// evmTool converts ToolRegistry.sol's Tool tuple.
func evmTool(raw json.RawMessage) (devchain.ToolDefinition, error) {
	var t struct {
		Tool, URL, InputSchema, OutputSchema string
		Owner                                chain.Address
		Version                              json.RawMessage
	}
	var d devchain.ToolDefinition
	if err := json.Unmarshal(raw, &t); err != nil {
		return d, fmt.Errorf("the tool: %w", err)
	}
	for _, s := range []string{t.InputSchema, t.OutputSchema} {
		if !json.Valid([]byte(s)) {
			return d, fmt.Errorf("tool %q: a schema is not JSON: %.40q", t.Tool, s)
		}
	}
	v, err := evmUint(t.Version)
	if err != nil {
		return d, err
	}
	return devchain.ToolDefinition{Tool: t.Tool, URL: t.URL, InputSchema: compact(t.InputSchema), OutputSchema: compact(t.OutputSchema),
		Owner: t.Owner, Version: v}, nil
}

// evmUint reads an integer the EVM backend gives as a decimal string.
func evmUint(raw json.RawMessage) (uint64, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return 0, fmt.Errorf("want a decimal string, got %.40s", raw)
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("want a decimal string: %w", err)
	}
	return n, nil
}

// compact is JSON text as a raw message without insignificant blanks (the
// text as it is when it does not compact: the caller checks it).
func compact(s string) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, []byte(s)) != nil {
		return json.RawMessage(s)
	}
	return b.Bytes()
}

package leader

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/sequencer/dispatch"
	"github.com/ordolabs/ordo/internal/tool"
)

// perform runs one effect and returns the input that answers it.
func (n *Node) perform(ctx context.Context, e Effect) Input {
	switch e.Kind {
	case EffectExecute:
		o, out, err := n.execute(ctx, e)
		return Executed(time.Time{}, e.ID, e.Attempt, o, out, err)
	case EffectReport:
		return n.report(ctx, e)
	case EffectCheck:
		leader, ok := n.recordedResult(ctx, e.Walk)
		in := Checked(time.Time{}, e.ID, n.chans.Load().ours[leader])
		in.Recorded = map[bool]string{true: "ok", false: "failed"}[ok]
		return in
	}
	panic(fmt.Sprintf("leader: unknown effect %d", e.Kind))
}

// toolDef is a tool's definition in the registry.
type toolDef struct {
	Tool         string          `json:"tool"`
	URL          string          `json:"url"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	Version      uint64          `json:"version"`
}

// toolCache keeps tool definitions until the registry's events say they
// changed.
type toolCache struct {
	mu   sync.Mutex
	defs map[string]toolDef
}

func newToolCache() *toolCache { return &toolCache{defs: map[string]toolDef{}} }

// reset drops every definition.
func (tc *toolCache) reset() {
	tc.mu.Lock()
	clear(tc.defs)
	tc.mu.Unlock()
}

func (tc *toolCache) drop(name string) {
	tc.mu.Lock()
	delete(tc.defs, name)
	tc.mu.Unlock()
}

// errNotFound marks a registry or workflow read of something not held.
var errNotFound = errors.New("not found")

func (n *Node) call(ctx context.Context, contract, method string, args any, out any) error {
	a, err := json.Marshal(args)
	if err != nil {
		return err
	}
	raw, err := n.cfg.Chain.Call(ctx, contract, method, a)
	if err != nil {
		if errors.Is(err, chain.ErrNotFound) { // in process, and over HTTP (the client maps the code back)
			return fmt.Errorf("%s.%s: %w: %w", contract, method, errNotFound, err)
		}
		return fmt.Errorf("%s.%s: %w", contract, method, err)
	}
	return json.Unmarshal(raw, out)
}

func (n *Node) def(ctx context.Context, name string) (toolDef, error) {
	n.defs.mu.Lock()
	d, ok := n.defs.defs[name]
	n.defs.mu.Unlock()
	if ok {
		return d, nil
	}
	if err := n.call(ctx, n.cfg.Registry, "tool", map[string]string{"tool": name}, &d); err != nil {
		return d, err
	}
	n.defs.mu.Lock()
	n.defs.defs[name] = d
	n.defs.mu.Unlock()
	return d, nil
}

// execute runs a request: the tool's definition, the walk's input, the
// input checked, the tool invoked, the output checked. A chain that does
// not answer and a tool that times out, answers 5xx or refuses the
// connection are retriable; a missing tool, a 4xx and a schema violation
// are fatal; a walk the workflow no longer holds is gone.
func (n *Node) execute(ctx context.Context, e Effect) (Outcome, json.RawMessage, string) {
	d, err := n.def(ctx, e.Tool)
	switch {
	case errors.Is(err, errNotFound):
		return OutcomeFatal, nil, fmt.Sprintf("no tool %q in the registry", e.Tool)
	case err != nil:
		return OutcomeRetriable, nil, err.Error()
	}
	var walk struct {
		Input json.RawMessage `json:"input"`
	}
	err = n.call(ctx, n.cfg.Workflow, "walk", map[string]string{"walk": e.Walk}, &walk)
	switch {
	case errors.Is(err, errNotFound):
		return OutcomeGone, nil, err.Error()
	case err != nil:
		return OutcomeRetriable, nil, err.Error()
	}
	if err := tool.CheckSchema(d.InputSchema, "input", walk.Input); err != nil {
		return OutcomeFatal, nil, err.Error()
	}
	ictx, cancel := context.WithTimeout(ctx, n.cfg.ToolTimeout)
	defer cancel()
	out, err := n.cfg.Tools.Invoke(ictx, d.URL, walk.Input, n.cfg.Key, n.cfg.Clock.Now())
	switch {
	case err != nil && tool.IsRetriable(err):
		return OutcomeRetriable, nil, err.Error()
	case err != nil:
		return OutcomeFatal, nil, err.Error()
	}
	if err := tool.CheckSchema(d.OutputSchema, "output", out); err != nil {
		return OutcomeFatal, nil, err.Error()
	}
	return OutcomeOK, out, ""
}

// SubmitResultMethod is the workflow's method that takes a result.
const SubmitResultMethod = "submit_result"

// DevchainResultArgs are the args of devchain's submit_result: {walk, ok:
// true, output} or {walk, ok: false, error}.
func DevchainResultArgs(walk string, ok bool, output json.RawMessage, errText string) json.RawMessage {
	args := map[string]any{"walk": walk, "ok": ok}
	if ok {
		args["output"] = output
	} else {
		args["error"] = errText
	}
	a, _ := json.Marshal(args)
	return a
}

// report hands a result to the sequencer: the workflow's submitResult on
// the channel's queue, under the result's own idempotency key.
func (n *Node) report(ctx context.Context, e Effect) Input {
	var msg string
	if !e.OK && json.Unmarshal(e.Output, &msg) != nil {
		msg = string(e.Output)
	}
	a := n.cfg.ResultArgs(e.Walk, e.OK, e.Output, msg)
	res, err := n.cfg.Sequencer.Submit(ctx, []sequencer.Intake{{Queue: e.Queue, Type: ResultType,
		Data: dispatch.CallData(n.cfg.Workflow, SubmitResultMethod, a), IdempotencyKey: e.Key, Principal: sequencer.PrincipalLeader}})
	if err != nil {
		permanent := errors.Is(err, sequencer.ErrInvalid) || errors.Is(err, sequencer.ErrTypeNotAllowed) || errors.Is(err, sequencer.ErrIdempotencyConflict)
		n.log.Warn("leader: submitting a result failed", "walk", e.Walk, "permanent", permanent, "err", err)
		in := ReportFailed(time.Time{}, e.ID, err.Error(), permanent)
		in.Key = e.Key
		return in
	}
	t := res[0].Transaction
	in := Reported(time.Time{}, e.ID, t.UID, t.State, t.Error)
	in.Key = e.Key
	return in
}

// recordedResult reads the leader whose result the workflow holds for a
// walk and whether it is a success ("" when none or unreadable).
func (n *Node) recordedResult(ctx context.Context, walk string) (string, bool) {
	var w struct {
		Result *struct {
			Leader chain.Address `json:"leader"`
			OK     bool          `json:"ok"`
		} `json:"result"`
	}
	if n.call(ctx, n.cfg.Workflow, "walk", map[string]string{"walk": walk}, &w) != nil || w.Result == nil {
		return "", false
	}
	return string(w.Result.Leader), w.Result.OK
}

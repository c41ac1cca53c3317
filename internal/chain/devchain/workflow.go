package devchain

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/ordolabs/ordo/internal/chain"
)

// Workflow is the `workflow` contract (seed 001): it takes requests to run a
// tool on an input (walks), emits an event a leader listens for, and keeps
// the one result a leader reports for each. Leaders are accounts holding
// leader caps, granted by the contract's admin; a leader holds N caps, one
// per channel it runs.
//
// Method names are the seed's in the chain's name rule ([a-z0-9_-]):
// grantLeaderCap is grant_leader_cap, revokeLeaderCap revoke_leader_cap,
// submitResult submit_result.
//
// Transactions (args are JSON objects whose keys must be exactly these;
// unknown fields fail):
//   - init {}: makes the caller the admin; once (then
//     ReasonAlreadyInitialized).
//   - grant_leader_cap {leader}: by the admin only (ReasonNotAdmin), gives
//     the account leader one more cap (at most MaxLeaderCaps:
//     ReasonTooManyCaps); emits LeaderCapGranted {leader, caps}.
//   - revoke_leader_cap {leader}: by the admin only, takes one cap back
//     (ReasonNoLeaderCap when it holds none); emits LeaderCapRevoked
//     {leader, caps}.
//   - request {walk, tool, input}: anyone; walk is an id of 1-MaxWalkID
//     bytes never requested before (ReasonWalkExists), tool a tool name
//     (ValidToolName: the registry is not consulted), input any JSON of at
//     most MaxWalkPayload bytes. Stores the walk and emits
//     RequestWalkExecution {walk, tool}.
//   - submit_result {walk, ok, output | error}: ok true with output (any
//     JSON of at most MaxWalkPayload bytes) or ok false with error (a string
//     of 1-MaxWalkPayload bytes), never both; only from an account holding a
//     cap (ReasonNotLeader), for a walk requested (ReasonNoSuchWalk), once
//     per walk (ReasonAlreadyReported), checked in that order after the
//     args. Stores the result with its submitter and height and emits
//     WalkResult {walk, ok, leader}.
//
// Reads (Call):
//   - walk {walk} → a Walk; a walk never requested is an error wrapping
//     chain.ErrNotFound.
//   - caps {leader} → {"caps": n}.
//   - admin {} → {"admin": address, or "" before init}.
//
// A reorg that removes a request's block removes the walk and its event with
// the block's other writes; the request goes back to the mempool and, when
// included again, emits its event under a new cursor.
//
// State: admin, caps/<leader> (a count, absent at 0), walk/<walk> (a Walk).
type Workflow struct{}

// WorkflowContract is the workflow contract's name.
const WorkflowContract = "workflow"

// Workflow method names.
const (
	WorkflowInit            = "init"
	WorkflowGrantLeaderCap  = "grant_leader_cap"
	WorkflowRevokeLeaderCap = "revoke_leader_cap"
	WorkflowRequest         = "request"
	WorkflowSubmitResult    = "submit_result"
)

// Workflow limits and failure reasons.
const (
	// MaxWalkID is the longest walk id, in bytes.
	MaxWalkID = 128
	// MaxWalkPayload is the largest input, output or error of a walk, in
	// bytes (an error string counted as its text).
	MaxWalkPayload = 16 << 10
	// MaxLeaderCaps is the most caps one account holds.
	MaxLeaderCaps = 256

	// ReasonAlreadyInitialized fails an init after the first.
	ReasonAlreadyInitialized = "already_initialized"
	// ReasonNotAdmin fails a grant or revoke by anyone but the admin (by
	// anyone at all before init).
	ReasonNotAdmin = "not_admin"
	// ReasonNoLeaderCap fails a revoke from an account holding no cap.
	ReasonNoLeaderCap = "no_leader_cap"
	// ReasonTooManyCaps fails a grant to an account holding MaxLeaderCaps.
	ReasonTooManyCaps = "too_many_caps"
	// ReasonWalkExists fails a request for a walk id already requested.
	ReasonWalkExists = "walk_exists"
	// ReasonNotLeader fails a result from an account holding no cap.
	ReasonNotLeader = "not_leader"
	// ReasonNoSuchWalk fails a result for a walk never requested.
	ReasonNoSuchWalk = "no_such_walk"
	// ReasonAlreadyReported fails a second result for a walk.
	ReasonAlreadyReported = "already_reported"
)

// Walk is a requested walk: the answer of the workflow's walk read.
type Walk struct {
	// Walk is its id.
	Walk string `json:"walk"`
	// Tool is the tool to run.
	Tool string `json:"tool"`
	// Input is the tool's input, as requested.
	Input json.RawMessage `json:"input"`
	// Requester is the account that requested it, at Height.
	Requester chain.Address `json:"requester"`
	Height    uint64        `json:"height"`
	// Result is the reported result; nil until one is.
	Result *WalkResultRecord `json:"result,omitempty"`
}

// WalkResultRecord is a walk's reported result.
type WalkResultRecord struct {
	// OK says whether the tool succeeded: then Output is its output, else
	// Error says why not.
	OK     bool            `json:"ok"`
	Output json.RawMessage `json:"output,omitempty"`
	Error  string          `json:"error,omitempty"`
	// Leader is the account that submitted it, at Height.
	Leader chain.Address `json:"leader"`
	Height uint64        `json:"height"`
}

// LeaderCapChange is the data of the LeaderCapGranted and LeaderCapRevoked
// events: the leader and the caps it holds after the change.
type LeaderCapChange struct {
	Leader chain.Address `json:"leader"`
	Caps   uint64        `json:"caps"`
}

// RequestWalkExecution is the data of the workflow's RequestWalkExecution event.
type RequestWalkExecution struct {
	Walk string `json:"walk"`
	Tool string `json:"tool"`
}

// WalkResult is the data of the workflow's WalkResult event.
type WalkResult struct {
	Walk   string        `json:"walk"`
	OK     bool          `json:"ok"`
	Leader chain.Address `json:"leader"`
}

// Name returns "workflow".
func (Workflow) Name() string { return WorkflowContract }

const wfAdminKey = "admin"

func wfCapsKey(a chain.Address) string { return "caps/" + string(a) }
func wfWalkKey(w string) string        { return "walk/" + w }

// Apply executes init, grant_leader_cap, revoke_leader_cap, request or
// submit_result.
func (Workflow) Apply(x *Exec, method string, args json.RawMessage) error {
	switch method {
	case WorkflowInit:
		if err := decodeNoArgs(args, "workflow: init args"); err != nil {
			return err
		}
		if _, ok := x.Get(wfAdminKey); ok {
			return Fail(ReasonAlreadyInitialized)
		}
		x.Set(wfAdminKey, []byte(x.From))
		return nil
	case WorkflowGrantLeaderCap, WorkflowRevokeLeaderCap:
		return wfCaps(x, method, args)
	case WorkflowRequest:
		return wfRequest(x, args)
	case WorkflowSubmitResult:
		return wfSubmit(x, args)
	}
	return Fail("workflow: unknown method %q", method)
}

func wfCaps(x *Exec, method string, args json.RawMessage) error {
	f, err := decodeObject(args, "workflow: "+method+" args", "leader")
	if err != nil {
		return err
	}
	leader, err := leaderArg(f)
	if err != nil {
		return err
	}
	if admin, ok := x.Get(wfAdminKey); !ok || chain.Address(admin) != x.From {
		return Fail(ReasonNotAdmin)
	}
	n, err := wfCapsOf(x, leader)
	if err != nil {
		return err
	}
	event := "LeaderCapGranted"
	if method == WorkflowGrantLeaderCap {
		if n >= MaxLeaderCaps {
			return Fail(ReasonTooManyCaps)
		}
		n++
	} else {
		if n == 0 {
			return Fail(ReasonNoLeaderCap)
		}
		n, event = n-1, "LeaderCapRevoked"
	}
	if n == 0 {
		x.Set(wfCapsKey(leader), nil)
	} else {
		x.Set(wfCapsKey(leader), []byte(strconv.FormatUint(n, 10)))
	}
	return x.Emit(event, LeaderCapChange{Leader: leader, Caps: n})
}

func wfRequest(x *Exec, args json.RawMessage) error {
	f, err := decodeObject(args, "workflow: request args", "walk", "tool", "input")
	if err != nil {
		return err
	}
	w := Walk{Requester: x.From, Height: x.Height}
	if w.Walk, err = walkArg(f); err != nil {
		return err
	}
	if w.Tool, err = toolArg(f, "workflow"); err != nil {
		return err
	}
	if w.Input = f["input"]; len(w.Input) == 0 || len(w.Input) > MaxWalkPayload {
		return Fail("workflow: input is required: any JSON of at most %d bytes", MaxWalkPayload)
	}
	if _, ok := x.Get(wfWalkKey(w.Walk)); ok {
		return Fail(ReasonWalkExists)
	}
	if err := wfStore(x, w); err != nil {
		return err
	}
	return x.Emit("RequestWalkExecution", RequestWalkExecution{Walk: w.Walk, Tool: w.Tool})
}

func wfSubmit(x *Exec, args json.RawMessage) error {
	const shape = "workflow: a result is {walk, ok: true, output} or {walk, ok: false, error}"
	f, err := decodeObject(args, "workflow: submit_result args", "walk", "ok", "output", "error")
	if err != nil {
		return err
	}
	walk, err := walkArg(f)
	if err != nil {
		return err
	}
	var ok *bool
	if json.Unmarshal(f["ok"], &ok) != nil || ok == nil {
		return Fail(shape)
	}
	r := WalkResultRecord{OK: *ok, Leader: x.From, Height: x.Height}
	out, hasOut := f["output"]
	rawErr, hasErr := f["error"]
	switch {
	case r.OK && (!hasOut || hasErr), !r.OK && (hasOut || !hasErr):
		return Fail(shape)
	case r.OK:
		if len(out) > MaxWalkPayload {
			return Fail("workflow: output must be any JSON of at most %d bytes", MaxWalkPayload)
		}
		r.Output = out
	default:
		if json.Unmarshal(rawErr, &r.Error) != nil || r.Error == "" || len(r.Error) > MaxWalkPayload || !utf8.ValidString(r.Error) {
			return Fail("workflow: error must be a string of 1-%d bytes", MaxWalkPayload)
		}
	}
	caps, err := wfCapsOf(x, x.From)
	if err != nil {
		return err
	}
	if caps == 0 {
		return Fail(ReasonNotLeader)
	}
	w, found, err := wfLoad(x, walk)
	if err != nil {
		return err
	}
	if !found {
		return Fail(ReasonNoSuchWalk)
	}
	if w.Result != nil {
		return Fail(ReasonAlreadyReported)
	}
	w.Result = &r
	if err := wfStore(x, w); err != nil {
		return err
	}
	return x.Emit("WalkResult", WalkResult{Walk: walk, OK: r.OK, Leader: x.From})
}

// walkArg reads and checks the "walk" field.
func walkArg(f map[string]json.RawMessage) (string, error) {
	var w string
	if json.Unmarshal(f["walk"], &w) != nil || w == "" || len(w) > MaxWalkID || !utf8.ValidString(w) {
		return "", Fail("workflow: walk must be a string of 1-%d bytes", MaxWalkID)
	}
	return w, nil
}

// leaderArg reads and checks the "leader" field.
func leaderArg(f map[string]json.RawMessage) (chain.Address, error) {
	var a chain.Address
	if json.Unmarshal(f["leader"], &a) != nil || chain.ValidateAddress(a) != nil {
		return "", Fail("workflow: leader must be an address: 64 characters of lowercase hex")
	}
	return a, nil
}

// wfCapsOf reads an account's caps; 0 when absent.
func wfCapsOf(r StateReader, a chain.Address) (uint64, error) {
	raw, ok := r.Get(wfCapsKey(a))
	if !ok {
		return 0, nil
	}
	n, err := strconv.ParseUint(string(raw), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("workflow: corrupt caps of %s: %w", a, err)
	}
	return n, nil
}

// wfLoad reads a walk; found is false when it was never requested.
func wfLoad(r StateReader, walk string) (w Walk, found bool, err error) {
	raw, ok := r.Get(wfWalkKey(walk))
	if !ok {
		return w, false, nil
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return w, false, fmt.Errorf("workflow: corrupt walk %q: %w", walk, err)
	}
	return w, true, nil
}

func wfStore(x *Exec, w Walk) error {
	b, err := json.Marshal(w)
	if err != nil {
		return fmt.Errorf("workflow: walk %q: %w", w.Walk, err)
	}
	x.Set(wfWalkKey(w.Walk), b)
	return nil
}

// Call answers walk {walk}, caps {leader} and admin {}.
func (Workflow) Call(r StateReader, method string, args json.RawMessage) (json.RawMessage, error) {
	switch method {
	case "walk":
		f, err := decodeObject(args, "workflow: walk args", "walk")
		if err != nil {
			return nil, err
		}
		walk, err := walkArg(f)
		if err != nil {
			return nil, err
		}
		raw, ok := r.Get(wfWalkKey(walk))
		if !ok {
			return nil, fmt.Errorf("%w: workflow: no walk %q", chain.ErrNotFound, walk)
		}
		return raw, nil
	case "caps":
		f, err := decodeObject(args, "workflow: caps args", "leader")
		if err != nil {
			return nil, err
		}
		leader, err := leaderArg(f)
		if err != nil {
			return nil, err
		}
		n, err := wfCapsOf(r, leader)
		if err != nil {
			return nil, err
		}
		return json.Marshal(map[string]uint64{"caps": n})
	case "admin":
		if err := decodeNoArgs(args, "workflow: admin args"); err != nil {
			return nil, err
		}
		admin, _ := r.Get(wfAdminKey)
		return json.Marshal(map[string]string{"admin": string(admin)})
	}
	return nil, errNoMethod
}

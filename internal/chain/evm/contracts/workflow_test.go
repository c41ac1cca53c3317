package contracts_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/ordolabs/ordo/internal/chain/evm/contracts"
)

var workflowABI = contracts.NewWorkflow()

// withWorkflow deploys Workflow from the owner (its admin), trusting the
// harness's router.
func (h *harness) withWorkflow() common.Address {
	h.t.Helper()
	return h.deploy(contracts.WorkflowMetaData.Bin, workflowABI.PackConstructor(h.router))
}

// mustSend sends data to `to` from `from` and fails unless it succeeded.
func (h *harness) mustSend(from actor, to common.Address, data []byte) *types.Receipt {
	h.t.Helper()
	r := h.send(from, &to, data, 1_000_000)
	if r.Status != types.ReceiptStatusSuccessful {
		_, rd, err := h.call(from, to, data)
		h.t.Fatalf("%x from %s reverted: %v %q", data[:4], from.name, err, reasonOf(rd))
	}
	return r
}

// refusal is the Error(string) text a call of data from `from` reverts
// with; it fails the test when the call succeeds.
func (h *harness) refusal(from actor, to common.Address, data []byte) string {
	h.t.Helper()
	_, rd, err := h.call(from, to, data)
	if err == nil {
		h.t.Fatalf("%x from %s succeeded, want a refusal", data[:4], from.name)
	}
	return reasonOf(rd)
}

// reasonOf decodes Error(string) revert data; anything else as hex.
func reasonOf(rd []byte) string {
	if s, err := abi.UnpackRevert(rd); err == nil {
		return s
	}
	return fmt.Sprintf("%x", rd)
}

// routed sends data to `to` through the router from a submitter and
// returns the outcome with its reason decoded.
func (h *harness) routed(from actor, memo string, to common.Address, data []byte) (string, string) {
	h.t.Helper()
	o := h.execute(from, memo, []contracts.OrdoRouterCall{{Target: to, Data: data}})
	return o.kind, reasonOf(o.reason)
}

func (h *harness) walkOf(wf common.Address, id string) contracts.WorkflowWalk {
	h.t.Helper()
	out, rd, err := h.call(h.stranger, wf, workflowABI.PackWalk(id))
	if err != nil {
		h.t.Fatalf("walk %s: %v (revert %x)", id, err, rd)
	}
	w, err := workflowABI.UnpackWalk(out)
	if err != nil {
		h.t.Fatal(err)
	}
	return w
}

func (h *harness) capsOf(wf common.Address, a actor) uint64 {
	h.t.Helper()
	out, _, err := h.call(h.stranger, wf, workflowABI.PackCaps(a.addr))
	if err != nil {
		h.t.Fatal(err)
	}
	n, err := workflowABI.UnpackCaps(out)
	if err != nil {
		h.t.Fatal(err)
	}
	return n.Uint64()
}

// TestWorkflowCaps: only the admin (the deployer, directly or through the
// router) grants and revokes caps, each change an event with the count.
func TestWorkflowCaps(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	wf := h.withWorkflow()
	if got := h.refusal(h.stranger, wf, workflowABI.PackGrantLeaderCap(h.stranger.addr)); got != "not_admin" {
		t.Fatalf("a grant by a stranger: %q, want not_admin", got)
	}
	// node1 is a router submitter but not the admin: through the router it is
	// still node1.
	if kind, why := h.routed(h.node1, "grant-1", wf, workflowABI.PackGrantLeaderCap(h.node1.addr)); kind != "failed" || why != "not_admin" {
		t.Fatalf("a grant by node1 through the router: %s %q, want failed not_admin", kind, why)
	}
	r := h.mustSend(h.owner, wf, workflowABI.PackGrantLeaderCap(h.node1.addr))
	h.mustSend(h.owner, wf, workflowABI.PackGrantLeaderCap(h.node1.addr))
	if len(r.Logs) != 1 {
		t.Fatalf("a grant emitted %d logs", len(r.Logs))
	}
	if e, err := workflowABI.UnpackLeaderCapGrantedEvent(r.Logs[0]); err != nil || e.Leader != h.node1.addr || e.Caps.Uint64() != 1 {
		t.Fatalf("LeaderCapGranted %+v, %v", e, err)
	}
	if c := h.capsOf(wf, h.node1); c != 2 {
		t.Fatalf("caps of node1 %d, want 2", c)
	}
	r = h.mustSend(h.owner, wf, workflowABI.PackRevokeLeaderCap(h.node1.addr))
	if e, err := workflowABI.UnpackLeaderCapRevokedEvent(r.Logs[0]); err != nil || e.Leader != h.node1.addr || e.Caps.Uint64() != 1 {
		t.Fatalf("LeaderCapRevoked %+v, %v", e, err)
	}
	for _, c := range []struct {
		name string
		from actor
		data []byte
		want string
	}{
		{"revoke from none", h.owner, workflowABI.PackRevokeLeaderCap(h.node2.addr), "no_leader_cap"},
		{"revoke by a stranger", h.stranger, workflowABI.PackRevokeLeaderCap(h.node1.addr), "not_admin"},
	} {
		if got := h.refusal(c.from, wf, c.data); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	for range 255 {
		h.mustSend(h.owner, wf, workflowABI.PackGrantLeaderCap(h.node2.addr))
	}
	h.mustSend(h.owner, wf, workflowABI.PackGrantLeaderCap(h.node2.addr))
	if got := h.refusal(h.owner, wf, workflowABI.PackGrantLeaderCap(h.node2.addr)); got != "too_many_caps" {
		t.Fatalf("the 257th cap: %q, want too_many_caps", got)
	}
}

// TestWorkflowResults: a walk requested once, its result from a cap holder
// as the router forwards it, a second result refused already_reported, the
// refusals in devchain's order, and the reads.
func TestWorkflowResults(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	wf := h.withWorkflow()
	h.mustSend(h.owner, wf, workflowABI.PackGrantLeaderCap(h.node1.addr))
	h.mustSend(h.owner, wf, workflowABI.PackGrantLeaderCap(h.node2.addr))

	r := h.mustSend(h.stranger, wf, workflowABI.PackRequest("w1", "math.add", `{"a":1,"b":2}`))
	if e, err := workflowABI.UnpackRequestWalkExecutionEvent(r.Logs[0]); err != nil || e.Walk != "w1" || e.Tool != "math.add" {
		t.Fatalf("RequestWalkExecution %+v, %v", e, err)
	}
	w := h.walkOf(wf, "w1")
	if w.Walk != "w1" || w.Tool != "math.add" || w.Input != `{"a":1,"b":2}` || w.Requester != h.stranger.addr || w.Height != r.BlockNumber.Uint64() || w.Reported {
		t.Fatalf("walk %+v", w)
	}
	_, rd, err := h.call(h.stranger, wf, workflowABI.PackWalk("w0"))
	if len(rd) < 4 || [4]byte(rd) != [4]byte(contracts.WorkflowNotFoundErrorID().Bytes()) {
		t.Fatalf("walk w0: %v, revert %x: want NotFound", err, rd)
	}
	if nf, uerr := workflowABI.UnpackNotFoundError(rd[4:]); err == nil || uerr != nil || nf.Walk != "w0" {
		t.Fatalf("walk w0: %v, revert %x: want NotFound(w0)", err, rd)
	}

	// A cap holder's address appended by anyone but the router is ignored.
	spoof := append(workflowABI.PackSubmitResult("w1", true, "3", ""), h.node1.addr.Bytes()...)
	for _, c := range []struct {
		name string
		from actor
		data []byte
		want string
	}{
		{"walk exists", h.owner, workflowABI.PackRequest("w1", "other", "null"), "walk_exists"},
		{"not a leader", h.stranger, workflowABI.PackSubmitResult("w1", true, "3", ""), "not_leader"},
		{"a leader's address appended", h.stranger, spoof, "not_leader"},
		{"no such walk", h.node1, workflowABI.PackSubmitResult("w0", true, "3", ""), "no_such_walk"},
		{"not a leader comes first", h.stranger, workflowABI.PackSubmitResult("w0", true, "3", ""), "not_leader"},
	} {
		if got := h.refusal(c.from, wf, c.data); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}

	kind, why := h.routed(h.node1, "result-w1", wf, workflowABI.PackSubmitResult("w1", true, "3", ""))
	if kind != "applied" {
		t.Fatalf("node1's result through the router: %s %q", kind, why)
	}
	w = h.walkOf(wf, "w1")
	if !w.Reported || !w.Ok || w.Output != "3" || w.Reason != "" || w.Leader != h.node1.addr {
		t.Fatalf("walk after its result %+v", w)
	}
	// A second result, the same one resent under another intent, another
	// leader's: already reported, and the stored result stays.
	for _, c := range []struct {
		from actor
		memo string
		data []byte
	}{
		{h.node1, "result-w1-again", workflowABI.PackSubmitResult("w1", true, "3", "")},
		{h.node2, "result-w1-late", workflowABI.PackSubmitResult("w1", false, "", "late")},
	} {
		if kind, why := h.routed(c.from, c.memo, wf, c.data); kind != "failed" || why != "already_reported" {
			t.Errorf("%s: %s %q, want failed already_reported", c.memo, kind, why)
		}
	}
	if w2 := h.walkOf(wf, "w1"); w2 != w {
		t.Fatalf("walk after refused results %+v, want %+v", w2, w)
	}

	// A failure result, sent directly; then a leader whose last cap is
	// revoked is no leader.
	h.mustSend(h.stranger, wf, workflowABI.PackRequest("w2", "math.add", `"not an object"`))
	r = h.mustSend(h.node2, wf, workflowABI.PackSubmitResult("w2", false, "", "input: expected object"))
	if e, err := workflowABI.UnpackWalkResultEvent(r.Logs[0]); err != nil || e.Walk != "w2" || e.Ok || e.Leader != h.node2.addr {
		t.Fatalf("WalkResult %+v, %v", e, err)
	}
	if w := h.walkOf(wf, "w2"); !w.Reported || w.Ok || w.Reason != "input: expected object" || w.Output != "" || w.ResultHeight != r.BlockNumber.Uint64() {
		t.Fatalf("failed walk %+v", w)
	}
	h.mustSend(h.stranger, wf, workflowABI.PackRequest("w3", "t", "[]"))
	h.mustSend(h.owner, wf, workflowABI.PackRevokeLeaderCap(h.node2.addr))
	if got := h.refusal(h.node2, wf, workflowABI.PackSubmitResult("w3", true, "{}", "")); got != "not_leader" {
		t.Fatalf("a result after the last cap's revoke: %q", got)
	}
}

// TestWorkflowMalformed: the args devchain refuses are refused with its
// sentences.
func TestWorkflowMalformed(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	wf := h.withWorkflow()
	h.mustSend(h.owner, wf, workflowABI.PackGrantLeaderCap(h.node1.addr))
	h.mustSend(h.stranger, wf, workflowABI.PackRequest("w", "t", "1"))
	const (
		walk  = "workflow: walk must be a string of 1-128 bytes"
		tool  = "workflow: tool must be 1-64 characters of [a-z0-9_.-]"
		input = "workflow: input is required: any JSON of at most 16384 bytes"
		shape = "workflow: a result is {walk, ok: true, output} or {walk, ok: false, error}"
	)
	big := strings.Repeat("x", 16385)
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty walk", workflowABI.PackRequest("", "t", "1"), walk},
		{"long walk", workflowABI.PackRequest(strings.Repeat("w", 129), "t", "1"), walk},
		{"upper-case tool", workflowABI.PackRequest("m", "T", "1"), tool},
		{"no tool", workflowABI.PackRequest("m", "", "1"), tool},
		{"long tool", workflowABI.PackRequest("m", strings.Repeat("t", 65), "1"), tool},
		{"no input", workflowABI.PackRequest("m", "t", ""), input},
		{"big input", workflowABI.PackRequest("m", "t", big), input},
		{"ok without output", workflowABI.PackSubmitResult("w", true, "", ""), shape},
		{"ok with an error", workflowABI.PackSubmitResult("w", true, "1", "e"), shape},
		{"failed without error", workflowABI.PackSubmitResult("w", false, "", ""), shape},
		{"failed with output", workflowABI.PackSubmitResult("w", false, "1", "e"), shape},
		{"big output", workflowABI.PackSubmitResult("w", true, big, ""), "workflow: output must be any JSON of at most 16384 bytes"},
		{"big error", workflowABI.PackSubmitResult("w", false, "", big), "workflow: error must be a string of 1-16384 bytes"},
		{"result without walk", workflowABI.PackSubmitResult("", true, "1", ""), walk},
	} {
		if got := h.refusal(h.node1, wf, c.data); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	// A walk id of 128 bytes and a tool of 64 are fine.
	h.mustSend(h.stranger, wf, workflowABI.PackRequest(strings.Repeat("w", 128), strings.Repeat("t", 64), "1"))
}

// TestWorkflowGas logs each method's gas (docs/evm-contracts.md), holds it
// under a budget about 5% above, and checks no cost grows with the number of
// past walks and caps.
func TestWorkflowGas(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	wf := h.withWorkflow()
	gas := func(from actor, data []byte) uint64 { return h.mustSend(from, wf, data).GasUsed }
	measure := func() map[string]uint64 {
		k := fmt.Sprintf("%08d", h.head()) // fixed width: the same calldata cost every round
		l := newActor(t, "leader"+k)
		return map[string]uint64{
			"grantLeaderCap (first)":     gas(h.owner, workflowABI.PackGrantLeaderCap(l.addr)),
			"grantLeaderCap (more)":      gas(h.owner, workflowABI.PackGrantLeaderCap(l.addr)),
			"revokeLeaderCap":            gas(h.owner, workflowABI.PackRevokeLeaderCap(l.addr)),
			"request (64-byte input)":    gas(h.stranger, workflowABI.PackRequest("walk-"+k, "math.add", `{"a":1,"b":2,"pad":"`+k+`................................"}`)),
			"submitResult (ok, 8 bytes)": gas(h.owner, workflowABI.PackSubmitResult("walk-"+k, true, `{"s":42}`, "")),
		}
	}
	h.mustSend(h.owner, wf, workflowABI.PackGrantLeaderCap(h.owner.addr))
	first := measure()
	for range 20 {
		measure()
	}
	last := measure()
	budgets := map[string]uint64{
		"grantLeaderCap (first)": 50_200, "grantLeaderCap (more)": 32_200, "revokeLeaderCap": 32_200,
		"request (64-byte input)": 172_700, "submitResult (ok, 8 bytes)": 85_000,
	}
	for _, name := range slices.Sorted(maps.Keys(first)) {
		g := first[name]
		t.Logf("%-27s %d gas", name, g)
		if b := budgets[name]; g > b {
			t.Errorf("%s used %d gas, over its budget %d", name, g, b)
		}
		if last[name] != g {
			t.Errorf("%s: %d gas after 20 rounds of entries, %d before: its cost grows with past entries", name, last[name], g)
		}
	}
}

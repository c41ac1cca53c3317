package chaintest

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
)

func (c *caller) wf(method, args string) chain.Hash {
	c.e.t.Helper()
	return c.send(devchain.WorkflowContract, method, args)
}

// walk reads the workflow's walk w.
func (e *env) walk(w string) devchain.Walk {
	e.t.Helper()
	var v devchain.Walk
	e.mustRead(devchain.WorkflowContract, "walk", fmt.Sprintf(`{"walk":%q}`, w), &v)
	return v
}

// walkGone checks that w was never requested: its read is not found.
func (e *env) walkGone(w string) {
	e.t.Helper()
	if raw, err := e.read(devchain.WorkflowContract, "walk", fmt.Sprintf(`{"walk":%q}`, w)); !errors.Is(err, chain.ErrNotFound) {
		e.t.Fatalf("walk %s: %s, %v; want not found", w, raw, err)
	}
}

// caps reads the caps a leader holds.
func (e *env) caps(leader chain.Address) uint64 {
	e.t.Helper()
	var v struct {
		Caps *uint64 `json:"caps"`
	}
	e.mustRead(devchain.WorkflowContract, "caps", fmt.Sprintf(`{"leader":%q}`, leader), &v)
	if v.Caps == nil {
		e.t.Fatalf("caps of %s: no caps field", short(leader))
	}
	return *v.Caps
}

func (e *env) wfAdmin() chain.Address {
	e.t.Helper()
	var v struct {
		Admin chain.Address `json:"admin"`
	}
	e.mustRead(devchain.WorkflowContract, "admin", ``, &v)
	return v.Admin
}

func leaderArgs(a chain.Address) string { return fmt.Sprintf(`{"leader":%q}`, a) }

// testWorkflow: the workflow contract's admin, leader caps, requests and
// results with every failure reason, its events and reads; a reorg removes
// a request's walk and its event; a restart keeps everything.
func testWorkflow(t *testing.T, f Factory) {
	e := newEnv(t, f)
	admin, l1, l2, user := e.caller(e.dev[0]), e.caller(e.dev[1]), e.caller(e.dev[2]), e.caller(e.dev[3])
	wf := devchain.WorkflowContract
	capsEvent := func(a chain.Address, n int) string { return fmt.Sprintf(`{"leader":%q,"caps":%d}`, a, n) }

	t.Run("admin and leader caps", func(t *testing.T) {
		if a := e.wfAdmin(); a != "" {
			t.Fatalf("admin %q before init", a)
		}
		early := admin.wf(devchain.WorkflowGrantLeaderCap, leaderArgs(l1.from))
		first := admin.wf(devchain.WorkflowInit, `{}`)
		second := user.wf(devchain.WorkflowInit, ``)
		e.mine()
		e.wantIncluded(early, false, devchain.ReasonNotAdmin)
		e.wantIncluded(first, true, "")
		e.wantIncluded(second, false, devchain.ReasonAlreadyInitialized)
		if a := e.wfAdmin(); a != admin.from {
			t.Fatalf("admin %s, want %s", short(a), short(admin.from))
		}

		g1 := admin.wf(devchain.WorkflowGrantLeaderCap, leaderArgs(l1.from))
		g2 := admin.wf(devchain.WorkflowGrantLeaderCap, leaderArgs(l1.from))
		g3 := admin.wf(devchain.WorkflowGrantLeaderCap, leaderArgs(l2.from))
		byUser := user.wf(devchain.WorkflowGrantLeaderCap, leaderArgs(user.from))
		revokeByUser := user.wf(devchain.WorkflowRevokeLeaderCap, leaderArgs(l1.from))
		e.mine()
		e.wantEvent(g1, wf, "LeaderCapGranted", capsEvent(l1.from, 1))
		e.wantEvent(g2, wf, "LeaderCapGranted", capsEvent(l1.from, 2))
		e.wantEvent(g3, wf, "LeaderCapGranted", capsEvent(l2.from, 1))
		e.wantIncluded(byUser, false, devchain.ReasonNotAdmin)
		e.wantIncluded(revokeByUser, false, devchain.ReasonNotAdmin)
		if c1, c2, cu := e.caps(l1.from), e.caps(l2.from), e.caps(user.from); c1 != 2 || c2 != 1 || cu != 0 {
			t.Fatalf("caps %d %d %d, want 2 1 0", c1, c2, cu)
		}

		r1 := admin.wf(devchain.WorkflowRevokeLeaderCap, leaderArgs(l1.from))
		none := admin.wf(devchain.WorkflowRevokeLeaderCap, leaderArgs(user.from))
		e.mine()
		e.wantEvent(r1, wf, "LeaderCapRevoked", capsEvent(l1.from, 1))
		e.wantIncluded(none, false, devchain.ReasonNoLeaderCap)
		if c := e.caps(l1.from); c != 1 {
			t.Fatalf("caps of l1 %d after a revoke, want 1", c)
		}
	})

	t.Run("request and results", func(t *testing.T) {
		rq := user.wf(devchain.WorkflowRequest, `{"walk":"w1","tool":"math.add","input":{"a":1,"b":2}}`)
		blk := e.mine()
		e.wantIncluded(rq, true, "")
		e.wantEvent(rq, wf, "RequestWalkExecution", `{"walk":"w1","tool":"math.add"}`)
		w := e.walk("w1")
		if w.Walk != "w1" || w.Tool != "math.add" || string(w.Input) != `{"a":1,"b":2}` || w.Requester != user.from || w.Height != blk.Height || w.Result != nil {
			t.Fatalf("walk %+v", w)
		}

		dup := admin.wf(devchain.WorkflowRequest, `{"walk":"w1","tool":"other","input":null}`)
		notLeader := user.wf(devchain.WorkflowSubmitResult, `{"walk":"w1","ok":true,"output":3}`)
		noWalk := l1.wf(devchain.WorkflowSubmitResult, `{"walk":"w0","ok":true,"output":3}`)
		ok := l1.wf(devchain.WorkflowSubmitResult, `{"walk":"w1","ok":true,"output":3}`)
		again := l1.wf(devchain.WorkflowSubmitResult, `{"walk":"w1","ok":true,"output":3}`)
		other := l2.wf(devchain.WorkflowSubmitResult, `{"walk":"w1","ok":false,"error":"late"}`)
		// not_leader comes before no_such_walk.
		both := user.wf(devchain.WorkflowSubmitResult, `{"walk":"w0","ok":true,"output":3}`)
		blk = e.mine()
		e.wantIncluded(dup, false, devchain.ReasonWalkExists)
		e.wantIncluded(notLeader, false, devchain.ReasonNotLeader)
		e.wantIncluded(noWalk, false, devchain.ReasonNoSuchWalk)
		e.wantIncluded(ok, true, "")
		e.wantIncluded(again, false, devchain.ReasonAlreadyReported)
		e.wantIncluded(other, false, devchain.ReasonAlreadyReported)
		e.wantIncluded(both, false, devchain.ReasonNotLeader)
		for _, h := range []chain.Hash{dup, notLeader, noWalk, again, other, both} {
			e.wantNoEvents(h)
		}
		e.wantEvent(ok, wf, "WalkResult", fmt.Sprintf(`{"walk":"w1","ok":true,"leader":%q}`, l1.from))
		w = e.walk("w1")
		if w.Tool != "math.add" || w.Result == nil || !w.Result.OK || string(w.Result.Output) != "3" || w.Result.Error != "" ||
			w.Result.Leader != l1.from || w.Result.Height != blk.Height {
			t.Fatalf("walk after its result %+v (result %+v)", w, w.Result)
		}

		// A failure result, and a request and its result in one block.
		rq2 := user.wf(devchain.WorkflowRequest, `{"walk":"w2","tool":"math.add","input":"not an object"}`)
		fail2 := l2.wf(devchain.WorkflowSubmitResult, `{"walk":"w2","ok":false,"error":"input: expected object"}`)
		e.mine()
		e.wantIncluded(rq2, true, "")
		e.wantIncluded(fail2, true, "")
		e.wantEvent(fail2, wf, "WalkResult", fmt.Sprintf(`{"walk":"w2","ok":false,"leader":%q}`, l2.from))
		if w := e.walk("w2"); w.Result == nil || w.Result.OK || w.Result.Error != "input: expected object" || w.Result.Output != nil || w.Result.Leader != l2.from {
			t.Fatalf("failed walk %+v", w.Result)
		}

		// A leader whose last cap is revoked is no leader.
		rq3 := user.wf(devchain.WorkflowRequest, `{"walk":"w3","tool":"t","input":[]}`)
		rv := admin.wf(devchain.WorkflowRevokeLeaderCap, leaderArgs(l2.from))
		late := l2.wf(devchain.WorkflowSubmitResult, `{"walk":"w3","ok":true,"output":{}}`)
		e.mine()
		e.wantIncluded(rq3, true, "")
		e.wantEvent(rv, wf, "LeaderCapRevoked", capsEvent(l2.from, 0))
		e.wantIncluded(late, false, devchain.ReasonNotLeader)
		if e.walk("w3").Result != nil {
			t.Fatal("a refused result was stored")
		}
	})

	t.Run("malformed", func(t *testing.T) {
		const (
			walk  = "workflow: walk must be a string of 1-128 bytes"
			tool  = "workflow: tool must be 1-64 characters of [a-z0-9_.-]"
			input = "workflow: input is required: any JSON of at most 16384 bytes"
			shape = "workflow: a result is {walk, ok: true, output} or {walk, ok: false, error}"
			errs  = "workflow: error must be a string of 1-16384 bytes"
			lead  = "workflow: leader must be an address: 64 characters of lowercase hex"
		)
		big := fmt.Sprintf("%q", strings.Repeat("x", devchain.MaxWalkPayload))
		cases := []struct{ method, args, reason string }{
			{devchain.WorkflowInit, `{"x":1}`, `workflow: init args has an unknown field "x"`},
			{devchain.WorkflowInit, `[]`, "workflow: init args must be a JSON object"},
			{devchain.WorkflowGrantLeaderCap, `{}`, lead},
			{devchain.WorkflowGrantLeaderCap, `{"leader":"ABC"}`, lead},
			{devchain.WorkflowRevokeLeaderCap, `{"leader":7}`, lead},
			{devchain.WorkflowRequest, ``, "workflow: request args must be a JSON object"},
			{devchain.WorkflowRequest, `{"tool":"t","input":1}`, walk},
			{devchain.WorkflowRequest, `{"walk":"","tool":"t","input":1}`, walk},
			{devchain.WorkflowRequest, fmt.Sprintf(`{"walk":%q,"tool":"t","input":1}`, strings.Repeat("w", 129)), walk},
			{devchain.WorkflowRequest, `{"walk":5,"tool":"t","input":1}`, walk},
			{devchain.WorkflowRequest, `{"walk":"m","tool":"T","input":1}`, tool},
			{devchain.WorkflowRequest, `{"walk":"m","input":1}`, tool},
			{devchain.WorkflowRequest, `{"walk":"m","tool":"t"}`, input},
			{devchain.WorkflowRequest, `{"walk":"m","tool":"t","input":` + big + `}`, input},
			{devchain.WorkflowRequest, `{"walk":"m","tool":"t","input":1,"from":"x"}`, `workflow: request args has an unknown field "from"`},
			{devchain.WorkflowSubmitResult, `{"walk":"w3","output":1}`, shape},
			{devchain.WorkflowSubmitResult, `{"walk":"w3","ok":"yes","output":1}`, shape},
			{devchain.WorkflowSubmitResult, `{"walk":"w3","ok":true}`, shape},
			{devchain.WorkflowSubmitResult, `{"walk":"w3","ok":true,"output":1,"error":"e"}`, shape},
			{devchain.WorkflowSubmitResult, `{"walk":"w3","ok":false}`, shape},
			{devchain.WorkflowSubmitResult, `{"walk":"w3","ok":false,"output":1}`, shape},
			{devchain.WorkflowSubmitResult, `{"walk":"w3","ok":false,"error":""}`, errs},
			{devchain.WorkflowSubmitResult, `{"walk":"w3","ok":false,"error":{}}`, errs},
			{devchain.WorkflowSubmitResult, `{"walk":"w3","ok":true,"output":` + big + `}`, "workflow: output must be any JSON of at most 16384 bytes"},
			{devchain.WorkflowSubmitResult, `{"ok":true,"output":1}`, walk},
			{"submitresult", `{}`, `workflow: unknown method "submitresult"`},
		}
		var hs []chain.Hash
		for _, c := range cases {
			hs = append(hs, l1.wf(c.method, c.args))
		}
		e.mine()
		for i, c := range cases {
			e.wantIncluded(hs[i], false, c.reason)
			e.wantNoEvents(hs[i])
		}
		e.walkGone("m")
		if e.walk("w3").Result != nil {
			t.Fatal("a malformed result was stored")
		}
	})

	t.Run("reads", func(t *testing.T) {
		for _, c := range []struct {
			name, method, args string
			want               error
		}{
			{"unknown read", "walks", `{}`, chain.ErrUnknownMethod},
			{"never requested", "walk", `{"walk":"nope"}`, chain.ErrNotFound},
			{"no walk", "walk", `{}`, chain.ErrCallFailed},
			{"unknown field", "walk", `{"walk":"w1","x":1}`, chain.ErrCallFailed},
			{"bad leader", "caps", `{"leader":"x"}`, chain.ErrCallFailed},
			{"admin with args", "admin", `{"x":1}`, chain.ErrCallFailed},
		} {
			if _, err := e.read(wf, c.method, c.args); !errors.Is(err, c.want) {
				t.Fatalf("Call %s = %v, want %v", c.name, err, c.want)
			}
		}
	})

	t.Run("a reorg removes a request's walk and its event", func(t *testing.T) {
		rq := user.wf(devchain.WorkflowRequest, `{"walk":"reorged","tool":"t","input":1}`)
		e.mine()
		ev := e.wantEvent(rq, wf, "RequestWalkExecution", `{"walk":"reorged","tool":"t"}`)
		res := l1.wf(devchain.WorkflowSubmitResult, `{"walk":"reorged","ok":true,"output":2}`)
		e.mine()
		e.wantIncluded(res, true, "")

		// The result's block goes: the walk is back to no result.
		e.setFaults(devchain.FaultUpdate{Reorg: ptr(uint64(1))})
		if w := e.walk("reorged"); w.Result != nil {
			t.Fatalf("result %+v survived the reorg of its block", w.Result)
		}
		// And the request's block too: the walk and its event are gone.
		e.setFaults(devchain.FaultUpdate{Reorg: ptr(uint64(2))})
		e.walkGone("reorged")
		for _, x := range e.events(0, 0) {
			if x.TxHash == rq || x.TxHash == res {
				t.Fatalf("an event of a reorged block is still listed: %+v", x)
			}
		}
		e.wantState(rq, chain.TxPending)

		// Included again in one block: the request's event under a new
		// cursor. The mempool may put the result before the request (it
		// came back first): then it fails no_such_walk and stores nothing.
		e.mine()
		e.wantIncluded(rq, true, "")
		if again := e.wantEvent(rq, wf, "RequestWalkExecution", `{"walk":"reorged","tool":"t"}`); again.Cursor <= ev.Cursor {
			t.Fatalf("event after the reorg at cursor %d, before %d", again.Cursor, ev.Cursor)
		}
		w := e.walk("reorged")
		switch st := e.wantState(res, chain.TxIncluded); {
		case st.Success && (w.Result == nil || w.Result.Leader != l1.from):
			t.Fatalf("result included again, walk %+v", w)
		case !st.Success && (st.Reason != devchain.ReasonNoSuchWalk || w.Result != nil):
			t.Fatalf("result included again before its request: %+v, walk %+v", st, w)
		}
	})

	t.Run("restart keeps the workflow", func(t *testing.T) {
		read := func() string {
			return e.mustJSON([]any{e.wfAdmin(), e.caps(l1.from), e.caps(l2.from), e.walk("w1"), e.walk("w2"), e.walk("w3"), e.walk("reorged")})
		}
		before := read()
		e.restart()
		if got := read(); got != before {
			t.Fatalf("workflow after restart %s, want %s", got, before)
		}
		l1.nonce = e.account(l1.from).Nonce
		h := l1.wf(devchain.WorkflowSubmitResult, `{"walk":"w1","ok":true,"output":3}`)
		e.mine()
		e.wantIncluded(h, false, devchain.ReasonAlreadyReported)
	})
}

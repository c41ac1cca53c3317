package devchain

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ordolabs/ordo/internal/chain"
)

// sendFrom sends a transaction from another dev account of tc's chain.
func (tc *testChain) sendFrom(from chain.Address, nonce uint64, contract, method, args string) chain.Hash {
	tc.t.Helper()
	h, err := tc.c.SendTx(tc.ctx, chain.Tx{From: from, Nonce: nonce, Fee: 1000, Contract: contract, Method: method, Args: json.RawMessage(args)})
	if err != nil {
		tc.t.Fatalf("send %s.%s: %v", contract, method, err)
	}
	return h
}

// TestLeaderContractsReplay: registry and workflow transactions, failed
// ones, multicalls and the revert fault replay from the block log to the
// same blocks, events and state.
func TestLeaderContractsReplay(t *testing.T) {
	tc := newTestChain(t, func(c *Config) { c.DevAccounts = 2 })
	devs, _ := tc.c.DevAccounts(tc.ctx)
	other := devs[1].Address
	otherNonce := uint64(0)
	fromOther := func(contract, method, args string) chain.Hash {
		h := tc.sendFrom(other, otherNonce, contract, method, args)
		otherNonce++
		return h
	}
	tc.send("workflow", "init", "")
	tc.send("workflow", "grant_leader_cap", fmt.Sprintf(`{"leader":%q}`, tc.from))
	tc.mine()
	if _, err := tc.c.SetFaults(tc.ctx, FaultUpdate{RevertProb: new(0.3)}); err != nil {
		t.Fatal(err)
	}
	var hs []chain.Hash
	for i := range 10 {
		tool := fmt.Sprintf("tool-%d", i%3)
		walk := fmt.Sprintf("w%d", i)
		hs = append(hs,
			tc.send("registry", "register", fmt.Sprintf(`{"tool":%q,"url":"http://t.test/%d","inputSchema":{},"outputSchema":{}}`, tool, i)),
			fromOther("registry", "register", fmt.Sprintf(`{"tool":%q,"url":"http://o.test/","inputSchema":{},"outputSchema":{}}`, tool)),
			fromOther("workflow", "request", fmt.Sprintf(`{"walk":%q,"tool":%q,"input":{"i":%d}}`, walk, tool, i)),
			tc.send("workflow", "submit_result", fmt.Sprintf(`{"walk":%q,"ok":%v,"output":%d}`, walk, true, i)),
			fromOther("workflow", "submit_result", fmt.Sprintf(`{"walk":%q,"ok":false,"error":"x"}`, walk)),
			tc.send("multicall", "all", fmt.Sprintf(`{"calls":[{"contract":"workflow","method":"request","args":{"walk":"m%d","tool":"t","input":null}},{"contract":"workflow","method":"submit_result","args":{"walk":"m%d","ok":true,"output":1}},{"contract":"workflow","method":"submit_result","args":{"walk":"m%d","ok":true,"output":2}}]}`, i, i, i)),
		)
		if i%4 == 3 {
			hs = append(hs, tc.send("registry", "deregister", fmt.Sprintf(`{"tool":%q}`, tool)))
		}
		tc.mine()
	}
	reasons := map[string]int{}
	for _, h := range hs {
		st := tc.status(h)
		if st.State != chain.TxIncluded {
			t.Fatalf("%s: %+v", h, st)
		}
		reasons[st.Reason]++
	}
	for _, r := range []string{"", ReasonReverted, ReasonNotOwner, ReasonNotLeader,
		"call 2 (workflow.submit_result): " + ReasonAlreadyReported} {
		if reasons[r] == 0 {
			t.Fatalf("no transaction ended %q: %v", r, reasons)
		}
	}
	before := tc.dump()
	tc.restart()
	if got := tc.dump(); got != before {
		t.Fatal("replay of registry and workflow transactions differs")
	}
	// The failed multicalls stored nothing: no walk m<i> exists.
	for i := range 10 {
		if _, err := tc.c.Call(tc.ctx, "workflow", "walk", json.RawMessage(fmt.Sprintf(`{"walk":"m%d"}`, i))); !errors.Is(err, chain.ErrNotFound) {
			t.Fatalf("walk m%d of a failed multicall: %v", i, err)
		}
	}
}

// execOn applies one call of contract to state at height 1 from "f" and
// returns its error and the Exec (writes, events).
func execOn(state map[string][]byte, k Contract, from chain.Address, method, args string) (*Exec, error) {
	x := &Exec{Height: 1, From: from, TxHash: "h", contract: k.Name(), state: state}
	return x, k.Apply(x, method, json.RawMessage(args))
}

// TestLeaderContractLimits: MaxTools and MaxLeaderCaps.
func TestLeaderContractLimits(t *testing.T) {
	names := make([]string, MaxTools)
	for i := range names {
		names[i] = fmt.Sprintf("t%04d", i)
	}
	idx, _ := json.Marshal(names)
	state := map[string][]byte{stateKey(RegistryContract, regIndexKey): idx}
	reg := `{"tool":"new","url":"http://x.test","inputSchema":{},"outputSchema":{}}`
	if _, err := execOn(state, Registry{}, "f", "register", reg); err == nil || err.Error() != ReasonTooManyTools {
		t.Fatalf("register past MaxTools: %v", err)
	}
	// A registered tool (its definition present) is replaced at the limit.
	d, _ := json.Marshal(ToolDefinition{Tool: "t0001", URL: "http://x.test", InputSchema: json.RawMessage(`{}`), OutputSchema: json.RawMessage(`{}`), Owner: "f", Version: 1})
	state[stateKey(RegistryContract, regToolKey("t0001"))] = d
	if _, err := execOn(state, Registry{}, "f", "register", strings.Replace(reg, `"new"`, `"t0001"`, 1)); err != nil {
		t.Fatalf("re-register at the limit: %v", err)
	}

	leader := chain.Address(strings.Repeat("ab", 32))
	wstate := map[string][]byte{
		stateKey(WorkflowContract, wfAdminKey):        []byte("f"),
		stateKey(WorkflowContract, wfCapsKey(leader)): []byte(fmt.Sprint(MaxLeaderCaps)),
	}
	if _, err := execOn(wstate, Workflow{}, "f", "grant_leader_cap", fmt.Sprintf(`{"leader":%q}`, leader)); err == nil || err.Error() != ReasonTooManyCaps {
		t.Fatalf("grant past MaxLeaderCaps: %v", err)
	}
	x, err := execOn(wstate, Workflow{}, "f", "revoke_leader_cap", fmt.Sprintf(`{"leader":%q}`, leader))
	if err != nil || len(x.events) != 1 || string(x.events[0].data) != fmt.Sprintf(`{"leader":%q,"caps":%d}`, leader, MaxLeaderCaps-1) {
		t.Fatalf("revoke at the limit: %v %+v", err, x.events)
	}
}

func TestValidToolNameAndURL(t *testing.T) {
	for _, c := range []struct {
		s    string
		want bool
	}{
		{"a", true}, {"math.add", true}, {"text-stats_v2", true}, {strings.Repeat("x", MaxToolName), true},
		{"", false}, {strings.Repeat("x", MaxToolName+1), false}, {"A", false}, {"a b", false}, {"a/b", false}, {"é", false},
	} {
		if got := ValidToolName(c.s); got != c.want {
			t.Errorf("ValidToolName(%q) = %v", c.s, got)
		}
	}
	for _, c := range []struct {
		s    string
		want bool
	}{
		{"http://x.test", true}, {"https://x.test:8080/invoke?q=1", true}, {"HTTP://x.test/", true}, {"http://127.0.0.1:9/", true},
		{"", false}, {"x.test", false}, {"ftp://x.test", false}, {"http:x.test", false}, {"http:///p", false},
		{"http://x.test/\x00", false}, {"http://" + strings.Repeat("h", MaxToolURL), false}, {"//x.test/p", false},
	} {
		if got := validToolURL(c.s); got != c.want {
			t.Errorf("validToolURL(%q) = %v", c.s, got)
		}
	}
}

package devchain

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/clock"
)

// tally is a test contract that counts with SetAlways and Set: method
// "fail" bumps "always" with SetAlways, "set" with Set, then fails; "ok"
// bumps "set" and succeeds.
type tally struct{}

func (tally) Name() string { return "tally" }

func (tally) Apply(x *Exec, method string, _ json.RawMessage) error {
	bump := func(key string, always bool) {
		n := 0
		if v, ok := x.Get(key); ok {
			if _, err := fmt.Sscan(string(v), &n); err != nil {
				panic(err)
			}
		}
		b := []byte(fmt.Sprint(n + 1))
		if always {
			x.SetAlways(key, b)
		} else {
			x.Set(key, b)
		}
	}
	switch method {
	case "fail":
		bump("always", true)
		bump("set", false)
		return Fail("tally failed")
	case "ok":
		bump("set", false)
		return x.Emit("ok", nil)
	}
	return Fail("unknown method %q", method)
}

func (tally) Call(s StateReader, method string, args json.RawMessage) (json.RawMessage, error) {
	v, ok := s.Get(method)
	if !ok {
		return json.RawMessage("0"), nil
	}
	return v, nil
}

// testChain is a durable chain on a virtual clock with the tally contract,
// sending from its first dev account.
type testChain struct {
	t     *testing.T
	ctx   context.Context
	cfg   Config
	clk   *clock.Virtual
	c     *Chain
	from  chain.Address
	nonce uint64
}

func newTestChain(t *testing.T, mods ...func(*Config)) *testChain {
	t.Helper()
	clk := clock.NewVirtual(clock.Epoch)
	cfg := Config{Clock: clk, DataDir: t.TempDir(), DevAccounts: 1, Logger: discardLogger(), Contracts: []Contract{tally{}}}
	for _, m := range mods {
		m(&cfg)
	}
	tc := &testChain{t: t, ctx: context.Background(), cfg: cfg, clk: clk}
	tc.open()
	t.Cleanup(func() { tc.c.Close() })
	devs, _ := tc.c.DevAccounts(tc.ctx)
	tc.from = devs[0].Address
	return tc
}

func (tc *testChain) open() {
	tc.t.Helper()
	c, err := New(tc.cfg)
	if err != nil {
		tc.t.Fatalf("New: %v", err)
	}
	tc.c = c
}

func (tc *testChain) restart() {
	tc.t.Helper()
	if err := tc.c.Close(); err != nil {
		tc.t.Fatal(err)
	}
	tc.open()
}

func (tc *testChain) send(contract, method, args string) chain.Hash {
	tc.t.Helper()
	h, err := tc.c.SendTx(tc.ctx, chain.Tx{From: tc.from, Nonce: tc.nonce, Fee: 1000, Contract: contract, Method: method, Args: json.RawMessage(args)})
	if err != nil {
		tc.t.Fatalf("send %s.%s: %v", contract, method, err)
	}
	tc.nonce++
	return h
}

func (tc *testChain) mine() {
	tc.t.Helper()
	tc.clk.Advance(time.Second)
	if _, ok, err := tc.c.Mine(tc.ctx); err != nil || !ok {
		tc.t.Fatalf("Mine: %v %v", ok, err)
	}
}

func (tc *testChain) read(contract, method, args string) string {
	tc.t.Helper()
	v, err := tc.c.Call(tc.ctx, contract, method, json.RawMessage(args))
	if err != nil {
		tc.t.Fatalf("Call %s.%s: %v", contract, method, err)
	}
	return string(v)
}

func (tc *testChain) status(h chain.Hash) chain.TxStatus {
	tc.t.Helper()
	st, _ := tc.c.TxStatus(tc.ctx, h)
	return st
}

// dump is everything a replay must give back: blocks, events, state.
func (tc *testChain) dump() string {
	tc.t.Helper()
	tc.c.mu.RLock()
	defer tc.c.mu.RUnlock()
	b, err := json.Marshal(struct {
		Blocks []*chain.Block
		Events []chain.Event
		State  map[string][]byte
	}{tc.c.blocks, tc.c.events, tc.c.state})
	if err != nil {
		tc.t.Fatal(err)
	}
	return string(b)
}

// TestSetAlways: a failed transaction's SetAlways writes take effect and its
// Set writes do not; a reorg undoes both kinds; a restart replays them.
func TestSetAlways(t *testing.T) {
	tc := newTestChain(t)
	f1, f2 := tc.send("tally", "fail", ""), tc.send("tally", "fail", "")
	tc.mine()
	for _, h := range []chain.Hash{f1, f2} {
		if st := tc.status(h); st.Success || st.Reason != "tally failed" {
			t.Fatalf("status %+v", st)
		}
	}
	if a, s := tc.read("tally", "always", ""), tc.read("tally", "set", ""); a != "2" || s != "0" {
		t.Fatalf("always %s set %s, want 2 and 0", a, s)
	}
	ok := tc.send("tally", "ok", "")
	tc.mine()
	if st := tc.status(ok); !st.Success {
		t.Fatalf("ok: %+v", st)
	}
	if s := tc.read("tally", "set", ""); s != "1" {
		t.Fatalf("set %s after a success, want 1", s)
	}
	before := tc.dump()
	tc.restart()
	if got := tc.dump(); got != before {
		t.Fatalf("replay differs:\n%s\nwant\n%s", got, before)
	}

	// A reorg of both blocks undoes every write; including them again
	// redoes them.
	if _, err := tc.c.SetFaults(tc.ctx, FaultUpdate{Reorg: new(uint64(2))}); err != nil {
		t.Fatal(err)
	}
	if a, s := tc.read("tally", "always", ""), tc.read("tally", "set", ""); a != "0" || s != "0" {
		t.Fatalf("after the reorg: always %s set %s, want 0 and 0", a, s)
	}
	tc.mine()
	if a, s := tc.read("tally", "always", ""), tc.read("tally", "set", ""); a != "2" || s != "1" {
		t.Fatalf("included again: always %s set %s, want 2 and 1", a, s)
	}
	before = tc.dump()
	tc.restart()
	if got := tc.dump(); got != before {
		t.Fatal("replay after the reorg differs")
	}
}

// TestLibraryReplayWithFaults: library failures, multicalls and the revert
// fault (whose transactions do not run, so consume no countdown) replay from
// the block log to the same blocks, events and state.
func TestLibraryReplayWithFaults(t *testing.T) {
	tc := newTestChain(t)
	tc.send("library", "configure", `{"method":"flaky","failTimes":5,"failProbability":0.25,"delayBlocks":4}`)
	tc.send("library", "configure", `{"method":"held","failTimes":2}`)
	tc.mine()
	if _, err := tc.c.SetFaults(tc.ctx, FaultUpdate{RevertProb: new(0.3)}); err != nil {
		t.Fatal(err)
	}
	var hs []chain.Hash
	for range 12 {
		hs = append(hs,
			tc.send("library", "flaky", `{"a":1}`),
			tc.send("multicall", "all", `{"calls":[{"contract":"library","method":"step"},{"contract":"library","method":"held"},{"contract":"tally","method":"fail"}]}`),
			tc.send("multicall", "all", `{"calls":[{"contract":"library","method":"configure","args":{"method":"held","failTimes":9}},{"contract":"library","method":"held"}]}`),
			tc.send("library", "confirm", `{"executionId":"x","success":true}`),
		)
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
	for _, r := range []string{"", ReasonReverted, ReasonNotReady, "library: configured failure",
		"call 1 (library.held): library: configured failure", "call 2 (tally.fail): tally failed"} {
		if reasons[r] == 0 {
			t.Fatalf("no transaction ended %q: %v", r, reasons)
		}
	}
	before := tc.dump()
	tc.restart()
	if got := tc.dump(); got != before {
		t.Fatal("replay of library failures differs")
	}
	var cfg LibraryConfig
	if err := json.Unmarshal([]byte(tc.read("library", "config", `{"method":"held"}`)), &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.FailTimes != 2 || cfg.FailTimesLeft != 0 {
		t.Fatalf("held: %+v: the failed multicalls' configures must not take effect", cfg)
	}
}

// TestLibraryDraw: the draw is the documented function of the hash and the
// method, in [0, 1).
func TestLibraryDraw(t *testing.T) {
	for i := range 200 {
		h := chain.Hash(fmt.Sprintf("%064x", i*7919))
		for _, m := range []string{"a", "flaky"} {
			sum := sha256.Sum256([]byte(string(h) + "|" + m))
			want, _ := new(big.Float).Quo(new(big.Float).SetUint64(binary.BigEndian.Uint64(sum[:8])>>11<<11), new(big.Float).SetMantExp(big.NewFloat(1), 64)).Float64()
			got := LibraryDraw(h, m)
			if got != want || got < 0 || got >= 1 {
				t.Fatalf("LibraryDraw(%s, %s) = %v, want %v", h, m, got, want)
			}
		}
	}
	if LibraryDraw("ab", "m") == LibraryDraw("ab", "n") {
		t.Fatal("the method does not enter the draw")
	}
}

// TestMulticallReserved: a contract registered as "multicall" does not
// replace the built-in one.
func TestMulticallReserved(t *testing.T) {
	tc := newTestChain(t, func(c *Config) { c.Contracts = append(c.Contracts, fakeMulticall{}) })
	h := tc.send("multicall", "all", `{"calls":[{"contract":"tally","method":"ok"}]}`)
	tc.mine()
	if st := tc.status(h); !st.Success {
		t.Fatalf("%+v", st)
	}
	var ev []chain.Event
	ev, _ = tc.c.Events(tc.ctx, 0, 0)
	if len(ev) != 1 || ev[0].Contract != "tally" || ev[0].Name != "ok" {
		t.Fatalf("events %+v: want tally's ok, under tally", ev)
	}
}

type fakeMulticall struct{ tally }

func (fakeMulticall) Name() string { return MulticallContract }

// FuzzContractArgs: the library, multicall, registry and workflow decoders
// never panic on any args, fail only with a *Failure, and run twice on the
// same state they give the same outcome. The state holds a registered tool,
// an admin, a leader with caps and a requested walk, so that the decoders'
// valid args reach the rules behind them.
func FuzzContractArgs(f *testing.F) {
	for _, s := range []string{
		``, `null`, `[]`, `{}`, `{"method":"m","failTimes":3,"failProbability":0.5,"delayBlocks":2,"failReason":"x"}`,
		`{"executionId":"e","success":true}`, `{"calls":[{"contract":"library","method":"m","args":{"a":1}}]}`,
		`{"calls":[{"contract":"multicall","method":"all","args":{"calls":[]}}]}`, `{"calls":[{"contract":"zkapp","method":"deploy","args":{"zkapp":"z"}},{"contract":"library","method":"configure","args":{"method":"q"}}]}`,
		`{"method":"m","failProbability":1e400}`, `{"calls":[1,2]}`, `{"method":"m","failTimes":18446744073709551616}`,
		`{"tool":"t.1","url":"http://x.test/","inputSchema":{"type":"object"},"outputSchema":{}}`, `{"tool":"held"}`,
		`{"tool":"held","url":"https://x.test:1/p?q","inputSchema":{},"outputSchema":{"a":[1]}}`, `{"tool":"T","url":"x"}`,
		`{"leader":"` + string(fuzzLeader) + `"}`, `{"leader":"f"}`, `{"walk":"w","tool":"t","input":{"a":1}}`, `{"walk":"held","tool":"t","input":null}`,
		`{"walk":"held","ok":true,"output":[1]}`, `{"walk":"w","ok":false,"error":"e"}`, `{"walk":"w","ok":true,"output":1,"error":"e"}`,
		`{"calls":[{"contract":"workflow","method":"request","args":{"walk":"x","tool":"t","input":1}},{"contract":"workflow","method":"submit_result","args":{"walk":"x","ok":true,"output":1}}]}`,
	} {
		for _, m := range []string{"configure", "confirm", "count", "config", "m", "all", "register", "deregister", "tool", "tools",
			"init", "grant_leader_cap", "revoke_leader_cap", "request", "submit_result", "walk", "caps", "admin"} {
			f.Add(m, s)
		}
	}
	k := map[string]Contract{"zkapp": ZkApp{}, "library": Library{}, "tally": tally{}, "registry": Registry{}, "workflow": Workflow{}}
	k[MulticallContract] = multicall{contracts: k}
	held, _ := json.Marshal(ToolDefinition{Tool: "held", URL: "http://x.test", InputSchema: json.RawMessage(`{}`), OutputSchema: json.RawMessage(`{}`), Owner: "f", Version: 1})
	walk, _ := json.Marshal(Walk{Walk: "held", Tool: "t", Input: json.RawMessage(`1`), Requester: "f", Height: 1})
	state := map[string][]byte{
		stateKey(RegistryContract, regToolKey("held")):    held,
		stateKey(RegistryContract, regVerKey("held")):     []byte("1"),
		stateKey(RegistryContract, regIndexKey):           []byte(`["held"]`),
		stateKey(WorkflowContract, wfAdminKey):            []byte("f"),
		stateKey(WorkflowContract, wfCapsKey("f")):        []byte("2"),
		stateKey(WorkflowContract, wfCapsKey(fuzzLeader)): []byte("1"),
		stateKey(WorkflowContract, wfWalkKey("held")):     walk,
	}
	f.Fuzz(func(t *testing.T, method, args string) {
		if !chain.ValidName(method) || !json.Valid([]byte(args)) && args != "" {
			t.Skip()
		}
		a := chain.CanonicalArgs(json.RawMessage(args))
		run := func() string {
			out := ""
			for _, name := range []string{"library", MulticallContract, RegistryContract, WorkflowContract} {
				x := &Exec{Height: 5, From: "f", TxHash: "h", contract: name, state: state}
				err := k[name].Apply(x, method, a)
				var fl *Failure
				if err != nil && !errors.As(err, &fl) {
					t.Fatalf("%s.%s(%s): a non-Failure error %v", name, method, a, err)
				}
				v, cerr := k[name].Call(contractReader{contract: name, state: state}, method, a)
				out += fmt.Sprintf("%v|%q|%q|%v|%s|%v;", err, x.writes.order, x.always.order, len(x.events), v, cerr)
			}
			return out
		}
		if one, two := run(), run(); one != two {
			t.Fatalf("two runs differ:\n%s\n%s", one, two)
		}
	})
}

// fuzzLeader is a leader address in FuzzContractArgs' state.
const fuzzLeader = chain.Address("abababababababababababababababababababababababababababababababab")

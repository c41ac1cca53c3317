package leader_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/egress"
	"github.com/ordolabs/ordo/internal/leader"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/sequencer/dispatch"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/sqlite"
	"github.com/ordolabs/ordo/internal/tool"
)

// send signs and sends a transaction from key and waits for its inclusion.
func send(ctx context.Context, t *testing.T, dc *devchain.Chain, key []byte, contract, method, args string) {
	t.Helper()
	addr := chain.KeyAddress(key)
	acct, err := dc.Account(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	fee, _ := dc.MinFee(ctx)
	tx := chain.Tx{From: addr, Nonce: acct.PendingNonce, Fee: fee, Contract: contract, Method: method, Args: json.RawMessage(args)}
	tx.Sign(key)
	h, err := dc.SendTx(ctx, tx)
	if err != nil {
		t.Fatalf("%s.%s: %v", contract, method, err)
	}
	for {
		st, err := dc.TxStatus(ctx, h)
		if err == nil && st.State == chain.TxIncluded {
			if !st.Success {
				t.Fatalf("%s.%s failed: %s", contract, method, st.Reason)
			}
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("%s.%s: not included", contract, method)
		}
		time.Sleep(10 * time.Millisecond) // polling the chain
	}
}

// leaderEnv is a devchain with the workflow, the example arith tool
// registered (served on loopback, requiring the leader's signature) and a
// leader with two caps on one account, running until ctx ends.
type leaderEnv struct {
	dc      *devchain.Chain
	st      *sqlite.Store
	admin   []byte
	capAddr chain.Address
	// invoked counts the requests the tool's server received.
	invoked *atomic.Int32
}

// startLeader starts a leaderEnv whose leader calls tools with tools (nil:
// the package default).
func startLeader(ctx context.Context, t *testing.T, tools *tool.Client) *leaderEnv {
	t.Helper()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	dc, err := devchain.New(devchain.Config{BlockTime: 30 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dc.Close() })
	go func() { _ = dc.Run(ctx) }()
	admin, capKey := chain.KeyFromSeed("leader-test-admin"), chain.KeyFromSeed("leader-test-cap")
	for _, k := range [][]byte{admin, capKey} {
		if _, err := dc.Faucet(ctx, chain.KeyAddress(k), 1e12); err != nil {
			t.Fatal(err)
		}
	}
	capAddr := chain.KeyAddress(capKey)

	arith, _ := tool.Example("arith")
	ts, err := tool.NewServer(arith, tool.RequireLeader([]string{string(capAddr)}))
	if err != nil {
		t.Fatal(err)
	}
	invoked := &atomic.Int32{}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		invoked.Add(1)
		ts.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	meta := arith.Meta()
	reg, _ := json.Marshal(map[string]any{"tool": "arith", "url": hs.URL, "inputSchema": meta.InputSchema, "outputSchema": meta.OutputSchema})
	send(ctx, t, dc, admin, "registry", "register", string(reg))
	send(ctx, t, dc, admin, "workflow", "init", `{}`)
	send(ctx, t, dc, admin, "workflow", "grant_leader_cap", `{"leader":"`+string(capAddr)+`"}`)
	send(ctx, t, dc, admin, "workflow", "grant_leader_cap", `{"leader":"`+string(capAddr)+`"}`)

	accounts, err := leader.Channels(ctx, dc, "workflow", []chain.Address{capAddr})
	if err != nil || len(accounts) != 2 {
		t.Fatalf("channels: %v %v", accounts, err)
	}
	st, err := sqlite.Open(ctx, t.TempDir()+"/ordo.db", sqlite.Options{Synchronous: "NORMAL"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	var ln *leader.Node
	seq, err := sequencer.NewNode(sequencer.Config{Store: st, Chain: dc, PollInterval: 20 * time.Millisecond, Logger: quiet,
		Dispatchers: map[string]sequencer.Dispatcher{dispatch.CallType: dispatch.NewCallDispatcher(0, dc, nil)},
		Senders:     []sequencer.SenderConfig{{ID: capAddr, Key: capKey}},
		Pins:        map[string]string{"leader/0": string(capAddr), "leader/1": string(capAddr)},
		OnFinish:    func(uid string, s store.TxState, _ uint64) { ln.Finished(uid, s) }})
	if err != nil {
		t.Fatal(err)
	}
	ln, err = leader.New(leader.Config{Store: st, Sequencer: seq, Records: st, Chain: dc, Key: capKey, Logger: quiet,
		PollInterval: 20 * time.Millisecond, Core: leader.CoreConfig{Accounts: accounts}, Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ln.Open(ctx); err != nil {
		t.Fatal(err)
	}
	go func() { _ = seq.Run(ctx) }()
	go func() { _ = ln.Run(ctx) }()
	return &leaderEnv{dc: dc, st: st, admin: admin, capAddr: capAddr, invoked: invoked}
}

// TestLeaderToolEgressRefused: a leader whose tool client dials through
// an egress policy that refuses loopback never calls the registered tool
// on loopback: the request ends Dead at once (no retries), its error and
// its failure result on chain saying egress_refused.
func TestLeaderToolEgressRefused(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	e := startLeader(ctx, t, &tool.Client{HTTP: egress.Policy{AllowPrivate: true}.Client(0)})
	send(ctx, t, e.dc, e.admin, "workflow", "request", `{"walk":"w-egress","tool":"arith","input":{"op":"add","a":2,"b":3}}`)
	var rec store.LeaderEvent
	var err error
	for {
		rec, err = e.st.LeaderEventByWalk(ctx, "w-egress")
		if err == nil && (rec.Status == store.EventSuccessful || rec.Status == store.EventDead) {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("walk w-egress: %+v %v", rec, err)
		}
		time.Sleep(20 * time.Millisecond) // polling the store
	}
	if rec.Status != store.EventDead || rec.Retried != 0 || !strings.Contains(rec.Error, tool.CodeEgressRefused) {
		t.Fatalf("walk w-egress: %s retried=%d (%s), want Dead at once with %s", rec.Status, rec.Retried, rec.Error, tool.CodeEgressRefused)
	}
	if n := e.invoked.Load(); n != 0 {
		t.Fatalf("the tool on loopback was called %d times", n)
	}
	for {
		raw, err := e.dc.Call(ctx, "workflow", "walk", json.RawMessage(`{"walk":"w-egress"}`))
		if err != nil {
			t.Fatal(err)
		}
		var onChain struct {
			Result *struct {
				OK    bool   `json:"ok"`
				Error string `json:"error"`
			} `json:"result"`
		}
		_ = json.Unmarshal(raw, &onChain)
		if onChain.Result != nil {
			if onChain.Result.OK || !strings.Contains(string(raw), tool.CodeEgressRefused) {
				t.Fatalf("walk on chain: %s, want a failure result naming %s", raw, tool.CodeEgressRefused)
			}
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("no result on chain: %s", raw)
		}
		time.Sleep(20 * time.Millisecond) // polling the chain
	}
}

// TestLeaderEndToEnd: requests on a workflow, a registered tool (the
// example arith tool, requiring the leader's signature), a leader with two
// caps on one account: good requests get a successful result, a request
// whose input breaks the tool's schema and one the tool refuses get a
// failure result (Dead), each walk exactly one result on chain.
func TestLeaderEndToEnd(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	e := startLeader(ctx, t, nil)
	dc, st, admin, capAddr := e.dc, e.st, e.admin, e.capAddr
	var err error
	want := map[string]bool{"w-add": true, "w-div": true, "w-schema": false, "w-zero": false}
	inputs := map[string]string{"w-add": `{"op":"add","a":2,"b":3}`, "w-div": `{"op":"div","a":9,"b":3}`,
		"w-schema": `{"op":"pow","a":2,"b":3}`, "w-zero": `{"op":"div","a":1,"b":0}`}
	for w, in := range inputs {
		send(ctx, t, dc, admin, "workflow", "request", `{"walk":"`+w+`","tool":"arith","input":`+in+`}`)
	}
	for w, ok := range want {
		var rec store.LeaderEvent
		for {
			rec, err = st.LeaderEventByWalk(ctx, w)
			if err == nil && (rec.Status == store.EventSuccessful || rec.Status == store.EventDead) {
				break
			}
			if ctx.Err() != nil {
				t.Fatalf("walk %s: %+v %v", w, rec, err)
			}
			time.Sleep(20 * time.Millisecond) // polling the store
		}
		if (rec.Status == store.EventSuccessful) != ok {
			t.Errorf("walk %s: %s (%s), want successful=%t", w, rec.Status, rec.Error, ok)
		}
		raw, err := dc.Call(ctx, "workflow", "walk", json.RawMessage(`{"walk":"`+w+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		var onChain struct {
			Result *struct {
				OK     bool            `json:"ok"`
				Output json.RawMessage `json:"output"`
				Error  string          `json:"error"`
				Leader string          `json:"leader"`
			} `json:"result"`
		}
		_ = json.Unmarshal(raw, &onChain)
		if onChain.Result == nil || onChain.Result.OK != ok || onChain.Result.Leader != string(capAddr) {
			t.Errorf("walk %s on chain: %s", w, raw)
		}
		t.Logf("walk %s: %s %s; on chain %s", w, rec.Status, rec.Error, raw)
	}
}

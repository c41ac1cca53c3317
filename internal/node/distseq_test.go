package node

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/distseq/token"
	"github.com/ordolabs/ordo/internal/identity"
	"github.com/ordolabs/ordo/internal/store"
)

// freeAddr returns a loopback address that was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestDistseqCommittee: three nodes built from their configs (identity
// files, pinned peers, one devchain over HTTP) form a committee; an intent
// submitted at one node is confirmed on chain once, through the
// coordinator's sequencer, and its states reach every member's store.
func TestDistseqCommittee(t *testing.T) { committee(t, false) }

// TestDistseqCommitteeFromTheRegistry: the same with no pinned peers:
// each node registers itself in the chain's nodes registry through its
// sequencer, and finds the others there.
func TestDistseqCommitteeFromTheRegistry(t *testing.T) { committee(t, true) }

func committee(t *testing.T, registry bool) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dc, err := devchain.New(devchain.Config{BlockTime: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dc.Close() })
	srv := httptest.NewServer(devchain.NewHandler(dc))
	t.Cleanup(srv.Close)
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() { _ = dc.Run(ctx) })

	type member struct {
		dir, addr string
		key       identity.Key
		fp        string
	}
	var ms []member
	for range 3 {
		k, err := identity.Generate(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		cert, err := identity.NewCertificate(k, time.Now().Add(-time.Hour), time.Now().Add(24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if err := identity.Save(filepath.Join(dir, "node.key"), filepath.Join(dir, "node.crt"), k, cert); err != nil {
			t.Fatal(err)
		}
		ms = append(ms, member{dir: dir, addr: freeAddr(t), key: k, fp: identity.FingerprintDER(cert.Certificate[0])})
	}
	// The committee's group, deployed and minted by a dev account.
	var pm []devchain.PrivacyMember
	for _, m := range ms {
		pm = append(pm, devchain.PrivacyMember{ID: string(m.key.ID()), PublicKey: hex.EncodeToString(m.key.Public())})
	}
	accts, _ := dc.DevAccounts(ctx)
	coins := token.Mint("m", "", 100, 100, 100)
	var ps []devchain.PrivacyState
	for _, c := range coins {
		ps = append(ps, devchain.PrivacyState{ID: c.ID, Data: json.RawMessage(c.Data)})
	}
	for i, call := range []struct {
		method string
		args   any
	}{{"deploy", map[string]any{"group": "g", "members": pm}}, {"mint", map[string]any{"group": "g", "states": ps}}} {
		b, _ := json.Marshal(call.args)
		if _, err := dc.SendTx(ctx, chain.Tx{From: accts[0].Address, Nonce: uint64(i), Fee: 10000, Contract: devchain.PrivacyGroupContract, Method: call.method, Args: b}); err != nil {
			t.Fatal(err)
		}
	}

	var nodes []*Node
	var apis []string
	for i, m := range ms {
		var peers []DistseqPeer
		for j, o := range ms {
			if j != i && !registry {
				peers = append(peers, DistseqPeer{ID: string(o.key.ID()), Endpoint: o.addr, Fingerprint: o.fp})
			}
		}
		cfg := Config{Data: m.dir, Chain: srv.URL, DevSenders: 1, DevMode: true, Listen: "127.0.0.1:0",
			Distseq: DistseqConfig{Key: filepath.Join(m.dir, "node.key"), Cert: filepath.Join(m.dir, "node.crt"), Listen: m.addr,
				Peers: peers, RangeSize: 1000, PollEvery: Duration(50 * time.Millisecond),
				Registry: registry, RegistryEvery: Duration(100 * time.Millisecond)}}
		n, err := Build(ctx, cfg, Options{Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { n.Close() })
		nodes = append(nodes, n)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		apis = append(apis, "http://"+ln.Addr().String())
		wg.Go(func() {
			if err := n.Serve(ctx, ln); err != nil {
				t.Errorf("node %d: %v", i, err)
			}
		})
	}
	// Wait until every member has indexed the group (and, from the
	// registry, knows every other).
	waitUntil(t, 20*time.Second, "the group indexed at every member", func() bool {
		for _, n := range nodes {
			if _, err := n.store.DistseqGroup(ctx, "g"); err != nil {
				return false
			}
			if registry && n.Distseq.registry.Len() < len(ms) {
				return false
			}
		}
		return true
	})
	// Sent as any client would: JSON-RPC over HTTP, no ordo code.
	rpc := func(body string) map[string]json.RawMessage {
		t.Helper()
		resp, err := http.Post(apis[1]+"/rpc", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]json.RawMessage
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	sent := rpc(`{"jsonrpc":"2.0","id":1,"method":"ptx_sendTransaction","params":[{"type":"private","domain":"token","to":"g","data":{"to":"alice","amount":150},"idempotencyKey":"k1"}]}`)
	var txID string
	if err := json.Unmarshal(sent["result"], &txID); err != nil || txID == "" {
		t.Fatalf("ptx_sendTransaction: %s", sent["error"])
	}
	waitUntil(t, 30*time.Second, "a successful receipt", func() bool {
		r := rpc(`{"jsonrpc":"2.0","id":2,"method":"ptx_getTransactionReceipt","params":["` + txID + `"]}`)
		return strings.Contains(string(r["result"]), `"success":true`)
	})
	resp, err := http.Get(apis[1] + "/v1/peers")
	if err != nil {
		t.Fatal(err)
	}
	var page struct {
		Self  string `json:"self"`
		Peers []struct {
			ID    string `json:"id"`
			State string `json:"state"`
			Out   uint64 `json:"out"`
		} `json:"peers"`
	}
	err = json.NewDecoder(resp.Body).Decode(&page)
	resp.Body.Close()
	if err != nil || page.Self != string(ms[1].key.ID()) || len(page.Peers) == 0 || page.Peers[0].Out == 0 {
		t.Fatalf("GET /v1/peers: %+v, %v", page, err)
	}
	if mresp, err := http.Get(apis[1] + "/metrics"); err != nil {
		t.Fatal(err)
	} else {
		b, _ := io.ReadAll(mresp.Body)
		mresp.Body.Close()
		if !strings.Contains(string(b), `ordo_distseq_peer_messages_out_total{peer="`+page.Peers[0].ID+`"}`) {
			t.Errorf("/metrics has no per-peer counters")
		}
	}
	if rec, err := nodes[1].store.DistseqIntent(ctx, txID); err != nil || rec.Status != store.DistseqConfirmed {
		t.Fatalf("the sender's record: %+v, %v", rec, err)
	}
	raw, err := dc.Call(ctx, devchain.PrivacyGroupContract, "intent", json.RawMessage(`{"group":"g","txId":"`+txID+`"}`))
	if err != nil {
		t.Fatalf("the intent is not on chain: %v", err)
	}
	var in devchain.PrivacyIntent
	_ = json.Unmarshal(raw, &in)
	if len(in.Endorsers) != 3 || len(in.Creates) != 2 {
		t.Fatalf("on chain: %+v", in)
	}
	waitUntil(t, 30*time.Second, "the created states at every member", func() bool {
		for _, n := range nodes {
			sts, _ := n.store.DistseqStates(ctx, "g", true)
			have := map[string]bool{}
			for _, s := range sts {
				have[s.ID] = len(s.Data) > 0
			}
			for _, c := range in.Creates {
				if !have[c] {
					return false
				}
			}
		}
		return true
	})
	cancel()
}

func waitUntil(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

package node

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/testkit/ports"
)

// freeAddr returns a loopback address that was free a moment ago, below
// the kernel's ephemeral range (internal/testkit/ports).
func freeAddr(t *testing.T) string {
	t.Helper()
	addr, err := ports.Addr()
	if err != nil {
		t.Fatal(err)
	}
	return addr
}

// TestDistseqCommittee: three nodes built from their configs (identity
// files, pinned peers, one devchain over HTTP) form a committee; an intent
// submitted at one node is confirmed on chain once, through the
// coordinator's sequencer, and its states reach every member's store.
func TestDistseqCommittee(t *testing.T) { runCommittee(t, false) }

// TestDistseqCommitteeFromTheRegistry: the same with no pinned peers:
// each node registers itself in the chain's nodes registry through its
// sequencer, and finds the others there.
func TestDistseqCommitteeFromTheRegistry(t *testing.T) { runCommittee(t, true) }

func runCommittee(t *testing.T, registry bool) {
	h := newCommittee(t, committeeConfig{Nodes: 3, BlockTime: 200 * time.Millisecond, Registry: registry})
	ctx := h.ctx
	// Sent as any client would: JSON-RPC over HTTP, no ordo code.
	txID := h.send(1, "k1", 150)
	waitUntil(t, 30*time.Second, "a successful receipt", func() bool {
		r := h.rpc(1, `{"jsonrpc":"2.0","id":2,"method":"ptx_getTransactionReceipt","params":["`+txID+`"]}`)
		return strings.Contains(string(r["result"]), `"success":true`)
	})
	resp, err := http.Get(h.ms[1].api + "/v1/peers")
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
	if err != nil || page.Self != string(h.ms[1].key.ID()) || len(page.Peers) == 0 || page.Peers[0].Out == 0 {
		t.Fatalf("GET /v1/peers: %+v, %v", page, err)
	}
	if mresp, err := http.Get(h.ms[1].api + "/metrics"); err != nil {
		t.Fatal(err)
	} else {
		b, _ := io.ReadAll(mresp.Body)
		mresp.Body.Close()
		if !strings.Contains(string(b), `ordo_distseq_peer_messages_out_total{peer="`+page.Peers[0].ID+`"}`) {
			t.Errorf("/metrics has no per-peer counters")
		}
	}
	if rec, err := h.ms[1].node.store.DistseqIntent(ctx, txID); err != nil || rec.Status != store.DistseqConfirmed {
		t.Fatalf("the sender's record: %+v, %v", rec, err)
	}
	raw, err := h.dc.Call(ctx, devchain.PrivacyGroupContract, "intent", json.RawMessage(`{"group":"g","txId":"`+txID+`"}`))
	if err != nil {
		t.Fatalf("the intent is not on chain: %v", err)
	}
	var in devchain.PrivacyIntent
	_ = json.Unmarshal(raw, &in)
	if len(in.Endorsers) != 3 || len(in.Creates) != 2 {
		t.Fatalf("on chain: %+v", in)
	}
	waitUntil(t, 30*time.Second, "the created states at every member", func() bool {
		for _, m := range h.ms {
			sts, _ := m.node.store.DistseqStates(ctx, "g", true)
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

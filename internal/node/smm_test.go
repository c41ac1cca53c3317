package node

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/smm"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/testkit"
)

// replicationConfig is a test's replication: ackAfter 1 and short
// timings (monitoring every 100ms, a member unhealthy after 1s).
func replicationConfig() *smm.Config {
	return &smm.Config{Enabled: true, AckAfter: 1, MonitorEvery: 100 * time.Millisecond, UnhealthyAfter: time.Second,
		SyncPoll: 100 * time.Millisecond, SyncTimeout: 5 * time.Second, MappingEvery: time.Second, RequestTimeout: time.Second}
}

// postIntent submits one intent to member i's API as a client would and
// returns its record (and the HTTP status).
func (h *committee) postIntent(i int, it sequencer.Intake) (store.Transaction, int) {
	h.t.Helper()
	b, _ := json.Marshal(map[string]any{"queue": it.Queue, "type": it.Type, "data": json.RawMessage(it.Data), "idempotencyKey": it.IdempotencyKey})
	resp, err := http.Post(h.ms[i].api+"/v1/transactions", "application/json", bytes.NewReader(b))
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	var t store.Transaction
	_ = json.NewDecoder(resp.Body).Decode(&t)
	return t, resp.StatusCode
}

// queueStatus reads GET /v1/queues/{name} of member i.
func (h *committee) queueStatus(i int, queue string) (smm.QueueStatus, bool) {
	resp, err := http.Get(h.ms[i].api + "/v1/queues/" + queue)
	if err != nil {
		return smm.QueueStatus{}, false
	}
	defer resp.Body.Close()
	var out struct {
		Replication *smm.QueueStatus `json:"replication"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&out) != nil || out.Replication == nil {
		return smm.QueueStatus{}, false
	}
	return *out.Replication, true
}

// TestReplicationFailover: three nodes with replication (ackAfter 1); a
// queue's intents taken in at a node that is not its primary are
// forwarded; its primary is stopped for good and its data directory
// deleted; the replica set on chain gets a new primary, which adopts the
// queue from its replica; every acknowledged intent is applied exactly
// once on chain, in the order taken.
func TestReplicationFailover(t *testing.T) {
	if !testkit.Long() {
		t.Skip("a three-node failover")
	}
	h := newCommittee(t, committeeConfig{Nodes: 3, Registry: true, Replication: replicationConfig()})
	replicationFailover(t, h, "zk-failover", func(k int) (string, string) {
		if k == 0 {
			return sequencer.CreateClaimVotingAccount, `{"title":"failover"}`
		}
		return sequencer.SendClaimVote, fmt.Sprintf(`{"voter":"voter-%d","vote":true}`, k)
	}, h.auditOnce)
}

// replicationFailover runs the failover of TestReplicationFailover on h:
// intent k is intent(k); audit checks the acknowledged uids on chain.
func replicationFailover(t *testing.T, h *committee, queue string, intent func(k int) (typ, data string), audit func(uids []string)) {
	var acked []string
	submit := func(i, k int) {
		t.Helper()
		typ, data := intent(k)
		deadline := time.Now().Add(30 * time.Second)
		for {
			rec, code := h.postIntent(i, sequencer.Intake{Queue: queue, Type: typ, Data: []byte(data), IdempotencyKey: fmt.Sprintf("k%d", k)})
			if code == http.StatusCreated || code == http.StatusOK {
				if !slices.Contains(acked, rec.UID) {
					acked = append(acked, rec.UID)
				}
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("intent %d at member %d: status %d", k, i, code)
			}
			time.Sleep(100 * time.Millisecond) // a failover in progress answers 503: retry as a client would
		}
	}
	for k := range 10 {
		submit(k%3, k)
	}
	var st smm.QueueStatus
	waitUntil(t, 20*time.Second, "every member at the primary's clock", func() bool {
		var ok bool
		if st, ok = h.queueStatus(0, queue); !ok {
			return false
		}
		for _, m := range st.Members {
			if !m.Reached || m.Clock < 10 {
				return false
			}
		}
		return true
	})
	primary := h.indexOf(st.Primary)
	t.Logf("set v%d: primary member %d; members %+v", st.Version, primary, st.Members)
	h.stop(primary)
	if err := os.RemoveAll(h.ms[primary].dir); err != nil {
		t.Fatal(err)
	}
	other := (primary + 1) % 3
	for k := 10; k < 20; k++ {
		submit(other, k)
	}
	var next smm.QueueStatus
	waitUntil(t, 60*time.Second, "a new primary on chain", func() bool {
		var ok bool
		next, ok = h.queueStatus(other, queue)
		return ok && next.Version > st.Version && next.Primary != st.Primary
	})
	t.Logf("set v%d: primary %s", next.Version, next.Primary)
	np := h.indexOf(next.Primary)
	waitUntil(t, 60*time.Second, "every acknowledged intent DONE at the new primary", func() bool {
		for _, uid := range acked {
			tx, err := h.ms[np].node.Sequencer.Store().Get(h.ctx, uid)
			if err != nil || tx.State != store.Done {
				return false
			}
		}
		return true
	})
	audit(acked)
	// The survivors' replicas, entry by entry, once at one head.
	var survivors []int
	for i := range h.ms {
		if i != primary {
			survivors = append(survivors, i)
		}
	}
	waitUntil(t, 30*time.Second, "the survivors' logs equal entry by entry", func() bool {
		a, b := h.logOf(survivors[0], queue), h.logOf(survivors[1], queue)
		return len(a) > 20 && slices.Equal(a, b)
	})
}

// logOf reads member i's replica of a queue's log (GET
// /v1/queues/{name}/log, every page) as "clock:hash" lines.
func (h *committee) logOf(i int, queue string) []string {
	var out []string
	after := ""
	for {
		resp, err := http.Get(h.ms[i].api + "/v1/queues/" + queue + "/log?limit=1000&after=" + after)
		if err != nil {
			return nil
		}
		var page smm.LogPage
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			return nil
		}
		for _, e := range page.Entries {
			out = append(out, fmt.Sprintf("%d:%s", e.Clock, e.Hash))
		}
		if page.Next == "" {
			return out
		}
		after = page.Next
	}
}

// auditOnce checks the chain: each uid applied by exactly one successful
// transaction, in the order of uids.
func (h *committee) auditOnce(uids []string) {
	problems, err := chain.AuditOnceInOrder(h.ctx, h.dc, uids)
	if err != nil {
		h.t.Fatal(err)
	}
	for _, p := range problems {
		h.t.Error(p)
	}
	h.t.Logf("audit: %d intents, each applied once, in order", len(uids))
}

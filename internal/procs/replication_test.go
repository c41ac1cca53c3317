package procs_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/procs"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/smm"
	"github.com/ordolabs/ordo/internal/store"
)

// replQueue is the queue TestReplicationFailoverProcs loads.
const replQueue = "zk-procs"

// intake is a client of the nodes' public intake: one intent at a time,
// in order, each retried under its own idempotency key until a node
// acknowledges it.
type intake struct {
	c *procs.Committee
	// acked are the uids acknowledged (201 or 200), in the order
	// acknowledged; retries are the answers that were not (503, a
	// timeout, a refused connection).
	acked   []string
	retries int
	// byStatus counts every answer's HTTP status (0: no answer).
	byStatus map[int]int
}

// submit sends intent k to node i until it is acknowledged there (a 503
// means a failover is under way: the same key later), or fails t after
// 90s. Intent 0 creates the voting account; the others vote.
func (in *intake) submit(t *testing.T, i, k int) {
	t.Helper()
	typ, data := sequencer.SendClaimVote, fmt.Sprintf(`{"voter":"voter-%d","vote":true}`, k)
	if k == 0 {
		typ, data = sequencer.CreateClaimVotingAccount, `{"title":"procs failover"}`
	}
	body := map[string]any{"queue": replQueue, "type": typ, "data": json.RawMessage(data), "idempotencyKey": fmt.Sprintf("k%d", k)}
	deadline := time.Now().Add(90 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		var rec store.Transaction
		code, err := in.c.Request(ctx, i, http.MethodPost, "/v1/transactions", body, &rec)
		cancel()
		in.byStatus[code]++
		if err == nil && (code == http.StatusCreated || code == http.StatusOK) {
			if !slices.Contains(in.acked, rec.UID) {
				in.acked = append(in.acked, rec.UID)
			}
			return
		}
		var se *procs.StatusError
		if errors.As(err, &se) && se.Status != http.StatusServiceUnavailable && se.Status != http.StatusGatewayTimeout {
			t.Fatalf("intent %d at node%d: %v", k, i+1, err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("intent %d at node%d not acknowledged in 90s: %v", k, i+1, err)
		}
		in.retries++
		time.Sleep(200 * time.Millisecond) // a client's pause before it sends the same key again
	}
}

// queueStatus reads the queue's replication as node i sees it.
func queueStatus(ctx context.Context, c *procs.Committee, i int) (smm.QueueStatus, bool) {
	var out struct {
		Replication *smm.QueueStatus `json:"replication"`
	}
	if _, err := c.Request(ctx, i, http.MethodGet, "/v1/queues/"+replQueue, nil, &out); err != nil || out.Replication == nil {
		return smm.QueueStatus{}, false
	}
	return *out.Replication, true
}

// self is node i's own entry in st (its head read when it answered).
func self(st smm.QueueStatus, id string) (smm.MemberStatus, bool) {
	for _, m := range st.Members {
		if m.Node == id {
			return m, true
		}
	}
	return smm.MemberStatus{}, false
}

// chainSet reads the queue's replica set on chain.
func chainSet(ctx context.Context, dc *devchain.Client) (devchain.ReplicaSet, error) {
	raw, err := dc.Call(ctx, devchain.ReplicaSetsContract, "set", json.RawMessage(`{"queue":"`+replQueue+`"}`))
	if err != nil {
		return devchain.ReplicaSet{}, err
	}
	var s devchain.ReplicaSet
	err = json.Unmarshal(raw, &s)
	return s, err
}

// TestReplicationFailoverProcs (issue 12) is TestReplicationFailover of
// internal/node with processes: a devchain and three `ordo serve` set up
// by `ordo committee init --replication --ack-after 1`; intents for one
// queue sent round-robin to the three nodes' public intake; once every
// member holds the primary's clock, the primary is killed with SIGKILL
// and its data directory deleted, and the intents go on to the two
// others. Then the chain names a new primary in a higher version of the
// set; every acknowledged intent is DONE at the new primary and applied
// exactly once on chain, in the order acknowledged; and the two
// survivors hold the same log.
func TestReplicationFailoverProcs(t *testing.T) {
	c := startCommittee(t, procs.Config{Nodes: 3, BlockTime: 200 * time.Millisecond, Coins: 1,
		Replication: true, AckAfter: 1, UnhealthyAfter: 1500 * time.Millisecond, MonitorEvery: 100 * time.Millisecond, MappingEvery: 5 * time.Second})
	ctx := t.Context()
	dc := c.Chain()
	t.Cleanup(func() { // registered after startCommittee's: runs before the nodes stop
		if !t.Failed() {
			return
		}
		for i := range c.Nodes() {
			if !c.Running(i) {
				continue
			}
			var raw json.RawMessage
			_, err := c.Request(context.Background(), i, http.MethodGet, "/v1/smm", nil, &raw)
			q, _ := queueStatus(context.Background(), c, i)
			t.Logf("node%d GET /v1/smm: %s %v; queue %+v", i+1, raw, err, q)
		}
	})

	// A queue's set names the nodes the intake node's registry knows: wait
	// for every node in the chain's registry, then for each node to read
	// the registry again.
	var full time.Time
	waitUntil(t, 60*time.Second, "every node in the chain's nodes registry", func() bool {
		raw, err := dc.Call(ctx, devchain.NodesContract, "nodes", json.RawMessage(`{}`))
		var out struct {
			Nodes []devchain.NodeEntry `json:"nodes"`
		}
		full = time.Now()
		return err == nil && json.Unmarshal(raw, &out) == nil && len(out.Nodes) == c.Nodes()
	})
	waitUntil(t, 30*time.Second, "every node's registry read after that", func() bool {
		for i := range c.Nodes() {
			var st smm.Status
			if _, err := c.Request(ctx, i, http.MethodGet, "/v1/smm", nil, &st); err != nil || !st.MappingReadAt.After(full) {
				return false
			}
		}
		return true
	})

	in := &intake{c: c, byStatus: map[int]int{}}
	const before, after = 30, 30
	for k := range before {
		in.submit(t, k%3, k)
	}
	var st smm.QueueStatus
	waitUntil(t, 30*time.Second, "every member at the primary's clock", func() bool {
		var ok bool
		if st, ok = queueStatus(ctx, c, 0); !ok || len(st.Members) != 3 {
			return false
		}
		p, ok := self(st, st.Primary)
		if !ok {
			return false
		}
		for _, m := range st.Members {
			if !m.Reached || m.Clock != p.Clock || m.Hash != p.Hash {
				return false
			}
		}
		return true
	})
	primary := c.Index(st.Primary)
	t.Logf("set v%d: primary node%d, every member at clock %d", st.Version, primary+1, st.Members[0].Clock)
	killHead, err := dc.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	if err := c.Kill(primary); err != nil {
		t.Fatal(err)
	}
	if err := c.RemoveData(primary); err != nil {
		t.Fatal(err)
	}

	// Watch the chain for the new set while the load goes on.
	var (
		mu       sync.Mutex
		moved    devchain.ReplicaSet
		movedAt  time.Time
		movedBlk uint64
	)
	watchCtx, stopWatch := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		for watchCtx.Err() == nil {
			s, err := chainSet(watchCtx, dc)
			if err == nil && s.Version > st.Version && s.Primary != st.Primary {
				mu.Lock()
				moved, movedAt, movedBlk = s, time.Now(), s.Height
				mu.Unlock()
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
	defer func() { stopWatch(); wg.Wait() }()

	survivors := []int{(primary + 1) % 3, (primary + 2) % 3}
	for k := before; k < before+after; k++ {
		in.submit(t, survivors[k%2], k)
	}
	waitUntil(t, 60*time.Second, "a new primary on chain", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return moved.Primary != ""
	})
	mu.Lock()
	next, took, tookBlk := moved, movedAt.Sub(killed), movedBlk-killHead.Height
	mu.Unlock()
	np := c.Index(next.Primary)
	if np < 0 || np == primary {
		t.Fatalf("new set %+v: primary is not a survivor", next)
	}
	t.Logf("set v%d: primary node%d, secondaries %v (signed by %s at block %d)", next.Version, np+1, next.Secondaries, next.UpdatedBy, next.Height)

	var notDone string
	deadline := time.Now().Add(60 * time.Second)
	for {
		notDone = ""
		for j, uid := range in.acked {
			var got struct {
				Transaction store.Transaction `json:"transaction"`
			}
			_, err := c.Request(ctx, np, http.MethodGet, "/v1/transactions/"+uid, nil, &got)
			if tx := got.Transaction; err != nil || tx.State != store.Done {
				notDone = fmt.Sprintf("intent #%d %s: state %q error %q attempts %d (%v)", j, uid, tx.State, tx.Error, len(tx.Attempts), err)
				break
			}
		}
		if notDone == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not every acknowledged intent DONE at the new primary node%d after 60s: %s", np+1, notDone)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(in.acked) != before+after {
		t.Errorf("%d intents acknowledged, %d sent", len(in.acked), before+after)
	}
	auditOnceInOrder(ctx, t, dc, in.acked)

	// The survivors' logs: each answers its own head (clock and hash) read
	// now. The log is a hash chain (each entry's hash covers the previous
	// hash and the entry), so equal heads at one clock mean equal logs,
	// entry by entry.
	var heads [2]smm.MemberStatus
	waitUntil(t, 30*time.Second, "the survivors at one head", func() bool {
		for j, i := range survivors {
			s, ok := queueStatus(ctx, c, i)
			if !ok {
				return false
			}
			if heads[j], ok = self(s, c.NodeID(i)); !ok {
				return false
			}
		}
		return heads[0].Clock == heads[1].Clock && heads[0].Hash == heads[1].Hash
	})
	t.Logf("survivors node%d and node%d at clock %d hash %s", survivors[0]+1, survivors[1]+1, heads[0].Clock, heads[0].Hash[:16])
	t.Logf("acknowledged %d (%d before the kill, %d after), retries %d, answers %v; failover took %d blocks / %.1fs (kill to the new set on chain)",
		len(in.acked), before, after, in.retries, in.byStatus, tookBlk, took.Seconds())
}

// auditOnceInOrder checks the chain: each uid applied by exactly one
// successful transaction (its memo the uid), in the order of uids.
func auditOnceInOrder(ctx context.Context, t *testing.T, dc *devchain.Client, uids []string) {
	t.Helper()
	problems, err := chain.AuditOnceInOrder(ctx, dc, uids)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	t.Logf("audit: %d intents, each applied once, in the order acknowledged", len(uids))
}

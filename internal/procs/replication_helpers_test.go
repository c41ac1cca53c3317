package procs_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/node"
	"github.com/ordolabs/ordo/internal/procs"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/smm"
	"github.com/ordolabs/ordo/internal/store"
)

// replConfig is the committee of the replication tests: three nodes,
// every intent acknowledged once one secondary holds it, and the
// replication's periods short enough for a test (a member silent for
// 1.5s is replaceable; monitoring every 100ms; the registry and the
// chain's sets read every 5s).
func replConfig() procs.Config {
	return procs.Config{Nodes: 3, BlockTime: 200 * time.Millisecond, Coins: 1,
		Replication: true, AckAfter: 1, UnhealthyAfter: 1500 * time.Millisecond, MonitorEvery: 100 * time.Millisecond, MappingEvery: 5 * time.Second}
}

// startReplicated starts replConfig's committee for t and waits until
// every node has read the chain's registry with every node in it (a
// queue's set names the nodes its intake node's registry knows). On a
// failure, each running node's GET /v1/smm and view of replQueue are
// logged.
func startReplicated(t *testing.T) *procs.Committee {
	t.Helper()
	c := startCommittee(t, replConfig())
	ctx := t.Context()
	dc := c.Chain()
	t.Cleanup(func() { // registered after startCommittee's: runs before the nodes stop
		if t.Failed() {
			t.Log("every node's view at the end:" + views(context.Background(), c))
		}
	})
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
	return c
}

// views is every running node's view of replQueue and its monitoring
// (GET /v1/queues/<queue> and GET /v1/smm), one line each, for a
// failure's message.
func views(ctx context.Context, c *procs.Committee) string {
	name := func(id string) string { return fmt.Sprintf("node%d", c.Index(id)+1) }
	var b strings.Builder
	for i := range c.Nodes() {
		fmt.Fprintf(&b, "\n  node%d: ", i+1)
		if !c.Running(i) {
			b.WriteString("not running")
			continue
		}
		if q, ok := queueStatus(ctx, c, i); ok {
			fmt.Fprintf(&b, "holds v%d primary %s, self %s, members", q.Version, name(q.Primary), q.Self)
			for _, m := range q.Members {
				fmt.Fprintf(&b, " [%s %s clock %d reached %t", name(m.Node), m.Role, m.Clock, m.Reached)
				if !m.UnhealthySince.IsZero() {
					fmt.Fprintf(&b, " unhealthy since %s", m.UnhealthySince.Format("15:04:05.000"))
				}
				b.WriteString("]")
			}
		} else {
			b.WriteString("no set held")
		}
		var sm smm.Status
		if _, err := c.Request(ctx, i, http.MethodGet, "/v1/smm", nil, &sm); err != nil {
			fmt.Fprintf(&b, "; /v1/smm: %v", err)
			continue
		}
		fmt.Fprintf(&b, "; primary of %d, secondary of %d; %d cycles, mapping fresh %t (read %s); jobs",
			sm.Primary, sm.Secondary, sm.Cycles, sm.MappingFresh, sm.MappingReadAt.Format("15:04:05.000"))
		for _, jq := range sm.Queues {
			fmt.Fprintf(&b, " %s %d/%d/%d", jq.Name, jq.Pending, jq.Running, jq.Failed)
		}
		b.WriteString(" (pending/running/failed)")
	}
	return b.String()
}

// replTimings reads, from outside the nodes, the unhealthyAfter node1's
// config file names (its default when it names none) and the chain's
// block time (the mean over its last blocks, up to 50, from their
// timestamps), and logs both.
func replTimings(t *testing.T, c *procs.Committee) (unhealthyAfter, blockTime time.Duration) {
	t.Helper()
	cfg, err := node.LoadConfig(c.Member(0).Config)
	if err != nil {
		t.Fatal(err)
	}
	unhealthyAfter = cfg.Replication.WithDefaults().UnhealthyAfter
	dc := c.Chain()
	head, err := dc.Head(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	from := max(head.Height, 51) - 50
	bs, err := dc.Blocks(t.Context(), from, from)
	if err != nil || len(bs) != 1 || head.Height <= from {
		t.Fatalf("block %d below head %d: %d blocks, %v", from, head.Height, len(bs), err)
	}
	blockTime = head.Time.Sub(bs[0].Time) / time.Duration(head.Height-from)
	t.Logf("block time %s (configured %s), unhealthyAfter %s (%.1f blocks)", blockTime, c.Config().BlockTime, unhealthyAfter, blocks(unhealthyAfter, blockTime))
	return unhealthyAfter, blockTime
}

// blocks is d in blocks of blockTime.
func blocks(d, blockTime time.Duration) float64 { return d.Seconds() / blockTime.Seconds() }

// synced waits until node i sees every member of replQueue's set at the
// primary's clock and hash, and returns that view.
func synced(t *testing.T, c *procs.Committee, i int) smm.QueueStatus {
	t.Helper()
	var st smm.QueueStatus
	waitUntil(t, 30*time.Second, "every member at the primary's clock", func() bool {
		var ok bool
		if st, ok = queueStatus(t.Context(), c, i); !ok || len(st.Members) != c.Nodes() {
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
	return st
}

// replQueue is the queue the replication tests load.
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
	// ackedAt is when each intent of acked was acknowledged.
	ackedAt []time.Time
	// calls sends the same intents as type call to the voting contract
	// (an EVM chain takes no zkapp types).
	calls bool
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
	if in.calls {
		typ, data = "call", fmt.Sprintf(`{"contract":"voting","method":"send_claim_vote","args":{"account":%q,"voter":"voter-%d","vote":true}}`, replQueue, k)
		if k == 0 {
			typ, data = "call", fmt.Sprintf(`{"contract":"voting","method":"create_claim_voting_account","args":{"account":%q,"title":"procs failover"}}`, replQueue)
		}
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
				in.ackedAt = append(in.ackedAt, time.Now())
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

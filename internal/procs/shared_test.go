package procs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/procs"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/testkit"
	"github.com/ordolabs/ordo/internal/testkit/pgtest"
)

// Several nodes on one PostgreSQL (issue 13, "Several nodes on one
// database"): a devchain and three `ordo serve` processes on one database,
// load on 100 queues through every node; one node killed -9, another
// paused (SIGSTOP) past its leases and resumed. Afterwards every
// acknowledged intent is DONE, applied exactly once on chain, in FIFO
// order per queue, and no queue has two transactions in one block.

const (
	sharedQueues   = 100
	sharedPerQueue = 4
	sharedLeaseTTL = 2 * time.Second
)

// sharedNode is one `ordo serve` on the shared database.
type sharedNode struct {
	p    *procs.Process
	addr string
}

// sharedCluster is the devchain and the nodes.
type sharedCluster struct {
	chainURL string
	dbURL    string
	chain    *procs.Process
	nodes    []*sharedNode
	hc       *http.Client
}

func startShared(t *testing.T, nodes int) *sharedCluster {
	t.Helper()
	if !testkit.Long() {
		t.Skip("processes: a long run (ORDO_LONG=1; .ci/run sets it)")
	}
	bin := ordoBin(t)
	dbURL := pgtest.URL(t)
	dir := t.TempDir()
	base, err := procs.FreePorts(nodes + 1)
	if err != nil {
		t.Fatal(err)
	}
	c := &sharedCluster{hc: &http.Client{Timeout: 10 * time.Second}, dbURL: dbURL}
	chainAddr := net.JoinHostPort("127.0.0.1", strconv.Itoa(base+nodes))
	c.chainURL = "http://" + chainAddr
	c.chain = procs.NewProcess("chain", bin, filepath.Join(dir, "chain.log"), "devchain", "--listen", chainAddr, "--block-time", "200ms")
	if err := c.chain.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.chain.Kill() })
	dc := devchain.NewClient(c.chainURL, nil)
	waitUntil(t, 30*time.Second, "the devchain", func() bool { _, err := dc.Head(t.Context()); return err == nil })
	cfg := filepath.Join(dir, "ordo.yaml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf("store:\n  url: %q\n  leaseTTL: %s\n", dbURL, sharedLeaseTTL)), 0o600); err != nil {
		t.Fatal(err)
	}
	for i := range nodes {
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(base+i))
		p := procs.NewProcess(fmt.Sprintf("node%d", i+1), bin, filepath.Join(dir, fmt.Sprintf("node%d.log", i+1)),
			"serve", "--config", cfg, "--chain", c.chainURL, "--listen", addr, "--data", filepath.Join(dir, fmt.Sprintf("node%d", i+1)),
			"--dev-mode", "--dev-senders", "4")
		if err := p.Start(); err != nil {
			t.Fatal(err)
		}
		n := &sharedNode{p: p, addr: addr}
		c.nodes = append(c.nodes, n)
		t.Cleanup(func() {
			_ = syscall.Kill(p.PID(), syscall.SIGCONT)
			_ = p.Kill()
			if t.Failed() {
				t.Logf("--- %s ---\n%s", p.LogPath(), p.Tail(40))
			}
		})
		waitUntil(t, 60*time.Second, fmt.Sprintf("node%d ready", i+1), func() bool {
			resp, err := c.hc.Get("http://" + addr + "/readyz")
			if err != nil {
				return false
			}
			resp.Body.Close()
			return resp.StatusCode == http.StatusOK
		})
	}
	return c
}

// send posts one intent to node i; the record, or an error.
func (c *sharedCluster) send(ctx context.Context, i int, body map[string]any) (store.Transaction, error) {
	var rec store.Transaction
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+c.nodes[i].addr+"/v1/transactions", bytes.NewReader(b))
	if err != nil {
		return rec, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		return rec, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		return rec, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	return rec, json.NewDecoder(resp.Body).Decode(&rec)
}

// get reads a record at node i.
func (c *sharedCluster) get(ctx context.Context, i int, uid string) (store.Transaction, error) {
	var out struct {
		Transaction store.Transaction `json:"transaction"`
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+c.nodes[i].addr+"/v1/transactions/"+uid, nil)
	if err != nil {
		return out.Transaction, err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return out.Transaction, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return out.Transaction, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	return out.Transaction, json.NewDecoder(resp.Body).Decode(&out)
}

// sharedLoad sends each queue's intents in order, one at a time, each
// retried under its idempotency key at the next node until one
// acknowledges it.
type sharedLoad struct {
	mu    sync.Mutex
	acked map[string][]string // queue → uids in the order acknowledged
	queue map[string]string   // uid → queue
}

// count is how many intents were acknowledged so far.
func (l *sharedLoad) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.queue)
}

func (l *sharedLoad) run(ctx context.Context, t *testing.T, c *sharedCluster, alive func(int) bool) {
	var wg sync.WaitGroup
	for w := range 20 {
		wg.Go(func() {
			for q := w; q < sharedQueues; q += 20 {
				queue := fmt.Sprintf("shared-%03d", q)
				for k := range sharedPerQueue {
					typ, data := sequencer.SendClaimVote, fmt.Sprintf(`{"voter":"voter-%d","vote":true}`, k)
					if k == 0 {
						typ, data = sequencer.CreateClaimVotingAccount, `{"title":"shared"}`
					}
					body := map[string]any{"queue": queue, "type": typ, "data": json.RawMessage(data), "idempotencyKey": fmt.Sprintf("%s-%d", queue, k)}
					for try := 0; ; try++ {
						if ctx.Err() != nil {
							return
						}
						i := (q + k + try) % len(c.nodes)
						if !alive(i) {
							continue
						}
						rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
						rec, err := c.send(rctx, i, body)
						cancel()
						if err == nil {
							l.mu.Lock()
							l.acked[queue] = append(l.acked[queue], rec.UID)
							l.queue[rec.UID] = queue
							l.mu.Unlock()
							break
						}
						time.Sleep(100 * time.Millisecond) // a client's pause before it sends the same key again
					}
				}
			}
		})
	}
	wg.Wait()
}

func TestSharedPostgresProcs(t *testing.T) {
	c := startShared(t, 3)
	var down sync.Map // node index → true while killed or paused
	alive := func(i int) bool { _, d := down.Load(i); return !d }
	l := &sharedLoad{acked: map[string][]string{}, queue: map[string]string{}}
	loadDone := make(chan struct{})
	go func() { defer close(loadDone); l.run(t.Context(), t, c, alive) }()

	// node1 killed -9 once some intents are in; node2 paused past its
	// leases, then resumed.
	waitUntil(t, 60*time.Second, "50 acknowledged intents", func() bool { return l.count() >= 50 })
	down.Store(0, true)
	if err := c.nodes[0].p.Kill(); err != nil {
		t.Fatal(err)
	}
	t.Logf("node1 killed -9 at %d acknowledged", l.count())
	down.Store(1, true)
	if err := syscall.Kill(c.nodes[1].p.PID(), syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	// node2 stays paused until the database shows its leases gone: only
	// node3's node lease is live, and node3 holds every active queue.
	// It stays paused a few blocks more, past the inclusion timeout, so
	// that node3 may have settled and dispatched again what node2 had
	// signed and not sent: node2 wakes with nothing it may send.
	paused := time.Now()
	waitUntil(t, 30*time.Second, "node1's and node2's leases expired and taken by node3", func() bool {
		return liveNodes(t, c.dbURL) == 1 && queueHolders(t, c.dbURL) == 1
	})
	dc := devchain.NewClient(c.chainURL, nil)
	h0, err := dc.Head(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, 30*time.Second, "8 more blocks", func() bool {
		h, err := dc.Head(t.Context())
		return err == nil && h.Height >= h0.Height+8
	})
	pause := time.Since(paused)
	if err := syscall.Kill(c.nodes[1].p.PID(), syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	down.Delete(1)
	t.Logf("node2 paused %s (leases last %s) and resumed", pause, sharedLeaseTTL)
	select {
	case <-loadDone:
	case <-time.After(3 * time.Minute):
		t.Fatal("the load did not end in 3 minutes")
	}
	var uids []string
	for _, us := range l.acked {
		uids = append(uids, us...)
	}
	if len(uids) != sharedQueues*sharedPerQueue {
		t.Fatalf("%d acknowledged, want %d", len(uids), sharedQueues*sharedPerQueue)
	}
	waitUntil(t, 3*time.Minute, "every acknowledged intent DONE", func() bool {
		for _, u := range uids {
			rec, err := c.get(t.Context(), 2, u)
			if err != nil || rec.State != store.Done {
				return false
			}
		}
		return true
	})
	auditShared(t, c, l)
	// What the nodes' logs say of the faults: node2 lost its leases while
	// paused (and a batch it had in hand, if any, was fenced); node3
	// started over with the queues it took.
	for i, n := range c.nodes {
		b, _ := os.ReadFile(n.p.LogPath())
		t.Logf("node%d: %d lease drops, %d fenced commits, %d starts over", i+1,
			strings.Count(string(b), "leases dropped"), strings.Count(string(b), "was fenced"), strings.Count(string(b), "starting over from the store"))
		if i == 1 && !strings.Contains(string(b), "leases dropped") {
			t.Errorf("node2, paused past its leases, did not drop them")
		}
	}
}

// auditShared reads the chain once: each acknowledged uid applied by
// exactly one successful transaction, each queue's in the order
// acknowledged, no queue with two transactions in one block.
func auditShared(t *testing.T, c *sharedCluster, l *sharedLoad) {
	t.Helper()
	ctx := t.Context()
	dc := devchain.NewClient(c.chainURL, nil)
	head, err := dc.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	applied := map[string]int{}
	duplicates := 0 // second applications the chain's nullifier refused
	order := map[string][]string{}
	perBlock := map[string]int{} // queue/height → transactions
	maxPerBlock := 0
	for from := uint64(1); from <= head.Height; from += chain.AuditPage {
		blocks, err := dc.Blocks(ctx, from, min(head.Height, from+chain.AuditPage-1))
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range blocks {
			for _, tx := range b.Txs {
				q, ok := l.queue[tx.Memo]
				if !ok {
					continue
				}
				k := fmt.Sprintf("%s/%d", q, b.Height)
				perBlock[k]++
				maxPerBlock = max(maxPerBlock, perBlock[k])
				if tx.Status == chain.OutcomeSucceeded {
					applied[tx.Memo]++
					order[q] = append(order[q], tx.Memo)
				} else if tx.Reason == chain.ReasonDuplicateIntent {
					duplicates++
				}
			}
		}
	}
	problems := 0
	for q, us := range l.acked {
		for _, u := range us {
			if applied[u] != 1 {
				t.Errorf("%s of %s applied %d times on chain", u, q, applied[u])
				problems++
			}
		}
		if fmt.Sprint(order[q]) != fmt.Sprint(us) {
			t.Errorf("%s applied in the order %v, acknowledged %v", q, order[q], us)
			problems++
		}
	}
	if maxPerBlock > 1 {
		t.Errorf("a queue had %d transactions in one block", maxPerBlock)
	}
	// Exactly once must not rest on the nullifier alone: no node sent an
	// intent another node had already sent.
	if duplicates > 0 {
		t.Errorf("%d second applications reached the chain (refused duplicate_intent)", duplicates)
	}
	t.Logf("audit: %d intents over %d queues, each applied once, in FIFO order per queue, at most %d per queue per block, %d refused second applications (%d problems)",
		len(l.queue), len(l.acked), maxPerBlock, duplicates, problems)
}

// queueHolders counts the holders of unexpired queue leases.
func queueHolders(t *testing.T, dbURL string) int {
	t.Helper()
	return countSQL(t, dbURL, `SELECT count(DISTINCT holder) FROM leases WHERE name LIKE 'queue/%' AND expires_at > (extract(epoch FROM clock_timestamp()) * 1e9)::bigint`)
}

// countSQL runs a count on the shared database (-1 on an error).
func countSQL(t *testing.T, dbURL, q string) int {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dbURL)
	if err != nil {
		return -1
	}
	defer conn.Close(context.WithoutCancel(t.Context()))
	var n int
	if err := conn.QueryRow(t.Context(), q).Scan(&n); err != nil {
		return -1
	}
	return n
}

// liveNodes counts the unexpired node leases in the shared database.
func liveNodes(t *testing.T, dbURL string) int {
	t.Helper()
	return countSQL(t, dbURL, `SELECT count(*) FROM leases WHERE name LIKE 'node/%' AND expires_at > (extract(epoch FROM clock_timestamp()) * 1e9)::bigint`)
}

package node

import (
	"context"
	"errors"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ordolabs/ordo/internal/api"
	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/testkit"
	"github.com/ordolabs/ordo/internal/testkit/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// TestIntegrationPostgres: the integration flow on a PostgreSQL store
// (store.url): the seed's voting flow DONE exactly once on chain, in
// order, one transaction per queue per block (the audit), without faults,
// with dropped transactions and with reverts under reorgs.
func TestIntegrationPostgres(t *testing.T) {
	url := func(c *Config) { c.Store.URL = pgtest.URL(t) }
	for _, tc := range []faultCase{
		{name: "none", start: &devchain.FaultUpdate{}, noRetries: true, tune: url},
		{name: "drop", start: &devchain.FaultUpdate{DropProb: ptr(0.3)}, wantRetries: true, tune: url},
		{name: "reorgRevert", start: &devchain.FaultUpdate{ReorgEvery: ptr(uint64(3)), ReorgDepth: ptr(uint64(2)), RevertProb: ptr(0.3)},
			tune: func(c *Config) { url(c); c.Confirmations = 3 }, wantRetries: true, check: checkReorgRevert},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !testkit.Long() && tc.name != "none" {
				t.Skip("without ORDO_LONG=1 only the baseline runs")
			}
			runFaultCase(t, tc)
		})
	}
}

// TestPostgresRestartKeepsRecords: a node on PostgreSQL stopped and built
// again on the same database finds its records.
func TestPostgresRestartKeepsRecords(t *testing.T) {
	u := pgtest.URL(t)
	data := t.TempDir()
	_, chainURL := standaloneChain(t, DevchainConfig{BlockTime: Duration(itBlockTime)}) // one chain for both: the store's
	tune := func(c *Config) { c.Store.URL, c.Data, c.Chain = u, data, chainURL }
	var before []store.Transaction
	t.Run("first", func(t *testing.T) { // its node is closed when it ends
		h := startITNode(t, tune)
		flow := votingFlow("restart", 2, 3)
		h.submit(flow)
		before = h.waitTerminal(time.Now().Add(itCaseDeadline), len(flow), nil)
	})
	if t.Failed() {
		return
	}
	h2 := startITNode(t, tune)
	after := h2.list()
	if len(after) != len(before) {
		t.Fatalf("%d records after the restart, %d before", len(after), len(before))
	}
	for _, tx := range after {
		if tx.State != store.Done {
			t.Errorf("%s is %s after the restart", tx.UID, tx.State)
		}
	}
}

func TestStoreConfig(t *testing.T) {
	for _, tc := range []struct {
		url     string
		bad     bool
		pg      bool
		redacts string
	}{
		{url: ""},
		{url: "sqlite"},
		{url: "postgres://u:secret@localhost:5432/db", pg: true, redacts: "postgres://u:xxxxx@localhost:5432/db"},
		{url: "postgresql://localhost/db?sslmode=disable", pg: true, redacts: "postgresql://localhost/db?sslmode=disable"},
		{url: "mysql://localhost/db", bad: true},
		{url: "/var/lib/ordo.db", bad: true},
	} {
		c := StoreConfig{URL: tc.url}
		err := c.validate()
		if tc.bad != (err != nil) || tc.bad && !errors.Is(err, ErrStoreURL) {
			t.Errorf("validate(%q) = %v, bad %v", tc.url, err, tc.bad)
		}
		if c.postgres() != tc.pg {
			t.Errorf("postgres(%q) = %v", tc.url, c.postgres())
		}
		if tc.pg && c.Redacted() != tc.redacts {
			t.Errorf("Redacted(%q) = %q, want %q", tc.url, c.Redacted(), tc.redacts)
		}
	}
	c := Config{Store: StoreConfig{URL: "postgres://localhost/db"}}
	c.Replication.Enabled = true
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "replica sets are for nodes with their own stores") {
		t.Errorf("replication on PostgreSQL: %v", err)
	}
}

// TestEngineRunsAgainOnOneNode: on a shared PostgreSQL store, a node whose
// processor lost its lease (here taken by another holder, as after an
// outage longer than the lease) answers the processor's calls 503 at once
// while it stands by, not a wait on a stopped engine, and runs the
// processor again, built from the store, once it holds the lease again,
// with no restart.
func TestEngineRunsAgainOnOneNode(t *testing.T) {
	u := pgtest.URL(t)
	const admin = "engine-again-admin-token-0123"
	h := startITNode(t, func(c *Config) {
		c.Store.URL = u
		c.Store.LeaseTTL = Duration(time.Second)
		c.Principals = append(c.Principals, auth.PrincipalConfig{Principal: "ops", Token: admin, Roles: []auth.Role{auth.RoleAdmin}})
	})
	create := func(name string) int {
		req, err := http.NewRequest(http.MethodPost, "http://"+h.addr+"/v1/processors", strings.NewReader(`{"name": "`+name+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+admin)
		req.Header.Set("Content-Type", "application/json")
		resp, err := (&http.Client{Timeout: 5 * time.Second}).Do(req)
		if err != nil {
			t.Fatalf("create %s: %v (a call that waited on a stopped engine?)", name, err)
		}
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	testkit.WaitFor(t, 30*time.Second, 50*time.Millisecond, "the processor runs", func() bool { return create("p1") == http.StatusOK })

	conn, err := pgx.Connect(t.Context(), u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	// Another holder takes the lease for 3 s, on the database's clock.
	if _, err := conn.Exec(t.Context(), `UPDATE leases SET holder = 'elsewhere', token = token + 1,
		expires_at = (extract(epoch FROM clock_timestamp()) * 1e9)::bigint + 3000000000
		WHERE name = 'engine/processor'`); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, 30*time.Second, 50*time.Millisecond, "the processor answers 503 while it stands by", func() bool {
		return create("p2") == http.StatusServiceUnavailable
	})
	testkit.WaitFor(t, 30*time.Second, 100*time.Millisecond, "the processor runs again", func() bool { return create("p3") == http.StatusOK })
	for _, name := range []string{"p1", "p3"} {
		if _, err := h.n.store.GetProcessor(t.Context(), name); err != nil {
			t.Fatalf("processor %s: %v", name, err)
		}
	}
}

// TestSharedStoreOneChainPostgres: two nodes on one PostgreSQL database
// with different chains: the first to reach its chain records it; the
// other keeps its engines (and its lease keeper) stopped and answers
// /healthz 503 chain_identity_mismatch, and what it takes in is sent by
// the first, on the store's chain only.
func TestSharedStoreOneChainPostgres(t *testing.T) {
	u := pgtest.URL(t)
	dcA, urlA := standaloneChain(t, DevchainConfig{BlockTime: Duration(itBlockTime)})
	_, urlB := standaloneChain(t, DevchainConfig{BlockTime: Duration(itBlockTime), Seed: 2})
	a := startITNode(t, func(c *Config) { c.Store.URL, c.Chain = u, urlA })
	<-a.n.Ready()
	b, _ := serveNode(t, Config{Store: StoreConfig{URL: u}, Chain: urlB, DevSenders: 2})
	testkit.WaitFor(t, 10*time.Second, itPollEvery, "the second node's /healthz 503 chain_identity_mismatch", func() bool {
		st, r := b.health()
		return st == http.StatusServiceUnavailable && r.Status == api.StatusChainMismatch
	})
	st, tx, code := b.intake(`{"queue":"shared-one-chain","type":"CREATE_CLAIM_VOTING_ACCOUNT"}`)
	if st != http.StatusCreated {
		t.Fatalf("intake at the held node: %d %s", st, code)
	}
	a.waitDone(tx.UID)
	got, err := a.n.Sequencer.Store().Get(t.Context(), tx.UID)
	if err != nil || len(got.Attempts) == 0 {
		t.Fatalf("%s: %v", tx.UID, err)
	}
	for _, at := range got.Attempts {
		if at.Hash == "" {
			continue
		}
		if st, err := dcA.TxStatus(t.Context(), chain.Hash(at.Hash)); err != nil || st.State == chain.TxUnknown {
			t.Errorf("attempt %d (%s) is not on the store's chain: %+v %v", at.N, at.Hash, st, err)
		}
	}
	select {
	case <-b.n.Sequencer.Started():
		t.Fatal("the held node's sequencer started")
	default:
	}
}

package node

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/store"
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
			if testing.Short() && tc.name != "none" {
				t.Skip("-short runs the baseline only")
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
	tune := func(c *Config) { c.Store.URL, c.Data = u, data }
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

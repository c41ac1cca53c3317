package pgtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ordolabs/ordo/internal/testkit/pgcluster"
)

// EnvURL names the environment variable holding an existing server's URL.
const EnvURL = pgcluster.EnvURL

// server is where the databases are made: an admin URL (a database to
// connect to for CREATE and DROP DATABASE) or why there is none.
type server struct {
	admin *url.URL
	skip  string // set when no server can be had
	err   error  // set when starting one failed
}

var (
	srvOnce sync.Once
	srv     server

	// startedMu guards startedC, the cluster get started (for Main's stop
	// and the signal's).
	startedMu sync.Mutex
	startedC  *pgcluster.Cluster

	keysMu sync.Mutex
	keys   = map[string]string{} // URLFor key → URL
)

// get returns the binary's server, starting the cluster on first use.
func get() *server {
	srvOnce.Do(func() {
		if raw := os.Getenv(EnvURL); raw != "" {
			u, err := url.Parse(raw)
			if err != nil {
				srv.err = fmt.Errorf("pgtest: %s: %w", EnvURL, err)
				return
			}
			srv.admin = u
			return
		}
		bin, err := pgcluster.FindBin()
		if err != nil {
			srv.skip = fmt.Sprintf("PostgreSQL tests NOT RUN: %v; install PostgreSQL (initdb, postgres) or set %s=postgres://…", err, EnvURL)
			return
		}
		c, err := pgcluster.New(bin, benchmarking()) // a test never crashes the machine; a benchmark measures real commits
		if err != nil {
			srv.err = err
			return
		}
		startedMu.Lock()
		startedC = c
		startedMu.Unlock()
		srv.admin = c.URL("postgres")
	})
	return &srv
}

// ready fails or skips t when there is no server.
func (s *server) ready(t testing.TB) {
	t.Helper()
	switch {
	case s.err != nil:
		t.Fatalf("pgtest: %v", s.err)
	case s.skip != "" && os.Getenv("CI") == "true":
		t.Fatalf("pgtest: CI=true: %s", s.skip)
	case s.skip != "":
		t.Skip(s.skip)
	}
}

// dbURL is the admin URL with another database.
func (s *server) dbURL(name string) string {
	u := *s.admin
	u.Path = "/" + name
	return u.String()
}

// URL returns the URL of a new, empty database for t, dropped when t ends.
func URL(t testing.TB) string {
	t.Helper()
	s := get()
	s.ready(t)
	var b [8]byte
	_, _ = rand.Read(b[:])
	name := "ordo_t_" + hex.EncodeToString(b[:])
	if err := s.exec(fmt.Sprintf(`CREATE DATABASE %s`, name)); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	t.Cleanup(func() { s.drop(t, name) })
	return s.dbURL(name)
}

// URLFor returns the URL of the database kept for key: created empty on
// the first call with that key (and dropped when that call's test ends),
// the same database on later calls. A conformance suite that reopens "the
// store in dir" passes dir as the key.
func URLFor(t testing.TB, key string) string {
	t.Helper()
	s := get()
	s.ready(t)
	keysMu.Lock()
	defer keysMu.Unlock()
	if u, ok := keys[key]; ok {
		return u
	}
	var salt [4]byte
	_, _ = rand.Read(salt[:])
	sum := sha256.Sum256(append([]byte(key), salt[:]...))
	name := "ordo_k_" + hex.EncodeToString(sum[:10])
	if err := s.exec(fmt.Sprintf(`CREATE DATABASE %s`, name)); err != nil {
		t.Fatalf("pgtest: create database for %s: %v", key, err)
	}
	u := s.dbURL(name)
	keys[key] = u
	t.Cleanup(func() {
		keysMu.Lock()
		delete(keys, key)
		keysMu.Unlock()
		s.drop(t, name)
	})
	return u
}

// drop removes a database, closing its sessions first.
func (s *server) drop(t testing.TB, name string) {
	if err := s.exec(fmt.Sprintf(`DROP DATABASE IF EXISTS %s WITH (FORCE)`, name)); err != nil {
		t.Errorf("pgtest: drop database %s: %v", name, err)
	}
}

// exec runs one statement on the admin database.
func (s *server) exec(sql string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.admin.String())
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close(context.Background()) }()
	_, err = conn.Exec(ctx, sql)
	return err
}

// Main runs the tests and then stops the cluster, if one was started:
// call it from TestMain as os.Exit(pgtest.Main(m)).
func Main(m *testing.M) int {
	pgcluster.StopOnSignal(started)
	code := m.Run()
	stop()
	return code
}

// started is the cluster this test binary started (nil: none, or
// ORDO_TEST_POSTGRES).
func started() *pgcluster.Cluster {
	startedMu.Lock()
	defer startedMu.Unlock()
	return startedC
}

// stop stops the cluster, if any, and removes its directory.
func stop() {
	if c := started(); c != nil {
		if err := c.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "pgtest: stop cluster: %v\n", err)
		}
	}
}

// benchmarking reports whether the test binary runs benchmarks (-test.bench
// set): the shared cluster is then durable, so that they measure commits
// as a production server makes them.
func benchmarking() bool {
	f := flag.Lookup("test.bench")
	return f != nil && f.Value.String() != ""
}

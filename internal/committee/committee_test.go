package committee

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/identity"
	"github.com/ordolabs/ordo/internal/node"
	"github.com/ordolabs/ordo/internal/smm"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func initT(t *testing.T, o Options) []Member {
	t.Helper()
	if o.Now.IsZero() {
		o.Now = t0
	}
	ms, err := Init(o)
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func TestInitCommittee(t *testing.T) {
	for _, n := range []int{1, 4} {
		t.Run("nodes="+strconv.Itoa(n), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "committee")
			ms := initT(t, Options{Nodes: n, Out: out})
			if len(ms) != n {
				t.Fatalf("%d members, want %d", len(ms), n)
			}
			addrs := map[string]bool{}
			byID := map[string]Member{}
			for i, m := range ms {
				if m.Index != i+1 || m.Dir != filepath.Join(out, "node"+strconv.Itoa(i+1)) {
					t.Errorf("member %d: index %d dir %s", i, m.Index, m.Dir)
				}
				addrs[m.API], addrs[m.GRPC] = true, true
				byID[string(m.ID)] = m
			}
			if len(addrs) != 2*n || len(byID) != n {
				t.Fatalf("%d distinct addresses and %d ids for %d nodes: %+v", len(addrs), len(byID), n, ms)
			}
			for _, m := range ms {
				checkMember(t, m, ms, byID)
			}
		})
	}
}

func checkMember(t *testing.T, m Member, ms []Member, byID map[string]Member) {
	t.Helper()
	for path, want := range map[string]os.FileMode{m.Dir: 0o700, m.Key: 0o600, m.Token: 0o600, m.Config: 0o600} {
		if got := mode(t, path); got != want {
			t.Errorf("%s: mode %o, want %o", path, got, want)
		}
	}
	key, cert, err := identity.Load(m.Key, m.Cert)
	if err != nil {
		t.Fatal(err)
	}
	if key.ID() != m.ID {
		t.Errorf("node %d: id %s, key's %s", m.Index, m.ID, key.ID())
	}
	if fp := identity.FingerprintDER(cert.Certificate[0]); fp != m.Fingerprint {
		t.Errorf("node %d: fingerprint %s, certificate's %s", m.Index, m.Fingerprint, fp)
	}
	if !cert.Leaf.NotBefore.Equal(t0) || !cert.Leaf.NotAfter.Equal(t0.Add(DefaultValidity)) {
		t.Errorf("node %d: valid %v to %v", m.Index, cert.Leaf.NotBefore, cert.Leaf.NotAfter)
	}
	tb, err := os.ReadFile(m.Token)
	if err != nil {
		t.Fatal(err)
	}
	tok := strings.TrimSpace(string(tb))
	raw, err := os.ReadFile(m.Config)
	if err != nil {
		t.Fatal(err)
	}
	if len(tok) != 43 || strings.Contains(string(raw), tok) {
		t.Errorf("node %d: token %q (len %d) in the config or malformed", m.Index, tok, len(tok))
	}

	c, err := node.LoadConfig(m.Config)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("node %d: %v\n%s", m.Index, err, raw)
	}
	if c.Listen != m.API || c.Data != m.Data || c.Chain != DefaultChain || c.DevSenders != 1 {
		t.Errorf("node %d: listen %s data %s chain %s devSenders %d", m.Index, c.Listen, c.Data, c.Chain, c.DevSenders)
	}
	if len(c.Principals) != 1 || c.Principals[0].Principal != AdminPrincipal || c.Principals[0].Token != "" ||
		c.Principals[0].TokenSHA256 != auth.TokenSHA256(tok) || len(c.Principals[0].Roles) != 1 || c.Principals[0].Roles[0] != auth.RoleAdmin {
		t.Errorf("node %d: principals %+v", m.Index, c.Principals)
	}
	d := c.Distseq
	if d.Key != m.Key || d.Cert != m.Cert || d.Listen != m.GRPC || len(d.Peers) != len(ms)-1 {
		t.Fatalf("node %d: distseq %+v", m.Index, d)
	}
	for _, p := range d.Peers {
		o, ok := byID[p.ID]
		if !ok || o.ID == m.ID || p.Endpoint != o.GRPC {
			t.Errorf("node %d: peer %+v", m.Index, p)
			continue
		}
		_, oc, err := identity.Load(o.Key, o.Cert)
		if err != nil {
			t.Fatal(err)
		}
		if p.Fingerprint != identity.FingerprintDER(oc.Certificate[0]) {
			t.Errorf("node %d: peer %s pinned %s, its certificate's is %s", m.Index, p.ID, p.Fingerprint, identity.FingerprintDER(oc.Certificate[0]))
		}
	}
}

func TestInitOptions(t *testing.T) {
	out := filepath.Join(t.TempDir(), "c")
	ms := initT(t, Options{Nodes: 3, Out: out, Chain: "http://10.0.0.9:8545", Host: "0.0.0.0", BasePort: 9000, APIBasePort: 8000, Validity: time.Hour})
	if ms[2].GRPC != "0.0.0.0:9002" || ms[2].API != "0.0.0.0:8002" {
		t.Errorf("node 3: grpc %s api %s", ms[2].GRPC, ms[2].API)
	}
	c, err := node.LoadConfig(ms[0].Config)
	if err != nil {
		t.Fatal(err)
	}
	if c.Chain != "http://10.0.0.9:8545" || c.Distseq.Peers[0].Endpoint != "0.0.0.0:9001" {
		t.Errorf("chain %s peers %+v", c.Chain, c.Distseq.Peers)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.Distseq.RangeSize != 0 || c.Distseq.PollEvery != 0 {
		t.Errorf("rangeSize %d pollEvery %s written without being asked", c.Distseq.RangeSize, time.Duration(c.Distseq.PollEvery))
	}
	raw, err := os.ReadFile(ms[0].Config)
	if err != nil {
		t.Fatal(err)
	}
	if c.Replication.Enabled || c.Distseq.Registry || strings.Contains(string(raw), "replication") {
		t.Errorf("replication written without being asked:\n%s", raw)
	}
}

// TestInitReplication: --replication turns on replication and the
// registry in every config; each tuning is written only when set.
func TestInitReplication(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    Options
		want smm.Config
		// absent are YAML keys the config must not hold.
		absent []string
	}{
		{"defaults", Options{Replication: true}, smm.Config{Enabled: true},
			[]string{"ackAfter", "unhealthyAfter", "monitorEvery", "mappingEvery"}},
		{"ack after 1", Options{Replication: true, AckAfter: 1, UnhealthyAfter: 1500 * time.Millisecond},
			smm.Config{Enabled: true, AckAfter: 1, UnhealthyAfter: 1500 * time.Millisecond}, []string{"monitorEvery", "mappingEvery"}},
		{"every tuning", Options{Replication: true, AckAfter: 2, UnhealthyAfter: time.Second, MonitorEvery: 100 * time.Millisecond, MappingEvery: time.Second},
			smm.Config{Enabled: true, AckAfter: 2, UnhealthyAfter: time.Second, MonitorEvery: 100 * time.Millisecond, MappingEvery: time.Second}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.o
			o.Nodes, o.Out = 3, filepath.Join(t.TempDir(), "c")
			for _, m := range initT(t, o) {
				c, err := node.LoadConfig(m.Config)
				if err != nil {
					t.Fatal(err)
				}
				raw, _ := os.ReadFile(m.Config)
				if err := c.Validate(); err != nil {
					t.Fatalf("node %d: %v\n%s", m.Index, err, raw)
				}
				if c.Replication != tc.want || !c.Distseq.Registry {
					t.Errorf("node %d: replication %+v registry %v, want %+v and true", m.Index, c.Replication, c.Distseq.Registry, tc.want)
				}
				for _, k := range tc.absent {
					if strings.Contains(string(raw), k+":") {
						t.Errorf("node %d: %s written without being asked:\n%s", m.Index, k, raw)
					}
				}
			}
		})
	}
}

// TestInitTuning: RangeSize and PollEvery reach every node's distseq
// config, which still validates.
func TestInitTuning(t *testing.T) {
	ms := initT(t, Options{Nodes: 2, Out: filepath.Join(t.TempDir(), "c"), RangeSize: 20, PollEvery: 100 * time.Millisecond})
	for _, m := range ms {
		c, err := node.LoadConfig(m.Config)
		if err != nil {
			t.Fatal(err)
		}
		if c.Distseq.RangeSize != 20 || time.Duration(c.Distseq.PollEvery) != 100*time.Millisecond {
			t.Errorf("node %d: rangeSize %d pollEvery %s", m.Index, c.Distseq.RangeSize, time.Duration(c.Distseq.PollEvery))
		}
		if err := c.Validate(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestInitRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    Options
	}{
		{"no nodes", Options{Nodes: 0}},
		{"too many", Options{Nodes: MaxNodes + 1}},
		{"no out", Options{Nodes: 2, Out: "-"}},
		{"no start", Options{Nodes: 2, Now: time.Time{}.Add(0)}},
		{"negative validity", Options{Nodes: 2, Validity: -time.Hour}},
		{"negative poll", Options{Nodes: 2, PollEvery: -time.Second}},
		{"overlap", Options{Nodes: 4, BasePort: 7000, APIBasePort: 7003}},
		{"overlap other way", Options{Nodes: 4, BasePort: 7003, APIBasePort: 7000}},
		{"port overflow", Options{Nodes: 4, BasePort: 65533}},
		{"negative port", Options{Nodes: 1, APIBasePort: -1}},
		{"ack after without replication", Options{Nodes: 3, AckAfter: 1}},
		{"unhealthy after without replication", Options{Nodes: 3, UnhealthyAfter: time.Second}},
		{"monitor every without replication", Options{Nodes: 3, MonitorEvery: time.Second}},
		{"ack after above the secondaries", Options{Nodes: 3, Replication: true, AckAfter: MaxAckAfter + 1}},
		{"negative ack after", Options{Nodes: 3, Replication: true, AckAfter: -1}},
		{"negative unhealthy after", Options{Nodes: 3, Replication: true, UnhealthyAfter: -time.Second}},
		{"negative mapping every", Options{Nodes: 3, Replication: true, MappingEvery: -time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.o
			switch o.Out {
			case "-":
				o.Out = ""
			case "":
				o.Out = filepath.Join(t.TempDir(), "c")
			}
			if tc.name != "no start" {
				o.Now = t0
			}
			_, err := Init(o)
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("err %v, want ErrInvalid", err)
			}
			if _, err := os.Stat(o.Out); o.Out != "" && !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s written (stat: %v)", o.Out, err)
			}
		})
	}
}

func TestInitNonEmptyOut(t *testing.T) {
	out := t.TempDir() // exists, empty: fine
	first := initT(t, Options{Nodes: 2, Out: out})
	if _, err := Init(Options{Nodes: 2, Out: out, Now: t0}); !errors.Is(err, ErrNotEmpty) {
		t.Fatalf("err %v, want ErrNotEmpty", err)
	}
	// The refused run changed nothing.
	if c, err := node.LoadConfig(first[0].Config); err != nil || c.Distseq.Peers[0].ID != string(first[1].ID) {
		t.Fatalf("config after the refused run: %v %+v", err, c.Distseq.Peers)
	}
	// --force: a new committee over the old files, the old data kept.
	keep := filepath.Join(first[0].Data, "keep")
	if err := os.MkdirAll(first[0].Data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keep, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(first[0].Key, 0o644); err != nil {
		t.Fatal(err)
	}
	second := initT(t, Options{Nodes: 2, Out: out, Force: true})
	if second[0].ID == first[0].ID {
		t.Error("--force kept the old identity")
	}
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("--force deleted a file it does not make: %v", err)
	}
	byID := map[string]Member{string(second[0].ID): second[0], string(second[1].ID): second[1]}
	for _, m := range second {
		checkMember(t, m, second, byID)
	}
}

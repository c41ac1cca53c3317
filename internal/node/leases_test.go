package node

import (
	"context"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/store"
)

// memLeases is an in-memory LeaseStore on a virtual clock, with a fixed
// list of active queues: the keeper's rules without a database (the
// stores' own leases run storetest.RunLeases).
type memLeases struct {
	mu     sync.Mutex
	clk    *clock.Virtual
	leases map[string]store.Lease
	token  int64
	active []string
}

func (m *memLeases) AcquireLeases(_ context.Context, holder string, names []string, ttl time.Duration) ([]store.Lease, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.clk.Now()
	var out []store.Lease
	for _, n := range names {
		l, ok := m.leases[n]
		switch {
		case ok && l.Holder == holder && l.Expires.After(now):
			l.Expires = now.Add(ttl)
		case !ok || !l.Expires.After(now):
			m.token++
			l = store.Lease{Name: n, Holder: holder, Token: m.token, Expires: now.Add(ttl)}
		default:
			continue
		}
		m.leases[n] = l
		out = append(out, l)
	}
	return out, nil
}

func (m *memLeases) RenewLeases(_ context.Context, holder string, ttl time.Duration) ([]store.Lease, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.clk.Now()
	var out []store.Lease
	for n, l := range m.leases {
		if l.Holder == holder && l.Expires.After(now) {
			l.Expires = now.Add(ttl)
			m.leases[n] = l
			out = append(out, l)
		}
	}
	return out, nil
}

func (m *memLeases) ReleaseLeases(_ context.Context, holder string, names []string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for n, l := range m.leases {
		if l.Holder == holder && (names == nil || slices.Contains(names, n)) {
			delete(m.leases, n)
		}
	}
	return nil
}

func (m *memLeases) Leases(_ context.Context, prefix string) ([]store.Lease, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []store.Lease
	for n, l := range m.leases {
		if strings.HasPrefix(n, prefix) && l.Expires.After(m.clk.Now()) {
			out = append(out, l)
		}
	}
	return out, nil
}

func (m *memLeases) ActiveQueues(_ context.Context, after string, limit int) ([]string, error) {
	var out []string
	for _, q := range m.active {
		if q > after && len(out) < limit {
			out = append(out, q)
		}
	}
	return out, nil
}

func (m *memLeases) PendingHooks(context.Context, int64, int) ([]store.Transaction, error) {
	return nil, nil
}

func newMemLeases(queues int) *memLeases {
	m := &memLeases{clk: clock.NewVirtual(clock.Epoch), leases: map[string]store.Lease{}}
	for i := range queues {
		m.active = append(m.active, "q"+string(rune('a'+i/26))+string(rune('a'+i%26)))
	}
	slices.Sort(m.active)
	return m
}

func (m *memLeases) keeper(holder string, senders ...string) *leaseKeeper {
	return newLeaseKeeper(m, holder, 10*time.Second, senders, m.clk, slog.New(slog.DiscardHandler))
}

func cycle(t *testing.T, ks ...*leaseKeeper) {
	t.Helper()
	for _, k := range ks {
		if err := k.cycle(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLeaseKeeperSharesQueues(t *testing.T) {
	m := newMemLeases(10)
	a := m.keeper("a", "s1")
	cycle(t, a)
	if h := a.Held(); len(h.Queues) != 10 || !h.Senders["s1"] {
		t.Fatalf("a alone holds %d queues and senders %v, want 10 and s1", len(h.Queues), h.Senders)
	}
	select {
	case <-a.Changed():
	default:
		t.Fatal("no change signalled")
	}
	b := m.keeper("b", "s1", "s2") // s1 is a's
	cycle(t, b, a, b)
	ha, hb := a.Held(), b.Held()
	if len(ha.Queues)+len(hb.Queues) != 10 || len(hb.Queues) < 4 {
		t.Fatalf("a holds %d, b %d of 10 queues", len(ha.Queues), len(hb.Queues))
	}
	for q := range ha.Queues {
		if hb.Queues[q] {
			t.Fatalf("queue %s held by both", q)
		}
	}
	if hb.Senders["s1"] || !hb.Senders["s2"] {
		t.Fatalf("b's senders %v, want s2 only", hb.Senders)
	}
	if ha.Fence.Holder != "a" || len(ha.Fence.Leases) != len(ha.Queues)+len(ha.Senders) {
		t.Fatalf("a's fence %+v", ha.Fence)
	}
}

// A node that stops renewing loses its leases at their expiry; another
// takes its queues with new tokens, and the stalled one, at its next
// cycle, holds none of them.
func TestLeaseKeeperStalledNodeLosesLeases(t *testing.T) {
	m := newMemLeases(6)
	a, b := m.keeper("a", "s1"), m.keeper("b", "s2")
	cycle(t, a, b, a, b)
	old := a.Held()
	if len(old.Queues) == 0 {
		t.Fatal("a holds no queue")
	}
	for range 4 { // a stalls past its ttl; b goes on
		m.clk.Advance(4 * time.Second)
		cycle(t, b)
	}
	hb := b.Held()
	if len(hb.Queues) != 6 {
		t.Fatalf("b holds %d queues after a's leases expired, want 6", len(hb.Queues))
	}
	for q := range old.Queues {
		if hb.Fence.Leases[store.LeaseQueue+q] == old.Fence.Leases[store.LeaseQueue+q] {
			t.Fatalf("queue %s kept its token across holders", q)
		}
	}
	cycle(t, a) // a wakes up
	if ha := a.Held(); len(ha.Queues) != 0 || !ha.Senders["s1"] {
		t.Fatalf("a after waking holds queues %v, senders %v; want none and s1 again", ha.Queues, ha.Senders)
	}
}

// A node restarted with the same holder id (its data directory's) after
// a kill -9 holds its queues and senders again at once, each with a
// higher token, where another holder waits for their ttl.
func TestLeaseKeeperRestartedHolderTakesItsLeasesBack(t *testing.T) {
	m := newMemLeases(5)
	dead := m.keeper("a", "s1")
	cycle(t, dead)
	before := dead.Held().Fence.Leases
	if len(before) != 6 {
		t.Fatalf("a holds %v, want 5 queues and s1", before)
	}
	m.clk.Advance(time.Second) // well inside the ttl: the dead run's leases are live
	if got, _ := m.AcquireLeases(context.Background(), "b", slices.Collect(maps.Keys(before)), 10*time.Second); len(got) != 0 {
		t.Fatalf("another holder took %v inside the dead run's ttl", got)
	}
	again := m.keeper("a", "s1")
	if err := again.start(context.Background()); err != nil {
		t.Fatal(err)
	}
	after := again.Held().Fence.Leases
	if len(after) != len(before) {
		t.Fatalf("the restarted holder holds %v at once, want %v", after, before)
	}
	for name, tok := range before {
		if after[name] <= tok {
			t.Fatalf("%s: token %d after the restart, %d before: want it higher (the dead run's writes fenced)", name, after[name], tok)
		}
	}
	select {
	case <-again.Changed():
		t.Fatal("the first leases signalled a change: the sequencer would start over as it loads")
	default:
	}
}

func TestDataHolderPersists(t *testing.T) {
	t.Parallel()
	dir, other := t.TempDir(), t.TempDir()
	a, err := dataHolder(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := dataHolder(dir)
	if err != nil || b != a {
		t.Fatalf("second start: holder %q (%v), first %q", b, err, a)
	}
	c, err := dataHolder(other)
	if err != nil || c == a {
		t.Fatalf("another data directory: holder %q (%v), want one other than %q", c, err, a)
	}
	if err := os.WriteFile(filepath.Join(other, holderFile), []byte("two words\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := dataHolder(other); err == nil {
		t.Fatal("a malformed holder file was taken")
	}
}

// A stopping node (draining) renews what it holds and takes no new queue.
func TestLeaseKeeperDrainingTakesNoNewQueue(t *testing.T) {
	m := newMemLeases(4)
	a := m.keeper("a", "s1")
	cycle(t, a)
	held := a.Held().Queues
	if len(held) != 4 {
		t.Fatalf("a holds %d queues, want 4", len(held))
	}
	a.draining.Store(true)
	m.active = append(m.active, "qzz") // new work
	m.clk.Advance(time.Second)
	cycle(t, a)
	h := a.Held()
	if h.Queues["qzz"] || len(h.Queues) != 4 || !h.Senders["s1"] {
		t.Fatalf("a draining holds queues %v and senders %v; want its 4 queues and s1, not qzz", h.Queues, h.Senders)
	}
}

package store

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"
	"unicode/utf8"
)

// Leases let several nodes share one database (issue 13): each queue is
// processed, and each sender used, by the one node holding its lease. A
// lease has an expiry on the store's clock (not the holder's), is renewed
// by its holder, and carries a fencing token that rises whenever the lease
// passes to another holder or is taken again after it expired; every
// write the holder makes for a leased queue or sender names the tokens it
// holds (Batch.Fence), and the store refuses it once one of them is no
// longer current (ErrFenced): a node that stalled past its expiry cannot
// write when it wakes up.

// Lease names: a queue's, a sender's and a node's (its heartbeat: the live
// nodes are the holders of unexpired node leases).
const (
	LeaseQueue  = "queue/"
	LeaseSender = "sender/"
	LeaseNode   = "node/"
)

// Lease is one named lease.
type Lease struct {
	Name   string `json:"name"`
	Holder string `json:"holder"`
	// Token is the fencing token: it rises each time the lease is taken by
	// another holder, or by any holder after it expired.
	Token int64 `json:"token"`
	// Expires is when the lease ends unless renewed, on the store's clock.
	Expires time.Time `json:"expires"`
}

// Fence names the leases a write needs: Holder must hold each of Leases
// (name → token), unexpired, with that token, when the write commits.
type Fence struct {
	Holder string
	Leases map[string]int64
}

// Names returns the names of the leases f needs, sorted.
func (f *Fence) Names() []string {
	return slices.Sorted(maps.Keys(f.Leases))
}

// FenceCheck compares the leases a store holds with a Fence, for the
// stores' check of a fenced write: Check each lease read of f's names, then
// Stale says what makes the write stale, if anything.
type FenceCheck struct {
	f     *Fence
	found int
	bad   string
}

// Check returns a FenceCheck of f.
func (f *Fence) Check() *FenceCheck { return &FenceCheck{f: f} }

// Lease takes one lease read, live when it has not expired on the store's
// clock.
func (c *FenceCheck) Lease(l Lease, live bool) {
	c.found++
	want := c.f.Leases[l.Name]
	if c.bad == "" && (l.Holder != c.f.Holder || l.Token != want || !live) {
		c.bad = fmt.Sprintf("%s: held by %q with token %d (live %t), want %q with %d", l.Name, l.Holder, l.Token, live, c.f.Holder, want)
	}
}

// Stale returns "" when every lease of the fence was read, is the holder's
// with its token and is live; else it says what is not (the first lease
// that differs, or how many were never taken).
func (c *FenceCheck) Stale() string {
	if c.bad == "" && c.found < len(c.f.Leases) {
		return fmt.Sprintf("%d of %d leases never taken", len(c.f.Leases)-c.found, len(c.f.Leases))
	}
	return c.bad
}

// ErrFenced is a write refused because a lease its Fence names is no
// longer the writer's (expired, taken by another holder, or taken again
// with a new token). Nothing of the write is applied.
var ErrFenced = errors.New("store: fenced: a lease this write needs is no longer the writer's")

// LeaseStore keeps the leases of the nodes sharing a database.
type LeaseStore interface {
	// AcquireLeases takes, for holder, each of names that is free,
	// expired, or holder's already (then only renewed), until ttl from
	// now on the store's clock; it returns the leases holder holds among
	// names after the call, in name order. A lease taken from another
	// holder's expiry, or taken anew after holder's own expired, gets a
	// new token; a renewal keeps it.
	AcquireLeases(ctx context.Context, holder string, names []string, ttl time.Duration) ([]Lease, error)
	// RenewLeases extends every unexpired lease of holder to ttl from now
	// and returns them, in name order: a lease that expired or was taken
	// is not among them (lost).
	RenewLeases(ctx context.Context, holder string, ttl time.Duration) ([]Lease, error)
	// ReleaseLeases ends holder's leases among names (every lease of
	// holder when names is nil); another holder's are left alone.
	ReleaseLeases(ctx context.Context, holder string, names []string) error
	// Leases returns the unexpired leases whose name starts with prefix,
	// in name order.
	Leases(ctx context.Context, prefix string) ([]Lease, error)
	// ActiveQueues returns the names of the queues that hold a
	// transaction neither DONE nor FAILED (the work a node may lease),
	// in name order, after the name after, at most limit (default 1000).
	ActiveQueues(ctx context.Context, after string, limit int) ([]string, error)
}

// EnqueueWatcher reports intake committed by any node sharing the store
// (PostgreSQL: LISTEN/NOTIFY), so that the node holding a queue's lease
// learns of intents another node took in.
type EnqueueWatcher interface {
	// WatchEnqueued calls fn with the queue of each Enqueue that created
	// transactions, from any process, until ctx ends (it returns ctx's
	// error) or the watch fails. Notifications may be coalesced or come
	// late; fn must not block.
	WatchEnqueued(ctx context.Context, fn func(queue string)) error
}

// LeaseNames is names sorted, without duplicates or empty names: what a
// LeaseStore acquires or releases.
func LeaseNames(names []string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		if n != "" {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// CheckLease checks a LeaseStore call's holder and ttl.
func CheckLease(holder string, ttl time.Duration) error {
	if holder == "" {
		return errors.New("lease: empty holder")
	}
	if ttl <= 0 {
		return fmt.Errorf("lease: ttl %v, want > 0", ttl)
	}
	return nil
}

// LeasePrefixEnd is the least string above every string starting with
// prefix, or nil when there is none or it is not valid text (a store's
// query then filters by prefix alone).
func LeasePrefixEnd(prefix string) *string {
	b := []byte(prefix)
	for len(b) > 0 && b[len(b)-1] == 0xff {
		b = b[:len(b)-1]
	}
	if len(b) == 0 {
		return nil
	}
	b[len(b)-1]++
	if !utf8.Valid(b) {
		return nil
	}
	end := string(b)
	return &end
}

package storetest

import (
	"io"
	"sync"
	"testing"
)

// The plumbing the three suites (Run, RunProcessor, RunLeader) share:
// running their subtests, and opening a store with an idempotent close
// that runs at the latest when the test ends.

// subtest is one named test of a suite.
type subtest struct {
	name string
	f    func(t *testing.T)
}

// runParallel runs the tests as parallel subtests of t.
func runParallel(t *testing.T, tests []subtest) {
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.f(t)
		})
	}
}

// closeOnce closes an opened store at most once and keeps what that gave.
type closeOnce struct {
	once sync.Once
	err  error
}

// closeStore closes st if it is an io.Closer (only the first time).
func (c *closeOnce) closeStore(st any) error {
	c.once.Do(func() {
		if cl, ok := st.(io.Closer); ok {
			c.err = cl.Close()
		}
	})
	return c.err
}

// opener opens the stores S of a suite in handles H.
type opener[S any, H interface{ close() error }] struct {
	open func(t *testing.T, dir string) S
	wrap func(S) H
}

// openAt opens the store in dir and closes it when the test ends.
func (o opener[S, H]) openAt(t *testing.T, dir string) H {
	t.Helper()
	st := o.open(t, dir)
	if any(st) == nil {
		t.Fatalf("open(%s) returned nil", dir)
	}
	h := o.wrap(st)
	t.Cleanup(func() {
		if err := h.close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return h
}

// fresh opens a store in a new directory.
func (o opener[S, H]) fresh(t *testing.T) H {
	t.Helper()
	return o.openAt(t, t.TempDir())
}

package engine

import (
	"context"
	"sync"
)

// Slot holds an engine node's current Loop (L, a pointer: nil is none).
// Open builds one (one at a time, and without holding the lock Current
// takes, so that a caller that only needs the current Loop, such as the
// sequencer's finish hook, never waits on the store); Forget drops the Loop
// of a Run that returned, so that the next Open builds one from the store;
// Started is closed at the first MarkStarted, however many runs follow.
type Slot[L comparable] struct {
	mu      sync.Mutex // guards cur; never held across I/O
	openMu  sync.Mutex // serializes Open
	cur     L
	started chan struct{}
	once    sync.Once
}

// NewSlot returns an empty Slot.
func NewSlot[L comparable]() *Slot[L] { return &Slot[L]{started: make(chan struct{})} }

// Open returns the current Loop, or one build makes (then current).
func (s *Slot[L]) Open(ctx context.Context, build func(context.Context) (L, error)) (L, error) {
	s.openMu.Lock()
	defer s.openMu.Unlock()
	var zero L
	if l := s.Current(); l != zero {
		return l, nil
	}
	l, err := build(ctx)
	if err != nil {
		return zero, err
	}
	s.mu.Lock()
	s.cur = l
	s.mu.Unlock()
	return l, nil
}

// Current is the current Loop, the zero L when there is none.
func (s *Slot[L]) Current() L {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur
}

// Forget drops l if it is the current Loop.
func (s *Slot[L]) Forget(l L) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur == l {
		var zero L
		s.cur = zero
	}
}

// MarkStarted closes Started (once).
func (s *Slot[L]) MarkStarted() { s.once.Do(func() { close(s.started) }) }

// Started is closed once a run has begun.
func (s *Slot[L]) Started() <-chan struct{} { return s.started }

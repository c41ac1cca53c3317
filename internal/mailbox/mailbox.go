package mailbox

import "sync"

// Mailbox is an unbounded queue with a wake-up signal: workers never block
// handing results to a loop, so the loop and its workers cannot deadlock.
// It is safe for concurrent use.
type Mailbox[T any] struct {
	mu     sync.Mutex
	items  []T
	signal chan struct{}
}

// New returns an empty mailbox.
func New[T any]() *Mailbox[T] { return &Mailbox[T]{signal: make(chan struct{}, 1)} }

// Put appends x and wakes the reader.
func (m *Mailbox[T]) Put(x T) {
	m.mu.Lock()
	m.items = append(m.items, x)
	m.mu.Unlock()
	select {
	case m.signal <- struct{}{}:
	default:
	}
}

// Take returns everything queued, oldest first, and empties the mailbox.
func (m *Mailbox[T]) Take() []T {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := m.items
	m.items = nil
	return out
}

// Len is the number of items queued.
func (m *Mailbox[T]) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.items)
}

// Signal receives a value after a Put; one value may stand for several
// Puts, so a reader takes everything on each wake-up.
func (m *Mailbox[T]) Signal() <-chan struct{} { return m.signal }

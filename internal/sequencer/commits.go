package sequencer

import "sync"

// commitSignal wakes the readers of the change feed at each of the loop's
// commits that wrote history: a channel closed and replaced per commit
// (made only when someone waits), not a goroutine or a message per reader.
type commitSignal struct {
	mu sync.Mutex
	ch chan struct{}
}

// wait returns a channel closed at the next commit.
func (s *commitSignal) wait() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ch == nil {
		s.ch = make(chan struct{})
	}
	return s.ch
}

// fire closes the current channel, if anyone waits on it.
func (s *commitSignal) fire() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ch != nil {
		close(s.ch)
		s.ch = nil
	}
}

// Committed returns a channel closed when the node's loop next commits a
// batch with history (a state transition): the change feed's readers wait
// on it, and on a poll for the changes other nodes write.
func (n *Node) Committed() <-chan struct{} { return n.commits.wait() }

package sequencer

// The driver's sizes: what it holds in memory at a start and ahead of its
// workers.

// effectBuffer is how many effects the loop hands its workers ahead of
// them: past it, the loop's turn waits for a worker. An Effect is about
// 420 bytes and the buffer is allocated whole, so 4,096 (1.7 MB) rather
// than the 65,536 (27.5 MB) it was: a restart that dispatches 100,000
// queues at once waits on its workers either way.
const effectBuffer = 1 << 12

// The node's default WaitingWindow at a start over many queues (see
// Config.WaitingWindow).
const (
	// WaitingBudget is how many WAITING transactions a start's windows hold
	// in all, at most, once every queue has loaded its window (above
	// MinWaitingWindow a queue).
	WaitingBudget = 1 << 18
	// MinWaitingWindow is the least window a start gives each queue.
	MinWaitingWindow = 2
)

// waitingWindow is the core's WaitingWindow for a start with queues queues
// holding WAITING transactions: 0 (the core's default) unless the budget
// calls for fewer.
func (n *Node) waitingWindow(queues int) int {
	if n.cfg.WaitingWindow > 0 {
		return n.cfg.WaitingWindow
	}
	if len(n.cfg.Pipelines) > 0 || queues == 0 {
		return 0 // a pipelined queue's depth is bounded by its window
	}
	if w := max(WaitingBudget/queues, MinWaitingWindow); w < DefaultWaitingWindow {
		return w
	}
	return 0
}

package smm

import "time"

//go:generate go tool stringer -type=health,role,Lane,EffectKind -output=core_state_string.go

// health is what the core knows of another node's answers.
type health uint8

const (
	// healthUnknown: never asked.
	healthUnknown health = iota
	// healthy: its latest answer came after any request it left
	// unanswered.
	healthy
	// unhealthy: a request to it went unanswered (since peer.since) and
	// it answered none sent later.
	unhealthy
)

// peer is the core's record of another node.
type peer struct {
	state health
	// since is when the request it first left unanswered was sent
	// (unhealthy only).
	since time.Time
	// answered is when the latest request it answered was sent: an older
	// request's timeout says nothing of it.
	answered time.Time
	// probed is when monitoring last queued a probe-node for it.
	probed time.Time
}

// becomeHealthy: node answered a request sent at asked.
func (p *peer) becomeHealthy(asked time.Time) {
	p.state, p.since = healthy, time.Time{}
	if asked.After(p.answered) {
		p.answered = asked
	}
}

// becomeUnhealthy: node left a request sent at asked unanswered; it
// reports whether that is news (a loss).
func (p *peer) becomeUnhealthy(asked time.Time) bool {
	if p.answered.After(asked) || p.state == unhealthy {
		return false // it answered a later request, or is known lost
	}
	p.state, p.since = unhealthy, asked
	return true
}

// Lane is the job queue an effect's job goes to (seed 004's four queues).
type Lane uint8

// Lanes.
const (
	// LaneMonitoring runs one job at a time: monitor-state, the find
	// jobs of a slice, refresh-mapping.
	LaneMonitoring Lane = iota + 1
	// LaneRecurringSync runs issue-recurring-sync-request.
	LaneRecurringSync
	// LaneManualSync runs manual-sync and probe-node.
	LaneManualSync
	// LaneReplicaSetUpdate runs issue-replica-set-update and a loss's
	// find-replica-set-updates, one at a time.
	LaneReplicaSetUpdate
)

// EffectKind names what an Effect asks of the driver.
type EffectKind uint8

// Effects.
const (
	// EffectLost: Node is found unhealthy: every request waiting on it
	// ends now (a forward answers ErrUnavailable at once).
	EffectLost EffectKind = iota + 1
	// EffectInsert: insert Job in the job queue.
	EffectInsert
	// EffectGate: close (Closed) or open Queue's dispatch in this node's
	// sequencer: closed when this node is deposed, opened once adopted.
	EffectGate
	// EffectAcked: a secondary's acknowledgement of Queue arrived; intake
	// waiting for acknowledgements looks again.
	EffectAcked
)

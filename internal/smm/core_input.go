package smm

import (
	"fmt"
	"time"
)

// InputKind names what an Input tells the core.
type InputKind uint8

// The core's inputs. Each names the fields of Input it reads.
const (
	// InputAnswered: a request to Node sent at Asked was answered (OK) or
	// not (an error or its timeout).
	InputAnswered InputKind = iota + 1
	// InputMonitored: monitor-state gathered the slice starting at Offset
	// (States, as each member answered); Next is the next slice's offset
	// and Registered the registry's node ids now.
	InputMonitored
	// InputLossNotQueued: the job of the loss of Node since Since could
	// not be inserted; the next monitor-state queues it again.
	InputLossNotQueued
	// InputMapped: the node registry was read (at At).
	InputMapped
	// InputSyncFailed: a sync of Secondary for Queue failed.
	InputSyncFailed
	// InputFindSyncs: find-sync-requests over Queues, as monitoring last
	// saw them (Reply.Syncs).
	InputFindSyncs
	// InputPlan: the updates States need that this node signs
	// (Reply.Plans); Pool is every registered node with its load, Slice
	// whether a monitoring slice asks (it leaves queues to a loss's job).
	InputPlan
	// InputLossDue: the job of the loss of Node since Since runs
	// (Reply.Proceed, Reply.Replaceable).
	InputLossDue
	// InputLossDone: that job queued every update it found.
	InputLossDone
	// InputSetHeld: the driver is about to hold Set for its queue over
	// Old (zero: none held); Reply.Promoted when it makes this node the
	// primary.
	InputSetHeld
	// InputAdopted: Queue, which this node is primary of, is adopted.
	InputAdopted
	// InputAcked: Secondary holds Queue's log up to Clock.
	InputAcked
	// InputAsked: Node asks Request of Queue under Version (Refreshed: the
	// driver read the set from the chain since it last asked): admitted
	// or refused (Reply.Refused), or Reply.Refresh.
	InputAsked
)

var inputNames = [...]string{"", "answered", "monitored", "loss-not-queued", "mapped", "sync-failed", "find-syncs", "plan", "loss-due", "loss-done", "set-held", "adopted", "acked", "asked"}

// String names the kind as the scenario scripts do.
func (k InputKind) String() string {
	if int(k) < len(inputNames) && k != 0 {
		return inputNames[k]
	}
	return fmt.Sprintf("InputKind(%d)", k)
}

// Input is one step of the core: plain, JSON-tagged data, stamped with the
// driver's clock (At) when it is stepped.
type Input struct {
	Kind InputKind `json:"kind"`
	At   time.Time `json:"at"`

	Node  string    `json:"node,omitempty"`
	Asked time.Time `json:"asked,omitzero"`
	OK    bool      `json:"ok,omitempty"`
	Since time.Time `json:"since,omitzero"`

	Queue      string       `json:"queue,omitempty"`
	Secondary  string       `json:"secondary,omitempty"`
	Queues     []string     `json:"queues,omitempty"`
	States     []QueueState `json:"states,omitempty"`
	Pool       []Candidate  `json:"pool,omitempty"`
	Slice      bool         `json:"slice,omitempty"`
	Offset     int          `json:"offset,omitempty"`
	Next       int          `json:"next,omitempty"`
	Registered []string     `json:"registered,omitempty"`
	Old        ReplicaSet   `json:"old,omitzero"`
	Set        ReplicaSet   `json:"set,omitzero"`
	Clock      uint64       `json:"clock,omitempty"`
	Request    Request      `json:"request,omitempty"`
	Version    uint64       `json:"version,omitempty"`
	Refreshed  bool         `json:"refreshed,omitempty"`
}

// Answered is InputAnswered.
func Answered(node string, asked time.Time, ok bool) Input {
	return Input{Kind: InputAnswered, Node: node, Asked: asked, OK: ok}
}

// Monitored is InputMonitored.
func Monitored(offset, next int, states []QueueState, registered []string) Input {
	return Input{Kind: InputMonitored, Offset: offset, Next: next, States: states, Registered: registered}
}

// LossNotQueued is InputLossNotQueued.
func LossNotQueued(node string, since time.Time) Input {
	return Input{Kind: InputLossNotQueued, Node: node, Since: since}
}

// Mapped is InputMapped.
func Mapped() Input { return Input{Kind: InputMapped} }

// SyncFailed is InputSyncFailed.
func SyncFailed(queue, secondary string) Input {
	return Input{Kind: InputSyncFailed, Queue: queue, Secondary: secondary}
}

// FindSyncs is InputFindSyncs.
func FindSyncs(queues []string) Input { return Input{Kind: InputFindSyncs, Queues: queues} }

// Plan is InputPlan.
func Plan(states []QueueState, pool []Candidate, slice bool) Input {
	return Input{Kind: InputPlan, States: states, Pool: pool, Slice: slice}
}

// LossDue is InputLossDue.
func LossDue(node string, since time.Time) Input {
	return Input{Kind: InputLossDue, Node: node, Since: since}
}

// LossDone is InputLossDone.
func LossDone(node string, since time.Time) Input {
	return Input{Kind: InputLossDone, Node: node, Since: since}
}

// SetHeld is InputSetHeld.
func SetHeld(old, set ReplicaSet) Input { return Input{Kind: InputSetHeld, Old: old, Set: set} }

// Adopted is InputAdopted.
func Adopted(queue string) Input { return Input{Kind: InputAdopted, Queue: queue} }

// Acked is InputAcked.
func Acked(queue, secondary string, clock uint64) Input {
	return Input{Kind: InputAcked, Queue: queue, Secondary: secondary, Clock: clock}
}

// Asked is InputAsked.
func Asked(r Request, from, queue string, version uint64) Input {
	return Input{Kind: InputAsked, Request: r, Node: from, Queue: queue, Version: version}
}

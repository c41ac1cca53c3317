package sim

import "math/rand/v2"

// SMMKind names what a step of a state-machine-manager simulation does.
type SMMKind string

// The actions of a state-machine-manager simulation. Node and queue
// indexes are taken modulo the world's, so an action list runs on any.
const (
	// SIntake hands node Node an intent of queue Queue (smm's Submit: to
	// the primary the set it holds names, once more after NOT_PRIMARY;
	// a new queue's set made with Node its primary).
	SIntake SMMKind = "intake"
	// SAdvance moves the virtual clock by DtMs milliseconds: jobs fall
	// due, waits for acknowledgements and syncs time out.
	SAdvance SMMKind = "advance"
	// SDispatch has every node that holds itself the primary of queue
	// Queue, its dispatch open, send its oldest WAITING intent of it to
	// the chain.
	SDispatch SMMKind = "dispatch"
	// SMonitor runs every job due at node Node (monitor-state, the find
	// jobs, syncs, replica-set updates, probes, the mapping's refresh).
	SMonitor SMMKind = "monitor"
	// SPull runs the first job due at node Node (by due time, then kind,
	// unique key and arguments). Queue is not used.
	SPull SMMKind = "pull"
	// SNet sets the probability Drop that a request fails at once (a
	// link down). Dup, Delay and Reorder are drawn, kept in traces and
	// not used: links serve requests inline.
	SNet SMMKind = "net"
	// SPartition splits the nodes: those whose bit is set in Mask on one
	// side, the rest on the other. The chain is reachable from both.
	SPartition SMMKind = "partition"
	// SHeal ends a partition.
	SHeal SMMKind = "heal"
	// SCrash crashes node Node: its memory is lost, its disk kept; it is
	// down until a restart.
	SCrash SMMKind = "crash"
	// SWipe crashes node Node and loses its disk (its store).
	SWipe SMMKind = "wipe"
	// SRestart restarts node Node if it is down.
	SRestart SMMKind = "restart"
)

// SMMAction is one step of a state-machine-manager simulation. Its String
// form is the kind and the JSON of its fields, which ParseSMMAction reads
// back.
type SMMAction struct {
	Kind    SMMKind `json:"-"`
	Node    int     `json:"node,omitempty"`
	Queue   int     `json:"queue,omitempty"`
	DtMs    int     `json:"dtMs,omitempty"`
	Drop    float64 `json:"drop,omitempty"`
	Dup     float64 `json:"dup,omitempty"`
	Delay   float64 `json:"delay,omitempty"`
	Reorder bool    `json:"reorder,omitempty"`
	Mask    int     `json:"mask,omitempty"`
}

// String renders the action as a trace line.
func (a SMMAction) String() string { return actionString(string(a.Kind), a) }

// ParseSMMAction reads an action back from its String form (a line of a
// printed failing trace, with or without its leading number).
func ParseSMMAction(line string) (SMMAction, error) {
	var a SMMAction
	kind, bad, err := parseAction(line, "smm", &a)
	if err != nil {
		return SMMAction{}, err
	}
	a.Kind = SMMKind(kind)
	switch a.Kind {
	case SIntake, SAdvance, SDispatch, SMonitor, SPull, SNet, SPartition, SHeal, SCrash, SWipe, SRestart:
		return a, nil
	}
	return SMMAction{}, bad
}

// genSMMActions draws steps actions from seed alone.
func genSMMActions(seed uint64, steps, nodes, queues int) []SMMAction {
	r := rand.New(rand.NewPCG(seed, 0x736d6d))
	out := make([]SMMAction, 0, steps)
	probs := []float64{0, 0, 0.05, 0.2}
	for len(out) < steps {
		var a SMMAction
		switch x := r.IntN(100); {
		case x < 25:
			a = SMMAction{Kind: SIntake, Node: r.IntN(nodes), Queue: r.IntN(queues)}
		case x < 52:
			a = SMMAction{Kind: SAdvance, DtMs: 50 + r.IntN(2000)}
		case x < 63:
			a = SMMAction{Kind: SDispatch, Queue: r.IntN(queues)}
		case x < 78:
			a = SMMAction{Kind: SMonitor, Node: r.IntN(nodes)}
		case x < 85:
			a = SMMAction{Kind: SPull, Node: r.IntN(nodes), Queue: r.IntN(queues)}
		case x < 88:
			a = SMMAction{Kind: SNet, Drop: probs[r.IntN(4)], Dup: probs[r.IntN(4)], Delay: probs[r.IntN(4)], Reorder: r.IntN(2) == 0}
		case x < 90 && nodes > 1:
			a = SMMAction{Kind: SPartition, Mask: 1 + r.IntN(1<<min(nodes, 16)-2)}
		case x < 93:
			a = SMMAction{Kind: SHeal}
		case x < 95:
			a = SMMAction{Kind: SCrash, Node: r.IntN(nodes)}
		case x < 96:
			a = SMMAction{Kind: SWipe, Node: r.IntN(nodes)}
		default:
			a = SMMAction{Kind: SRestart, Node: r.IntN(nodes)}
		}
		out = append(out, a)
	}
	return out
}

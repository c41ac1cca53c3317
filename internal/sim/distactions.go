package sim

import "math/rand/v2"

// DistKind names what a step of a distributed-sequencer simulation does.
type DistKind string

// The actions of a distributed-sequencer simulation. Node indexes are taken
// modulo the committee size, so an action list runs on any cluster.
const (
	// DSubmit hands node Node an intent of Amount from its owner
	// (cluster.Owner) to the next node's, on active contract Group; Key > 0 gives it the idempotency key "k<Key>" (a
	// key used before answers with its first transaction). A down node
	// answers nothing: the intent is not acknowledged.
	DSubmit DistKind = "submit"
	// DAdvance runs the cluster for DtMs milliseconds of virtual time.
	DAdvance DistKind = "advance"
	// DNet sets the network's faults: Drop, Dup and Delay probabilities
	// (delays of up to 3s) and Reorder.
	DNet DistKind = "net"
	// DPartition splits the committee: the nodes whose bit is set in Mask
	// on one side, the rest on the other.
	DPartition DistKind = "partition"
	// DHeal ends a partition.
	DHeal DistKind = "heal"
	// DCrash crashes node Node now.
	DCrash DistKind = "crash"
	// DArm crashes node Node at the Skip+1-th of its next steps that
	// commits something: before the commit (the batch lost: 1S, 1C) or,
	// with After, after it (kept, nothing sent: 2S, 2C).
	DArm DistKind = "arm"
	// DRestart restarts node Node from its store if it is down.
	DRestart DistKind = "restart"
	// DLag keeps node Node's indexer K blocks behind the final head.
	DLag DistKind = "lag"
	// DHold freezes (On) or releases node Node's indexer.
	DHold DistKind = "hold"
	// DReorg replaces the chain's last K blocks (K at most the finality
	// depth: no final block moves).
	DReorg DistKind = "reorg"
	// DChain sets the chain's drop and revert probabilities.
	DChain DistKind = "chain"
)

// DistAction is one step of a distributed-sequencer simulation. Its String
// form is the kind and the JSON of its fields, which ParseDistAction reads
// back.
type DistAction struct {
	Kind    DistKind `json:"-"`
	Node    int      `json:"node,omitempty"`
	Group   int      `json:"group,omitempty"`
	Amount  uint64   `json:"amount,omitempty"`
	Key     int      `json:"key,omitempty"`
	DtMs    int      `json:"dtMs,omitempty"`
	Drop    float64  `json:"drop,omitempty"`
	Dup     float64  `json:"dup,omitempty"`
	Delay   float64  `json:"delay,omitempty"`
	Reorder bool     `json:"reorder,omitempty"`
	Mask    int      `json:"mask,omitempty"`
	After   bool     `json:"after,omitempty"`
	Skip    int      `json:"skip,omitempty"`
	K       uint64   `json:"k,omitempty"`
	On      bool     `json:"on,omitempty"`
	Revert  float64  `json:"revert,omitempty"`
	// Prepare makes a submit ptx_prepareTransaction: the simulation's
	// external caller sends the prepared transaction itself.
	Prepare bool `json:"prepare,omitempty"`
}

// String renders the action as a trace line.
func (a DistAction) String() string { return actionString(string(a.Kind), a) }

// ParseDistAction reads an action back from its String form (a line of a
// printed failing trace, with or without its leading number).
func ParseDistAction(line string) (DistAction, error) {
	var a DistAction
	kind, bad, err := parseAction(line, "distseq", &a)
	if err != nil {
		return DistAction{}, err
	}
	a.Kind = DistKind(kind)
	switch a.Kind {
	case DSubmit, DAdvance, DNet, DPartition, DHeal, DCrash, DArm, DRestart, DLag, DHold, DReorg, DChain:
		return a, nil
	}
	return DistAction{}, bad
}

// genDistActions draws steps actions from seed alone, for a committee of
// nodes members, active contracts receiving intents and a chain of the
// given finality depth.
func genDistActions(seed uint64, steps, nodes, active int, finality uint64) []DistAction {
	r := rand.New(rand.NewPCG(seed, 0x64697374))
	out := make([]DistAction, 0, steps)
	probs := []float64{0, 0, 0.05, 0.2}
	for len(out) < steps {
		var a DistAction
		switch x := r.IntN(100); {
		case x < 30:
			a = DistAction{Kind: DSubmit, Node: r.IntN(nodes), Group: r.IntN(active), Amount: 1 + r.Uint64N(1500)}
			if r.IntN(4) == 0 {
				a.Key = 1 + r.IntN(40)
			}
			a.Prepare = r.IntN(8) == 0
		case x < 72:
			a = DistAction{Kind: DAdvance, DtMs: 50 + r.IntN(2000)}
		case x < 76:
			a = DistAction{Kind: DNet, Drop: probs[r.IntN(4)], Dup: probs[r.IntN(4)], Delay: probs[r.IntN(4)], Reorder: r.IntN(2) == 0}
		case x < 79 && nodes > 1:
			a = DistAction{Kind: DPartition, Mask: 1 + r.IntN(1<<min(nodes, 16)-2)}
		case x < 83:
			a = DistAction{Kind: DHeal}
		case x < 85:
			a = DistAction{Kind: DCrash, Node: r.IntN(nodes)}
		case x < 87:
			a = DistAction{Kind: DArm, Node: r.IntN(nodes), After: r.IntN(2) == 0, Skip: r.IntN(4)}
		case x < 92:
			a = DistAction{Kind: DRestart, Node: r.IntN(nodes)}
		case x < 94:
			a = DistAction{Kind: DLag, Node: r.IntN(nodes), K: r.Uint64N(6)}
		case x < 96:
			a = DistAction{Kind: DHold, Node: r.IntN(nodes), On: r.IntN(2) == 0}
		case x < 98:
			a = DistAction{Kind: DReorg, K: 1 + r.Uint64N(finality)}
		default:
			a = DistAction{Kind: DChain, Drop: probs[r.IntN(4)], Revert: probs[r.IntN(4)] / 2}
		}
		out = append(out, a)
	}
	return out
}

package sim

import (
	"math/rand/v2"
)

// LeadKind names what a step of a leader simulation does.
type LeadKind string

// The actions of a leader simulation.
const (
	// LRequest sends N workflow requests for tool Tool (Tool ≥ the run's
	// tools: a tool never registered); Bad: their inputs break the tool's
	// input schema.
	LRequest LeadKind = "request"
	// LRegister registers tool Tool again: a new URL and output schema (the
	// leader's cached definition must go).
	LRegister LeadKind = "register"
	// LAdvance moves the virtual clock by DtMs milliseconds; the chain makes
	// the blocks that fall due.
	LAdvance LeadKind = "advance"
	// LReorg replaces the chain's last K blocks (within its finality
	// depth).
	LReorg LeadKind = "reorg"
	// LCompete makes the competing leader submit a result for the Index-th
	// (modulo) walk requested so far.
	LCompete LeadKind = "compete"
	// LFault sets the chain's revert (Method 0) or reject (1) probability
	// to Prob (the drain clears them), stalls its blocks for K seconds (2),
	// or multiplies its minimum fee by K for three blocks (3).
	LFault LeadKind = "fault"
	// LCrash drops both engines' memory and rebuilds them from the store.
	// Cut ≥ 0 first makes the leader's loop commit a turn (after the next
	// block when Block, else after the retrier's period) and performs only
	// its first Cut effects (their answers lost) before the crash.
	LCrash LeadKind = "crash"
)

// LeadAction is one step of a leader simulation. Its String form is the
// kind and the JSON of its fields, which ParseLeadAction reads back.
type LeadAction struct {
	Kind   LeadKind `json:"-"`
	Tool   int      `json:"tool,omitempty"`
	N      int      `json:"n,omitempty"`
	Bad    bool     `json:"bad,omitempty"`
	DtMs   int      `json:"dtMs,omitempty"`
	K      uint64   `json:"k,omitempty"`
	Index  int      `json:"index,omitempty"`
	Method int      `json:"method,omitempty"`
	Prob   float64  `json:"prob,omitempty"`
	Cut    int      `json:"cut,omitempty"`
	Block  bool     `json:"block,omitempty"`
}

// String renders the action as a trace line.
func (a LeadAction) String() string { return actionString(string(a.Kind), a) }

// ParseLeadAction reads an action back from its String form (a line of a
// printed failing trace, with or without its leading number).
func ParseLeadAction(line string) (LeadAction, error) {
	var a LeadAction
	kind, bad, err := parseAction(line, "leader", &a)
	if err != nil {
		return LeadAction{}, err
	}
	a.Kind = LeadKind(kind)
	switch a.Kind {
	case LRequest, LRegister, LAdvance, LReorg, LCompete, LFault, LCrash:
		return a, nil
	}
	return LeadAction{}, bad
}

// genLeadActions draws steps actions from seed alone, for a run of tools
// tools.
func genLeadActions(seed uint64, steps, tools int) []LeadAction {
	r := rand.New(rand.NewPCG(seed, 0x6c656164))
	out := make([]LeadAction, 0, steps)
	for len(out) < steps {
		var a LeadAction
		switch x := r.IntN(100); {
		case x < 22:
			a = LeadAction{Kind: LRequest, Tool: r.IntN(tools), N: 1 + r.IntN(3), Bad: r.IntN(12) == 0}
			if r.IntN(25) == 0 {
				a.Tool = tools // never registered
			}
		case x < 25:
			a = LeadAction{Kind: LRegister, Tool: r.IntN(tools)}
		case x < 80:
			a = LeadAction{Kind: LAdvance, DtMs: 100 + r.IntN(2500)}
		case x < 84:
			a = LeadAction{Kind: LReorg, K: 1 + r.Uint64N(leadFinality)}
		case x < 88:
			a = LeadAction{Kind: LCompete, Index: r.IntN(1000)}
		case x < 92:
			a = LeadAction{Kind: LFault, Method: r.IntN(4)}
			switch a.Method {
			case 0, 1:
				a.Prob = []float64{0, 0, 0.1, 0.3}[r.IntN(4)]
			case 2:
				a.K = uint64(1 + r.IntN(8))
			default:
				a.K = uint64(2 + r.IntN(3))
			}
		default:
			a = LeadAction{Kind: LCrash, Cut: -1}
			if r.IntN(2) == 0 {
				a.Cut, a.Block = r.IntN(3), r.IntN(2) == 0
			}
		}
		out = append(out, a)
	}
	return out
}

package sim

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// ActionKind names what a simulation step does.
type ActionKind uint8

// The actions of a sequencer simulation.
const (
	// ActSubmit submits N intents to queue Queue.
	ActSubmit ActionKind = iota + 1
	// ActAdvance moves the virtual clock by Dt; the chain makes the blocks
	// that fall due, and the node sees each.
	ActAdvance
	// ActFault changes one of the chain's fault knobs (Fault, with P or K).
	ActFault
	// ActCrash drops the node's memory and restarts it from its store.
	ActCrash
)

// FaultKind names a chain fault an ActFault sets.
type FaultKind uint8

// The chain faults a simulation draws.
const (
	FaultReject   FaultKind = iota + 1 // submits rejected with probability P
	FaultDrop                          // accepted transactions silently dropped with probability P
	FaultRevert                        // included transactions fail with probability P
	FaultFeeSpike                      // the minimum fee ×K for 3 blocks
	FaultStall                         // no blocks for K seconds
	FaultReorg                         // the last K blocks replaced now
	FaultClear                         // every probability back to 0
)

var faultNames = map[FaultKind]string{FaultReject: "reject", FaultDrop: "drop", FaultRevert: "revert",
	FaultFeeSpike: "fee-spike", FaultStall: "stall", FaultReorg: "reorg", FaultClear: "clear"}

// Action is one step of a simulation.
type Action struct {
	Kind  ActionKind
	Queue int
	N     int
	Dt    time.Duration
	Fault FaultKind
	P     float64
	K     uint64
}

// String renders the action as a trace line.
func (a Action) String() string {
	switch a.Kind {
	case ActSubmit:
		return fmt.Sprintf("submit q%d ×%d", a.Queue, a.N)
	case ActAdvance:
		return fmt.Sprintf("advance %v", a.Dt)
	case ActFault:
		switch a.Fault {
		case FaultReject, FaultDrop, FaultRevert:
			return fmt.Sprintf("fault %s %.2f", faultNames[a.Fault], a.P)
		case FaultClear:
			return "fault clear"
		default: // fee spike, stall, reorg: a count
		}
		return fmt.Sprintf("fault %s %d", faultNames[a.Fault], a.K)
	case ActCrash:
		return "crash"
	}
	return fmt.Sprintf("action(%d)", a.Kind)
}

// genActions draws steps actions from seed alone.
func genActions(seed uint64, steps, queues int, reorgDepth uint64) []Action {
	r := rand.New(rand.NewPCG(seed, 0x6f72646f))
	out := make([]Action, 0, steps)
	for range steps {
		var a Action
		switch x := r.IntN(100); {
		case x < 25:
			a = Action{Kind: ActSubmit, Queue: r.IntN(queues), N: 1 + r.IntN(2)}
		case x < 88:
			a = Action{Kind: ActAdvance, Dt: time.Duration(50+r.IntN(1500)) * time.Millisecond}
		case x < 98:
			a = genFault(r, reorgDepth)
		default:
			a = Action{Kind: ActCrash}
		}
		out = append(out, a)
	}
	return out
}

func genFault(r *rand.Rand, reorgDepth uint64) Action {
	probs := []float64{0, 0.1, 0.3}
	a := Action{Kind: ActFault, Fault: FaultKind(1 + r.IntN(int(FaultClear)))}
	switch a.Fault {
	case FaultReject, FaultDrop, FaultRevert:
		a.P = probs[r.IntN(len(probs))]
	case FaultFeeSpike:
		a.K = uint64(2 + r.IntN(3))
	case FaultStall:
		a.K = uint64(1 + r.IntN(8))
	case FaultReorg:
		a.K = 1 + r.Uint64N(reorgDepth)
	default: // FaultClear takes no parameter
	}
	return a
}

// ParseAction reads an action back from its String form (a line of a
// printed failing trace, with or without its leading number).
func ParseAction(line string) (Action, error) {
	f := strings.Fields(line)
	if len(f) > 0 {
		if _, err := strconv.Atoi(f[0]); err == nil {
			f = f[1:]
		}
	}
	bad := fmt.Errorf("sim: not an action: %q", line)
	if len(f) == 0 {
		return Action{}, bad
	}
	switch {
	case f[0] == "crash" && len(f) == 1:
		return Action{Kind: ActCrash}, nil
	case f[0] == "advance" && len(f) == 2:
		d, err := time.ParseDuration(f[1])
		if err != nil {
			return Action{}, bad
		}
		return Action{Kind: ActAdvance, Dt: d}, nil
	case f[0] == "submit" && len(f) == 3:
		q, err1 := strconv.Atoi(strings.TrimPrefix(f[1], "q"))
		n, err2 := strconv.Atoi(strings.TrimPrefix(f[2], "×"))
		if err1 != nil || err2 != nil {
			return Action{}, bad
		}
		return Action{Kind: ActSubmit, Queue: q, N: n}, nil
	case f[0] == "fault" && len(f) >= 2:
		for k, name := range faultNames {
			if name != f[1] {
				continue
			}
			a := Action{Kind: ActFault, Fault: k}
			switch {
			case k == FaultClear && len(f) == 2:
				return a, nil
			case (k == FaultReject || k == FaultDrop || k == FaultRevert) && len(f) == 3:
				p, err := strconv.ParseFloat(f[2], 64)
				a.P = p
				return a, errors.Join(err)
			case len(f) == 3:
				n, err := strconv.ParseUint(f[2], 10, 64)
				a.K = n
				return a, errors.Join(err)
			}
		}
	}
	return Action{}, bad
}

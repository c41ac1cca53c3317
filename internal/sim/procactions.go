package sim

import (
	"math/rand/v2"
)

// ProcKind names what a step of a processor simulation does.
type ProcKind string

// The actions of a processor simulation.
const (
	// PCreate creates processor P (with a callback URL when URL, an
	// auto-ticker every AutoTickMs when set).
	PCreate ProcKind = "create"
	// PAdd adds batch ID to processor P.
	PAdd ProcKind = "add"
	// PConfigure sends library.configure for method Method.
	PConfigure ProcKind = "configure"
	// PTick ticks processor P by hand.
	PTick ProcKind = "tick"
	// PPause and PResume pause and resume processor P (by its owner).
	PPause  ProcKind = "pause"
	PResume ProcKind = "resume"
	// PRemove removes the batch at Index of P's queue (High when High).
	PRemove ProcKind = "remove"
	// PConfirm confirms, by P's owner through the core, the Index-th
	// execution waiting for a confirmation (Success).
	PConfirm ProcKind = "confirm"
	// PConfirmChain confirms the Index-th execution waiting for a
	// confirmation with a chain transaction calling library.confirm.
	PConfirmChain ProcKind = "confirm-chain"
	// PAdvance moves the virtual clock by DtMs milliseconds; the chain makes
	// the blocks that fall due.
	PAdvance ProcKind = "advance"
	// PFault sets the chain's reject (Method 0), drop (1) or revert (2)
	// probability to FailProb; the drain clears them.
	PFault ProcKind = "fault"
	// PCrash drops both engines' memory and rebuilds them from the store.
	// Cut ≥ 0 first ticks P (Block: makes the next block instead, so that
	// executions finish and callbacks fall due) and crashes after the
	// processor's turn's commit with only its first Cut effects performed
	// (their answers lost).
	PCrash ProcKind = "crash"
)

// ProcRetry is a drawn RetryLogic: Amount -1 is indefinitely; the interval
// is Blocks, else DurMs.
type ProcRetry struct {
	Amount int `json:"n"`
	Blocks int `json:"blocks,omitempty"`
	DurMs  int `json:"ms,omitempty"`
}

// ProcAction is one step of a processor simulation. Its String form is the
// kind and the JSON of its fields, which ParseProcAction reads back.
type ProcAction struct {
	Kind       ProcKind    `json:"-"`
	P          int         `json:"p,omitempty"`
	URL        bool        `json:"url,omitempty"`
	Lanes      int         `json:"lanes,omitempty"`
	AutoTickMs int         `json:"autoTickMs,omitempty"`
	ID         int         `json:"id,omitempty"`
	Atomic     bool        `json:"atomic,omitempty"`
	High       bool        `json:"high,omitempty"`
	Methods    []int       `json:"methods,omitempty"`
	Retry      []ProcRetry `json:"retry,omitempty"`
	Confirm    []bool      `json:"confirm,omitempty"`
	Pos        *int        `json:"pos,omitempty"`
	ExpBlocks  int         `json:"expBlocks,omitempty"`
	ExpMs      int         `json:"expMs,omitempty"`
	Method     int         `json:"method,omitempty"`
	FailTimes  int         `json:"failTimes,omitempty"`
	FailProb   float64     `json:"failProb,omitempty"`
	Delay      int         `json:"delay,omitempty"`
	Index      int         `json:"index,omitempty"`
	Success    bool        `json:"success,omitempty"`
	DtMs       int         `json:"dtMs,omitempty"`
	Cut        int         `json:"cut,omitempty"`
	Block      bool        `json:"block,omitempty"`
}

// String renders the action as a trace line.
func (a ProcAction) String() string { return actionString(string(a.Kind), a) }

// ParseProcAction reads an action back from its String form (a line of a
// printed failing trace, with or without its leading number).
func ParseProcAction(line string) (ProcAction, error) {
	var a ProcAction
	kind, bad, err := parseAction(line, "processor", &a)
	if err != nil {
		return ProcAction{}, err
	}
	a.Kind = ProcKind(kind)
	switch a.Kind {
	case PCreate, PAdd, PConfigure, PTick, PPause, PResume, PRemove, PConfirm, PConfirmChain, PAdvance, PFault, PCrash:
		return a, nil
	}
	return ProcAction{}, bad
}

// Shape of the drawn runs.
const (
	procCount   = 3 // processors p0..p2
	procMethods = 4 // library methods m0..m3
)

// genProcActions draws steps actions from seed alone: first 1-3 creates,
// then a mix.
func genProcActions(seed uint64, steps int) []ProcAction {
	r := rand.New(rand.NewPCG(seed, 0x70726f63))
	out := make([]ProcAction, 0, steps)
	for i := range 1 + r.IntN(procCount) {
		if len(out) < steps {
			out = append(out, genCreate(r, i))
		}
	}
	batch := 0
	for len(out) < steps {
		p := r.IntN(procCount)
		var a ProcAction
		switch x := r.IntN(100); {
		case x < 2:
			a = genCreate(r, p)
		case x < 24:
			batch++
			a = genAdd(r, p, batch)
		case x < 29:
			a = ProcAction{Kind: PConfigure, Method: r.IntN(procMethods)}
			switch r.IntN(4) {
			case 0:
				a.FailTimes = 1 + r.IntN(3)
			case 1:
				a.FailProb = []float64{0.2, 0.5}[r.IntN(2)]
			case 2:
				a.Delay = 1 + r.IntN(5)
			}
		case x < 47:
			a = ProcAction{Kind: PTick, P: p}
		case x < 50:
			a = ProcAction{Kind: PPause, P: p}
		case x < 54:
			a = ProcAction{Kind: PResume, P: p}
		case x < 58:
			a = ProcAction{Kind: PRemove, P: p, High: r.IntN(2) == 0, Index: r.IntN(3)}
		case x < 64:
			a = ProcAction{Kind: PConfirm, P: p, Index: r.IntN(4), Success: r.IntN(5) > 0}
		case x < 69:
			a = ProcAction{Kind: PConfirmChain, Index: r.IntN(4), Success: r.IntN(5) > 0}
		case x < 95:
			a = ProcAction{Kind: PAdvance, DtMs: 100 + r.IntN(2500)}
		case x < 97:
			a = ProcAction{Kind: PFault, Method: r.IntN(3), FailProb: []float64{0, 0, 0.1, 0.2}[r.IntN(4)]}
		default:
			a = ProcAction{Kind: PCrash, P: p, Cut: -1}
			if r.IntN(2) == 0 {
				a.Cut, a.Block = r.IntN(3), r.IntN(2) == 0
			}
		}
		out = append(out, a)
	}
	return out
}

func genCreate(r *rand.Rand, p int) ProcAction {
	a := ProcAction{Kind: PCreate, P: p, URL: r.IntN(3) > 0}
	if r.IntN(4) == 0 {
		a.Lanes = 2
	}
	if r.IntN(3) == 0 {
		a.AutoTickMs = 500 + r.IntN(3000)
	}
	return a
}

func genRetry(r *rand.Rand) ProcRetry {
	rt := ProcRetry{Amount: r.IntN(4)}
	if r.IntN(8) == 0 {
		rt.Amount = -1
	}
	switch r.IntN(3) {
	case 0:
		rt.Blocks = 1 + r.IntN(3)
	case 1:
		rt.DurMs = 500 + r.IntN(4500)
	}
	return rt
}

func genAdd(r *rand.Rand, p, id int) ProcAction {
	a := ProcAction{Kind: PAdd, P: p, ID: id, Atomic: r.IntN(2) == 0, High: r.IntN(3) == 0}
	n := 1 + r.IntN(4)
	for range n {
		a.Methods = append(a.Methods, r.IntN(procMethods))
	}
	if a.Atomic {
		a.Retry = []ProcRetry{genRetry(r)}
	} else {
		for range n {
			a.Retry = append(a.Retry, genRetry(r))
			a.Confirm = append(a.Confirm, r.IntN(4) == 0)
		}
	}
	if r.IntN(5) == 0 {
		pos := r.IntN(4)
		a.Pos = &pos
	}
	switch r.IntN(8) {
	case 0:
		a.ExpBlocks = 1 + r.IntN(20)
	case 1:
		a.ExpMs = 1000 + r.IntN(20000)
	}
	return a
}

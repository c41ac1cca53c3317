package crash_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/processor"
)

// The processor crash test's load: numAtomic atomic and numNonAtomic
// non-atomic batches spread over the two processors, of which some expire,
// draw their failures from a probability, or wait for a callback
// confirmation (by the owner or by a chain event); numRemovable more are
// added to procManual while it is paused, and all but one removed.
const (
	procManual = "pa" // ticked by the test's tickers only
	procAuto   = "pb" // autoTick, and ticked by the tickers now and then

	numAtomic     = 60
	numNonAtomic  = 60
	numExpiring   = 4 // of the atomic ones
	numProbable   = 6 // of the atomic ones
	numOwnerConf  = 3 // of the non-atomic ones
	numChainConf  = 3 // of the non-atomic ones
	numRemovable  = 4
	numRemoved    = numRemovable - 1
	procLanes     = 6
	procAutoTick  = "20ms"
	retryDuration = 150 * time.Millisecond
	probFail      = 0.5
)

// batchKind says how a planned batch is built and what its outcome must be.
type batchKind string

const (
	kindAtomic     batchKind = "atomic"
	kindNonAtomic  batchKind = "nonatomic"
	kindExpiring   batchKind = "expiring"
	kindProbable   batchKind = "probable"
	kindOwnerConf  batchKind = "owner-confirm"
	kindChainConf  batchKind = "chain-confirm"
	kindRemovable  batchKind = "removable"
	kindAuthzProbe batchKind = "authz-probe" // refused to "other" and to a stranger, then added by the owner
)

// plannedMsg is one message of a planned batch: its library method (one
// per message of the run, so that its count of successful calls says
// whether this message was applied) and how that method fails.
type plannedMsg struct {
	method    string
	failTimes uint64
	failProb  float64
}

// plannedBatch is one batch of the load and what the test knows of it.
type plannedBatch struct {
	proc string
	id   string
	kind batchKind
	msgs []plannedMsg
	// attempts[u] is how many attempts unit u may make (0: no bound):
	// one unit for an atomic batch, one per action for a non-atomic one.
	attempts []int
	spec     processor.BatchSpec

	// removed is set when the owner's DELETE named this batch.
	removed bool
}

func (b *plannedBatch) key() string { return b.proc + "/" + b.id }

// atomic reports whether the batch is one atomic unit.
func (b *plannedBatch) atomic() bool { return b.spec.ActionsConfig.Atomic != nil }

// want is the outcome the configured failures imply; ok is false when it
// depends on draws (probable batches), checked against the chain instead.
func (b *plannedBatch) want() (o processor.Outcome, ok bool) {
	switch b.kind {
	case kindExpiring:
		return processor.Outcome{Status: processor.Expired}, true
	case kindProbable:
		return o, false
	case kindRemovable:
		if b.removed {
			return processor.Outcome{Status: processor.RemovedByOwner}, true
		}
	default: // the other kinds: by their messages, below
	}
	if b.atomic() {
		var f uint64
		for _, m := range b.msgs {
			f += m.failTimes // a failing call stops the multicall: the countdowns run one after another
		}
		if b.attempts[0] == 0 || f < uint64(b.attempts[0]) {
			return processor.Outcome{Status: processor.Executed, Executed: len(b.msgs)}, true
		}
		return processor.Outcome{Status: processor.Rejected}, true
	}
	for i, m := range b.msgs {
		if b.attempts[i] != 0 && m.failTimes >= uint64(b.attempts[i]) {
			if i == 0 {
				return processor.Outcome{Status: processor.Rejected}, true
			}
			return processor.Outcome{Status: processor.PartiallyExecuted, Executed: i}, true
		}
	}
	return processor.Outcome{Status: processor.Executed, Executed: len(b.msgs)}, true
}

// confirmAttempts is how many attempts of a confirmation batch's last
// action the confirmers confirm: its method never fails, so attempt 1 is
// the one, unless a kill makes the sequencer fail an execution.
const confirmAttempts = 2

// confirmExec is the execution id of attempt a of a confirmation batch's
// last action.
func (b *plannedBatch) confirmExec(a int) string {
	return fmt.Sprintf("%s/%s/%d/%d", b.proc, b.id, len(b.msgs)-1, a)
}

// randomRetry draws a RetryLogic: amount 0-3 (indefinitely one time in
// ten), an interval of one block or retryDuration; and the attempts it
// allows.
func randomRetry(rng *rand.Rand) (*processor.RetryLogic, int) {
	rl := &processor.RetryLogic{}
	if rng.IntN(2) == 0 {
		rl.Interval.Blocks = 1
	} else {
		rl.Interval.Duration = retryDuration
	}
	if rng.IntN(10) == 0 {
		rl.Times.Indefinitely = true
		return rl, 0
	}
	rl.Times.Amount = rng.IntN(4)
	return rl, rl.Times.Amount + 1
}

// randomFails draws a method's failTimes: none half the time, else 1-4
// (at most maxF when the unit has no bound on its attempts).
func randomFails(rng *rand.Rand, attempts int) uint64 {
	if rng.IntN(2) == 0 {
		return 0
	}
	f := uint64(1 + rng.IntN(4))
	if attempts == 0 {
		f = min(f, 3)
	}
	return f
}

// planBatches draws the load (the removable batches come from
// planRemovable).
func planBatches(rng *rand.Rand) []*plannedBatch {
	var out []*plannedBatch
	n := 0
	next := func(prefix string) (string, string) {
		proc := procManual
		if n%2 == 1 {
			proc = procAuto
		}
		n++
		return proc, fmt.Sprintf("%s%03d", prefix, n)
	}
	method := func(proc, id string, i int) string { return fmt.Sprintf("m-%s-%s-%d", proc, id, i) }
	prio := func() processor.Priority {
		if rng.IntN(3) == 0 {
			return processor.High
		}
		return processor.Medium
	}
	for i := range numAtomic {
		proc, id := next("a")
		b := &plannedBatch{proc: proc, id: id, kind: kindAtomic}
		rl, att := randomRetry(rng)
		nm := 1 + rng.IntN(3)
		failing := rng.IntN(nm)
		for j := range nm {
			m := plannedMsg{method: method(proc, id, j)}
			switch {
			case i < numProbable:
				if j == failing {
					m.failProb = probFail
				}
			case j == failing:
				m.failTimes = randomFails(rng, att)
			}
			b.msgs = append(b.msgs, m)
		}
		switch {
		case i < numProbable:
			b.kind = kindProbable
			rl, att = &processor.RetryLogic{Times: processor.RetryTimes{Amount: 2}, Interval: processor.RetryInterval{Blocks: 1}}, 3
		case i < numProbable+numExpiring:
			b.kind = kindExpiring
			b.spec.Expiration = &processor.Expiration{Height: 1} // already passed: the first tick that takes it ends it
		}
		b.attempts = []int{att}
		b.spec.ActionsConfig.Atomic = &processor.AtomicConfig{Actions: make([]processor.Action, nm), RetryLogic: rl}
		out = append(out, b)
		b.spec.Priority = prio()
	}
	for i := range numNonAtomic {
		proc, id := next("n")
		b := &plannedBatch{proc: proc, id: id, kind: kindNonAtomic}
		na := &processor.NonAtomicConfig{}
		nm := 1 + rng.IntN(3)
		if i < numOwnerConf+numChainConf {
			b.kind = kindOwnerConf
			if i >= numOwnerConf {
				b.kind = kindChainConf
			}
			nm = max(nm, 2)
		}
		for j := range nm {
			rl, att := randomRetry(rng)
			m := plannedMsg{method: method(proc, id, j)}
			a := processor.Action{RetryLogic: rl}
			if j == nm-1 && b.kind != kindNonAtomic {
				// The confirmation waits on the last action, whose method
				// never fails: its execution id is known (attempt 1).
				a.CallbackConfirmation = &processor.CallbackConfirmation{Contract: devchain.LibraryContract}
			} else if rng.IntN(5) < 2 {
				m.failTimes = randomFails(rng, att)
			}
			b.msgs = append(b.msgs, m)
			b.attempts = append(b.attempts, att)
			na.Actions = append(na.Actions, a)
		}
		b.spec.ActionsConfig.NonAtomic = na
		b.spec.Priority = prio()
		out = append(out, b)
	}
	for _, b := range out {
		b.spec.ID = b.id
		for j, m := range b.msgs {
			b.spec.Msgs = append(b.spec.Msgs, processor.Msg{Contract: devchain.LibraryContract, Method: m.method,
				Args: json.RawMessage(fmt.Sprintf(`{"batch":%q,"msg":%d}`, b.id, j))})
		}
	}
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// planSimple is an atomic batch of one message that never fails, in
// procManual's medium queue.
func planSimple(id string, kind batchKind) *plannedBatch {
	m := fmt.Sprintf("m-%s-%s-0", procManual, id)
	b := &plannedBatch{proc: procManual, id: id, kind: kind, msgs: []plannedMsg{{method: m}}, attempts: []int{1}}
	b.spec = processor.BatchSpec{ID: id, Priority: processor.Medium,
		Msgs:          []processor.Msg{{Contract: devchain.LibraryContract, Method: m}},
		ActionsConfig: processor.ActionsConfig{Atomic: &processor.AtomicConfig{Actions: []processor.Action{{}}}}}
	return b
}

// planRemovable makes the batches added to procManual while it is paused,
// all but one then removed by the owner; the second is inserted at
// position 0.
func planRemovable() []*plannedBatch {
	var out []*plannedBatch
	for i := range numRemovable {
		b := planSimple(fmt.Sprintf("r%03d", i), kindRemovable)
		if i == 1 {
			b.spec.Position = new(int)
		}
		out = append(out, b)
	}
	return out
}

// configureCalls are the library configure calls the plan needs (methods
// that never fail need none), as multicall calls of at most
// devchain.MaxMulticallCalls.
func configureCalls(bs []*plannedBatch) [][]map[string]any {
	var out [][]map[string]any
	var cur []map[string]any
	for _, b := range bs {
		for _, m := range b.msgs {
			if m.failTimes == 0 && m.failProb == 0 {
				continue
			}
			args := map[string]any{"method": m.method}
			if m.failTimes > 0 {
				args["failTimes"] = m.failTimes
			}
			if m.failProb > 0 {
				args["failProbability"] = m.failProb
			}
			cur = append(cur, map[string]any{"contract": devchain.LibraryContract, "method": "configure", "args": args})
			if len(cur) == devchain.MaxMulticallCalls {
				out, cur = append(out, cur), nil
			}
		}
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

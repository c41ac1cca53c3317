package sequencer

import (
	"slices"

	"github.com/ordolabs/ordo/internal/store"
)

//go:generate go tool stringer -type=check,wait,verdict,stored,load,seat,nonceSource -output=core_state_string.go

// The sub-states of a queue, of its transactions in flight and of a sender.
// Each is a typed state with a String (generated), so that a dump of the core
// reads as the states it is in; moves between them are in core_cycle.go,
// core_chain.go and core_step.go.

// check is why a transaction's attempts are being checked on the chain.
type check uint8

const (
	checkNone           check = iota
	checkRecover              // the node restarted while the transaction was active
	checkBeforeDispatch       // a DELAY ended: settle every attempt before a new one
	checkBeforeFail           // the last retry failed: settle every attempt before FAILED
	checkTimeout              // the inclusion deadline passed
	checkConfirm              // an inclusion reached its confirmation depth: still there?
	checkPoll                 // PollStatus: the chain's blocks cannot be read
	checkPromote              // a follower of a pipelined queue leads now: settle what it sent
	checkLookup               // an unreported attempt's nonce was taken: by which transaction?
)

// wait is what a transaction in flight waits on besides the clock and new
// heads.
type wait uint8

const (
	waitNone     wait = iota
	waitDispatch      // an EffectDispatch or EffectSubmit is outstanding
	waitChecks        // EffectChecks are outstanding (flight.pending of them)
	waitHead          // a check could not reach the chain: run it again on the next head
)

// verdict is an end the transaction is bound for once what is in the way
// resolves.
type verdict uint8

const (
	verdictNone            verdict = iota
	verdictFailWhenSettled         // out of retries, but an attempt may still land: FAILED once it cannot
	verdictAmbiguous               // the nonce went to a transaction we cannot see: FAILED at the next dispatch
	verdictPermanent               // a dispatch error no retry can change: FAILED once earlier attempts are settled
)

// stored is what the store holds of a queue's WAITING transactions beyond
// the ones buffered in memory.
type stored uint8

const (
	storeBuffered stored = iota // nothing: the buffer holds them all
	storeMore                   // more, after the last one buffered
	storeRescan                 // more, some perhaps before the last one buffered: load from the start
)

// load is the state of a queue's EffectLoad.
type load uint8

const (
	loadIdle    load = iota
	loadRunning      // an EffectLoad is outstanding
	loadMissed       // outstanding, and intake skipped transactions meanwhile
)

// seat is a queue's relation to the sender pool.
type seat uint8

const (
	seatNone   seat = iota // no sender, none wanted
	seatInLine             // waiting in the line of queues for a free sender
	seatBound              // a sender is bound to the queue (queue.snd)
)

// nonceSource is where a sender's next nonce comes from.
type nonceSource uint8

const (
	nonceKnown     nonceSource = iota // the sender record's NextNonce
	nonceFromChain                    // read the chain's account nonce first (it moved elsewhere)
)

// flight is a transaction in flight on its queue and what it waits on.
type flight struct {
	*txn
	wait    wait
	pending int   // outstanding EffectChecks (wait == waitChecks)
	check   check // why they were asked
	recheck check // a check of this kind failed to reach the chain: run it again
	verdict verdict
	suspect int // verdictAmbiguous: the unreported attempt that may have taken the nonce
	// confirm is the head at which an included attempt (or the failed one,
	// confirmN) has its confirmations, 0 when none waits.
	confirm  uint64
	confirmN int
	polled   uint64 // the head of the last status poll (PollStatus)
	// deep are the attempts whose inclusion a check answered at a head
	// where it was deep enough to be final: not asked again.
	deep []int
	// pipe is the nonce the transaction holds in its queue's pipeline
	// (piped: it has one): a follower's is one above the flight before it.
	pipe  uint64
	piped bool
	// looked are the attempts whose nonce a lookup (checkLookup) asked
	// about, the last one last; then is what was being decided when it was
	// asked, decided again on the answer.
	looked []int
	then   check
	// held is a follower's failed dispatch result, acted on once it leads.
	held *Input
	// cancelNext makes the next attempt an operator's no-op (core_cancel.go).
	cancelNext string
}

// markDeep records that the chain just said a is included deep enough to be
// final (a receipt or a check at a head past its confirmations).
func (f *flight) markDeep(c *Core, a *store.Attempt) {
	if nonceConsumed(a) && !c.live(a) && !f.confirmed(a.N) {
		f.deep = append(f.deep, a.N)
	}
}

// confirmed reports whether attempt n's inclusion was checked final.
func (f *flight) confirmed(n int) bool { return slices.Contains(f.deep, n) }

// failing reports whether the transaction ends FAILED once nothing of it can
// land any more.
func (f *flight) failing() bool {
	return f.verdict == verdictFailWhenSettled || f.verdict == verdictPermanent
}

// awaitChecks records that n EffectChecks were asked for why.
func (f *flight) awaitChecks(why check, n int) {
	f.wait, f.check, f.pending = waitChecks, why, n
}

// checkAnswered counts one answer to the outstanding checks; done is set when
// it was the last one and the checks' outcome can be decided (none failed to
// reach the chain), with why they were asked.
func (f *flight) checkAnswered() (why check, done bool) {
	f.pending--
	if f.pending > 0 {
		return checkNone, false
	}
	why, f.check, f.wait = f.check, checkNone, waitNone
	if f.recheck != checkNone {
		f.wait = waitHead
		return checkNone, false
	}
	return why, true
}

// dispatchOver ends the wait on a dispatch: an inclusion arrived before the
// dispatch reported, and the late report is ignored.
func (f *flight) dispatchOver() {
	if f.wait == waitDispatch {
		f.wait = waitNone
	}
}

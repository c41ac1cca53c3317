package sequencer

import (
	"fmt"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/store"
)

// InputKind names an input to the core.
type InputKind uint8

// The inputs Step takes. Each says which of Input's fields it sets.
const (
	// InputTick: the clock moved; DELAYs that ended lead to retries. At only.
	InputTick InputKind = iota + 1
	// InputEnqueued: the store committed new transactions (Txs), in Seq
	// order of commit.
	InputEnqueued
	// InputLoaded: an EffectLoad read the WAITING transactions Txs of Queue;
	// More says the store holds more after them.
	InputLoaded
	// InputHead: a new block Height with the chain's MinFee and the Receipts
	// of watched transactions included since the last head.
	InputHead
	// InputSigned: a Builder dispatch of attempt Attempt of UID on Queue was
	// built and signed as Tx with hash Hash; it is sent once the hash is
	// committed (EffectSubmit).
	InputSigned
	// InputDispatched: the result of a dispatch or submit of attempt Attempt
	// of UID on Queue: Hash and Nonce as used, or Err (with its chain Code).
	InputDispatched
	// InputChecked: the chain's Status of attempt Attempt of UID on Queue, or
	// Err when the chain could not be asked; for an inclusion, the included
	// transaction's Nonce and Fee when the chain's block says (0: unknown).
	InputChecked
	// InputHookDone: the hook of the finished UID returned Result, or Err.
	InputHookDone
	// InputReorg: the driver saw a reorg replace the blocks above Height,
	// Depth of them, deeper than the chain declares (ReorgDepth): an
	// anomaly. The DONE transactions whose inclusion those blocks held are
	// flagged in their history.
	InputReorg
	// InputGate: Queue is closed (Closed) or opened again. A closed queue
	// takes no new transaction: what is in flight settles as usual, its
	// WAITING ones wait. The state machine manager closes a queue this node
	// is no longer the primary of (issue 12), so that it does not dispatch
	// copies its new primary now owns.
	InputGate
	// InputCancel: an operator cancels the nonce of UID's pending attempt
	// (Nonce, on Queue): a no-op takes its place at a higher fee, and once
	// it holds the nonce the transaction ends FAILED or is sent again at a
	// fresh nonce (Cancel: store.CancelFail or store.CancelRequeue). An
	// attempt of the transaction that lands first wins: it ends DONE.
	InputCancel
)

// String returns the input kind's name.
func (k InputKind) String() string {
	switch k {
	case InputTick:
		return "tick"
	case InputEnqueued:
		return "enqueued"
	case InputLoaded:
		return "loaded"
	case InputHead:
		return "head"
	case InputSigned:
		return "signed"
	case InputDispatched:
		return "dispatched"
	case InputChecked:
		return "checked"
	case InputHookDone:
		return "hook-done"
	case InputReorg:
		return "reorg"
	case InputGate:
		return "gate"
	case InputCancel:
		return "cancel"
	}
	return fmt.Sprintf("InputKind(%d)", k)
}

// Input is one input to the core: what happened, and when (At, the driver's
// clock as it steps the input). It is plain data, so that a run can be
// recorded and replayed (see Trace).
type Input struct {
	Kind InputKind `json:"kind"`
	// At is the time of the step; the core's clock never moves back.
	At      time.Time           `json:"at"`
	Queue   string              `json:"queue,omitempty"`
	UID     string              `json:"uid,omitempty"`
	Attempt int                 `json:"attempt,omitempty"`
	Txs     []store.Transaction `json:"txs,omitempty"`
	More    bool                `json:"more,omitempty"`
	Height  uint64              `json:"height,omitempty"`
	MinFee  uint64              `json:"minFee,omitempty"`
	// ReorgDepth is the chain's declared reorg depth (InputHead,
	// InputReorg); Depth is the depth of a reorg seen (InputReorg).
	ReorgDepth uint64    `json:"reorgDepth,omitempty"`
	Depth      uint64    `json:"depth,omitempty"`
	Receipts   []Receipt `json:"receipts,omitempty"`
	Tx         *chain.Tx `json:"tx,omitempty"`
	Hash       string    `json:"hash,omitempty"`
	Nonce      uint64    `json:"nonce,omitempty"`
	// Fee is the fee of the included transaction a status check found
	// (InputChecked), 0 when unknown.
	Fee    uint64         `json:"fee,omitempty"`
	Status chain.TxStatus `json:"status,omitzero"`
	Result TxnResult      `json:"result,omitzero"`
	// Err is the error's text, "" for none.
	Err string `json:"err,omitempty"`
	// Code is Err's chain error code (chain.CodeOf), "" when it has none.
	Code string `json:"code,omitempty"`
	// Permanent says no retry can change Err (InputDispatched).
	Permanent bool `json:"permanent,omitempty"`
	// Closed closes Queue (InputGate); false opens it.
	Closed bool `json:"closed,omitempty"`
	// Cancel is what becomes of a cancelled transaction (InputCancel).
	Cancel string `json:"cancel,omitempty"`
}

// Cancel is the input of an operator's cancel of the nonce of uid's
// pending attempt, then ending it FAILED or sending it again (then:
// store.CancelFail or store.CancelRequeue).
func Cancel(at time.Time, queue, uid string, nonce uint64, then string) Input {
	return Input{Kind: InputCancel, At: at, Queue: queue, UID: uid, Nonce: nonce, Cancel: then}
}

// errText is err's text, "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// Gate is the input that closes queue (closed) or opens it again.
func Gate(at time.Time, queue string, closed bool) Input {
	return Input{Kind: InputGate, At: at, Queue: queue, Closed: closed}
}

// Tick is the input of a clock that moved to at.
func Tick(at time.Time) Input { return Input{Kind: InputTick, At: at} }

// Enqueued is the input of transactions the store committed.
func Enqueued(at time.Time, txs []store.Transaction) Input {
	return Input{Kind: InputEnqueued, At: at, Txs: txs}
}

// Loaded is the input of an EffectLoad's result.
func Loaded(at time.Time, queue string, txs []store.Transaction, more bool) Input {
	return Input{Kind: InputLoaded, At: at, Queue: queue, Txs: txs, More: more}
}

// NewHead is the input of a new block height with the receipts of watched
// transactions included since the last head.
func NewHead(at time.Time, height, minFee uint64, receipts []Receipt) Input {
	return Input{Kind: InputHead, At: at, Height: height, MinFee: minFee, Receipts: receipts}
}

// Signed is the input of a Builder dispatch built and signed by the driver.
func Signed(at time.Time, queue, uid string, attempt int, tx chain.Tx, hash string) Input {
	return Input{Kind: InputSigned, At: at, Queue: queue, UID: uid, Attempt: attempt, Tx: &tx, Hash: hash}
}

// Dispatched is the input of a dispatch's (or a submit's) result.
func Dispatched(at time.Time, queue string, r DispatchResult) Input {
	return Input{Kind: InputDispatched, At: at, Queue: queue, UID: r.UID, Attempt: r.Attempt, Nonce: r.Nonce, Hash: r.Hash,
		Err: errText(r.Err), Code: r.Code, Permanent: r.Permanent}
}

// Checked is the input of a status check's answer; err means the chain could
// not be asked.
func Checked(at time.Time, queue, uid string, attempt int, st chain.TxStatus, err error) Input {
	return Input{Kind: InputChecked, At: at, Queue: queue, UID: uid, Attempt: attempt, Status: st, Err: errText(err)}
}

// CheckedIncluded is the input of a status check that found the attempt
// included, with the nonce and fee of the transaction the block holds (a
// remote worker may pay another fee than the one asked): the attempt
// records them, as it does from a block's receipt.
func CheckedIncluded(at time.Time, queue, uid string, attempt int, st chain.TxStatus, nonce, fee uint64) Input {
	in := Checked(at, queue, uid, attempt, st, nil)
	in.Nonce, in.Fee = nonce, fee
	return in
}

// HookDone is the input of a hook's result.
func HookDone(at time.Time, uid string, r TxnResult, err error) Input {
	return Input{Kind: InputHookDone, At: at, UID: uid, Result: r, Err: errText(err)}
}

// Step applies one input. What it produces accumulates until the driver takes
// it with Ready. Between Ready and Advance only the inputs of an inline
// signing (InputSigned, InputDispatched) and of a pure hook (InputHookDone)
// may be stepped; any other input there breaks the Ready contract and
// panics.
func (c *Core) Step(in Input) {
	if c.handedOut && in.Kind != InputSigned && in.Kind != InputDispatched && in.Kind != InputHookDone {
		panic(fmt.Sprintf("sequencer: Step(%s) between Ready and Advance", in.Kind))
	}
	c.setTime(in.At)
	c.steps++
	switch in.Kind {
	case InputTick:
		c.tick()
	case InputEnqueued:
		c.enqueued(in.Txs)
	case InputLoaded:
		c.loaded(in.Queue, in.Txs, in.More)
	case InputHead:
		c.reorgDepth = in.ReorgDepth
		c.newHead(in.Height, in.MinFee, in.Receipts)
	case InputReorg:
		c.deepReorg(in)
	case InputSigned:
		if in.Tx != nil {
			c.signed(in.Queue, in.UID, in.Attempt, *in.Tx, in.Hash)
		}
	case InputDispatched:
		c.dispatched(in)
	case InputChecked:
		c.checked(in)
	case InputHookDone:
		c.hookDone(in.UID, in.Result, in.Err)
	case InputGate:
		c.gate(in.Queue, in.Closed)
	case InputCancel:
		c.cancelNonce(in.Queue, in.UID, in.Nonce, in.Cancel)
	default:
		panic(fmt.Sprintf("sequencer: unknown input kind %d", in.Kind))
	}
	c.assertCheap()
}

// setTime moves the core's clock forward (never back): records are stamped
// with the time of the step that changed them.
func (c *Core) setTime(now time.Time) {
	if now.After(c.now) {
		c.now = now
	}
}

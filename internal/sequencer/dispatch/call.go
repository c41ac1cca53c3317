package dispatch

import (
	"context"
	"encoding/json"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/sequencer"
)

// CallType is the sequencer type of a generic contract call: its data names
// the contract, the method and the args (or up to MaxCalls such calls, sent
// as one all-or-nothing multi-call transaction).
const CallType = "call"

// Multi-call transactions: devchain's multicall contract applies every call
// of its args or none; a failure's reason is `call <i> (<c>.<m>): <reason>`.
const (
	// MultiCallContract is the contract of a multi-call transaction. A call
	// may not name it (no nested multi-calls).
	MultiCallContract = "multicall"
	// MultiCallMethod is its method: apply all calls or none.
	MultiCallMethod = "all"
	// MaxCalls is the most calls one multi-call transaction carries.
	MaxCalls = 64
)

// CallDispatcher is the in-process dispatcher of the type CallType, through
// which engines (the processor, the leader, ...) submit contract calls to the
// sequencer. Its data is one of
//
//	{"contract": c, "method": m, "args"?: any}   → chain.Tx{Contract: c, Method: m, Args: args}
//	{"calls": [{"contract", "method", "args"?}, ...]}  (1 to MaxCalls calls)
//	    → chain.Tx{Contract: "multicall", Method: "all", Args: {"calls": [...]}}
//
// with the record's uid in the memo, like ZkAppDispatcher. Names follow the
// chain's rules (1-64 characters of [a-z0-9_-]), no call names the multicall
// contract, and the transaction's args fit chain.MaxArgs. The data's JSON
// Schema (DataSchema) refuses at intake all but the size limit, which Build
// checks (a Build error ends the transaction FAILED at once).
type CallDispatcher struct {
	retries int
	chain   chain.Chain
	keys    func(string) chain.Key
}

// NewCallDispatcher returns the dispatcher of CallType, whose transactions
// are retried maxRetries times before they are FAILED. c is the chain the
// hooks read a transaction's status from and direct Dispatch calls send to;
// keys finds a sender's key for direct Dispatch calls (the sequencer itself
// signs through Build).
func NewCallDispatcher(maxRetries int, c chain.Chain, keys func(string) chain.Key) *CallDispatcher {
	return &CallDispatcher{retries: maxRetries, chain: c, keys: keys}
}

// callDataSchema is CallData's or MultiCallData's shape; names as
// chain.Tx.Validate wants them, never the multicall contract. The call's
// schema is written out twice rather than referenced ($ref): a reference
// would resolve against the URL intake compiles the schema under.
var callDataSchema = json.RawMessage(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "oneOf": [
    ` + callSchema + `,
    {
      "type": "object",
      "properties": {"calls": {"type": "array", "minItems": 1, "maxItems": 64, "items": ` + callSchema + `}},
      "required": ["calls"],
      "additionalProperties": false
    }
  ]
}`)

// callSchema is one call's schema.
const callSchema = `{
      "type": "object",
      "properties": {
        "contract": {"type": "string", "pattern": "^[a-z0-9_-]{1,64}$", "not": {"const": "multicall"}},
        "method": {"type": "string", "pattern": "^[a-z0-9_-]{1,64}$"},
        "args": true
      },
      "required": ["contract", "method"],
      "additionalProperties": false
    }`

// DataSchema implements sequencer.DataSchema: intake refuses data the
// dispatcher could never build (all but args over chain.MaxArgs).
func (d *CallDispatcher) DataSchema() json.RawMessage { return callDataSchema }

// Name returns CallType.
func (d *CallDispatcher) Name() string { return CallType }

// MaxRetries returns the configured retries.
func (d *CallDispatcher) MaxRetries() int { return d.retries }

// Build makes the unsigned chain transaction for an attempt: the call, or
// the multi-call, of the data, with the uid in the memo. It is deterministic
// and does no I/O; its error (malformed data, args over chain.MaxArgs) wraps
// ErrCallData.
func (d *CallDispatcher) Build(ctx context.Context, txn sequencer.RawTxnData, s sequencer.Sender) (chain.Tx, error) {
	tx, err := CallTx(txn.Data)
	if err != nil {
		return chain.Tx{}, err
	}
	tx.From, tx.Nonce, tx.Fee, tx.Memo = chain.Address(s.AccountID), s.Nonce, s.Fee, txn.UID
	return tx, nil
}

// Dispatch builds, signs and sends the transaction.
func (d *CallDispatcher) Dispatch(ctx context.Context, txn sequencer.RawTxnData, s sequencer.Sender) (sequencer.TxnResult, error) {
	tx, err := d.Build(ctx, txn, s)
	if err != nil {
		return sequencer.TxnResult{}, sequencer.Permanent(err)
	}
	return sendSigned(ctx, d.chain, d.keys, tx, s.AccountID)
}

// CallOutcome is what the hooks record about a finished call transaction:
// OnSuccess in the result's done, OnFailure in its error.
type CallOutcome struct {
	// UID is the transaction record's id.
	UID string `json:"uid"`
	// Hash is the included attempt's hash (DONE), or the last attempt's
	// that has one (FAILED); empty when no attempt was sent.
	Hash string `json:"hash,omitempty"`
	// Status is chain.OutcomeSucceeded for a DONE transaction; for a FAILED
	// one, chain.OutcomeFailed when its last attempt was included and failed
	// there, else empty.
	Status string `json:"status,omitempty"`
	// Height and Index locate the included attempt, when the chain says so.
	Height uint64 `json:"height,omitempty"`
	Index  int    `json:"index,omitempty"`
	// Retries is how many times the transaction was retried (OnFailure).
	Retries int `json:"retries,omitempty"`
	// Reason is the sequencer's failure reason (OnFailure); a multi-call's
	// that failed on chain names the call: `call <i> (<c>.<m>): <reason>`.
	// On a DONE transaction whose hash the chain failed as a duplicate
	// intent (an earlier transaction with its uid applied it), it is
	// sequencer.NoteAppliedEarlier.
	Reason string `json:"reason,omitempty"`
}

// OnSuccess records the outcome in the result's done: the uid, the hash and
// where the chain included it (the chain's status of the hash; on a read
// error the outcome is recorded without a height and the error returned),
// and for a hash the chain failed as a duplicate intent, the reason
// sequencer.NoteAppliedEarlier.
func (d *CallDispatcher) OnSuccess(ctx context.Context, txn sequencer.RawTxnData, r sequencer.TxnResult, s sequencer.Sender) (sequencer.TxnResult, error) {
	out := CallOutcome{UID: txn.UID, Hash: r.Hash, Status: chain.OutcomeSucceeded}
	st, err := d.status(ctx, r.Hash)
	if err == nil && st.State == chain.TxIncluded {
		out.Height, out.Index = st.Height, st.Index
		if !st.Success && st.Reason == chain.ReasonDuplicateIntent {
			out.Reason = sequencer.NoteAppliedEarlier
		}
	}
	r.Done, _ = json.Marshal(out) // plain fields: never fails
	return r, err
}

// OnFailure records the failure in the result's error: the uid, the retries
// made, the reason the sequencer gives and, when the last attempt was
// included and failed there, its height (a read error of the status is
// ignored: the reason already says what failed).
func (d *CallDispatcher) OnFailure(ctx context.Context, txn sequencer.RawTxnData, r sequencer.TxnResult, s sequencer.Sender) (sequencer.TxnResult, error) {
	var given struct {
		Reason string `json:"reason"`
	}
	_ = json.Unmarshal(r.Error, &given) // the sequencer's failure reason, when given
	out := CallOutcome{UID: txn.UID, Hash: r.Hash, Retries: s.Retries, Reason: given.Reason}
	if st, err := d.status(ctx, r.Hash); err == nil && st.State == chain.TxIncluded {
		out.Height, out.Index = st.Height, st.Index
		if !st.Success {
			out.Status = chain.OutcomeFailed
		}
	}
	r.Error, _ = json.Marshal(out) // plain fields: never fails
	return r, nil
}

// status reads a hash's status; no hash or no chain is TxUnknown.
func (d *CallDispatcher) status(ctx context.Context, h string) (chain.TxStatus, error) {
	if h == "" || d.chain == nil {
		return chain.TxStatus{Hash: chain.Hash(h), State: chain.TxUnknown}, nil
	}
	return d.chain.TxStatus(ctx, chain.Hash(h))
}

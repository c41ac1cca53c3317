package devchain

import (
	"encoding/json"
	"fmt"

	"github.com/ordolabs/ordo/internal/chain"
)

// Intents is the `intents` contract (issue 12): the chain's intent
// nullifiers. It takes no transactions; the chain itself writes it. A
// transaction with a non-empty memo (the intent id: the sequencer puts its
// record's uid there) that succeeds records memo -> {hash, height}; a later
// transaction whose memo is recorded fails at inclusion with
// chain.ReasonDuplicateIntent, whatever it calls (multicall included),
// without running its contract: its nonce and fee are consumed as for any
// failure and nothing else changes. A failed transaction records nothing,
// and a transaction with an empty memo is not concerned. The record is
// chain state like any other: a reorg removes it with its block and a
// replay of the block log writes it again.
//
// Invariant: among the successful transactions of the canonical chain, no
// two carry the same non-empty memo.
//
// Reads (Call):
//   - get {uid} → an IntentRecord; a uid not recorded is an error wrapping
//     chain.ErrNotFound.
//
// State: uid/<memo> holds the IntentRecord.
type Intents struct{}

// IntentsContract is the intents contract's name. It is reserved: a
// configured contract of that name is replaced.
const IntentsContract = "intents"

// IntentRecord is a recorded intent: the answer of the intents read.
type IntentRecord struct {
	// UID is the memo.
	UID string `json:"uid"`
	// Hash and Height are the transaction that applied it and its block.
	Hash   chain.Hash `json:"hash"`
	Height uint64     `json:"height"`
}

// Name returns "intents".
func (Intents) Name() string { return IntentsContract }

func intentKey(uid string) string { return "uid/" + uid }

// Apply answers noop (chain.NoopTx: it takes its sender's nonce and fee
// and changes nothing) and refuses every other method: the chain writes
// the intents itself.
func (Intents) Apply(x *Exec, method string, args json.RawMessage) error {
	if method == chain.NoopMethod {
		return nil
	}
	return Fail("intents: unknown method %q (the chain records intents itself)", method)
}

// Call answers get {uid}.
func (Intents) Call(r StateReader, method string, args json.RawMessage) (json.RawMessage, error) {
	if method != "get" {
		return nil, errNoMethod
	}
	f, err := decodeObject(args, "intents: get args", "uid")
	if err != nil {
		return nil, err
	}
	var uid string
	if json.Unmarshal(f["uid"], &uid) != nil || uid == "" {
		return nil, Fail("intents: uid must be a non-empty string")
	}
	raw, ok := r.Get(intentKey(uid))
	if !ok {
		return nil, fmt.Errorf("%w: intents: no intent %q", chain.ErrNotFound, uid)
	}
	return raw, nil
}

// duplicateIntent reports whether memo is an intent the chain already
// applied.
func (c *Chain) duplicateIntent(memo string) bool {
	if memo == "" {
		return false
	}
	_, ok := c.state[stateKey(IntentsContract, intentKey(memo))]
	return ok
}

// recordIntent adds the record of bt's memo, if any, to a successful
// transaction's writes.
func recordIntent(w *writeSet, b *chain.Block, bt *chain.BlockTx) {
	if bt.Memo == "" {
		return
	}
	// Strings (valid UTF-8: chain.Tx.Validate) and an integer: it always
	// marshals.
	v, _ := json.Marshal(IntentRecord{UID: bt.Memo, Hash: bt.Hash, Height: b.Height})
	w.set(stateKey(IntentsContract, intentKey(bt.Memo)), v)
}

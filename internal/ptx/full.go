package ptx

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/distseq"
	"github.com/ordolabs/ordo/internal/distseq/token"
	"github.com/ordolabs/ordo/internal/store"
)

// StateView is a state as ptx_getTransactionFull shows it.
type StateView struct {
	ID        string          `json:"id"`
	Owner     string          `json:"owner,omitempty"`
	Data      json.RawMessage `json:"data"`
	CreatedBy string          `json:"createdBy,omitempty"`
	SpentBy   string          `json:"spentBy,omitempty"`
	Height    uint64          `json:"height"`
}

// TransactionStates are the states a transaction spent and created, as
// far as this node holds them.
type TransactionStates struct {
	Spent   []StateView `json:"spent"`
	Created []StateView `json:"created"`
}

// TransactionFull is ptx_getTransactionFull's answer: the transaction,
// its receipt once final, and its states.
type TransactionFull struct {
	Transaction
	Receipt *Receipt          `json:"receipt,omitempty"`
	States  TransactionStates `json:"states"`
}

// full answers a transaction with its receipt and states.
func (h Handler) full(ctx context.Context, rec store.DistseqIntent) (any, *Error) {
	id := rec.TxID
	out := TransactionFull{Transaction: view(rec), States: TransactionStates{Spent: []StateView{}, Created: []StateView{}}}
	if r, ok := receipt(rec); ok {
		out.Receipt = &r
	}
	sts, err := h.B.Intents().DistseqStates(ctx, rec.Contract, false)
	if err != nil {
		return nil, engineError(err)
	}
	for _, s := range sts {
		switch {
		case s.SpentBy == id:
			out.States.Spent = append(out.States.Spent, stateView(s))
		case s.CreatedBy == id:
			out.States.Created = append(out.States.Created, stateView(s))
		}
	}
	return out, nil
}

func stateView(s store.DistseqState) StateView {
	ref := distseq.StateOf(s)
	data := json.RawMessage(ref.Data)
	if !json.Valid(data) {
		data, _ = json.Marshal(ref.Data) // not JSON: base64 in a string
	}
	return StateView{ID: s.ID, Owner: ref.Owner, Data: data, CreatedBy: ref.CreatedBy, SpentBy: s.SpentBy, Height: s.Height}
}

// receipt is a final transaction's receipt; a pending one has none.
func receipt(r store.DistseqIntent) (Receipt, bool) {
	if r.Status == store.DistseqPending {
		return Receipt{}, false
	}
	return Receipt{ID: r.TxID, Success: r.Status == store.DistseqConfirmed, FailureMessage: r.Reason}, true
}

// privateCall is ptx_call: a read-only function of the group's domain over the
// unspent states this node holds; nothing is sent anywhere.
func (h Handler) privateCall(ctx context.Context, tx Tx) (any, *Error) {
	switch {
	case tx.Domain != "" && tx.Domain != "token":
		return nil, invalid(`domain must be "token", the one domain this node runs`)
	case tx.To == "":
		return nil, invalid("to must name the privacy group")
	case tx.Function == "":
		return nil, invalid("function must name what to call (balanceOf, coins)")
	}
	if _, err := h.B.Intents().DistseqGroup(ctx, tx.To); errors.Is(err, store.ErrNotFound) {
		return nil, &Error{Code: CodeInvalidParams, Message: "no privacy group " + tx.To + " is known to this node", Data: map[string]string{"code": "no_such_group"}}
	} else if err != nil {
		return nil, engineError(err)
	}
	sts, err := h.B.Intents().DistseqStates(ctx, tx.To, true)
	if err != nil {
		return nil, engineError(err)
	}
	refs := make([]distseq.StateRef, len(sts))
	for i, s := range sts {
		refs[i] = distseq.StateOf(s)
	}
	res, err := token.Call(tx.Function, h.qualifyOwner(tx.Data), refs)
	if err != nil {
		return nil, &Error{Code: CodeInvalidParams, Message: err.Error(), Data: map[string]string{"code": "bad_call"}}
	}
	return res, nil
}

// qualifyOwner qualifies a call's {"owner": name} by this node, as from
// and to are; anything else is passed on as it is.
func (h Handler) qualifyOwner(data json.RawMessage) json.RawMessage {
	var args map[string]json.RawMessage
	var owner string
	if json.Unmarshal(data, &args) != nil || json.Unmarshal(args["owner"], &owner) != nil || owner == "" || strings.Contains(owner, "@") {
		return data
	}
	args["owner"], _ = json.Marshal(owner + "@" + string(h.B.ID()))
	b, _ := json.Marshal(args)
	return b
}

// PreparedTransaction is ptx_getPreparedTransaction's answer: the base
// ledger transaction the caller submits itself (Paladin's external
// submission), assembled and endorsed by the committee.
type PreparedTransaction struct {
	ID     string `json:"id"`
	Domain string `json:"domain"`
	To     string `json:"to"`
	// Transaction is the call to send: the devchain's privacygroup
	// contract, its confirm method and the args.
	Transaction PreparedCall `json:"transaction"`
}

// PreparedCall is a base-ledger contract call.
type PreparedCall struct {
	Contract string          `json:"contract"`
	Method   string          `json:"method"`
	Args     json.RawMessage `json:"args"`
}

// prepared answers a prepare intent's prepared transaction: null while
// none is ready; bad params for a transaction sent to be dispatched.
func prepared(rec store.DistseqIntent) (any, *Error) {
	id := rec.TxID
	if !rec.Prepare {
		return nil, &Error{Code: CodeInvalidParams, Message: id + " was sent with ptx_sendTransaction: ordo dispatches it", Data: map[string]string{"code": "not_prepared"}}
	}
	if len(rec.Prepared) == 0 {
		return nil, nil
	}
	var p distseq.PreparedTx
	if err := json.Unmarshal(rec.Prepared, &p); err != nil {
		return nil, engineError(fmt.Errorf("the stored prepared transaction of %s: %w", id, err))
	}
	return PreparedTransaction{ID: rec.TxID, Domain: "token", To: rec.Contract,
		Transaction: PreparedCall{Contract: devchain.PrivacyGroupContract, Method: devchain.PrivacyConfirm, Args: p.Call}}, nil
}

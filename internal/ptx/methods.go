package ptx

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/ordolabs/ordo/apispec"
	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/store"
)

// params decodes params as exactly one positional argument (an array of
// one) into v, refusing unknown fields.
func params(raw json.RawMessage, v any) *Error {
	var args []json.RawMessage
	if err := json.Unmarshal(raw, &args); err != nil || len(args) != 1 {
		return invalid("params must be an array of one argument")
	}
	dec := json.NewDecoder(bytes.NewReader(args[0]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return invalid("params[0]: " + err.Error())
	}
	return nil
}

func (h Handler) dispatch(ctx context.Context, p auth.Principal, req request) (any, *Error) {
	switch {
	case req.Method == Discover && !p.Has(auth.RoleRead):
		return nil, forbidden(auth.RoleRead)
	case req.Method == Discover:
		return json.RawMessage(apispec.OpenRPC), nil
	case !slices.Contains(Methods, req.Method):
		return nil, &Error{Code: CodeMethodNotFound, Message: "no such method: " + req.Method}
	}
	if h.B == nil {
		return nil, &Error{Code: CodeServer, Message: "this node runs no distributed sequencer (configure distseq: key, cert, peers)", Data: map[string]string{"code": "unavailable"}}
	}
	switch req.Method {
	case "ptx_sendTransaction", "ptx_prepareTransaction":
		if !p.Has(auth.RoleSubmit) {
			return nil, forbidden(auth.RoleSubmit)
		}
		var tx Tx
		if e := params(req.Params, &tx); e != nil {
			return nil, e
		}
		return h.send(ctx, p, tx, req.Method == "ptx_prepareTransaction")
	case "ptx_sendTransactions", "ptx_prepareTransactions":
		if !p.Has(auth.RoleSubmit) {
			return nil, forbidden(auth.RoleSubmit)
		}
		var txs []Tx
		if e := params(req.Params, &txs); e != nil {
			return nil, e
		}
		if len(txs) == 0 || len(txs) > MaxBatch {
			return nil, invalid("params[0] must hold 1 to 1000 transactions")
		}
		for i, tx := range txs {
			if e := check(tx); e != nil {
				e.Message = fmt.Sprintf("transaction %d: %s", i, e.Message)
				return nil, e
			}
		}
		// every send is vetted before any is committed: a refused one
		// refuses the batch, and nothing of it is sent
		bal, vetted := balances{}, make([]pendingSend, 0, len(txs))
		for i, tx := range txs {
			ps, e := h.vet(ctx, p, tx, req.Method == "ptx_prepareTransactions", bal)
			if e != nil {
				e.Message = fmt.Sprintf("transaction %d: %s", i, e.Message)
				return nil, e
			}
			vetted = append(vetted, ps)
		}
		ids := make([]string, 0, len(txs))
		for i, ps := range vetted {
			id, e := h.commit(ctx, ps)
			if e != nil {
				e.Message = fmt.Sprintf("transaction %d (after %d committed: %v): %s", i, len(ids), ids, e.Message)
				return nil, e
			}
			ids = append(ids, id)
		}
		return ids, nil
	case "ptx_getTransaction", "ptx_getTransactionReceipt", "ptx_getTransactionFull", "ptx_getPreparedTransaction":
		if !p.Has(auth.RoleRead) {
			return nil, forbidden(auth.RoleRead)
		}
		var id string
		if e := params(req.Params, &id); e != nil {
			return nil, e
		}
		return h.byID(ctx, req.Method, id)
	case "ptx_call":
		if !p.Has(auth.RoleRead) {
			return nil, forbidden(auth.RoleRead)
		}
		var tx Tx
		if e := params(req.Params, &tx); e != nil {
			return nil, e
		}
		return h.privateCall(ctx, tx)
	case "ptx_queryTransactions":
		if !p.Has(auth.RoleRead) {
			return nil, forbidden(auth.RoleRead)
		}
		var q Query
		if e := params(req.Params, &q); e != nil {
			return nil, e
		}
		switch q.Status {
		case "", store.DistseqPending, store.DistseqConfirmed, store.DistseqReverted:
		default:
			return nil, invalid("status must be pending, confirmed or reverted")
		}
		if q.Limit < 0 || q.Limit > 1000 {
			return nil, invalid("limit must be from 0 (100) to 1000")
		}
		recs, err := h.B.Intents().DistseqIntents(ctx, store.DistseqIntentFilter{Status: q.Status, Contract: q.To, Limit: q.Limit})
		if err != nil {
			return nil, engineError(err)
		}
		out := make([]Transaction, len(recs))
		for i, r := range recs {
			out[i] = view(r)
		}
		return out, nil
	}
	return nil, &Error{Code: CodeMethodNotFound, Message: "no such method: " + req.Method}
}

// byID answers the reads of one transaction: null for an id this node
// does not know.
func (h Handler) byID(ctx context.Context, method, id string) (any, *Error) {
	rec, err := h.B.Intents().DistseqIntent(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	} else if err != nil {
		return nil, engineError(err)
	}
	switch method {
	case "ptx_getTransaction":
		return view(rec), nil
	case "ptx_getTransactionFull":
		return h.full(ctx, rec)
	case "ptx_getPreparedTransaction":
		return prepared(rec)
	}
	if r, ok := receipt(rec); ok {
		return r, nil
	}
	return nil, nil
}

// check refuses what no engine can take.
func check(tx Tx) *Error {
	switch {
	case tx.Type != "" && tx.Type != "private":
		return invalid(`type must be "private" (public transactions go through the sequencer's /v1/transactions)`)
	case tx.Domain != "" && tx.Domain != "token":
		return invalid(`domain must be "token", the one domain this node runs`)
	case tx.Function != "" && tx.Function != "transfer":
		return invalid(`function must be "transfer"`)
	case tx.To == "":
		return invalid("to must name the privacy group")
	case tx.From == "":
		return invalid("from must name the owner whose states this spends (name, or name@node of this node)")
	case len(tx.Data) == 0:
		return invalid("data must hold the intent")
	}
	return nil
}

// pendingSend is a send checked and ready to commit: its intent, its
// scoped key, and the id a key used before answers (then nothing is sent).
type pendingSend struct {
	tx      Tx
	intent  []byte
	key     string
	known   string
	prepare bool
}

// vet checks a send: from (an owner of this node the principal acts for,
// holding enough settled states), the key scoped to the principal (a key
// used before answers its id for the same content, a conflict for other
// content). Nothing is written.
func (h Handler) vet(ctx context.Context, p auth.Principal, tx Tx, prepare bool, bal balances) (pendingSend, *Error) {
	if e := check(tx); e != nil {
		return pendingSend{}, e
	}
	intent, e := h.intent(ctx, p, tx)
	if e != nil {
		return pendingSend{}, e
	}
	ps := pendingSend{tx: tx, intent: intent, key: scopedKey(p, tx.IdempotencyKey), prepare: prepare}
	if ps.key != "" {
		rec, err := h.B.Intents().DistseqIntentByKey(ctx, ps.key)
		switch {
		case err == nil && same(rec, tx.To, intent, prepare):
			ps.known = rec.TxID
			return ps, nil
		case err == nil:
			return pendingSend{}, conflict(tx.IdempotencyKey)
		case !errors.Is(err, store.ErrNotFound):
			return pendingSend{}, engineError(err)
		}
	}
	if e := h.funded(ctx, bal, tx.To, intent); e != nil {
		return pendingSend{}, e
	}
	return ps, nil
}

// commit commits a vetted send for the engine to dispatch or, with
// prepare, to hand back prepared.
func (h Handler) commit(ctx context.Context, ps pendingSend) (string, *Error) {
	if ps.known != "" {
		return ps.known, nil
	}
	submit := h.B.Submit
	if ps.prepare {
		submit = h.B.Prepare
	}
	id, err := submit(ctx, ps.tx.To, ps.key, ps.intent)
	if err != nil {
		return "", engineError(err)
	}
	if ps.key != "" {
		// a concurrent send with the key may have won: its content decides
		if rec, err := h.B.Intents().DistseqIntent(ctx, id); err == nil && !same(rec, ps.tx.To, ps.intent, ps.prepare) {
			return "", conflict(ps.tx.IdempotencyKey)
		}
	}
	return id, nil
}

// send is one vetted send, committed.
func (h Handler) send(ctx context.Context, p auth.Principal, tx Tx, prepare bool) (string, *Error) {
	ps, e := h.vet(ctx, p, tx, prepare, balances{})
	if e != nil {
		return "", e
	}
	return h.commit(ctx, ps)
}

func view(r store.DistseqIntent) Transaction {
	return Transaction{ID: r.TxID, IdempotencyKey: callerKey(r.IdempotencyKey), Type: "private", Domain: "token", To: r.Contract,
		Data: json.RawMessage(r.Payload), Status: r.Status, Reason: r.Reason, Created: r.CreatedAt}
}

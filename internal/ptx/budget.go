package ptx

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"

	"github.com/ordolabs/ordo/internal/auth"
)

// Answer budgets (issue 24): an answer is built call by call into one
// buffer, and its bytes are counted as each call's result is encoded. A
// call is run only when the answer has room left and the node-wide budget
// grants the answer a reservation first; a call past either budget is not
// run (nothing is read) and answers CodeBudget.
const (
	// DefaultMaxAnswerBytes bounds one answer (a call or a whole batch).
	DefaultMaxAnswerBytes = 8 << 20
	// DefaultMaxBuildingBytes bounds the answers being built at once on
	// the node, all requests together.
	DefaultMaxBuildingBytes = 64 << 20
	// CodeBudget is the JSON-RPC error of a call not run for want of
	// answer bytes; its data's code says which budget: BudgetAnswer or
	// BudgetNode.
	CodeBudget = -32005
	// BudgetAnswer: this answer reached its byte budget; ask again with
	// fewer calls or a lower limit.
	BudgetAnswer = "answer_budget"
	// BudgetNode: the node's budget for answers being built is in use by
	// other answers; ask again later.
	BudgetNode = "node_budget"
	// reserveAhead is what a call reserves of the node-wide budget before
	// it runs (its answer's room left, when less).
	reserveAhead = 256 << 10
)

// Budget is the node-wide byte budget of answers being built, shared by
// every request. Its zero value grants nothing: use NewBudget.
type Budget struct {
	mu        sync.Mutex
	max, used int64
}

// NewBudget returns a budget of max bytes (DefaultMaxBuildingBytes when
// max <= 0).
func NewBudget(max int64) *Budget {
	if max <= 0 {
		max = DefaultMaxBuildingBytes
	}
	return &Budget{max: max}
}

// defaultBudget is the node-wide budget of a Handler without one.
var defaultBudget = NewBudget(DefaultMaxBuildingBytes)

// take reserves n bytes, or reports false and reserves nothing.
func (b *Budget) take(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > b.max {
		return false
	}
	b.used += n
	return true
}

func (b *Budget) release(n int64) {
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
}

// InUse is the bytes reserved now by answers being built.
func (b *Budget) InUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// answer is one response being built. A batch's answers are written as
// each call's is encoded (only that one is held); a single call's is held
// until the end (a notification answers 204). sent counts the bytes
// answered so far, held what this answer reserved of the node-wide budget.
type answer struct {
	w     http.ResponseWriter
	one   []byte // a single call's answer, written at the end
	sent  int64
	max   int64
	pool  *Budget
	held  int64
	calls int
	batch bool
	// full: a call's answer did not fit; no later call runs.
	full bool
}

func (h Handler) newAnswer(w http.ResponseWriter, batch bool) *answer {
	a := &answer{w: w, max: h.MaxAnswerBytes, pool: h.Budget, batch: batch}
	if a.max <= 0 {
		a.max = DefaultMaxAnswerBytes
	}
	if a.pool == nil {
		a.pool = defaultBudget
	}
	return a
}

// reserve makes held at least n bytes.
func (a *answer) reserve(n int64) bool {
	if n <= a.held {
		return true
	}
	if !a.pool.take(n - a.held) {
		return false
	}
	a.held = n
	return true
}

// room is the bytes this answer may still take.
func (a *answer) room() int64 { return a.max - a.sent }

func budgetError(which string, limit int64) *Error {
	msg := "the answer reached its byte budget: this call was not run; send fewer calls or a lower limit"
	if which == BudgetNode {
		msg = "the node's budget for answers being built is in use: this call was not run; try again later"
	}
	return &Error{Code: CodeBudget, Message: msg, Data: map[string]any{"code": which, "limit": limit}}
}

// run runs one call within the budgets and answers it.
func (a *answer) run(ctx context.Context, h Handler, p auth.Principal, raw json.RawMessage) {
	req, bad := parseRequest(raw)
	if bad != nil {
		a.add(*bad)
		return
	}
	if a.full || a.room() <= 0 {
		a.refuse(req, budgetError(BudgetAnswer, a.max))
		return
	}
	if !a.reserve(min(reserveAhead, a.room())) {
		a.refuse(req, budgetError(BudgetNode, a.pool.max))
		return
	}
	defer a.free()
	res, rerr := h.dispatch(ctx, p, req)
	if len(req.ID) == 0 {
		return // a notification is run and not answered
	}
	resp := response{JSONRPC: "2.0", ID: req.ID, Error: rerr}
	if rerr == nil {
		if res == nil {
			res = json.RawMessage("null")
		}
		resp.Result = res
	}
	b, err := json.Marshal(resp)
	switch {
	case err != nil:
		a.add(response{JSONRPC: "2.0", ID: req.ID, Error: engineError(err)})
	case int64(len(b)) > a.room():
		a.full = true
		a.add(response{JSONRPC: "2.0", ID: req.ID, Error: budgetError(BudgetAnswer, a.max)})
	case !a.reserve(int64(len(b))):
		a.add(response{JSONRPC: "2.0", ID: req.ID, Error: budgetError(BudgetNode, a.pool.max)})
	default:
		a.emit(b)
	}
}

// free gives back what a batch's call held once its answer is written (a
// single call's is held until the end).
func (a *answer) free() {
	if a.batch {
		a.pool.release(a.held)
		a.held = 0
	}
}

// refuse answers a call not run (a notification gets nothing).
func (a *answer) refuse(req request, e *Error) {
	if len(req.ID) > 0 {
		a.add(response{JSONRPC: "2.0", ID: req.ID, Error: e})
	}
}

// add answers a call with a small answer (an error) whatever the
// budgets: every call is answered.
func (a *answer) add(r response) {
	b, _ := json.Marshal(r)
	a.emit(b)
}

// emit answers one call: a batch's is written now, a single call's kept
// for the end.
func (a *answer) emit(b []byte) {
	a.sent += int64(len(b))
	if !a.batch {
		a.one = b
		a.calls++
		return
	}
	if a.calls == 0 {
		a.w.Header().Set("Content-Type", "application/json")
		_, _ = a.w.Write([]byte{'['})
	} else {
		_, _ = a.w.Write([]byte{','})
		a.sent++
	}
	_, _ = a.w.Write(b)
	a.calls++
}

// finish ends the answer and gives its bytes back to the node-wide
// budget.
func (a *answer) finish() {
	defer func() { a.pool.release(a.held); a.held = 0 }()
	switch {
	case a.batch && a.calls == 0:
		write(a.w, []response{}) // only notifications: an empty array
	case a.batch:
		_, _ = a.w.Write([]byte("]\n"))
	case a.calls == 0:
		a.w.WriteHeader(http.StatusNoContent)
	default:
		a.w.Header().Set("Content-Type", "application/json")
		_, _ = a.w.Write(append(a.one, '\n'))
	}
}

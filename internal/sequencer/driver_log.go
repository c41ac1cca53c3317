package sequencer

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"strings"
	"time"

	"github.com/ordolabs/ordo/internal/store"
)

// Reason classes: the reason label of the retry and failure metrics, and the
// class attribute of their log lines. A short, bounded set: the full reason
// is in the log line and the record's history.
const (
	// ReasonDispatchError: the dispatch failed (the chain refused the send,
	// a worker answered with an error, ...).
	ReasonDispatchError = "dispatch_error"
	// ReasonNotIncluded: not included within the inclusion timeout.
	ReasonNotIncluded = "not_included"
	// ReasonFailedInclusion: included and failed on chain.
	ReasonFailedInclusion = "failed_inclusion"
	// ReasonDropped: the chain dropped the attempt, or lost it.
	ReasonDropped = "dropped"
	// ReasonRecovered: at a restart, the attempt in flight was not on chain.
	ReasonRecovered = "recovered"
	// ReasonPermanent: a dispatch error no retry can change.
	ReasonPermanent = "permanent"
	// ReasonAmbiguous: an attempt a remote worker never reported may have
	// landed: FAILED rather than risk a second application.
	ReasonAmbiguous = "ambiguous"
	// ReasonOther: a reason none of the above describes.
	ReasonOther = "other"
)

// reasonClass maps a retry's or a failure's note (the history entry's note,
// or a record's error) to its class.
func reasonClass(note string) string {
	switch {
	case strings.HasPrefix(note, "dispatch error"):
		return ReasonDispatchError
	case strings.HasPrefix(note, "not included within"):
		return ReasonNotIncluded
	case strings.HasPrefix(note, "failed at inclusion"):
		return ReasonFailedInclusion
	case strings.HasPrefix(note, "dropped"):
		return ReasonDropped
	case strings.HasPrefix(note, "recovered"):
		return ReasonRecovered
	case strings.HasPrefix(note, "not retried"), strings.HasPrefix(note, "failed: the dispatch can never succeed"):
		return ReasonPermanent
	case strings.HasPrefix(note, "ambiguous"):
		return ReasonAmbiguous
	}
	return ReasonOther
}

// failureClass is the class of a FAILED transition: its note, or, when the
// note only says the retries ran out, the record's error (the last retry's
// reason).
func failureClass(note, recErr string) string {
	if c := reasonClass(note); c != ReasonOther {
		return c
	}
	if strings.HasPrefix(recErr, "not retried") || strings.HasPrefix(recErr, "ambiguous") {
		return reasonClass(recErr)
	}
	if strings.HasPrefix(note, "failed after") {
		return reasonClass(recErr)
	}
	return ReasonOther
}

// batchView is what observe knows of one committed batch: the records it
// changed, as the core holds them (Core.Lookup) or held them when their pure
// hooks ran (Loop.ended), or read from the store when neither has one, on
// demand (only the exceptional paths need them:
// retries, failures, dispatch errors), at most once per record.
type batchView struct {
	ctx context.Context
	n   *Node
	c   *Core
	// ended are the records whose pure hooks ran on the loop (Loop.ended):
	// the core holds them no longer.
	ended map[string]store.Transaction
	b     store.Batch
	recs  map[string]*store.Transaction
	errs  map[string]string // the last error the batch writes, by uid
}

func (n *Node) newBatchView(ctx context.Context, c *Core, ended map[string]store.Transaction, b store.Batch) *batchView {
	v := &batchView{ctx: ctx, n: n, c: c, ended: ended, b: b, errs: map[string]string{}}
	for _, u := range b.Txs {
		v.errs[u.UID] = u.Error
	}
	return v
}

// rec returns uid's record as committed; a record the store cannot read is
// returned empty (its type then reads "unknown").
func (v *batchView) rec(uid string) *store.Transaction {
	if t, ok := v.recs[uid]; ok {
		return t
	}
	if v.recs == nil {
		v.recs = map[string]*store.Transaction{}
	}
	t, ok := v.c.Lookup(uid)
	if !ok {
		t, ok = v.ended[uid]
	}
	if !ok {
		var err error
		if t, err = v.n.cfg.Store.Get(v.ctx, uid); err != nil {
			t = store.Transaction{UID: uid}
		}
	}
	v.recs[uid] = &t
	return &t
}

// typeOf returns uid's type, "unknown" when it cannot be read.
func (v *batchView) typeOf(uid string) string {
	if t := v.rec(uid).Type; t != "" {
		return t
	}
	return "unknown"
}

// sender returns the sender of uid's last attempt.
func (v *batchView) sender(uid string) string {
	if as := v.rec(uid).Attempts; len(as) > 0 {
		return as[len(as)-1].Sender
	}
	return ""
}

// prevFee returns the fee of uid's attempt before attempt n, and false when
// there is none.
func (v *batchView) prevFee(uid string, n int) (uint64, bool) {
	for _, a := range v.rec(uid).Attempts {
		if a.N == n-1 {
			return a.Fee, true
		}
	}
	return 0, false
}

func (v *batchView) enabled(l slog.Level) bool { return v.n.log.Enabled(v.ctx, l) }

// logAttempts logs the batch's attempt writes: every dispatch error (warn)
// and every new attempt of a retry with its fee (info); a first attempt at
// debug.
func (v *batchView) logAttempts() {
	type attemptKey struct {
		uid string
		n   int
	}
	var planned map[attemptKey]bool
	for _, u := range v.b.Txs {
		a := u.Attempt
		if a == nil {
			continue
		}
		switch {
		case a.Outcome == store.OutcomeError && v.enabled(slog.LevelWarn):
			r := v.rec(u.UID)
			v.n.log.Warn("dispatch error", "uid", u.UID, "queue", r.Queue, "sender", a.Sender, "type", v.typeOf(u.UID),
				"attempt", a.N, "nonce", a.Nonce, "fee", a.Fee, "err", a.Error)
		case a.Outcome == store.OutcomeNone && a.Hash == "":
			// A planned attempt (its hash, when signed here, follows in
			// another write of the same attempt).
			key := attemptKey{u.UID, a.N}
			if planned[key] {
				continue
			}
			if planned == nil {
				planned = map[attemptKey]bool{}
			}
			planned[key] = true
			if a.N == 1 {
				if v.enabled(slog.LevelDebug) {
					v.n.log.Debug("dispatching", "uid", u.UID, "queue", v.rec(u.UID).Queue, "sender", a.Sender, "attempt", a.N, "nonce", a.Nonce, "fee", a.Fee)
				}
				continue
			}
			if !v.enabled(slog.LevelInfo) {
				continue
			}
			args := []any{"uid", u.UID, "queue", v.rec(u.UID).Queue, "sender", a.Sender, "type", v.typeOf(u.UID),
				"attempt", a.N, "nonce", a.Nonce, "fee", a.Fee}
			if p, ok := v.prevFee(u.UID, a.N); ok {
				args = append(args, "prevFee", p)
			}
			args = append(args, "reason", u.Error)
			v.n.log.Info("retry attempt", args...)
		}
	}
}

// logRetry logs a move to RETRY (warn).
func (v *batchView) logRetry(h store.HistoryEntry, class string) {
	if !v.enabled(slog.LevelWarn) {
		return
	}
	r := v.rec(h.UID)
	v.n.log.Warn("transaction retry", "uid", h.UID, "queue", r.Queue, "sender", v.sender(h.UID), "type", v.typeOf(h.UID),
		"retries", r.Retries, "reason", h.Note, "class", class)
}

// logFailed logs a move to FAILED (error).
func (v *batchView) logFailed(h store.HistoryEntry, class string) {
	if !v.enabled(slog.LevelError) {
		return
	}
	r := v.rec(h.UID)
	v.n.log.Error("transaction failed", "uid", h.UID, "queue", r.Queue, "sender", v.sender(h.UID), "type", v.typeOf(h.UID),
		"retries", r.Retries, "attempts", len(r.Attempts), "class", class, "reason", h.Note, "err", v.errs[h.UID])
}

// logDone logs a move to DONE (debug).
func (v *batchView) logDone(h store.HistoryEntry, blocks uint64, known bool) {
	if !v.enabled(slog.LevelDebug) {
		return
	}
	r := v.rec(h.UID)
	args := []any{"uid", h.UID, "queue", r.Queue, "sender", v.sender(h.UID), "attempts", len(r.Attempts)}
	if known {
		args = append(args, "blocks", blocks)
	}
	v.n.log.Debug("transaction done", args...)
}

// isTimeout reports whether err is a timeout (a deadline that passed, or a
// network timeout).
func isTimeout(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// logWorkerTimeout logs a dispatcher call that timed out (warn): a remote
// worker's (a sender's worker, named by its URL, or a type's worker), or an
// in-process dispatcher's. call is build, dispatch, onSuccess or onFailure.
func (n *Node) logWorkerTimeout(ctx context.Context, e Effect, d Dispatcher, call string, took time.Duration, err error) {
	if ctx.Err() != nil || !isTimeout(err) {
		return // not a timeout, or the node is stopping
	}
	worker := e.Worker
	for _, s := range n.cfg.Senders {
		if worker == "" && string(s.ID) == e.Sender.AccountID {
			worker = s.Worker
		}
	}
	if m := n.cfg.Metrics; m != nil {
		m.WorkerTimeouts.WithLabelValues(call).Inc()
	}
	msg := "remote worker timed out"
	if worker == "" && !isRemote(d) {
		msg = "dispatcher timed out"
	}
	n.log.Warn(msg, "uid", e.UID, "queue", e.Queue, "sender", e.Sender.AccountID, "type", e.Txn.Type, "worker", worker,
		"call", call, "attempt", e.Attempt, "took", took.Round(time.Millisecond), "err", err)
}

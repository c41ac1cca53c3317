package sqlite

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ordolabs/ordo/internal/store"
)

// AdoptLog implements store.ReplicaStore, as one request of the committer:
// the records it creates commit together, with the ChangeFinal entries of
// the applied ones. The intents are inserted in log order by Enqueue's own
// code (enqueue, without logging), so they take their Seq in that order
// and the WAITING ones are reported to the Notifier with the group's
// commit. A final one is then set to its state, result or error, with a
// history entry WAITING → DONE/FAILED (note adoptNote) at its final
// change's At (now for an applied one, whose ChangeFinal is sealed under
// the set's current Version). An intent whose idempotency key another uid
// holds is left out, as one whose uid the store holds. It refuses, writing
// nothing, a queue whose held set does not name this node primary
// (ErrNotPrimary), a log entry that does not decode, and an applied result
// that is not JSON.
func (s *Store) AdoptLog(ctx context.Context, queue string, applied map[string]json.RawMessage) ([]string, error) {
	if queue == "" {
		return nil, errors.New("sqlite: adopt log: empty queue")
	}
	for uid, res := range applied {
		if len(res) > 0 && !json.Valid(res) {
			return nil, fmt.Errorf("sqlite: adopt log %s: result of %s is not JSON", queue, uid)
		}
	}
	var waiting []string
	_, err := s.submitReplica(ctx, 1, func(ctx context.Context, r *request) error {
		waiting = nil
		res, err := s.adopt(ctx, queue, applied)
		r.results = res
		for _, e := range res {
			waiting = append(waiting, e.Transaction.UID)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if waiting == nil {
		waiting = []string{}
	}
	return waiting, nil
}

// adopt is AdoptLog in the group's transaction; it returns the records it
// created WAITING.
func (s *Store) adopt(ctx context.Context, queue string, applied map[string]json.RawMessage) ([]store.EnqueueResult, error) {
	p := s.rep.self.Load()
	if err := s.loadSets(ctx); err != nil {
		return nil, err
	}
	set, ok := s.rep.sets[queue]
	if p == nil || *p == "" || !ok || set.Primary != *p {
		return nil, unwritten(fmt.Errorf("sqlite: adopt log %s: %w", queue, ErrNotPrimary))
	}
	changes, err := s.logChanges(ctx, queue)
	if err != nil {
		return nil, err
	}
	finals := map[string]store.Change{}
	for _, c := range changes {
		if _, dup := finals[c.UID]; c.Op == store.ChangeFinal && !dup {
			finals[c.UID] = c
		}
	}
	var out []store.EnqueueResult
	for _, c := range changes {
		if c.Op != store.ChangeIntent {
			continue
		}
		_, _, held, err := s.txQueueState(ctx, c.UID)
		if err != nil {
			return nil, err
		}
		if held {
			continue
		}
		res, err := s.enqueue(ctx, []store.NewTransaction{{UID: c.UID, Queue: queue, Type: c.Type, Data: c.Data,
			Principal: c.Principal, IdempotencyKey: c.IdempotencyKey, At: c.At}}, false)
		if err != nil {
			return nil, fmt.Errorf("sqlite: adopt log %s: %w", queue, err)
		}
		if !res[0].Created {
			continue // its idempotency key is another uid's
		}
		f, final := finals[c.UID]
		result, wasApplied := applied[c.UID]
		switch {
		case final:
		case wasApplied:
			f = store.Change{Op: store.ChangeFinal, UID: c.UID, State: store.Done, Result: result, At: time.Unix(0, s.at(time.Time{})).UTC()}
		default:
			out = append(out, res[0])
			continue
		}
		if err := s.finalize(ctx, f); err != nil {
			return nil, fmt.Errorf("sqlite: adopt log %s: %w", queue, err)
		}
		if !final {
			if err := s.logChange(ctx, set, f); err != nil {
				return nil, fmt.Errorf("sqlite: adopt log %s: %w", queue, err)
			}
		}
	}
	return out, nil
}

// logChanges reads and decodes a queue's whole log, in clock order.
func (s *Store) logChanges(ctx context.Context, queue string) ([]store.Change, error) {
	st, err := s.repStmt(ctx, repLogPayloads)
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(ctx, queue)
	if err != nil {
		return nil, fmt.Errorf("sqlite: adopt log %s: %w", queue, err)
	}
	payloads, err := collectRows(rows, func(r scanner) ([]byte, error) {
		var p []byte
		err := r.Scan(&p)
		return p, err
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite: adopt log %s: %w", queue, err)
	}
	out := make([]store.Change, 0, len(payloads))
	for i, p := range payloads {
		c, err := store.DecodeChange(p)
		if err != nil {
			return nil, unwritten(fmt.Errorf("sqlite: adopt log %s: entry %d: %w", queue, i+1, err))
		}
		out = append(out, c)
	}
	return out, nil
}

// finalize moves a record AdoptLog has just created WAITING to f's final
// state, with its history entry.
func (s *Store) finalize(ctx context.Context, f store.Change) error {
	at := s.at(f.At)
	upd, err := s.repStmt(ctx, repFinalize)
	if err != nil {
		return err
	}
	if _, err := upd.ExecContext(ctx, string(f.State), blob(f.Result), f.Error, at, f.UID); err != nil {
		return fmt.Errorf("tx %s: %w", f.UID, err)
	}
	hist, err := s.repStmt(ctx, repHistory)
	if err != nil {
		return err
	}
	if _, err := hist.ExecContext(ctx, f.UID, at, string(store.Waiting), string(f.State), adoptNote); err != nil {
		return fmt.Errorf("tx %s: history: %w", f.UID, err)
	}
	return nil
}

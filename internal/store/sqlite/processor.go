package sqlite

import (
	"context"
	"fmt"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/writeq"
)

// The processor's records (store.ProcessorStore), on the same database and
// through the same committer as the sequencer's: an ApplyProcessor is one
// more request kind, so it shares group commits with Enqueue and Apply and
// stays atomic on its own (a refused one is undone alone, see commit).

var _ store.ProcessorStore = (*Store)(nil)

// Column lists, in the order the writes bind and the reads scan them.
const (
	processorCols = `name, owner, callback_url, auto_tick, lanes, paused, next_id, next_callback, created_at, updated_at`
	procBatchCols = `processor, id, priority, state, key, body, created_at, updated_at`
	callbackCols  = `processor, seq, batch_id, key, body, state, attempts, next_at, last_error, delivered_at, created_at`
)

// procChunkSQL is the multi-row upsert of a processor record kind, with v
// its VALUES rows. Rows are written in order, so where a statement names a
// key twice the later row wins.
func procChunkSQL(k rowKind, v string) string {
	switch k {
	case kindUpsertProcessor:
		return `INSERT INTO processors (` + processorCols + `) VALUES ` + v + `
			ON CONFLICT (name) DO UPDATE SET
				owner = excluded.owner, callback_url = excluded.callback_url,
				auto_tick = excluded.auto_tick, lanes = excluded.lanes, paused = excluded.paused,
				next_id = excluded.next_id, next_callback = excluded.next_callback,
				created_at = excluded.created_at, updated_at = excluded.updated_at`
	case kindUpsertProcBatch:
		return `INSERT INTO proc_batches (` + procBatchCols + `) VALUES ` + v + `
			ON CONFLICT (processor, id) DO UPDATE SET
				priority = excluded.priority, state = excluded.state, key = excluded.key,
				body = excluded.body, created_at = excluded.created_at, updated_at = excluded.updated_at`
	case kindUpsertCallback:
		return `INSERT INTO proc_callbacks (` + callbackCols + `) VALUES ` + v + `
			ON CONFLICT (processor, seq) DO UPDATE SET
				batch_id = excluded.batch_id, key = excluded.key, body = excluded.body,
				state = excluded.state, attempts = excluded.attempts, next_at = excluded.next_at,
				last_error = excluded.last_error, delivered_at = excluded.delivered_at,
				created_at = excluded.created_at`
	case kindUpsertCursor:
		return `INSERT INTO cursors (name, value) VALUES ` + v + `
			ON CONFLICT (name) DO UPDATE SET value = excluded.value`
	default: // not a processor record: the panic below
	}
	panic(fmt.Sprintf("sqlite: row kind %d is not a processor record", k))
}

// ApplyProcessor implements store.ProcessorStore: c commits atomically,
// through the committer. Changes that are invalid on their face (an empty
// key, Seq below 1, an unknown state) are refused before they reach it; a
// callback Key held by another callback is refused by the database. Either
// way the call fails and writes nothing. Empty changes return ctx.Err().
func (s *Store) ApplyProcessor(ctx context.Context, c store.ProcChanges) error {
	if c.Empty() {
		return ctx.Err()
	}
	if err := c.Validate(); err != nil {
		return fmt.Errorf("sqlite: apply processor: %w", err)
	}
	w := len(c.Processors) + len(c.Batches) + len(c.Callbacks) + len(c.Cursors)
	r := &request{Req: writeq.NewReq(ctx, w), proc: &c}
	return s.q.Submit(ctx, r)
}

// applyProc writes c's records, kind by kind, each kind in c's order. Only
// the committer calls it, inside a group's transaction.
func (s *Store) applyProc(ctx context.Context, c *store.ProcChanges) error {
	if err := s.writeRows(ctx, kindUpsertProcessor, len(c.Processors), func(i int, args []any) []any {
		p := &c.Processors[i]
		return append(args, p.Name, p.Owner, p.CallbackURL, int64(p.AutoTick), p.Lanes, p.Paused,
			p.NextID, p.NextCallback, nanos(p.CreatedAt), nanos(p.UpdatedAt))
	}, func(i int) string { return "processor " + c.Processors[i].Name }); err != nil {
		return err
	}
	if err := s.writeRows(ctx, kindUpsertProcBatch, len(c.Batches), func(i int, args []any) []any {
		b := &c.Batches[i]
		return append(args, b.Processor, b.ID, b.Priority, string(b.State), b.Key, blob(b.Body),
			nanos(b.CreatedAt), nanos(b.UpdatedAt))
	}, func(i int) string { return "batch " + c.Batches[i].Processor + "/" + c.Batches[i].ID }); err != nil {
		return err
	}
	if err := s.writeRows(ctx, kindUpsertCallback, len(c.Callbacks), func(i int, args []any) []any {
		cb := &c.Callbacks[i]
		return append(args, cb.Processor, cb.Seq, cb.BatchID, nullString(cb.Key), blob(cb.Body),
			string(cb.State), cb.Attempts, nanos(cb.NextAt), cb.LastError, nanos(cb.DeliveredAt),
			nanos(cb.CreatedAt))
	}, func(i int) string {
		return fmt.Sprintf("callback %s/%d (key %q)", c.Callbacks[i].Processor, c.Callbacks[i].Seq, c.Callbacks[i].Key)
	}); err != nil {
		return err
	}
	return s.writeRows(ctx, kindUpsertCursor, len(c.Cursors), func(i int, args []any) []any {
		cu := &c.Cursors[i]
		return append(args, cu.Name, int64(cu.Value))
	}, func(i int) string { return "cursor " + c.Cursors[i].Name })
}

package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/ordolabs/ordo/internal/store"
)

// The processor's records (store.ProcessorStore, seed 002), on the same
// database and through the same committer as the sequencer's: an
// ApplyProcessor is one request (Store.write), so it shares group commits
// with Enqueue, Apply and the other engines' writes and stays atomic on its
// own (a refused one is undone alone, see committer.go).
//
// Each kind of record is written with one multi-row upsert (unnest of
// arrays) per run of rows in which no key repeats (engRuns), the statements
// of a call sent in one pgx.Batch: kind by kind, each kind in the call's
// order, so a later record of a key wins and the rows are written in the
// order SQLite writes them (a key given up earlier in a call may be taken
// later in it). The helpers below serve the leader's and the distributed
// sequencer's writes too.

var _ store.ProcessorStore = (*Store)(nil)

// Column lists, in the order the writes bind and the reads scan them.
const (
	processorCols = `name, owner, callback_url, auto_tick, lanes, paused, next_id, next_callback, created_at, updated_at`
	procBatchCols = `processor, id, priority, state, key, body, created_at, updated_at`
	callbackCols  = `processor, seq, batch_id, key, body, state, attempts, next_at, last_error, delivered_at, created_at`
)

// The processor's upserts; each reads its rows from unnest in the order
// given (a run's keys are distinct, see engRuns).
const (
	procUpsertProcessorsSQL = `INSERT INTO processors (` + processorCols + `)
		SELECT v.name, v.owner, v.url, v.tick, v.lanes, v.paused, v.next_id, v.next_cb, v.created, v.updated
		FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[],
			$7::bigint[], $8::bigint[], $9::bigint[], $10::bigint[])
			WITH ORDINALITY AS v(name, owner, url, tick, lanes, paused, next_id, next_cb, created, updated, o)
		ORDER BY v.o
		ON CONFLICT (name) DO UPDATE SET
			owner = excluded.owner, callback_url = excluded.callback_url,
			auto_tick = excluded.auto_tick, lanes = excluded.lanes, paused = excluded.paused,
			next_id = excluded.next_id, next_callback = excluded.next_callback,
			created_at = excluded.created_at, updated_at = excluded.updated_at`
	procUpsertBatchesSQL = `INSERT INTO proc_batches (` + procBatchCols + `)
		SELECT v.processor, v.id, v.priority, v.state, v.key, v.body, v.created, v.updated
		FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bytea[],
			$7::bigint[], $8::bigint[])
			WITH ORDINALITY AS v(processor, id, priority, state, key, body, created, updated, o)
		ORDER BY v.o
		ON CONFLICT (processor, id) DO UPDATE SET
			priority = excluded.priority, state = excluded.state, key = excluded.key,
			body = excluded.body, created_at = excluded.created_at, updated_at = excluded.updated_at`
	procUpsertCallbacksSQL = `INSERT INTO proc_callbacks (` + callbackCols + `)
		SELECT v.processor, v.seq, v.batch_id, v.key, v.body, v.state, v.attempts, v.next_at,
			v.last_error, v.delivered, v.created
		FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::bytea[], $6::text[],
			$7::bigint[], $8::bigint[], $9::text[], $10::bigint[], $11::bigint[])
			WITH ORDINALITY AS v(processor, seq, batch_id, key, body, state, attempts, next_at,
				last_error, delivered, created, o)
		ORDER BY v.o
		ON CONFLICT (processor, seq) DO UPDATE SET
			batch_id = excluded.batch_id, key = excluded.key, body = excluded.body,
			state = excluded.state, attempts = excluded.attempts, next_at = excluded.next_at,
			last_error = excluded.last_error, delivered_at = excluded.delivered_at,
			created_at = excluded.created_at`
	// engUpsertCursorsSQL writes cursors, the processor's and the leader's.
	engUpsertCursorsSQL = `INSERT INTO cursors (name, value)
		SELECT v.name, v.value FROM unnest($1::text[], $2::bigint[]) WITH ORDINALITY AS v(name, value, o)
		ORDER BY v.o
		ON CONFLICT (name) DO UPDATE SET value = excluded.value`
)

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
		return fmt.Errorf("postgres: apply processor: %w", err)
	}
	w := len(c.Processors) + len(c.Batches) + len(c.Callbacks) + len(c.Cursors)
	var b engBatch
	queueProc(&b, &c)
	return s.write(ctx, w, fenced(c.Fence, b.send))
}

// queueProc queues c's statements on b, kind by kind. The arrays are built
// here, once: a rerun of the group sends the same statements again.
func queueProc(b *engBatch, c *store.ProcChanges) {
	for _, r := range engRuns(len(c.Processors), func(i int) string { return c.Processors[i].Name }) {
		ps := c.Processors[r[0]:r[1]]
		n := len(ps)
		names, owners, urls := make([]string, n), make([]string, n), make([]string, n)
		ticks, lanes, paused, nextIDs, nextCbs := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
		created, updated := make([]*int64, n), make([]*int64, n)
		for i := range ps {
			p := &ps[i]
			names[i], owners[i], urls[i] = p.Name, p.Owner, p.CallbackURL
			ticks[i], lanes[i], paused[i], nextIDs[i], nextCbs[i] = int64(p.AutoTick), int64(p.Lanes), b2i(p.Paused), p.NextID, p.NextCallback
			created[i], updated[i] = nanos(p.CreatedAt), nanos(p.UpdatedAt)
		}
		b.queue(engWrap("apply processor: processors"), procUpsertProcessorsSQL,
			names, owners, urls, ticks, lanes, paused, nextIDs, nextCbs, created, updated)
	}
	for _, r := range engRuns(len(c.Batches), func(i int) [2]string { return [2]string{c.Batches[i].Processor, c.Batches[i].ID} }) {
		bs := c.Batches[r[0]:r[1]]
		n := len(bs)
		procs, ids, prios, states := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		keys, bodies := make([]int64, n), make([][]byte, n)
		created, updated := make([]*int64, n), make([]*int64, n)
		for i := range bs {
			pb := &bs[i]
			procs[i], ids[i], prios[i], states[i] = pb.Processor, pb.ID, pb.Priority, string(pb.State)
			keys[i], bodies[i] = pb.Key, blob(pb.Body)
			created[i], updated[i] = nanos(pb.CreatedAt), nanos(pb.UpdatedAt)
		}
		b.queue(engWrap("apply processor: batches"), procUpsertBatchesSQL,
			procs, ids, prios, states, keys, bodies, created, updated)
	}
	type cbKey struct {
		p   string
		seq int64
	}
	for _, r := range engRuns(len(c.Callbacks), func(i int) cbKey { return cbKey{c.Callbacks[i].Processor, c.Callbacks[i].Seq} }) {
		cs := c.Callbacks[r[0]:r[1]]
		n := len(cs)
		procs, batchIDs, states, lastErrs := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		seqs, attempts := make([]int64, n), make([]int64, n)
		keys, bodies := make([]*string, n), make([][]byte, n)
		nextAt, delivered, created := make([]*int64, n), make([]*int64, n), make([]*int64, n)
		for i := range cs {
			cb := &cs[i]
			procs[i], seqs[i], batchIDs[i], keys[i], bodies[i] = cb.Processor, cb.Seq, cb.BatchID, nullString(cb.Key), blob(cb.Body)
			states[i], attempts[i], nextAt[i], lastErrs[i] = string(cb.State), int64(cb.Attempts), nanos(cb.NextAt), cb.LastError
			delivered[i], created[i] = nanos(cb.DeliveredAt), nanos(cb.CreatedAt)
		}
		b.queue(engWrap("apply processor: callbacks"), procUpsertCallbacksSQL,
			procs, seqs, batchIDs, keys, bodies, states, attempts, nextAt, lastErrs, delivered, created)
	}
	queueCursors(b, "apply processor", c.Cursors)
}

// queueCursors queues the upserts of cs on b.
func queueCursors(b *engBatch, what string, cs []store.Cursor) {
	for _, r := range engRuns(len(cs), func(i int) string { return cs[i].Name }) {
		run := cs[r[0]:r[1]]
		names, values := make([]string, len(run)), make([]int64, len(run))
		for i := range run {
			names[i], values[i] = run[i].Name, int64(run[i].Value)
		}
		b.queue(engWrap(what+": cursors"), engUpsertCursorsSQL, names, values)
	}
}

// engBatch is the statements of one engine write, sent in one pgx.Batch
// (one round trip), each with the wrapping of its error.
type engBatch struct {
	stmts []engStmt
}

type engStmt struct {
	sql  string
	args []any
	wrap func(error) error
}

func (b *engBatch) queue(wrap func(error) error, sql string, args ...any) {
	b.stmts = append(b.stmts, engStmt{sql: sql, args: args, wrap: wrap})
}

// send runs b's statements in tx, in order, stopping at the first error.
// It is a committer request's run function: it may run again (a rerun of
// its group), and sends the same statements each time, in a new pgx.Batch
// (pgx keeps the prepared statement of each queued query in the Batch; a
// failed batch deallocates them).
func (b *engBatch) send(ctx context.Context, tx wtx) error {
	if len(b.stmts) == 0 {
		return nil
	}
	var pb pgx.Batch
	for _, st := range b.stmts {
		pb.Queue(st.sql, st.args...)
	}
	br := tx.SendBatch(ctx, &pb)
	for _, st := range b.stmts {
		if _, err := br.Exec(); err != nil {
			_ = br.Close()
			return st.wrap(err)
		}
	}
	if err := br.Close(); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	return nil
}

// engWrap wraps a statement's error with what it wrote.
func engWrap(what string) func(error) error {
	return func(err error) error { return fmt.Errorf("postgres: %s: %w", what, err) }
}

// engRuns splits n rows into runs of consecutive rows in which no key
// repeats: half-open index ranges, in order, covering the rows. An upsert
// may not touch a row twice in one statement; a statement per run keeps
// the rows' order and lets the later record of a key win.
func engRuns[K comparable](n int, key func(i int) K) [][2]int {
	if n == 0 {
		return nil
	}
	var runs [][2]int
	seen := make(map[K]struct{}, n)
	start := 0
	for i := range n {
		k := key(i)
		if _, dup := seen[k]; dup {
			runs = append(runs, [2]int{start, i})
			clear(seen)
			start = i
		}
		seen[k] = struct{}{}
	}
	return append(runs, [2]int{start, n})
}

// b2i stores a bool in a BIGINT column (0 or 1), as SQLite's INTEGER.
func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

package postgres

import (
	"context"
	"fmt"

	"github.com/ordolabs/ordo/internal/store"
)

// The leader's records (store.LeaderStore, seed 001), on the same database
// and through the same committer as the others: an ApplyLeader is one
// request, so it shares group commits with the other engines' writes and
// stays atomic on its own (a refused one is undone alone).
//
// Schema (migrations/0004_leader.sql): leader_events, PRIMARY KEY id (the
// event's chain cursor), upserted, never deleted, walk UNIQUE, so the
// database itself holds a walk to one id; indexes (status, id) for
// LeaderEvents by status and LeaderCounts, partial (id) WHERE status IN
// ('Queued', 'Active') for the snapshot. leader_channels, PRIMARY KEY idx,
// upserted. The cursors are rows of 0003's cursors table, shared with the
// processor (the names keep them apart).
//
// Invariants, as SQLite's:
//   - an acknowledged ApplyLeader is committed; a failed one wrote nothing;
//   - within a call records are written in order, kind by kind (events,
//     channels, cursors), so the later record of a key wins;
//   - ApplyLeader refuses an event with an ID below 1 or an empty Walk or a
//     Status not one of the four, a channel with a negative Index, a cursor
//     with an empty Name, and an event whose Walk another ID holds (in the
//     store, or earlier in the same call): the last with an error wrapping
//     store.ErrWalkIndexed.

var _ store.LeaderStore = (*Store)(nil)

// Column lists, in the order the writes bind and the reads scan them.
const (
	leaderEventCols = `id, walk, tool, digest, json, height, status, retried, error, phase, ok, output,
		channel, result_uid, reports, active_at, created_at, updated_at`
	leaderChannelCols = `idx, account, blocked_until, last_error, updated_at`
)

// The leader's upserts (a run's keys are distinct, see engRuns).
const (
	leaderUpsertEventsSQL = `INSERT INTO leader_events (` + leaderEventCols + `)
		SELECT v.id, v.walk, v.tool, v.digest, v.json, v.height, v.status, v.retried, v.error, v.phase,
			v.ok, v.output, v.channel, v.result_uid, v.reports, v.active_at, v.created_at, v.updated_at
		FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::bytea[], $6::bigint[],
			$7::text[], $8::bigint[], $9::text[], $10::text[], $11::bigint[], $12::bytea[],
			$13::bigint[], $14::text[], $15::bigint[], $16::bigint[], $17::bigint[], $18::bigint[])
			WITH ORDINALITY AS v(id, walk, tool, digest, json, height, status, retried, error, phase,
				ok, output, channel, result_uid, reports, active_at, created_at, updated_at, o)
		ORDER BY v.o
		ON CONFLICT (id) DO UPDATE SET
			walk = excluded.walk, tool = excluded.tool, digest = excluded.digest,
			json = excluded.json, height = excluded.height, status = excluded.status,
			retried = excluded.retried, error = excluded.error, phase = excluded.phase,
			ok = excluded.ok, output = excluded.output, channel = excluded.channel,
			result_uid = excluded.result_uid, reports = excluded.reports, active_at = excluded.active_at,
			created_at = excluded.created_at, updated_at = excluded.updated_at`
	leaderUpsertChannelsSQL = `INSERT INTO leader_channels (` + leaderChannelCols + `)
		SELECT v.idx, v.account, v.blocked, v.last_error, v.updated
		FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[], $5::bigint[])
			WITH ORDINALITY AS v(idx, account, blocked, last_error, updated, o)
		ORDER BY v.o
		ON CONFLICT (idx) DO UPDATE SET
			account = excluded.account, blocked_until = excluded.blocked_until,
			last_error = excluded.last_error, updated_at = excluded.updated_at`
)

// ApplyLeader implements store.LeaderStore: c commits atomically, through
// the committer. Changes that are invalid on their face (see the
// invariants above) are refused before they reach it; an event whose walk
// another id holds is refused by the database, with an error wrapping
// store.ErrWalkIndexed. Either way the call fails and writes nothing. Empty
// changes return ctx.Err().
func (s *Store) ApplyLeader(ctx context.Context, c store.LeaderChanges) error {
	if c.Empty() {
		return ctx.Err()
	}
	if err := c.Validate(); err != nil {
		return fmt.Errorf("postgres: apply leader: %w", err)
	}
	w := len(c.Events) + len(c.Channels) + len(c.Cursors)
	var b engBatch
	queueLeader(&b, &c)
	return s.write(ctx, w, fenced(c.Fence, b.send))
}

// walkWrap wraps an event upsert's error: a unique violation is the walk's
// (the primary key's conflict is the upsert's target), store.ErrWalkIndexed.
func walkWrap(err error) error {
	if isCode(err, codeUnique) {
		return fmt.Errorf("postgres: apply leader: events: %w: %w", store.ErrWalkIndexed, err)
	}
	return fmt.Errorf("postgres: apply leader: events: %w", err)
}

// queueLeader queues c's statements on b, kind by kind.
func queueLeader(b *engBatch, c *store.LeaderChanges) {
	for _, r := range engRuns(len(c.Events), func(i int) int64 { return c.Events[i].ID }) {
		es := c.Events[r[0]:r[1]]
		n := len(es)
		ids, heights, retried, oks, channels, reports := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
		walks, tools, digests, statuses := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		errs, phases, resultUIDs := make([]string, n), make([]string, n), make([]string, n)
		jsons, outputs := make([][]byte, n), make([][]byte, n)
		active, created, updated := make([]*int64, n), make([]*int64, n), make([]*int64, n)
		for i := range es {
			e := &es[i]
			ids[i], walks[i], tools[i], digests[i], jsons[i] = e.ID, e.Walk, e.Tool, e.Digest, blob(e.JSON)
			heights[i], statuses[i], retried[i], errs[i], phases[i] = int64(e.Height), string(e.Status), int64(e.Retried), e.Error, e.Phase
			oks[i], outputs[i], channels[i], resultUIDs[i], reports[i] = b2i(e.OK), blob(e.Output), int64(e.Channel), e.ResultUID, int64(e.Reports)
			active[i], created[i], updated[i] = nanos(e.ActiveAt), nanos(e.CreatedAt), nanos(e.UpdatedAt)
		}
		b.queue(walkWrap, leaderUpsertEventsSQL, ids, walks, tools, digests, jsons, heights, statuses,
			retried, errs, phases, oks, outputs, channels, resultUIDs, reports, active, created, updated)
	}
	for _, r := range engRuns(len(c.Channels), func(i int) int { return c.Channels[i].Index }) {
		cs := c.Channels[r[0]:r[1]]
		n := len(cs)
		idxs, blocked, updated := make([]int64, n), make([]*int64, n), make([]*int64, n)
		accounts, lastErrs := make([]string, n), make([]string, n)
		for i := range cs {
			ch := &cs[i]
			idxs[i], accounts[i], blocked[i], lastErrs[i], updated[i] = int64(ch.Index), ch.Account, nanos(ch.BlockedUntil), ch.LastError, nanos(ch.UpdatedAt)
		}
		b.queue(engWrap("apply leader: channels"), leaderUpsertChannelsSQL, idxs, accounts, blocked, lastErrs, updated)
	}
	queueCursors(b, "apply leader", c.Cursors)
}

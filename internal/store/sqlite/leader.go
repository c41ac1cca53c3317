package sqlite

import (
	"context"
	"errors"
	"fmt"

	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/writeq"

	msqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// The leader's records (store.LeaderStore, seed 001), on the same database
// and through the same committer as the sequencer's and the processor's: an
// ApplyLeader is one more request kind, so it shares group commits with the
// others and stays atomic on its own (a refused one is undone alone, see
// commit).
//
// Schema (migrations/0004_leader.sql):
//   - leader_events: PRIMARY KEY id (the event's chain cursor, the rowid),
//     upserted, never deleted; walk is UNIQUE, so the database itself holds
//     a walk to one id. Indexes: (status, id) for LeaderEvents by status and,
//     covering, LeaderCounts; partial (id) WHERE status IN ('Queued',
//     'Active') for the snapshot, which thus never reads the ended records.
//   - leader_channels: PRIMARY KEY idx, upserted.
//   - the cursors are rows of 0003's cursors table, shared with the
//     processor (the names keep them apart).
//
// Invariants:
//   - an acknowledged ApplyLeader is committed; a failed one wrote nothing;
//   - within a call records are written in order, kind by kind (events,
//     channels, cursors), so the later record of a key wins;
//   - ApplyLeader refuses an event with an ID below 1 (chain cursors start
//     at 1, and LeaderFilter.After 0 lists from the start) or an empty Walk
//     or a Status not one of the four, a channel with a negative Index, a
//     cursor with an empty Name, and an event whose Walk another ID holds
//     (in the store, or earlier in the same call): the last with an error
//     wrapping store.ErrWalkIndexed.

var _ store.LeaderStore = (*Store)(nil)

// Column lists, in the order the writes bind and the reads scan them.
const (
	leaderEventCols = `id, walk, tool, digest, json, height, status, retried, error, phase, ok, output,
		channel, result_uid, reports, active_at, created_at, updated_at`
	leaderChannelCols = `idx, account, blocked_until, last_error, updated_at`
)

// leaderChunkSQL is the multi-row upsert of a leader record kind, with v its
// VALUES rows. Rows are written in order, so where a statement names a key
// twice the later row wins.
func leaderChunkSQL(k rowKind, v string) string {
	switch k {
	case kindUpsertLeaderEvent:
		return `INSERT INTO leader_events (` + leaderEventCols + `) VALUES ` + v + `
			ON CONFLICT (id) DO UPDATE SET
				walk = excluded.walk, tool = excluded.tool, digest = excluded.digest,
				json = excluded.json, height = excluded.height, status = excluded.status,
				retried = excluded.retried, error = excluded.error, phase = excluded.phase,
				ok = excluded.ok, output = excluded.output, channel = excluded.channel,
				result_uid = excluded.result_uid, reports = excluded.reports, active_at = excluded.active_at,
				created_at = excluded.created_at, updated_at = excluded.updated_at`
	case kindUpsertLeaderChannel:
		return `INSERT INTO leader_channels (` + leaderChannelCols + `) VALUES ` + v + `
			ON CONFLICT (idx) DO UPDATE SET
				account = excluded.account, blocked_until = excluded.blocked_until,
				last_error = excluded.last_error, updated_at = excluded.updated_at`
	default: // not a leader record: the panic below
	}
	panic(fmt.Sprintf("sqlite: row kind %d is not a leader record", k))
}

// ApplyLeader implements store.LeaderStore: c commits atomically, through
// the committer. Changes that are invalid on their face (see the invariants
// above) are refused before they reach it; an event whose walk another id
// holds is refused by the database, with an error wrapping
// store.ErrWalkIndexed. Either way the call fails and writes nothing. Empty
// changes return ctx.Err().
func (s *Store) ApplyLeader(ctx context.Context, c store.LeaderChanges) error {
	if c.Empty() {
		return ctx.Err()
	}
	if err := c.Validate(); err != nil {
		return fmt.Errorf("sqlite: apply leader: %w", err)
	}
	w := len(c.Events) + len(c.Channels) + len(c.Cursors)
	r := &request{Req: writeq.NewReq(ctx, w), leader: &c}
	return s.q.Submit(ctx, r)
}

// applyLeader writes c's records, kind by kind, each kind in c's order. Only
// the committer calls it, inside a group's transaction.
func (s *Store) applyLeader(ctx context.Context, c *store.LeaderChanges) error {
	if err := s.writeRows(ctx, kindUpsertLeaderEvent, len(c.Events), func(i int, args []any) []any {
		e := &c.Events[i]
		return append(args, e.ID, e.Walk, e.Tool, e.Digest, blob(e.JSON), int64(e.Height), string(e.Status),
			e.Retried, e.Error, e.Phase, e.OK, blob(e.Output), e.Channel, e.ResultUID, e.Reports,
			nanos(e.ActiveAt), nanos(e.CreatedAt), nanos(e.UpdatedAt))
	}, func(i int) string {
		return fmt.Sprintf("leader event %d (walk %q)", c.Events[i].ID, c.Events[i].Walk)
	}); err != nil {
		if isUnique(err) {
			// The only UNIQUE constraint an event upsert can break: the
			// primary key's conflict is its ON CONFLICT target.
			return fmt.Errorf("sqlite: apply leader: %w: %w", store.ErrWalkIndexed, err)
		}
		return err
	}
	if err := s.writeRows(ctx, kindUpsertLeaderChannel, len(c.Channels), func(i int, args []any) []any {
		ch := &c.Channels[i]
		return append(args, ch.Index, ch.Account, nanos(ch.BlockedUntil), ch.LastError, nanos(ch.UpdatedAt))
	}, func(i int) string { return fmt.Sprintf("leader channel %d", c.Channels[i].Index) }); err != nil {
		return err
	}
	return s.writeRows(ctx, kindUpsertCursor, len(c.Cursors), func(i int, args []any) []any {
		cu := &c.Cursors[i]
		return append(args, cu.Name, int64(cu.Value))
	}, func(i int) string { return "cursor " + c.Cursors[i].Name })
}

// isUnique reports whether err is SQLite refusing a row that breaks a
// UNIQUE constraint.
func isUnique(err error) bool {
	var se *msqlite.Error
	return errors.As(err, &se) && se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE
}

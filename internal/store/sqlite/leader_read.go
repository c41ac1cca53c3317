package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/ordolabs/ordo/internal/store"
)

// The leader's reads, on the read pool. A call that runs several queries
// runs them in one read transaction (one snapshot).

// leaderReadStmts are the leader's read statements, prepared with the
// others (readStmts.prepare) and closed with them.
type leaderReadStmts struct {
	liveEvents, channels           *sql.Stmt
	event, eventByWalk             *sql.Stmt
	list, listStatus, statusCounts *sql.Stmt
}

// liveEventsSQL reads the snapshot's events.
const liveEventsSQL = `SELECT ` + leaderEventCols + ` FROM leader_events INDEXED BY leader_events_live
	WHERE status IN ('Queued', 'Active') ORDER BY id`

func (r *leaderReadStmts) prepare(ctx context.Context, db *sql.DB, all *[]*sql.Stmt) error {
	for _, q := range []struct {
		dst **sql.Stmt
		sql string
	}{
		// The WHERE is the partial index's own, so the index serves the
		// order too; without statistics the planner would rather take two
		// ranges of (status, id) and sort them, hence INDEXED BY.
		{&r.liveEvents, liveEventsSQL},
		{&r.channels, `SELECT ` + leaderChannelCols + ` FROM leader_channels ORDER BY idx`},
		{&r.event, `SELECT ` + leaderEventCols + ` FROM leader_events WHERE id = ?`},
		{&r.eventByWalk, `SELECT ` + leaderEventCols + ` FROM leader_events WHERE walk = ?`},
		{&r.list, `SELECT ` + leaderEventCols + ` FROM leader_events WHERE id > ? ORDER BY id LIMIT ?`},
		{&r.listStatus, `SELECT ` + leaderEventCols + ` FROM leader_events
			WHERE status = ? AND id > ? ORDER BY id LIMIT ?`},
		{&r.statusCounts, `SELECT status, COUNT(*) FROM leader_events GROUP BY status`},
	} {
		if err := prep(ctx, db, all, q.dst, q.sql); err != nil {
			return err
		}
	}
	return nil
}

func scanLeaderEvent(row scanner) (store.LeaderEvent, error) {
	var (
		e                        store.LeaderEvent
		status                   string
		height                   int64
		js, output               []byte
		active, created, updated sql.NullInt64
	)
	if err := row.Scan(&e.ID, &e.Walk, &e.Tool, &e.Digest, &js, &height, &status, &e.Retried,
		&e.Error, &e.Phase, &e.OK, &output, &e.Channel, &e.ResultUID, &e.Reports, &active, &created, &updated); err != nil {
		return store.LeaderEvent{}, err
	}
	e.JSON = rawOrNil(js)
	e.Height = uint64(height)
	e.Status = store.EventStatus(status)
	e.Output = rawOrNil(output)
	e.ActiveAt = fromNanos(active)
	e.CreatedAt = fromNanos(created)
	e.UpdatedAt = fromNanos(updated)
	return e, nil
}

func scanLeaderChannel(row scanner) (store.LeaderChannel, error) {
	var (
		ch               store.LeaderChannel
		blocked, updated sql.NullInt64
	)
	if err := row.Scan(&ch.Index, &ch.Account, &blocked, &ch.LastError, &updated); err != nil {
		return store.LeaderChannel{}, err
	}
	ch.BlockedUntil = fromNanos(blocked)
	ch.UpdatedAt = fromNanos(updated)
	return ch, nil
}

// LeaderSnapshot implements store.LeaderStore: the three lists come from one
// read transaction. They are never nil. Cursors holds every row of the
// cursors table, which the processor's cursors share.
func (s *Store) LeaderSnapshot(ctx context.Context) (store.LeaderSnapshot, error) {
	var snap store.LeaderSnapshot
	err := s.read(ctx, func(tx *sql.Tx) error {
		var err error
		if snap.Events, err = txCollect(ctx, tx, s.rs.leader.liveEvents, scanLeaderEvent); err != nil {
			return err
		}
		if snap.Channels, err = txCollect(ctx, tx, s.rs.leader.channels, scanLeaderChannel); err != nil {
			return err
		}
		snap.Cursors, err = txCollect(ctx, tx, s.rs.proc.cursors, scanCursor)
		return err
	})
	if err != nil {
		return store.LeaderSnapshot{}, fmt.Errorf("sqlite: leader snapshot: %w", err)
	}
	return snap, nil
}

// LeaderEvent implements store.LeaderStore.
func (s *Store) LeaderEvent(ctx context.Context, id int64) (store.LeaderEvent, error) {
	e, err := scanLeaderEvent(s.rs.leader.event.QueryRowContext(ctx, id))
	if err != nil {
		return store.LeaderEvent{}, fmt.Errorf("sqlite: leader event %d: %w", id, notFound(err))
	}
	return e, nil
}

// LeaderEventByWalk implements store.LeaderStore.
func (s *Store) LeaderEventByWalk(ctx context.Context, walk string) (store.LeaderEvent, error) {
	e, err := scanLeaderEvent(s.rs.leader.eventByWalk.QueryRowContext(ctx, walk))
	if err != nil {
		return store.LeaderEvent{}, fmt.Errorf("sqlite: leader event of walk %q: %w", walk, notFound(err))
	}
	return e, nil
}

// LeaderEvents implements store.LeaderStore. A Status not one of the four
// is an error (as List's State is); the result is never nil.
func (s *Store) LeaderEvents(ctx context.Context, f store.LeaderFilter) ([]store.LeaderEvent, error) {
	var rows *sql.Rows
	var err error
	switch f.Status {
	case "":
		rows, err = s.rs.leader.list.QueryContext(ctx, f.After, store.ClampLimit(f.Limit))
	case store.EventQueued, store.EventActive, store.EventSuccessful, store.EventDead:
		rows, err = s.rs.leader.listStatus.QueryContext(ctx, string(f.Status), f.After, store.ClampLimit(f.Limit))
	default:
		return nil, fmt.Errorf("sqlite: leader events: invalid status %q", f.Status)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: leader events: %w", err)
	}
	out, err := collectRows(rows, scanLeaderEvent)
	if err != nil {
		return nil, fmt.Errorf("sqlite: leader events: %w", err)
	}
	return out, nil
}

// LeaderCounts implements store.LeaderStore: every status is present, zero
// included.
func (s *Store) LeaderCounts(ctx context.Context) (map[store.EventStatus]int, error) {
	out := map[store.EventStatus]int{
		store.EventQueued: 0, store.EventActive: 0, store.EventSuccessful: 0, store.EventDead: 0,
	}
	rows, err := s.rs.leader.statusCounts.QueryContext(ctx)
	if err != nil {
		return nil, fmt.Errorf("sqlite: leader counts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			status string
			n      int
		)
		if err := rows.Scan(&status, &n); err != nil {
			return nil, fmt.Errorf("sqlite: leader counts: %w", err)
		}
		out[store.EventStatus(status)] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: leader counts: %w", err)
	}
	return out, nil
}

// LeaderChannels implements store.LeaderStore: in Index order, never nil.
func (s *Store) LeaderChannels(ctx context.Context) ([]store.LeaderChannel, error) {
	out, err := collect(ctx, s.rs.leader.channels, scanLeaderChannel)
	if err != nil {
		return nil, fmt.Errorf("sqlite: leader channels: %w", err)
	}
	return out, nil
}

package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/ordolabs/ordo/internal/store"
)

// The leader's reads, on the pool. A call that runs several queries runs
// them in one read-only repeatable-read transaction (one snapshot).

const (
	// The WHERE is the partial index leader_events_live's own.
	leaderLiveEventsSQL = `SELECT ` + leaderEventCols + ` FROM leader_events
		WHERE status IN ('Queued', 'Active') ORDER BY id`
	leaderChannelsSQL    = `SELECT ` + leaderChannelCols + ` FROM leader_channels ORDER BY idx`
	leaderEventSQL       = `SELECT ` + leaderEventCols + ` FROM leader_events WHERE id = $1`
	leaderEventByWalkSQL = `SELECT ` + leaderEventCols + ` FROM leader_events WHERE walk = $1`
	leaderListSQL        = `SELECT ` + leaderEventCols + ` FROM leader_events WHERE id > $1 ORDER BY id LIMIT $2`
	leaderListStatusSQL  = `SELECT ` + leaderEventCols + ` FROM leader_events
		WHERE status = $1 AND id > $2 ORDER BY id LIMIT $3`
	leaderCountsSQL = `SELECT status, COUNT(*) FROM leader_events GROUP BY status`
)

func scanLeaderEvent(row pgx.Row) (store.LeaderEvent, error) {
	var (
		e                                     store.LeaderEvent
		status                                string
		height, retried, ok, channel, reports int64
		js, output                            []byte
		active, created, updated              *int64
	)
	if err := row.Scan(&e.ID, &e.Walk, &e.Tool, &e.Digest, &js, &height, &status, &retried,
		&e.Error, &e.Phase, &ok, &output, &channel, &e.ResultUID, &reports, &active, &created, &updated); err != nil {
		return store.LeaderEvent{}, err
	}
	e.JSON = blob(js)
	e.Height = uint64(height)
	e.Status = store.EventStatus(status)
	e.Retried = int(retried)
	e.OK = ok != 0
	e.Output = blob(output)
	e.Channel = int(channel)
	e.Reports = int(reports)
	e.ActiveAt = fromNanos(active)
	e.CreatedAt = fromNanos(created)
	e.UpdatedAt = fromNanos(updated)
	return e, nil
}

func scanLeaderChannel(row pgx.Row) (store.LeaderChannel, error) {
	var (
		ch               store.LeaderChannel
		idx              int64
		blocked, updated *int64
	)
	if err := row.Scan(&idx, &ch.Account, &blocked, &ch.LastError, &updated); err != nil {
		return store.LeaderChannel{}, err
	}
	ch.Index = int(idx)
	ch.BlockedUntil = fromNanos(blocked)
	ch.UpdatedAt = fromNanos(updated)
	return ch, nil
}

// LeaderSnapshot implements store.LeaderStore: the three lists come from one
// snapshot. They are never nil. Cursors holds every row of the cursors
// table, which the processor's cursors share.
func (s *Store) LeaderSnapshot(ctx context.Context) (store.LeaderSnapshot, error) {
	var snap store.LeaderSnapshot
	err := s.inTx(ctx, snapshot, func(tx pgx.Tx) error {
		var err error
		if snap.Events, err = engCollect(ctx, tx, leaderLiveEventsSQL, scanLeaderEvent); err != nil {
			return err
		}
		if snap.Channels, err = engCollect(ctx, tx, leaderChannelsSQL, scanLeaderChannel); err != nil {
			return err
		}
		snap.Cursors, err = engCollect(ctx, tx, engCursorsSQL, scanCursor)
		return err
	})
	if err != nil {
		return store.LeaderSnapshot{}, fmt.Errorf("postgres: leader snapshot: %w", err)
	}
	return snap, nil
}

// LeaderEvent implements store.LeaderStore.
func (s *Store) LeaderEvent(ctx context.Context, id int64) (store.LeaderEvent, error) {
	e, err := engOne(ctx, s, scanLeaderEvent, leaderEventSQL, id)
	if err != nil {
		return store.LeaderEvent{}, fmt.Errorf("postgres: leader event %d: %w", id, err)
	}
	return e, nil
}

// LeaderEventByWalk implements store.LeaderStore.
func (s *Store) LeaderEventByWalk(ctx context.Context, walk string) (store.LeaderEvent, error) {
	e, err := engOne(ctx, s, scanLeaderEvent, leaderEventByWalkSQL, walk)
	if err != nil {
		return store.LeaderEvent{}, fmt.Errorf("postgres: leader event of walk %q: %w", walk, err)
	}
	return e, nil
}

// LeaderEvents implements store.LeaderStore. A Status not one of the four
// is an error (as List's State is); the result is never nil.
func (s *Store) LeaderEvents(ctx context.Context, f store.LeaderFilter) ([]store.LeaderEvent, error) {
	var (
		out []store.LeaderEvent
		err error
	)
	switch f.Status {
	case "":
		out, err = collect(ctx, s, leaderListSQL, scanLeaderEvent, f.After, store.ClampLimit(f.Limit))
	case store.EventQueued, store.EventActive, store.EventSuccessful, store.EventDead:
		out, err = collect(ctx, s, leaderListStatusSQL, scanLeaderEvent, string(f.Status), f.After, store.ClampLimit(f.Limit))
	default:
		return nil, fmt.Errorf("postgres: leader events: invalid status %q", f.Status)
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: leader events: %w", err)
	}
	return out, nil
}

// LeaderCounts implements store.LeaderStore: every status is present, zero
// included.
func (s *Store) LeaderCounts(ctx context.Context) (map[store.EventStatus]int, error) {
	type count struct {
		status string
		n      int64
	}
	rows, err := collect(ctx, s, leaderCountsSQL, func(row pgx.Row) (count, error) {
		var c count
		err := row.Scan(&c.status, &c.n)
		return c, err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: leader counts: %w", err)
	}
	out := map[store.EventStatus]int{
		store.EventQueued: 0, store.EventActive: 0, store.EventSuccessful: 0, store.EventDead: 0,
	}
	for _, c := range rows {
		out[store.EventStatus(c.status)] = int(c.n)
	}
	return out, nil
}

// LeaderChannels implements store.LeaderStore: in Index order, never nil.
func (s *Store) LeaderChannels(ctx context.Context) ([]store.LeaderChannel, error) {
	out, err := collect(ctx, s, leaderChannelsSQL, scanLeaderChannel)
	if err != nil {
		return nil, fmt.Errorf("postgres: leader channels: %w", err)
	}
	return out, nil
}

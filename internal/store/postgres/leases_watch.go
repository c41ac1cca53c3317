package postgres

import (
	"context"
	"fmt"
	"sort"

	"github.com/jackc/pgx/v5"

	"github.com/ordolabs/ordo/internal/store"
)

// Intake by other nodes: a group that created transactions notifies
// enqueuedChannel once per queue that got some, in its own transaction
// (PostgreSQL delivers the notifications at the commit, to every session
// listening, in commit order); WatchEnqueued listens on a connection of
// its own.

// enqueuedChannel is the LISTEN/NOTIFY channel of Enqueue; the payload is
// the queue's name.
const enqueuedChannel = "ordo_enqueued"

// maxPayload bounds a notification's payload (PostgreSQL refuses 8000
// bytes and more): a longer queue name is not notified.
const maxPayload = 7999

var _ store.EnqueueWatcher = (*Store)(nil)

// notifyEnqueued notifies enqueuedChannel, in tx, of each queue the
// group's requests created transactions in (sorted, each once).
func notifyEnqueued(ctx context.Context, tx wtx, live []*request) error {
	seen := map[string]bool{}
	var queues []string
	for _, r := range live {
		if r.created == nil || r.Err != nil {
			continue
		}
		for _, t := range r.created() {
			if !seen[t.Queue] && len(t.Queue) <= maxPayload {
				seen[t.Queue] = true
				queues = append(queues, t.Queue)
			}
		}
	}
	if len(queues) == 0 {
		return nil
	}
	sort.Strings(queues)
	if _, err := tx.Exec(ctx, `SELECT pg_notify($1, q) FROM unnest($2::text[]) AS q`, enqueuedChannel, queues); err != nil {
		return fmt.Errorf("postgres: notify enqueued: %w", err)
	}
	return nil
}

// WatchEnqueued implements store.EnqueueWatcher on a connection of its
// own, outside the pool (pgx.ConnectConfig with the pool's settings), that
// LISTENs to the channel Enqueue notifies. A dropped connection is
// reconnected once; the next failure is returned (the caller may watch
// again). Notifications sent while the watcher was reconnecting are lost:
// a caller that must not miss intake scans the store after an error.
// Close does not end a watch: ctx does.
func (s *Store) WatchEnqueued(ctx context.Context, fn func(queue string)) error {
	if s.isClosed() {
		return ErrClosed
	}
	cfg := s.pool.Config().ConnConfig
	var err error
	for attempt := 0; attempt < 2; attempt++ {
		err = listen(ctx, cfg.Copy(), fn)
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return fmt.Errorf("postgres: watch enqueued: %w", err)
}

// listen connects, LISTENs, and calls fn per notification until ctx ends
// or the connection fails.
func listen(ctx context.Context, cfg *pgx.ConnConfig, fn func(string)) error {
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close(context.Background()) }()
	if _, err := conn.Exec(ctx, `LISTEN `+enqueuedChannel); err != nil {
		return err
	}
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		if n.Channel == enqueuedChannel {
			fn(n.Payload)
		}
	}
}

package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/ordolabs/ordo/internal/store"
)

// The change feed (store.ChangeFeed) is the table changes (migration
// 0020): Apply inserts a row per history entry, in the batch's order, with
// the writing transaction's xid (xid8, pg_current_xact_id()).
//
// The rule that never skips a committed change, with several nodes
// writing: rows are ordered and cursored by (xid, id), and a read returns
// only the rows whose xid is below pg_snapshot_xmin(pg_current_snapshot()),
// the oldest transaction still running. Every transaction that may still
// commit has an xid at least that xmin (a running one) or one not yet
// assigned (larger than every xid assigned), so each row a later read may
// find sorts after every cursor an earlier read handed out. The price: a
// change is read once every transaction older than it has ended, so one
// long write transaction delays the feed (not read-only ones, which have
// no xid).

// insertChangesSQL inserts the feed rows of a batch's history entries,
// each with its transaction's queue, in the batch's order (ord).
const insertChangesSQL = `INSERT INTO changes (uid, queue, from_state, to_state, at, note)
	SELECT v.uid, t.queue, v.f, v.t, v.at, v.note
	FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[]) WITH ORDINALITY AS v(uid, f, t, at, note, ord)
	JOIN transactions t ON t.uid = v.uid
	ORDER BY v.ord`

// changesSQL reads the feed after the cursor ($1, $2), below the snapshot's
// xmin, of one queue or all ($3 ”), $4 rows at most.
const changesSQL = `SELECT xid::text, id, uid, queue, from_state, to_state, at, note FROM changes
	WHERE (xid, id) > ($1::text::xid8, $2::bigint)
		AND xid < pg_snapshot_xmin(pg_current_snapshot())
		AND ($3 = '' OR queue = $3)
	ORDER BY xid, id LIMIT $4`

// changesQueueSQL is changesSQL for one queue, in the order of the index
// changes_queue.
const changesQueueSQL = `SELECT xid::text, id, uid, queue, from_state, to_state, at, note FROM changes
	WHERE queue = $3 AND (xid, id) > ($1::text::xid8, $2::bigint)
		AND xid < pg_snapshot_xmin(pg_current_snapshot())
	ORDER BY queue, xid, id LIMIT $4`

// pruneChangesSQL deletes, of the $2 oldest feed rows, those written
// before $1: a bounded read of the primary key's head, whatever the
// table's size.
const pruneChangesSQL = `WITH head AS (
		SELECT xid, id, at FROM changes ORDER BY xid, id LIMIT $2
	)
	DELETE FROM changes c USING head
	WHERE c.xid = head.xid AND c.id = head.id AND head.at < $1::bigint`

// changeID is the cursor of the row (xid, id): both in decimal, zero-padded
// (20 and 19 digits), so that cursors compare as strings as they do as
// pairs.
func changeID(xid uint64, id int64) string { return fmt.Sprintf("%020d.%019d", xid, id) }

// parseChangeID reads a cursor changeID made.
func parseChangeID(c string) (xid uint64, id int64, err error) {
	x, i, ok := strings.Cut(c, ".")
	if !ok || len(x) != 20 || len(i) != 19 {
		return 0, 0, store.ErrBadCursor
	}
	if xid, err = strconv.ParseUint(x, 10, 64); err != nil {
		return 0, 0, store.ErrBadCursor
	}
	if id, err = strconv.ParseInt(i, 10, 64); err != nil || id < 0 {
		return 0, 0, store.ErrBadCursor
	}
	return xid, id, nil
}

// Changes implements store.ChangeFeed (the rule above). A cursor older
// than the oldest row kept (retention prunes the feed by age: PruneFinished)
// reads from the oldest kept.
func (s *Store) Changes(ctx context.Context, f store.ChangeFilter) ([]store.TxChange, error) {
	if s.isClosed() {
		return nil, ErrClosed
	}
	var (
		xid uint64
		id  int64
	)
	if f.After != "" {
		var err error
		if xid, id, err = parseChangeID(f.After); err != nil {
			return nil, fmt.Errorf("postgres: changes after %q: %w", f.After, err)
		}
	}
	q := changesSQL
	if f.Queue != "" {
		q = changesQueueSQL
	}
	rows, err := s.pool.Query(ctx, q, strconv.FormatUint(xid, 10), id, f.Queue, store.ClampLimit(f.Limit))
	if err != nil {
		return nil, fmt.Errorf("postgres: changes: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.TxChange, error) {
		var (
			c        store.TxChange
			x        string
			n, at    int64
			from, to string
		)
		if err := r.Scan(&x, &n, &c.UID, &c.Queue, &from, &to, &at, &c.Note); err != nil {
			return c, err
		}
		xv, err := strconv.ParseUint(x, 10, 64)
		if err != nil {
			return c, fmt.Errorf("xid %q: %w", x, err)
		}
		c.ID, c.At, c.From, c.To = changeID(xv, n), fromNanos(&at), store.TxState(from), store.TxState(to)
		return c, nil
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: changes: %w", err)
	}
	return out, nil
}

// changesTailSQL is the newest row Changes can hand out now: below the
// snapshot's xmin, last in (xid, id) order. A row of a transaction still
// open has an xid at least that xmin, so it sorts after the tail: Changes
// after the tail hands it out once it is readable.
const changesTailSQL = `SELECT xid::text, id FROM changes
	WHERE xid < pg_snapshot_xmin(pg_current_snapshot())
	ORDER BY xid DESC, id DESC LIMIT 1`

// ChangesTail implements store.ChangeFeed (the rule of changesTailSQL).
func (s *Store) ChangesTail(ctx context.Context) (string, error) {
	if s.isClosed() {
		return "", ErrClosed
	}
	var (
		x  string
		id int64
	)
	err := s.pool.QueryRow(ctx, changesTailSQL).Scan(&x, &id)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("postgres: changes tail: %w", err)
	}
	xv, err := strconv.ParseUint(x, 10, 64)
	if err != nil {
		return "", fmt.Errorf("postgres: changes tail: xid %q: %w", x, err)
	}
	return changeID(xv, id), nil
}

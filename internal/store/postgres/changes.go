package postgres

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/ordolabs/ordo/internal/store"
)

// The change feed (store.ChangeFeed) is the table changes (migration
// 0021): Apply inserts one row per batch that has history entries, the
// entries in the batch's order as parallel arrays, with the writing
// transaction's xid (xid8, pg_current_xact_id()). A cursor names an entry
// of a row: (xid, id, k), k its index in the row.
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
//
// The queue filter (?queue=) has no index: a read scans the rows after its
// cursor in the primary key's order and keeps those whose queues hold the
// queue. Its readers resume from a recent cursor (ordo tx send --wait
// starts at the tail), so they read few rows; a read from the oldest row
// of a queue without changes reads the whole feed, which retention bounds.
// An index on queues (GIN) would cost every Apply its entries.

// insertChangesSQL inserts the feed row of a batch's history entries: the
// arrays as given ($1 uids, $2 froms, $3 tos, $4 times, $5 notes; $6 the
// newest time) and each entry's queue, read from its transaction.
const insertChangesSQL = `INSERT INTO changes (at, uids, queues, froms, tos, ats, notes)
	SELECT $6::bigint, $1::text[],
		ARRAY(SELECT coalesce(t.queue, '') FROM unnest($1::text[]) WITH ORDINALITY AS v(uid, ord)
			LEFT JOIN transactions t ON t.uid = v.uid ORDER BY v.ord),
		$2::text[], $3::text[], $4::bigint[], $5::text[]`

// changesSQL reads the feed from the cursor's row ($1, $2) on, below the
// snapshot's xmin, the rows holding an entry of one queue or all ($3 ”),
// $4 rows at most. The xid goes out as text under another name: ORDER BY
// xid would sort by the output column, the text (10 before 9), and not
// walk the primary key.
const changesSQL = `SELECT c.xid::text AS x, c.id, c.uids, c.queues, c.froms, c.tos, c.ats, c.notes FROM changes c
	WHERE (c.xid, c.id) >= ($1::text::xid8, $2::bigint)
		AND c.xid < pg_snapshot_xmin(pg_current_snapshot())
		AND ($3 = '' OR $3 = ANY(c.queues))
	ORDER BY c.xid, c.id LIMIT $4`

// pruneChangesSQL deletes, of the $2 oldest feed rows, those whose newest
// entry was written before $1: a bounded read of the primary key's head,
// whatever the table's size.
const pruneChangesSQL = `WITH head AS (
		SELECT xid, id, at FROM changes ORDER BY xid, id LIMIT $2
	)
	DELETE FROM changes c USING head
	WHERE c.xid = head.xid AND c.id = head.id AND head.at < $1::bigint`

// changeID is the cursor of entry k of the row (xid, id): the three in
// decimal, zero-padded (20, 19 and 10 digits), so that cursors compare as
// strings as they do as triples.
func changeID(xid uint64, id int64, k int) string {
	return fmt.Sprintf("%020d.%019d.%010d", xid, id, k)
}

// parseChangeID reads a cursor changeID made. A cursor of migration 0020
// (xid, id), without k, names the whole row: the read resumes after it.
func parseChangeID(c string) (xid uint64, id int64, k int, err error) {
	parts := strings.Split(c, ".")
	if len(parts) == 2 {
		parts = append(parts, strconv.Itoa(math.MaxInt32))
	} else if len(parts) != 3 || len(parts[2]) != 10 {
		return 0, 0, 0, store.ErrBadCursor
	}
	if len(parts[0]) != 20 || len(parts[1]) != 19 {
		return 0, 0, 0, store.ErrBadCursor
	}
	if xid, err = strconv.ParseUint(parts[0], 10, 64); err != nil {
		return 0, 0, 0, store.ErrBadCursor
	}
	if id, err = strconv.ParseInt(parts[1], 10, 64); err != nil || id < 0 {
		return 0, 0, 0, store.ErrBadCursor
	}
	k64, err := strconv.ParseInt(parts[2], 10, 32)
	if err != nil || k64 < 0 {
		return 0, 0, 0, store.ErrBadCursor
	}
	return xid, id, int(k64), nil
}

// changeRow is a row of the feed as changesSQL reads it.
type changeRow struct {
	xid                      uint64
	id                       int64
	uids, queues, froms, tos []string
	ats                      []int64
	notes                    []string
}

// Changes implements store.ChangeFeed (the rule above). It reads the
// cursor's row and those after it, one more than the limit (the cursor's
// row may have no entry left after it; every other row read has one of
// the queue at least), and hands out their entries after the cursor. A
// cursor older than the oldest row kept (retention prunes the feed by
// age: PruneFinished) reads from the oldest kept.
func (s *Store) Changes(ctx context.Context, f store.ChangeFilter) ([]store.TxChange, error) {
	if s.isClosed() {
		return nil, ErrClosed
	}
	var (
		xid uint64
		id  int64
		k   = -1
	)
	if f.After != "" {
		var err error
		if xid, id, k, err = parseChangeID(f.After); err != nil {
			return nil, fmt.Errorf("postgres: changes after %q: %w", f.After, err)
		}
	}
	limit := store.ClampLimit(f.Limit)
	rows, err := s.pool.Query(ctx, changesSQL, strconv.FormatUint(xid, 10), id, f.Queue, limit+1)
	if err != nil {
		return nil, fmt.Errorf("postgres: changes: %w", err)
	}
	read, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (changeRow, error) {
		var (
			c changeRow
			x string
		)
		if err := r.Scan(&x, &c.id, &c.uids, &c.queues, &c.froms, &c.tos, &c.ats, &c.notes); err != nil {
			return c, err
		}
		var err error
		if c.xid, err = strconv.ParseUint(x, 10, 64); err != nil {
			return c, fmt.Errorf("xid %q: %w", x, err)
		}
		return c, nil
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: changes: %w", err)
	}
	out := make([]store.TxChange, 0, limit)
	for _, c := range read {
		n := len(c.uids)
		if len(c.queues) != n || len(c.froms) != n || len(c.tos) != n || len(c.ats) != n || len(c.notes) != n {
			return nil, fmt.Errorf("postgres: changes: row %d.%d: arrays of unequal lengths", c.xid, c.id)
		}
		j := 0
		if c.xid == xid && c.id == id {
			j = k + 1
		}
		for ; j < n && len(out) < limit; j++ {
			if f.Queue != "" && c.queues[j] != f.Queue {
				continue
			}
			out = append(out, store.TxChange{
				ID: changeID(c.xid, c.id, j), UID: c.uids[j], Queue: c.queues[j],
				From: store.TxState(c.froms[j]), To: store.TxState(c.tos[j]), At: fromNanos(&c.ats[j]), Note: c.notes[j],
			})
		}
	}
	return out, nil
}

// changesTailSQL is the newest row Changes can hand out now: below the
// snapshot's xmin, last in (xid, id) order, with its number of entries. A
// row of a transaction still open has an xid at least that xmin, so it
// sorts after the tail: Changes after the tail hands it out once it is
// readable.
const changesTailSQL = `SELECT c.xid::text AS x, c.id, cardinality(c.uids) FROM changes c
	WHERE c.xid < pg_snapshot_xmin(pg_current_snapshot())
	ORDER BY c.xid DESC, c.id DESC LIMIT 1`

// ChangesTail implements store.ChangeFeed: the cursor of the last entry of
// the row of changesTailSQL.
func (s *Store) ChangesTail(ctx context.Context) (string, error) {
	if s.isClosed() {
		return "", ErrClosed
	}
	var (
		x     string
		id, n int64
	)
	err := s.pool.QueryRow(ctx, changesTailSQL).Scan(&x, &id, &n)
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
	return changeID(xv, id, int(n)-1), nil
}

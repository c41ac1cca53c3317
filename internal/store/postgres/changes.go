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
// The queue filter (?queue=) has no index: a read walks the rows after its
// cursor in the primary key's order, unnests those whose queues hold the
// queue and keeps that queue's entries. Its readers resume from a recent
// cursor (ordo tx send --wait starts at the tail), so they read few rows;
// a read from the oldest row for a queue without changes reads the whole
// feed, which retention bounds (over a million entries in rows of 3: 90
// ms; in rows of 500: 18 ms). An index on queues (GIN) answers that read
// in 0.2 ms but costs every Apply: 1.5 to 2.8 times the feed's WAL.

// insertChangesSQL inserts the feed row of a batch's history entries: the
// arrays as given ($1 uids, $2 froms, $3 tos, $4 times, $5 notes; $6 the
// newest time) and each entry's queue, read from its transaction.
const insertChangesSQL = `INSERT INTO changes (at, uids, queues, froms, tos, ats, notes)
	SELECT $6::bigint, $1::text[],
		ARRAY(SELECT coalesce(t.queue, '') FROM unnest($1::text[]) WITH ORDINALITY AS v(uid, ord)
			LEFT JOIN transactions t ON t.uid = v.uid ORDER BY v.ord),
		$2::text[], $3::text[], $4::bigint[], $5::text[]`

// changesSQL reads the feed's entries after the cursor ($1, $2, $3:
// entry $3 of row ($1, $2)), below the snapshot's xmin, $4 at most. It
// walks the primary key from the cursor's row and unnests each row as it
// comes, so that it stops once it has $4 entries: it reads no more rows
// than it hands out entries of. The xid goes out as text under another
// name: ORDER BY xid would sort by the output column, the text (10 before
// 9), and not walk the primary key.
const changesSQL = changesSelect + changesOrder

// changesQueueSQL is changesSQL for the queue $5: it unnests only the rows
// whose queues hold it. (A statement of its own: in one with "$5 = ” OR",
// a generic plan unnests every row.)
const changesQueueSQL = changesSelect + `
		AND $5 = ANY(c.queues) AND e.queue = $5` + changesOrder

const (
	changesSelect = `SELECT c.xid::text AS x, c.id, e.k - 1, e.uid, e.queue, e.f, e.t, e.at, e.note
	FROM changes c,
		unnest(c.uids, c.queues, c.froms, c.tos, c.ats, c.notes) WITH ORDINALITY AS e(uid, queue, f, t, at, note, k)
	WHERE (c.xid, c.id) >= ($1::text::xid8, $2::bigint)
		AND c.xid < pg_snapshot_xmin(pg_current_snapshot())
		AND ((c.xid, c.id) > ($1::text::xid8, $2::bigint) OR e.k > $3::bigint + 1)`
	changesOrder = `
	ORDER BY c.xid, c.id, e.k LIMIT $4`
)

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

// Changes implements store.ChangeFeed (the rule above). A cursor older
// than the oldest row kept (retention prunes the feed by age:
// PruneFinished) reads from the oldest kept.
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
	q, args := changesSQL, []any{strconv.FormatUint(xid, 10), id, k, store.ClampLimit(f.Limit)}
	if f.Queue != "" {
		q, args = changesQueueSQL, append(args, f.Queue)
	}
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: changes: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.TxChange, error) {
		var (
			c        store.TxChange
			x        string
			n, j, at int64
			from, to string
		)
		if err := r.Scan(&x, &n, &j, &c.UID, &c.Queue, &from, &to, &at, &c.Note); err != nil {
			return c, err
		}
		xv, err := strconv.ParseUint(x, 10, 64)
		if err != nil {
			return c, fmt.Errorf("xid %q: %w", x, err)
		}
		c.ID, c.At, c.From, c.To = changeID(xv, n, int(j)), fromNanos(&at), store.TxState(from), store.TxState(to)
		return c, nil
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: changes: %w", err)
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

-- 0012_history_inline: a transaction's history is a column of its own row,
-- not rows of a table of its own.
--
-- history holds the transaction's state transitions after its creation,
-- oldest first, one JSON object a line (see history.go): {"at": unix
-- nanoseconds, "from": state, "to": state, "binding": queue binding,
-- "note": text}, each line ending in a newline; '' when there are none.
-- Apply appends a batch's entries with the same UPDATE that writes the
-- transaction's end (or one UPDATE for those whose row it does not
-- otherwise change), so an entry is no row of its own: the history table
-- cost two inserts and two index entries an intent, about a tenth of the
-- write path (ordo bench burndown). Reading a history is reading one row.
-- As River keeps a job's errors in its row, the record keeps its story.
--
-- The entries already written move into the column, in id order, and the
-- table goes. On a large history this rewrites each transaction that has
-- one, once, at the first start of a binary with this migration.
ALTER TABLE transactions ADD COLUMN history TEXT NOT NULL DEFAULT '';

UPDATE transactions AS t SET history = h.lines
FROM (
    SELECT uid, string_agg(
        jsonb_build_object('at', at, 'from', from_state, 'to', to_state,
            'binding', binding, 'note', note)::text || E'\n', '' ORDER BY id) AS lines
    FROM history GROUP BY uid
) AS h
WHERE t.uid = h.uid;

DROP TABLE history;

package postgres

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/ordolabs/ordo/internal/store"
)

// A transaction's history after its creation is the text column
// transactions.history (migration 0012): one JSON object a line, each
// ending in a newline, oldest first. Apply appends a batch's entries of a
// uid as one string, in the batch's order.

// historyLine is one line of transactions.history. Binding and Note are
// left out when empty; a line the migration wrote has them all.
type historyLine struct {
	At      int64  `json:"at"`
	From    string `json:"from"`
	To      string `json:"to"`
	Binding string `json:"binding,omitempty"`
	Note    string `json:"note,omitempty"`
}

// historyText groups b's history entries by uid: for each uid, in the
// order of its first entry, the lines to append, with at(h.At) as each
// entry's time (read once per entry, in batch order, as before).
func historyText(b *store.Batch, at func(time.Time) int64) (uids []string, text map[string][]byte, err error) {
	text = make(map[string][]byte)
	for i := range b.History {
		h := &b.History[i]
		if !utf8.ValidString(h.Note) { // a TEXT column refuses it; JSON would replace it
			return nil, nil, fmt.Errorf("postgres: history of %s: a note that is not UTF-8: %w", h.UID, errRefused)
		}
		line, err := json.Marshal(historyLine{At: at(h.At), From: string(h.From), To: string(h.To), Binding: string(h.Binding), Note: h.Note})
		if err != nil {
			return nil, nil, fmt.Errorf("postgres: history of %s: %w", h.UID, err)
		}
		cur, seen := text[h.UID]
		if !seen {
			uids = append(uids, h.UID)
		}
		text[h.UID] = append(append(cur, line...), '\n')
	}
	return uids, text, nil
}

// decodeHistory reads the entries of uid's history column, oldest first.
func decodeHistory(uid string, text []byte) ([]store.HistoryEntry, error) {
	var out []store.HistoryEntry
	for n := 1; len(text) > 0; n++ {
		line, rest, ok := bytes.Cut(text, []byte{'\n'})
		if !ok {
			return nil, fmt.Errorf("history of %s: line %d does not end", uid, n)
		}
		text = rest
		var l historyLine
		if err := json.Unmarshal(line, &l); err != nil {
			return nil, fmt.Errorf("history of %s: line %d: %w", uid, n, err)
		}
		out = append(out, store.HistoryEntry{UID: uid, At: fromNanos(&l.At),
			From: store.TxState(l.From), To: store.TxState(l.To), Binding: store.BindingState(l.Binding), Note: l.Note})
	}
	return out, nil
}

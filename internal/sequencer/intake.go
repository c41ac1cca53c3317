package sequencer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ordolabs/ordo/internal/store"
)

// Intake is a transaction intent.
type Intake struct {
	Queue          string          `json:"queue"`
	Type           string          `json:"type"`
	Data           json.RawMessage `json:"data"`
	IdempotencyKey string          `json:"idempotencyKey,omitempty"`
}

// ErrTypeNotAllowed is returned by Submit for a type outside the allowed set.
var ErrTypeNotAllowed = errors.New("type not allowed")

// ErrIdempotencyConflict is returned by Submit when an idempotency key that
// is already known comes with another queue, type or data: the caller is
// reusing a key for a different intent.
var ErrIdempotencyConflict = errors.New("idempotency key reused for a different transaction")

// ErrInvalid is returned by Submit for an intent that is malformed.
var ErrInvalid = errors.New("invalid transaction")

// MaxQueueName is the longest queue name.
const MaxQueueName = 128

// Submit validates intents and commits them; it returns once they are
// durable. Each result says whether it created a record or found one by its
// idempotency key.
func (n *Node) Submit(ctx context.Context, in []Intake) ([]store.EnqueueResult, error) {
	now := n.cfg.Clock.Now().UTC()
	txs := make([]store.NewTransaction, len(in))
	for i, it := range in {
		if it.Queue == "" || len(it.Queue) > MaxQueueName || !printable(it.Queue) {
			return nil, fmt.Errorf("%w: queue must be 1-%d printable characters", ErrInvalid, MaxQueueName)
		}
		if !printable(it.IdempotencyKey) {
			return nil, fmt.Errorf("%w: idempotencyKey must be printable characters", ErrInvalid)
		}
		if !n.allowed[it.Type] {
			return nil, fmt.Errorf("%w: %q; allowed types are %s", ErrTypeNotAllowed, it.Type, strings.Join(n.cfg.AllowedTypes, ", "))
		}
		if len(it.IdempotencyKey) > 256 {
			return nil, fmt.Errorf("%w: idempotencyKey is longer than 256 characters", ErrInvalid)
		}
		data := it.Data
		if len(data) == 0 {
			data = []byte("{}")
		}
		txs[i] = store.NewTransaction{UID: n.uidSeq.next(now), Queue: it.Queue, Type: it.Type, Data: data, IdempotencyKey: it.IdempotencyKey, At: now}
	}
	res, err := n.cfg.Store.Enqueue(ctx, txs)
	if err != nil {
		return nil, fmt.Errorf("sequencer intake: %w", err)
	}
	for i, r := range res {
		if r.Created {
			continue
		}
		if old := r.Transaction; old.Queue != txs[i].Queue || old.Type != txs[i].Type || !sameJSON(old.Data, txs[i].Data) {
			return res, fmt.Errorf("%w: key %q names %s (queue %s, type %s) with other data", ErrIdempotencyConflict, txs[i].IdempotencyKey, old.UID, old.Queue, old.Type)
		}
	}
	return res, nil
}

// sameJSON reports whether two JSON documents are equal but for
// insignificant whitespace.
func sameJSON(a, b []byte) bool {
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// printable reports whether s is valid UTF-8 without control characters.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

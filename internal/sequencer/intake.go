package sequencer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/httpjson"
	"github.com/ordolabs/ordo/internal/store"
)

// Intake is a transaction intent.
type Intake struct {
	Queue          string          `json:"queue"`
	Type           string          `json:"type"`
	Data           json.RawMessage `json:"data"`
	IdempotencyKey string          `json:"idempotencyKey,omitempty"`
	// Principal is who submits the intent, the scope of its idempotency
	// key: a configured principal's name (the public intake), an engine's
	// reserved principal (EnginePrincipalPrefix), or "" for a caller that
	// names none. Only an engine's may use the engines' queues and keys
	// (CheckReserved). Never read from a request body.
	Principal string `json:"-"`
}

// ErrTypeNotAllowed is returned by Submit for a type outside the allowed set.
var ErrTypeNotAllowed = errors.New("type not allowed")

// ErrIdempotencyConflict is returned by Submit when an idempotency key that
// is already known comes with another queue, type or data: the caller is
// reusing a key for a different intent.
var ErrIdempotencyConflict = errors.New("idempotency key reused for a different transaction")

// ErrInvalid is returned by Submit for an intent that is malformed.
var ErrInvalid = errors.New("invalid transaction")

// MaxQueueName is the longest queue name, in bytes.
const MaxQueueName = 128

// MaxIdempotencyKey is the longest idempotency key, in bytes.
const MaxIdempotencyKey = 256

// DefaultMaxDataDepth is the default of IntakeRules.MaxDataDepth.
const DefaultMaxDataDepth = 64

// MaxMaxDataDepth is the largest IntakeRules.MaxDataDepth: encoding/json
// refuses a document nested deeper than this, so no deeper data could be
// read anyway.
const MaxMaxDataDepth = 10000

// IntakeRules are intake's configurable limits. The zero value of each field
// means its default.
type IntakeRules struct {
	// MaxDataDepth is how deeply arrays and objects may nest in an intent's
	// data: a scalar is depth 0, {} and [] depth 1, {"a":[1]} depth 2.
	// Deeper data is refused with ErrInvalid naming the field data.
	// Defaults to DefaultMaxDataDepth (64); at most MaxMaxDataDepth.
	MaxDataDepth int
}

// withDefaults fills the unset fields.
func (r IntakeRules) withDefaults() IntakeRules {
	if r.MaxDataDepth == 0 {
		r.MaxDataDepth = DefaultMaxDataDepth
	}
	return r
}

// Validate checks the rules (after defaults), naming each bad field as the
// node's configuration does.
func (r IntakeRules) Validate() error {
	r = r.withDefaults()
	if r.MaxDataDepth < 1 || r.MaxDataDepth > MaxMaxDataDepth {
		return fmt.Errorf("maxDataDepth: must be from 1 to %d, got %d", MaxMaxDataDepth, r.MaxDataDepth)
	}
	return nil
}

// Submit validates intents and commits them; it returns once they are
// durable. Each result says whether it created a record or found one by its
// idempotency key under the intent's Principal (a key is scoped per
// principal: another principal's record is never found, nor named). An
// intent is refused (ErrInvalid, ErrTypeNotAllowed, ErrReserved) before
// anything is committed when any of the batch is; the rules are
// CheckIntake's, and CheckReserved's for a principal that is not an
// engine's.
func (n *Node) Submit(ctx context.Context, in []Intake) ([]store.EnqueueResult, error) {
	rules := n.cfg.Intake
	now := n.cfg.Clock.Now().UTC()
	txs := make([]store.NewTransaction, len(in))
	for i, it := range in {
		if err := rules.check(it, n.allowed, n.public); err != nil {
			return nil, err
		}
		if !IsEnginePrincipal(it.Principal) {
			if err := CheckReserved(it); err != nil {
				return nil, err
			}
		}
		data := it.Data
		if len(data) == 0 {
			data = []byte("{}")
		}
		if err := n.schemas.check(it.Type, data); err != nil {
			return nil, err
		}
		if err := n.fits(it, data); err != nil {
			return nil, err
		}
		txs[i] = store.NewTransaction{UID: n.uidSeq.next(now), Queue: it.Queue, Type: it.Type, Data: data,
			Principal: it.Principal, IdempotencyKey: it.IdempotencyKey, At: now}
	}
	res, err := n.cfg.Store.Enqueue(ctx, txs)
	n.wrote(err)
	if err != nil {
		return nil, fmt.Errorf("sequencer intake: %w", err)
	}
	for i, r := range res {
		if r.Created {
			continue
		}
		if diff := intentDiff(r.Transaction, txs[i]); diff != "" {
			return res, fmt.Errorf("%w: key %s already names %s, which differs from this intent in %s", ErrIdempotencyConflict,
				Excerpt(txs[i].IdempotencyKey), r.Transaction.UID, diff)
		}
	}
	return res, nil
}

// CheckIntake applies intake's rules to one intent, all but the allowed
// types (which belong to a node): Submit refuses exactly what it refuses,
// with ErrInvalid and a sentence naming the field.
//
//   - queue: 1 to MaxQueueName bytes of valid UTF-8 (so no lone
//     surrogates), not only whitespace, without control characters,
//     bidirectional formatting characters (U+061C, U+200E, U+200F,
//     U+202A–U+202E, U+2066–U+2069), zero-width characters (U+200B–U+200D,
//     U+2060, U+FEFF) or U+FFFD (the mark of a byte or a surrogate that was
//     replaced on the way: two distinct names must never become one);
//   - idempotencyKey: empty (no key), or as a queue name but up to
//     MaxIdempotencyKey bytes;
//   - data: empty (stored as {}) or one JSON value in valid UTF-8, without
//     an escaped lone surrogate (\ud800 alone: encoding/json would read it
//     as U+FFFD), without a key repeated in an object, nested at most
//     MaxDataDepth deep, every number one the chain's encoding carries
//     (chain.CheckNumber: 1e999999 could never be sent).
func (r IntakeRules) CheckIntake(it Intake) error {
	return r.withDefaults().check(it, nil, nil)
}

// check is CheckIntake, and the allowed types when allowed is not nil
// (list is the allowed types, sorted, for the message).
func (r IntakeRules) check(it Intake, allowed map[string]bool, list []string) error {
	if it.Queue == "" {
		return fmt.Errorf("%w: queue is required", ErrInvalid)
	}
	if err := checkName("queue", it.Queue, MaxQueueName); err != nil {
		return err
	}
	if it.IdempotencyKey != "" {
		if err := checkName("idempotencyKey", it.IdempotencyKey, MaxIdempotencyKey); err != nil {
			return err
		}
	}
	if allowed != nil && !allowed[it.Type] {
		return fmt.Errorf("%w: %s; allowed types are %s", ErrTypeNotAllowed, Excerpt(it.Type), strings.Join(list, ", "))
	}
	if len(it.Data) > 0 {
		if err := checkData(it.Data, r.MaxDataDepth); err != nil {
			return err
		}
	}
	return nil
}

// checkName applies the rule of names (queues, idempotency keys) to s, a
// value of field: see CheckIntake. The error never quotes s: it names the
// character at fault and its byte offset.
func checkName(field, s string, maxLen int) error {
	if len(s) > maxLen {
		return fmt.Errorf("%w: %s is %d bytes; the most is %d", ErrInvalid, field, len(s), maxLen)
	}
	space := true
	for i, c := range s {
		var what string
		switch {
		case c == utf8.RuneError:
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return fmt.Errorf("%w: %s is not valid UTF-8 (byte %d); a lone surrogate is not a character either", ErrInvalid, field, i)
			}
			what = "U+FFFD, the replacement character (a byte or a lone surrogate was replaced before it reached the node)"
		case unicode.IsControl(c):
			what = fmt.Sprintf("control character %U", c)
		case isBidiControl(c):
			what = fmt.Sprintf("bidirectional formatting character %U", c)
		case isZeroWidth(c):
			what = fmt.Sprintf("zero-width character %U", c)
		}
		if what != "" {
			return fmt.Errorf("%w: %s contains %s at byte %d; %s", ErrInvalid, field, what, i, nameRule(field))
		}
		space = space && unicode.IsSpace(c)
	}
	if space {
		return fmt.Errorf("%w: %s is only whitespace; %s", ErrInvalid, field, nameRule(field))
	}
	return nil
}

// nameRule says what a name may hold, for error messages.
func nameRule(field string) string {
	return field + " must be printable Unicode text, without control, bidirectional-formatting or zero-width characters"
}

// isBidiControl reports whether c is a bidirectional formatting character:
// the marks (ALM, LRM, RLM), embeddings and overrides, and isolates.
func isBidiControl(c rune) bool {
	return c == 0x061C || c == 0x200E || c == 0x200F || (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069)
}

// isZeroWidth reports whether c is a zero-width character: space,
// non-joiner, joiner, word joiner, and the byte-order mark (zero-width
// no-break space).
func isZeroWidth(c rune) bool {
	return (c >= 0x200B && c <= 0x200D) || c == 0x2060 || c == 0xFEFF
}

// checkData checks an intent's data: one JSON value, valid UTF-8, no escaped
// lone surrogate, no key repeated in an object, arrays and objects nested at
// most maxDepth deep, numbers the chain's encoding carries.
func checkData(b []byte, maxDepth int) error {
	if !utf8.Valid(b) {
		return fmt.Errorf("%w: data is not valid UTF-8", ErrInvalid)
	}
	if at, esc, ok := LoneSurrogate(b); ok {
		return fmt.Errorf("%w: data contains %s at byte %d, a lone UTF-16 surrogate: it is not a character, and decoding would replace it with U+FFFD", ErrInvalid, esc, at)
	}
	type frame struct {
		obj     bool
		wantKey bool
		keys    map[string]struct{}
	}
	var stack []frame
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	done := false // one whole value has been read
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			if !done {
				return fmt.Errorf("%w: data is not valid JSON: unexpected end", ErrInvalid)
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w: data is not valid JSON: %w", ErrInvalid, err)
		}
		if done {
			return fmt.Errorf("%w: data is more than one JSON value", ErrInvalid)
		}
		top := len(stack) - 1
		d, isDelim := tok.(json.Delim)
		switch {
		case isDelim && (d == '}' || d == ']'):
			stack = stack[:top]
		case top >= 0 && stack[top].wantKey:
			key, _ := tok.(string)
			f := &stack[top]
			if f.keys == nil {
				f.keys = map[string]struct{}{}
			}
			if _, dup := f.keys[key]; dup {
				return fmt.Errorf("%w: data has the key %s twice in one object", ErrInvalid, Excerpt(key))
			}
			f.keys[key] = struct{}{}
			f.wantKey = false
			continue
		case isDelim: // '{' or '['
			if len(stack) >= maxDepth {
				return fmt.Errorf("%w: data nests arrays and objects deeper than %d levels (maxDataDepth)", ErrInvalid, maxDepth)
			}
			stack = append(stack, frame{obj: d == '{', wantKey: d == '{'})
			continue
		}
		if num, ok := tok.(json.Number); ok {
			if err := chain.CheckNumber(string(num)); err != nil {
				return fmt.Errorf("%w: data holds a number the chain's encoding refuses (%w, byte %d); numbers must fit a float64, up to about 1.8e308", ErrInvalid, err, dec.InputOffset())
			}
		}
		// A value is complete.
		if top := len(stack) - 1; top >= 0 {
			stack[top].wantKey = stack[top].obj
		} else {
			done = true
		}
	}
}

// LoneSurrogate finds the first \u escape in b, JSON text, that encodes a
// lone UTF-16 surrogate (a high one not followed by an escaped low one, or a
// low one alone). It returns its byte offset and the escape as written.
// encoding/json decodes such an escape as U+FFFD, so "\ud800" and "\ud801"
// would become the same string. b is assumed to be valid JSON: outside
// strings it holds no backslash.
func LoneSurrogate(b []byte) (at int, escape string, ok bool) {
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' {
			continue
		}
		if i+1 >= len(b) {
			break
		}
		if b[i+1] != 'u' {
			i++ // \" \\ \/ \b \f \n \r \t
			continue
		}
		r, ok := hex4(b[i+2:])
		if !ok {
			i++
			continue
		}
		switch {
		case r >= 0xD800 && r < 0xDC00:
			if len(b) >= i+12 && b[i+6] == '\\' && b[i+7] == 'u' {
				if lo, ok := hex4(b[i+8:]); ok && lo >= 0xDC00 && lo < 0xE000 {
					i += 11
					continue
				}
			}
			return i, string(b[i : i+6]), true
		case r >= 0xDC00 && r < 0xE000:
			return i, string(b[i : i+6]), true
		}
		i += 5
	}
	return 0, "", false
}

// hex4 reads the four hex digits at the start of b.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[:4]), 16, 16)
	return rune(n), err == nil
}

// intentDiff says in which of queue, type and data a known record differs
// from a new intent with its idempotency key, or "" when they are the same
// intent. Data is compared in canonical JSON, the form the chain hashes
// arguments in (chain.CanonicalArgs: keys sorted, no insignificant
// whitespace, strings in one escaping, numbers as written), so key order
// and whitespace do not matter while 1 and 1.0 differ.
func intentDiff(old store.Transaction, nw store.NewTransaction) string {
	var diffs []string
	if old.Queue != nw.Queue {
		diffs = append(diffs, fmt.Sprintf("queue (%s there, %s here)", Excerpt(old.Queue), Excerpt(nw.Queue)))
	}
	if old.Type != nw.Type {
		diffs = append(diffs, fmt.Sprintf("type (%s there, %s here)", Excerpt(old.Type), Excerpt(nw.Type)))
	}
	if !SameJSON(old.Data, nw.Data) {
		diffs = append(diffs, "data (their canonical JSON differs)")
	}
	switch len(diffs) {
	case 0:
		return ""
	case 1:
		return diffs[0]
	}
	return strings.Join(diffs[:len(diffs)-1], ", ") + " and " + diffs[len(diffs)-1]
}

// SameJSON reports whether two JSON documents are the same in canonical
// JSON (see intentDiff).
func SameJSON(a, b []byte) bool {
	return bytes.Equal(chain.CanonicalArgs(a), chain.CanonicalArgs(b))
}

// Excerpt quotes s for an error message: whole when it is at most 64 bytes,
// else a prefix and its length (httpjson.Excerpt). An error never echoes an
// oversized input back.
func Excerpt(s string) string { return httpjson.Excerpt(s) }

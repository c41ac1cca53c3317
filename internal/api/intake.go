package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/httpjson"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/store"
)

// submit is POST /v1/transactions: one intent (a JSON object), or an array
// of them (submitBatch).
func (s *server) submit(w http.ResponseWriter, r *http.Request) {
	// The router reads this route's body up to the larger limit of arrays
	// (Options.MaxBatchBody, httpjson's Limit); one intent keeps its own
	// (Options.MaxBody).
	b, err := io.ReadAll(r.Body)
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe) && isArray(b):
		s.api.WriteError(w, httpjson.Errorf(CodeTooLarge, "request body is over the limit of %d bytes for an array of intents", mbe.Limit))
		return
	case errors.As(err, &mbe) || (err == nil && !isArray(b) && int64(len(b)) > s.maxBody):
		s.api.WriteError(w, httpjson.Errorf(CodeTooLarge, "request body is over the limit of %d bytes", s.maxBody))
		return
	case err != nil:
		s.api.WriteError(w, httpjson.Errorf(CodeBadJSON, "reading the request body: %w", err))
		return
	case !utf8.Valid(b): // once, for the object and for every item of an array
		s.api.WriteError(w, httpjson.Errorf(CodeBadJSON, "request body is not valid UTF-8"))
		return
	case isArray(b):
		s.submitBatch(w, r, b)
		return
	}
	it, err := s.decodeIntake(b)
	if err != nil {
		s.api.WriteError(w, err)
		return
	}
	if err := s.checkType(r, it.Type); err != nil {
		s.api.WriteError(w, err)
		return
	}
	if err := s.limit.TakeRequest(r, 1); err != nil {
		s.api.WriteError(w, err)
		return
	}
	res, err := s.take(r, []sequencer.Intake{it})
	switch {
	case err != nil:
		s.api.WriteError(w, intakeError(err))
		return
	case len(res) != 1:
		s.api.WriteError(w, fmt.Errorf("api: submit returned %d results for one intent", len(res)))
		return
	}
	t := normTx(res[0].Transaction)
	status := http.StatusOK
	if res[0].Created {
		status = http.StatusCreated
		w.Header().Set("Location", "/v1/transactions/"+url.PathEscape(t.UID))
	}
	s.api.WriteJSON(w, status, t)
}

// CodeReserved (422): the intent's queue or idempotency key is in a
// namespace of the node's engines (sequencer.ReservedPrefixes).
const CodeReserved = "reserved_name"

// take hands intents to the intake (Options.Intake) or to the sequencer,
// on behalf of the request's principal: the scope of their idempotency
// keys.
func (s *server) take(r *http.Request, in []sequencer.Intake) ([]store.EnqueueResult, error) {
	p, _ := auth.PrincipalFrom(r.Context())
	if s.intake != nil {
		return s.intake.Submit(r.Context(), p.Name, in)
	}
	for i := range in {
		in[i].Principal = p.Name
	}
	return s.n.Submit(r.Context(), in)
}

// intakeError gives an error of take its API code: the sequencer's refusals
// theirs, an error that carries its own code (httpjson.Errorf) that one, any
// other an internal error.
func intakeError(err error) error {
	switch {
	case errors.Is(err, sequencer.ErrTypeNotAllowed):
		return httpjson.Errorf(CodeTypeNotAllowed, "%w", err)
	case errors.Is(err, sequencer.ErrReserved):
		return httpjson.Errorf(CodeReserved, "%w", err)
	case errors.Is(err, sequencer.ErrInvalid):
		return httpjson.Errorf(CodeInvalid, "%w", err)
	case errors.Is(err, sequencer.ErrIdempotencyConflict):
		return httpjson.Errorf(CodeIdempotency, "%w", err)
	case errors.Is(err, store.ErrStorageFull):
		return httpjson.Errorf(CodeStorageFull, "the node's store has no room: nothing was committed; retry later with the same idempotency key (%w)", err)
	}
	return fmt.Errorf("api: submit: %w", err)
}

// IntakeRequest is the body of POST /v1/transactions.
type IntakeRequest struct {
	Queue          jsonString      `json:"queue"`
	Type           jsonString      `json:"type"`
	Data           json.RawMessage `json:"data"`
	IdempotencyKey jsonString      `json:"idempotencyKey"`
}

// jsonString is a string that must be given as a JSON string: null and
// other values are errors rather than "". It remembers the first escaped
// lone surrogate of the string as written ("\ud800"), which encoding/json
// decodes as U+FFFD.
type jsonString struct {
	s string
	// surrogate is the first escaped lone surrogate, "" when none.
	surrogate string
}

// UnmarshalJSON decodes a JSON string and rejects any other value.
func (s *jsonString) UnmarshalJSON(b []byte) error {
	kind := "number"
	switch string(b[:min(len(b), 1)]) {
	case `"`:
		if _, esc, ok := sequencer.LoneSurrogate(b); ok {
			s.surrogate = esc
		}
		return json.Unmarshal(b, &s.s)
	case "n":
		kind = "null"
	case "t", "f":
		kind = "bool"
	case "{":
		kind = "object"
	case "[":
		kind = "array"
	}
	return &json.UnmarshalTypeError{Value: kind, Type: reflect.TypeFor[string]()}
}

// decodeIntake decodes and checks one intent of POST /v1/transactions: the
// body of the single form, or an item of an array (valid UTF-8: submit
// checked the body). It accepts exactly one JSON object whose keys are the
// documented ones, spelled exactly, each at most once; queue, type and idempotencyKey are strings and
// data is any JSON value. A string with an escaped lone surrogate is refused
// here, naming its field: decoded, it would read as U+FFFD, and two distinct
// names would become one. A queue or key in the engines' namespaces is
// refused here too (sequencer.CheckReserved, CodeReserved), before any
// replica set is looked up. The rest of intake's rules are the
// sequencer's (sequencer.IntakeRules.CheckIntake), applied by Submit.
func (s *server) decodeIntake(b []byte) (sequencer.Intake, error) {
	var body *IntakeRequest // stays nil for a JSON null
	if err := httpjson.DecodeStrictRaw(b, &body); err != nil {
		return sequencer.Intake{}, httpjson.Errorf(CodeBadJSON, "%s (fields are queue, type, data, idempotencyKey)", excerptQuoted(err.Error()))
	}
	if body == nil {
		return sequencer.Intake{}, httpjson.Errorf(CodeBadJSON, "request body: expected a JSON object")
	}
	it := sequencer.Intake{Queue: body.Queue.s, Type: body.Type.s, Data: body.Data, IdempotencyKey: body.IdempotencyKey.s}
	for _, f := range []struct {
		name string
		v    jsonString
	}{{"queue", body.Queue}, {"type", body.Type}, {"idempotencyKey", body.IdempotencyKey}} {
		if f.v.surrogate != "" {
			return it, httpjson.Errorf(CodeInvalid, "%s contains the escape %s, a lone UTF-16 surrogate: it is not a character, and decoding would replace it with U+FFFD; %s must be valid Unicode", f.name, f.v.surrogate, f.name)
		}
	}
	if it.Queue == "" {
		return it, httpjson.Errorf(CodeInvalid, "queue is required")
	}
	if it.Type == "" {
		return it, httpjson.Errorf(CodeInvalid, "type is required; allowed types are %s", strings.Join(s.n.AllowedTypes(), ", "))
	}
	if err := sequencer.CheckReserved(it); err != nil {
		return it, httpjson.Errorf(CodeReserved, "%w", err)
	}
	return it, nil
}

package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/ordolabs/ordo/internal/httpjson"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/store"
)

// MaxBatch is the most intents one array of POST /v1/transactions carries.
const MaxBatch = 1000

// DefaultMaxBatchBody is the default limit on the body of an array of
// intents (Options.MaxBatchBody): 8 MiB, 8 KiB an intent on average at
// MaxBatch (an intent alone may reach DefaultMaxBody, 1 MiB).
const DefaultMaxBatchBody = 8 << 20

// BatchResult is one intent's result in the answer to an array of intents,
// at the intent's position. Status is what POST /v1/transactions of that
// intent alone would have answered: 201 with the record it created, 200
// with the record its idempotency key names, else the error's status with
// the error. Created is true only with 201.
type BatchResult struct {
	Status      int                `json:"status"`
	Created     bool               `json:"created"`
	Transaction *store.Transaction `json:"transaction,omitempty"`
	Error       *ErrorDetail       `json:"error,omitempty"`
}

// isArray reports whether the JSON text b starts an array.
func isArray(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c == '['
	}
	return false
}

// submitBatch is POST /v1/transactions with an array of 1 to MaxBatch
// intents. A request that is not such an array is refused whole (400
// bad_json, 413 too_large); else the answer is 200 with one BatchResult per
// intent, in order. An intent the API refuses (its shape, a missing queue or
// type, a type the principal may not submit) gets its error; the others are
// committed together, in one Submit when the intake refuses none of them
// (commit).
func (s *server) submitBatch(w http.ResponseWriter, r *http.Request, b []byte) {
	var raws []json.RawMessage
	if err := httpjson.DecodeStrictRaw(b, &raws); err != nil {
		s.api.WriteError(w, httpjson.Errorf(CodeBadJSON, "%s (an array of intents, each {queue, type, data, idempotencyKey})", excerptQuoted(err.Error())))
		return
	}
	switch {
	case len(raws) == 0:
		s.api.WriteError(w, httpjson.Errorf(CodeBadJSON, "request body is an empty array; send 1 to %d intents", MaxBatch))
		return
	case len(raws) > MaxBatch:
		s.api.WriteError(w, httpjson.Errorf(CodeTooLarge, "request body is an array of %d intents; at most %d go in one request", len(raws), MaxBatch))
		return
	}
	out := make([]BatchResult, len(raws))
	in := make([]sequencer.Intake, len(raws))
	idx := make([]int, 0, len(raws))
	for i, raw := range raws {
		it, err := s.decodeIntake(raw)
		if err == nil {
			err = s.checkType(r, it.Type)
		}
		if err != nil {
			out[i] = s.errorResult(err)
			continue
		}
		in[i] = it
		idx = append(idx, i)
	}
	// Each intent the API accepted counts against the principal's rate;
	// past it the whole array is refused (429), nothing taken.
	if err := s.limit.TakeRequest(r, len(idx)); err != nil {
		s.api.WriteError(w, err)
		return
	}
	s.commit(r, in, idx, out)
	s.api.WriteJSON(w, http.StatusOK, out)
}

// commit takes the intents of in at idx and puts each one's result in out,
// at its index. All of them go in one Submit, committed together; what
// happens when that Submit fails depends on what it can have committed:
//
//   - results for every intent with an error (the sequencer's idempotency
//     conflict): every intent is committed or was there; each the store
//     did not create is submitted again alone, which creates nothing (its
//     key is known) and answers as the single form would (the record, or
//     the conflict);
//   - a refusal of the sequencer's checks (invalid, type not allowed,
//     reserved name):
//     nothing was committed past the results returned, and the sequencer
//     does not say which intent it refused, so the rest is split in
//     halves, each submitted again, until the refused intents stand alone;
//   - another error with a code (the replicated intake's: unavailable,
//     not_replicated, type_forbidden, an idempotency conflict): an intake
//     that takes intents one by one stopped at the first after its
//     results, which may have been committed on its primary (never
//     submitted again: a retry without a key would make a second record);
//     it gets the error and the ones after it are submitted again;
//   - any other error: each intent without a result gets it.
func (s *server) commit(r *http.Request, in []sequencer.Intake, idx []int, out []BatchResult) {
	for len(idx) > 0 {
		batch := make([]sequencer.Intake, len(idx))
		for j, i := range idx {
			batch[j] = in[i]
		}
		res, err := s.take(r, batch)
		if err == nil && len(res) != len(idx) {
			err, res = fmt.Errorf("api: submit returned %d results for %d intents", len(res), len(idx)), nil
		}
		if err != nil && len(res) == len(idx) {
			for j, i := range idx {
				if res[j].Created {
					out[i] = txResult(res[j])
					continue
				}
				out[i] = s.commitOne(r, in[i])
			}
			return
		}
		k := min(len(res), len(idx))
		for j := range k {
			out[idx[j]] = txResult(res[j])
		}
		rest := idx[k:]
		var coded *httpjson.Error
		switch {
		case err == nil:
			return
		case errors.Is(err, sequencer.ErrInvalid) || errors.Is(err, sequencer.ErrTypeNotAllowed) || errors.Is(err, sequencer.ErrReserved):
			if len(rest) == 1 {
				out[rest[0]] = s.errorResult(err)
				return
			}
			h := len(rest) / 2
			s.commit(r, in, rest[:h], out)
			idx = rest[h:]
		case errors.Is(err, sequencer.ErrIdempotencyConflict) || (errors.As(err, &coded) && coded.Code != CodeInternal):
			out[rest[0]] = s.errorResult(err)
			idx = rest[1:]
		default:
			e := s.errorResult(err)
			for _, i := range rest {
				out[i] = e
			}
			return
		}
	}
}

// commitOne submits one intent alone and returns its result.
func (s *server) commitOne(r *http.Request, it sequencer.Intake) BatchResult {
	res, err := s.take(r, []sequencer.Intake{it})
	if err == nil && len(res) != 1 {
		err = fmt.Errorf("api: submit returned %d results for one intent", len(res))
	}
	if err != nil {
		return s.errorResult(err)
	}
	return txResult(res[0])
}

// txResult is the BatchResult of a committed intent.
func txResult(r store.EnqueueResult) BatchResult {
	t := normTx(r.Transaction)
	if r.Created {
		return BatchResult{Status: http.StatusCreated, Created: true, Transaction: &t}
	}
	return BatchResult{Status: http.StatusOK, Transaction: &t}
}

// errorResult is the BatchResult of an intent refused with err, with the
// code, message and status the single form would answer (an error without
// a code is logged and answered as an internal error).
func (s *server) errorResult(err error) BatchResult {
	status, d := s.api.ErrorOf(intakeError(err))
	return BatchResult{Status: status, Error: &d}
}

package processor

import (
	"errors"
	"fmt"

	"github.com/ordolabs/ordo/internal/httpjson"
)

// ErrBadBatch is returned by DecodeBatch for a body that is not a batch.
var ErrBadBatch = errors.New("bad batch")

// MaxBatchBytes bounds an encoded batch.
const MaxBatchBytes = MaxMsgs*(MaxArgsBytes+512) + 4<<10

// DecodeBatch decodes a MessageBatch strictly (unknown, duplicate or
// case-variant fields refused, as the node's API decodes every body) and
// validates it. A malformed body is ErrBadBatch; a well-formed batch with a
// refused field is a *FieldError naming it.
func DecodeBatch(data []byte) (BatchSpec, error) {
	var s BatchSpec
	if len(data) > MaxBatchBytes {
		return s, fmt.Errorf("%w: %d bytes, the limit is %d", ErrBadBatch, len(data), MaxBatchBytes)
	}
	if err := httpjson.DecodeStrict(data, &s); err != nil {
		return BatchSpec{}, fmt.Errorf("%w: %w", ErrBadBatch, err)
	}
	if ferr := s.Validate(); ferr != nil {
		return BatchSpec{}, ferr
	}
	return s, nil
}

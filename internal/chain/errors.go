package chain

import "errors"

// Error is a chain error with a stable code, used as a sentinel: compare with
// errors.Is, whatever the transport (the HTTP client maps codes back to these
// values).
type Error struct {
	// Code is the stable machine-readable code ("nonce_too_low", ...); the
	// HTTP API carries it.
	Code string
	// Msg is the human-readable message, the error's text.
	Msg string
}

// Error returns the error's message (Msg), without its code.
func (e *Error) Error() string { return e.Msg }

// Sentinel errors of the chain interface.
var (
	ErrInvalidTx              = &Error{"invalid_tx", "invalid transaction"}
	ErrBadSignature           = &Error{"bad_signature", "signature does not match sender"}
	ErrUnknownContract        = &Error{"unknown_contract", "unknown contract"}
	ErrUnknownMethod          = &Error{"unknown_method", "unknown method"}
	ErrNonceTooLow            = &Error{"nonce_too_low", "nonce too low"}
	ErrNonceTooHigh           = &Error{"nonce_too_high", "nonce too far ahead of the account"}
	ErrFeeTooLow              = &Error{"fee_too_low", "fee below the chain's minimum"}
	ErrReplacementUnderpriced = &Error{"replacement_underpriced", "replacement fee must be at least 110% of the pending transaction's"}
	ErrInsufficientFunds      = &Error{"insufficient_funds", "balance does not cover the fee"}
	ErrMempoolFull            = &Error{"mempool_full", "mempool is full"}
	ErrRejected               = &Error{"rejected", "transaction rejected by the chain"}
	ErrNotFound               = &Error{"not_found", "not found"}
	ErrCallFailed             = &Error{"call_failed", "contract call failed"}
	ErrNotDevMode             = &Error{"not_dev_mode", "only available in dev mode"}
)

var byCode = map[string]*Error{}

func init() {
	for _, e := range []*Error{ErrInvalidTx, ErrBadSignature, ErrUnknownContract, ErrUnknownMethod,
		ErrNonceTooLow, ErrNonceTooHigh, ErrFeeTooLow, ErrReplacementUnderpriced, ErrInsufficientFunds,
		ErrMempoolFull, ErrRejected, ErrNotFound, ErrCallFailed, ErrNotDevMode} {
		byCode[e.Code] = e
	}
}

// ErrorByCode returns the sentinel error with the given code, or nil.
func ErrorByCode(code string) *Error { return byCode[code] }

// CodeOf returns the code of the chain sentinel err wraps, or "".
func CodeOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

package node

import (
	"context"

	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/ptx"
)

// limitedBackend is the ptx API's backend with each send and prepare
// counted against its caller's intake rate (api.intakeLimit): the request's
// principal travels in ctx (the router puts it there). Past the rate the
// call answers the JSON-RPC error with code rate_limited and nothing is
// committed.
type limitedBackend struct {
	ptx.Backend
	limit *auth.Limiter
}

// limitPTX returns b counted against limit, or b itself when limit is nil.
func limitPTX(b ptx.Backend, limit *auth.Limiter) ptx.Backend {
	if limit == nil {
		return b
	}
	return limitedBackend{Backend: b, limit: limit}
}

// Submit takes one intent from the caller's bucket, then submits.
func (b limitedBackend) Submit(ctx context.Context, contract, key string, intent []byte) (string, error) {
	if err := b.limit.TakeContext(ctx, 1); err != nil {
		return "", err
	}
	return b.Backend.Submit(ctx, contract, key, intent)
}

// Prepare takes one intent from the caller's bucket, then prepares.
func (b limitedBackend) Prepare(ctx context.Context, contract, key string, intent []byte) (string, error) {
	if err := b.limit.TakeContext(ctx, 1); err != nil {
		return "", err
	}
	return b.Backend.Prepare(ctx, contract, key, intent)
}

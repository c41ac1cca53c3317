package store

import (
	"context"
	"time"
)

// Pruner removes finished sequencer records past their retention (the
// node's retention: driver, Chainlink TXM's reaper in spirit): one short
// write per call, so that a node prunes in batches between which the
// engines' writers proceed.
type Pruner interface {
	// PruneFinished deletes at most limit transactions that are DONE or
	// FAILED, whose hook has reported (Result set: PendingHooks lists
	// none of them), that no queue binding names, and that were last
	// updated (UpdatedAt) before before; oldest UpdatedAt first. Their
	// attempts and history go with them. It is one transaction: all of it
	// or nothing. A pruned record's idempotency key is free again: an
	// intent sent again with it later is a new record.
	PruneFinished(ctx context.Context, before time.Time, limit int) (Pruned, error)
}

// Pruned counts the rows a PruneFinished call deleted.
type Pruned struct {
	// Transactions are the records deleted; Attempts and History their
	// attempts and history entries (a store keeping history inline in the
	// record counts none).
	Transactions, Attempts, History int
}

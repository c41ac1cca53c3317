// Package replog is the replication log of a sequencer queue (issue 12;
// seed 004, where each user's data has a "clock" that replicas compare):
// the queue's changes on its primary as a hash chain of entries, and the
// rules a secondary applies them by.
//
// An Entry is one change: the queue, its Clock (its position in the log,
// from 1), the replica-set Version of the primary that wrote it, the Hash
// of the entry before it (Prev; zero before the first), an opaque Payload
// (the change, as the store encodes it), and its own Hash over all of
// that. A replica's Head is the clock and hash of the last entry it holds:
// two replicas at one clock hold the same log exactly when their heads'
// hashes are equal, which is what monitoring compares (the clock alone
// would miss a fork).
//
// Extend is a secondary's check before it applies a batch: sent by a
// primary whose replica-set version is not older than the one it knows,
// entries after its head, in order, each sealed correctly, the first
// chained to its head and each to the one before. It returns what to apply
// and the new head, or why nothing applies: ErrGap (an entry missing),
// ErrFork (a different history at or before its head), ErrStaleVersion (a
// deposed primary), ErrCorrupt (an entry whose hash does not match, of
// another queue, or with versions that go back or ahead of its sender's).
//
// Invariants: Seal is a pure function of its inputs and the hash covers
// every field (a length-prefixed encoding: no two entries share one);
// Extend never returns an entry at or before the head, never a gap, never
// an entry whose Prev is not the hash before it; on error it returns the
// head it was given and nothing to apply.
package replog

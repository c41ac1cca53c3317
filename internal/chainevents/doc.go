// Package chainevents is the kernel's chain-event listener (issue 8, "The
// kernel gains a chain-event listener"; used by the processor of seed 002 for
// confirmations carried by chain events, and by the leader of seed 001 for
// the events it indexes): it reads a chain's events after a cursor, a page
// at a time, and hands each page to a Handler with the cursor to resume
// after it.
//
// Exactly once across crashes is the Handler's commit plus a restart from
// the persisted cursor: the Handler commits whatever the events produce and
// the new cursor in one store transaction and returns only after the commit
// (ARCHITECTURE.md principle 3: an event and its cursor in one transaction);
// a restarted Listener starts From the cursor the store holds. The Listener
// advances its own cursor only when the Handler returns nil; on an error it
// retries the same page after a backoff on the injected clock.
//
// Invariants:
//   - pages are handed over in cursor order; every event the chain lists
//     after From is either handed to the Handler or skipped by the Filter,
//     once per Listener, never skipped on an error, and the cursor a
//     Handler is given is the last cursor of its page (so a page the Filter
//     emptied is still handed over, empty, and the skip is durable);
//   - by default an event is handed over only once its block is final by the
//     head's declared reorg depth (chain.BlockHeader.ReorgDepth), so a reorg
//     within that depth never removes a handed-over event (Unconfirmed
//     turns this off);
//   - a page whose cursors do not rise strictly above the Listener's cursor
//     is refused (ErrBadPage), never handed over;
//   - the Listener reads time only from its Clock and starts no goroutine
//     per event: Run is one loop (plus chain.WatchHeads' goroutine when the
//     chain pushes heads).
package chainevents

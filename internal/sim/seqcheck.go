package sim

import (
	"context"
	"fmt"
	"sort"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/store"
)

// The invariants' names, as a violation reports them.
const (
	InvCore        = "core invariants"
	InvOnce        = "exactly once on chain"
	InvFIFO        = "FIFO per queue"
	InvOnePerBlock = "at most one per queue per block"
	InvLost        = "nothing acknowledged lost"
	InvFailedLands = "nothing FAILED that could still land"
	InvFinal       = "DONE and FAILED are final"
	InvLiveness    = "every intent DONE or FAILED once faults stop"
	InvHooks       = "every ended intent's hook reports once faults stop"
)

// record is what the checker knows of an acknowledged record.
type record struct {
	uid   string
	queue string
	seq   int64
	end   store.TxState // "" until DONE or FAILED
	// maybe: FAILED as ambiguous (a worker's unreported attempt may have
	// taken its nonce): it may still land, once, outside its queue's order.
	maybe bool
}

// slot is one queue's place in one block.
type slot struct {
	queue  string
	height uint64
}

// landing is a transaction of a record included in a canonical block.
type landing struct {
	uid     string
	queue   string
	seq     int64
	height  uint64
	success bool
	maybe   bool // counted only in success (see add)
}

// checker follows the canonical chain incrementally and holds the records'
// ends, and checks the invariants that span node and chain.
type checker struct {
	recs     map[string]*record
	hashes   []chain.Hash         // canonical block hashes by height (index 0: height 0, unused)
	byHeight map[uint64][]landing // the records' landings per canonical height
	success  map[string]int       // successful landings per uid on the canonical chain
	perQueue map[string][]landing // successful landings per queue, in chain order
	slots    map[slot]int         // transactions per (queue, height) on the canonical chain
	ends     []*record            // ended since the last sync
	failures []error
	// rules are the node's in-flight-per-queue policy: a pipelined queue
	// may have that many transactions per block, and its FIFO is checked
	// on what it reports (lastEnd), not on the chain's order of successes.
	rules   []sequencer.Pipeline
	lastEnd map[string]int64 // per pipelined queue, the Seq of the last record ended
}

// pipelined sets the node's in-flight-per-queue policy.
func (k *checker) pipelined(rules []sequencer.Pipeline) *checker {
	k.rules = rules
	return k
}

// depth is how many transactions of queue the node may have in flight.
func (k *checker) depth(queue string) int { return sequencer.InFlightFor(k.rules, queue) }

func newChecker() *checker {
	return &checker{recs: map[string]*record{}, hashes: []chain.Hash{""}, byHeight: map[uint64][]landing{},
		success: map[string]int{}, perQueue: map[string][]landing{}, slots: map[slot]int{}}
}

func (k *checker) fail(inv, format string, args ...any) {
	k.failures = append(k.failures, &invariantError{inv: inv, detail: fmt.Sprintf(format, args...)})
}

// ambiguous marks a record FAILED as ambiguous.
func (k *checker) ambiguous(uid string) {
	if r := k.recs[uid]; r != nil {
		r.maybe = true
	}
}

// acked records an acknowledged record.
func (k *checker) acked(t store.Transaction) {
	if _, ok := k.recs[t.UID]; !ok {
		k.recs[t.UID] = &record{uid: t.UID, queue: t.Queue, seq: t.Seq}
	}
}

// ended records a record's end (the node's OnFinish).
func (k *checker) ended(uid string, st store.TxState) {
	r := k.recs[uid]
	if r == nil {
		k.fail(InvLost, "%s ended %s but was never acknowledged", uid, st)
		return
	}
	if r.end != "" {
		k.fail(InvFinal, "%s ended %s after it had ended %s", uid, st, r.end)
		return
	}
	r.end = st
	k.ends = append(k.ends, r) // checked against the chain at the next sync
	if k.depth(r.queue) > 1 {
		if last, ok := k.lastEnd[r.queue]; ok && last > r.seq {
			k.fail(InvFIFO, "queue %s: %s (seq %d) ended %s after seq %d had ended", r.queue, uid, r.seq, st, last)
		}
		if k.lastEnd == nil {
			k.lastEnd = map[string]int64{}
		}
		k.lastEnd[r.queue] = max(k.lastEnd[r.queue], r.seq)
	}
}

// checkEnd checks a record's end against the chain.
func (k *checker) checkEnd(r *record) {
	switch n := k.success[r.uid]; {
	case r.end == store.Done && n != 1:
		k.fail(InvOnce, "%s is DONE with %d successful inclusions on the canonical chain", r.uid, n)
	case r.end == store.Failed && n != 0 && !r.maybe:
		k.fail(InvFailedLands, "%s is FAILED but succeeded on chain (%d inclusions)", r.uid, n)
	}
}

// sync brings the checker's view of the canonical chain up to c's head:
// blocks replaced by a reorg are taken out, new ones are added, and every
// invariant touched is checked.
func (k *checker) sync(ctx context.Context, c interface {
	chain.Chain
	chain.BlockReader
}) error {
	head, err := c.Head(ctx)
	if err != nil {
		return err
	}
	// Find the highest height whose block we hold unchanged.
	keep := min(uint64(len(k.hashes)-1), head.Height)
	for keep > 0 {
		bs, err := c.Blocks(ctx, keep, keep)
		if err != nil {
			return err
		}
		if len(bs) == 1 && bs[0].Hash == k.hashes[keep] {
			break
		}
		keep--
	}
	var blocks []chain.Block
	err = chain.EachBlock(ctx, c, keep+1, head.Height, func(b chain.Block) error {
		blocks = append(blocks, b)
		return nil
	})
	if err != nil {
		return err
	}
	k.apply(keep, blocks)
	return nil
}

// apply replaces the canonical chain above height keep with blocks and
// checks every record whose landings changed or that ended since.
func (k *checker) apply(keep uint64, blocks []chain.Block) {
	touched := k.truncate(keep)
	for _, b := range blocks {
		k.add(b)
	}
	for _, uid := range sortedSet(touched) {
		if r := k.recs[uid]; r.end != "" {
			k.checkEnd(r)
		}
	}
	for _, r := range k.ends {
		k.checkEnd(r)
	}
	k.ends = k.ends[:0]
}

// truncate takes out the landings above height keep; it returns the records
// whose landings it took out.
func (k *checker) truncate(keep uint64) map[string]bool {
	touched := map[string]bool{}
	for h := uint64(len(k.hashes) - 1); h > keep; h-- {
		for _, l := range k.byHeight[h] {
			touched[l.uid] = true
			if l.success {
				k.success[l.uid]--
			}
			if l.maybe {
				continue
			}
			k.slots[slot{l.queue, h}]--
			if l.success {
				q := k.perQueue[l.queue]
				k.perQueue[l.queue] = q[:len(q)-1]
			}
		}
		delete(k.byHeight, h)
	}
	k.hashes = k.hashes[:keep+1]
	return touched
}

// add takes in a new canonical block.
func (k *checker) add(b chain.Block) {
	k.hashes = append(k.hashes, b.Hash)
	for _, t := range b.Txs {
		r := k.recs[t.Memo]
		if r == nil {
			continue
		}
		l := landing{uid: r.uid, queue: r.queue, seq: r.seq, height: b.Height, success: t.Status == chain.OutcomeSucceeded, maybe: r.maybe}
		k.byHeight[b.Height] = append(k.byHeight[b.Height], l)
		if r.maybe {
			// A late landing of an ambiguous FAILED: only "at most once"
			// still holds for it (its queue has moved on).
			if l.success {
				if k.success[r.uid]++; k.success[r.uid] > 1 {
					k.fail(InvOnce, "%s (ambiguous) succeeded on chain %d times (again at height %d)", r.uid, k.success[r.uid], b.Height)
				}
			}
			continue
		}
		s := slot{r.queue, b.Height}
		depth := k.depth(r.queue)
		if k.slots[s]++; k.slots[s] > depth {
			k.fail(InvOnePerBlock, "block %d includes %d transactions of queue %s (the last: %s), at most %d", b.Height, k.slots[s], r.queue, r.uid, depth)
		}
		if !l.success {
			continue
		}
		if k.success[r.uid]++; k.success[r.uid] > 1 {
			k.fail(InvOnce, "%s succeeded on chain %d times (again at height %d)", r.uid, k.success[r.uid], b.Height)
		}
		q := k.perQueue[r.queue]
		if n := len(q); n > 0 && q[n-1].seq >= r.seq && depth == 1 {
			k.fail(InvFIFO, "queue %s: %s (seq %d) succeeded at height %d after %s (seq %d) at height %d",
				r.queue, r.uid, r.seq, b.Height, q[n-1].uid, q[n-1].seq, q[n-1].height)
		}
		k.perQueue[r.queue] = append(q, l)
		if r.end == store.Failed && !r.maybe {
			k.fail(InvFailedLands, "%s is FAILED but succeeded on chain at height %d", r.uid, b.Height)
		}
	}
}

// longestQueue returns the most records open on one queue.
func (k *checker) longestQueue() int {
	n := map[string]int{}
	most := 0
	for _, r := range k.recs {
		if r.end == "" {
			n[r.queue]++
			most = max(most, n[r.queue])
		}
	}
	return most
}

// open counts the records that have not ended.
func (k *checker) open() int {
	n := 0
	for _, r := range k.recs {
		if r.end == "" {
			n++
		}
	}
	return n
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// invariantError is a broken invariant.
type invariantError struct {
	inv    string
	detail string
}

func (e *invariantError) Error() string { return e.inv + ": " + e.detail }

// uids returns the acknowledged records' ids, sorted.
func (k *checker) uids() []string {
	out := make([]string, 0, len(k.recs))
	for uid := range k.recs {
		out = append(out, uid)
	}
	sort.Strings(out)
	return out
}

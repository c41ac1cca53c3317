package processor

import "hash/fnv"

// queueMap is the seed's QueueMap: a FIFO that its owner may also insert
// into and remove from at any position. Valence keeps it as a map from
// index to batch and shifts every later index on an insert or a removal,
// O(n). Here it is an implicit treap (a randomized balanced tree ordered by
// position, each node counting its subtree): push, pop, insert and remove at
// a position are O(log n) expected. The treap's priorities are a hash of
// the batch id, so the tree's shape, like everything in a core, depends on
// the inputs alone.
//
// Each batch also carries an int64 Key that orders it in the store: a push
// takes the last key plus keyGap, an insert the midpoint of its neighbours'
// keys; when two neighbours have no room between them a window around the
// insert is spaced again (respace), growing until it finds room.
type queueMap struct {
	root *qnode
}

type qnode struct {
	b           *pbatch
	prio        uint64
	size        int
	left, right *qnode
}

// keyGap spaces the keys of batches pushed at the back.
const keyGap = 1 << 20

func size(n *qnode) int {
	if n == nil {
		return 0
	}
	return n.size
}

func (n *qnode) fix() { n.size = 1 + size(n.left) + size(n.right) }

// split cuts t into its first k nodes and the rest.
func split(t *qnode, k int) (*qnode, *qnode) {
	if t == nil {
		return nil, nil
	}
	if size(t.left) >= k {
		l, r := split(t.left, k)
		t.left = r
		t.fix()
		return l, t
	}
	l, r := split(t.right, k-size(t.left)-1)
	t.right = l
	t.fix()
	return t, r
}

// merge joins a and b, every node of a before every node of b.
func merge(a, b *qnode) *qnode {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case a.prio > b.prio:
		a.right = merge(a.right, b)
		a.fix()
		return a
	default:
		b.left = merge(a, b.left)
		b.fix()
		return b
	}
}

func prioOf(id string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64()
}

// Len is the number of batches queued.
func (q *queueMap) Len() int { return size(q.root) }

// At returns the batch at position i (0 is the front), nil out of range.
func (q *queueMap) At(i int) *pbatch {
	t := q.root
	for t != nil {
		switch l := size(t.left); {
		case i < l:
			t = t.left
		case i == l:
			return t.b
		default:
			i -= l + 1
			t = t.right
		}
	}
	return nil
}

// Insert puts b at position i (clamped to the queue's length) and gives it
// a key between its neighbours'. It returns the batches whose keys changed
// (b, or the whole queue after a renumber).
func (q *queueMap) Insert(i int, b *pbatch) []*pbatch {
	n := q.Len()
	if i > n {
		i = n
	}
	prev, next := q.At(i-1), q.At(i)
	l, r := split(q.root, i)
	q.root = merge(merge(l, &qnode{b: b, prio: prioOf(b.rec.ID), size: 1}), r)
	switch {
	case prev == nil && next == nil:
		b.rec.Key = keyGap
	case next == nil:
		b.rec.Key = prev.rec.Key + keyGap
	case prev == nil:
		b.rec.Key = next.rec.Key - keyGap
	case next.rec.Key-prev.rec.Key > 1:
		b.rec.Key = prev.rec.Key + (next.rec.Key-prev.rec.Key)/2
	default:
		return q.respace(i)
	}
	return []*pbatch{b}
}

// respace gives new keys to a window of batches around position i (where
// a batch was just put between two keys without room between them): the
// window doubles until the keys just outside it leave at least minSpace
// per batch inside, or it is the whole queue, which is spaced keyGap
// apart. Windows grow geometrically, so repeated inserts at one place cost
// O(log n) rows each, amortized, not a renumbering of the queue.
func (q *queueMap) respace(i int) []*pbatch {
	n := q.Len()
	for w := 8; ; w *= 2 {
		lo, hi := max(0, i-w), min(n, i+w+1) // the window is [lo, hi)
		if lo == 0 && hi == n {
			return q.renumber()
		}
		count := int64(hi - lo)
		var from, step int64
		switch {
		case lo == 0: // room below the first key is unbounded
			step = keyGap
			from = q.At(hi).rec.Key - (count+1)*keyGap
		case hi == n: // room above the last key is unbounded
			step = keyGap
			from = q.At(lo - 1).rec.Key
		default:
			below, above := q.At(lo-1).rec.Key, q.At(hi).rec.Key
			if step = (above - below) / (count + 1); step < minSpace {
				continue
			}
			from = below
		}
		out := make([]*pbatch, 0, count)
		for j := lo; j < hi; j++ {
			b := q.At(j)
			b.rec.Key = from + int64(j-lo+1)*step
			out = append(out, b)
		}
		return out
	}
}

// minSpace is the least room per batch a respaced window keeps.
const minSpace = 1 << 10

// PushBack puts b at the back.
func (q *queueMap) PushBack(b *pbatch) []*pbatch { return q.Insert(q.Len(), b) }

// RemoveAt takes out the batch at position i, nil out of range.
func (q *queueMap) RemoveAt(i int) *pbatch {
	if i < 0 || i >= q.Len() {
		return nil
	}
	l, r := split(q.root, i)
	m, r := split(r, 1)
	q.root = merge(l, r)
	return m.b
}

// Remove takes out b, found by its key (keys ascend in queue order).
func (q *queueMap) Remove(b *pbatch) bool {
	i, t := 0, q.root
	for t != nil {
		switch k := t.b.rec.Key; {
		case t.b == b:
			return q.RemoveAt(i+size(t.left)) == b
		case b.rec.Key < k:
			t = t.left
		default:
			i += size(t.left) + 1
			t = t.right
		}
	}
	return false
}

// Each calls fn with every batch in queue order until fn returns false.
func (q *queueMap) Each(fn func(i int, b *pbatch) bool) {
	i := 0
	var walk func(t *qnode) bool
	walk = func(t *qnode) bool {
		if t == nil {
			return true
		}
		if !walk(t.left) || !fn(i, t.b) {
			return false
		}
		i++
		return walk(t.right)
	}
	walk(q.root)
}

// renumber spaces every key again and returns every batch of the queue.
func (q *queueMap) renumber() []*pbatch {
	all := make([]*pbatch, 0, q.Len())
	q.Each(func(i int, b *pbatch) bool {
		b.rec.Key = int64(i+1) * keyGap
		all = append(all, b)
		return true
	})
	return all
}

package distseq

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
)

// NodeID is a committee member's node-qualified identity: the name every
// member of a privacy group agrees on (seed 003, "Composition of
// committee"). Its position on the hash ring is a function of this name
// alone.
type NodeID string

// DefaultVirtualNodes is how many points each committee member has on the
// ring unless WithVirtualNodes says otherwise (seed 003's note on virtual
// nodes: one point per member spreads the ranges unevenly).
const DefaultVirtualNodes = 64

// MaxVirtualNodes is the most points per member WithVirtualNodes accepts.
const MaxVirtualNodes = 1 << 16

// Errors a caller of the ring branches on.
var (
	// ErrRangeSize is returned for a range size n of 0: floor(b/n) is
	// undefined.
	ErrRangeSize = errors.New("distseq: the range size must be at least 1 block")
	// ErrVirtualNodes is returned when WithVirtualNodes asks for fewer than
	// 1 or more than MaxVirtualNodes points per member.
	ErrVirtualNodes = errors.New("distseq: virtual nodes per member must be between 1 and 65536")
)

// Range is a range of n consecutive blocks that share one coordinator
// preference: Index is floor(b/n) for every block b in [First, Last].
type Range struct {
	Index uint64 `json:"index"`
	First uint64 `json:"first"`
	Last  uint64 `json:"last"`
}

// RangeOf returns the range of n blocks that holds height: index
// floor(height/n), first block index*n, last block index*n+n-1 (capped at
// the largest height). The seed's formula is floor(b/n), so block 0 opens
// range 0 and block n opens range 1 (its switchover walkthrough: at height
// 4 with n=4 the coordinator changes); its worked example's "blocks 1-4"
// is read as an illustration of that, not a second formula. n=0 fails
// with ErrRangeSize.
func RangeOf(height, n uint64) (Range, error) {
	if n == 0 {
		return Range{}, ErrRangeSize
	}
	idx := height / n
	first := idx * n // <= height: no overflow
	last := uint64(math.MaxUint64)
	if n-1 <= math.MaxUint64-first {
		last = first + (n - 1)
	}
	return Range{Index: idx, First: first, Last: last}, nil
}

// RingOption configures a Ring (and Preference).
type RingOption func(*ringConfig)

type ringConfig struct {
	vnodes int
	hash   func([]byte) uint64
}

// WithVirtualNodes sets how many points each member has on the ring.
// Defaults to DefaultVirtualNodes (64); a count outside [1,
// MaxVirtualNodes] fails with ErrVirtualNodes.
func WithVirtualNodes(v int) RingOption { return func(c *ringConfig) { c.vnodes = v } }

// WithHash sets the function that places members' points and ranges' points
// on the ring (a position is a uint64, the ring is [0, 2^64) with
// wrap-around). Defaults to SHA256First8: the first 8 bytes of SHA-256, big
// endian. Tests inject a hash that places points where they want them.
func WithHash(h func([]byte) uint64) RingOption { return func(c *ringConfig) { c.hash = h } }

// SHA256First8 is the default ring hash: the first 8 bytes of the SHA-256
// of b, read big endian.
func SHA256First8(b []byte) uint64 {
	sum := sha256.Sum256(b)
	return binary.BigEndian.Uint64(sum[:8])
}

// point is one virtual node: a position on the ring and its member.
type point struct {
	pos    uint64
	member NodeID
	vnode  uint32
}

// Ring is a committee's hash ring: every member's virtual nodes, sorted by
// position. It is immutable once built, and its answers depend only on the
// committee as a set, the options and the query: never on the committee's
// order or on map order. Safe to share between goroutines.
type Ring struct {
	points  []point
	members []NodeID // distinct, sorted
	hash    func([]byte) uint64
}

// NewRing places each distinct member of committee on the ring at the hashes
// of (member id, i) for i in [0, virtual nodes). A repeated member counts
// once; an empty committee gives a ring that prefers no one.
func NewRing(committee []NodeID, opts ...RingOption) (*Ring, error) {
	cfg := ringConfig{vnodes: DefaultVirtualNodes, hash: SHA256First8}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.vnodes < 1 || cfg.vnodes > MaxVirtualNodes {
		return nil, fmt.Errorf("%w (asked for %d)", ErrVirtualNodes, cfg.vnodes)
	}
	if cfg.hash == nil {
		cfg.hash = SHA256First8
	}
	members := slices.Clone(committee)
	slices.Sort(members)
	members = slices.Compact(members)
	r := &Ring{members: members, hash: cfg.hash, points: make([]point, 0, len(members)*cfg.vnodes)}
	for _, m := range members {
		for i := range cfg.vnodes {
			v := uint32(i) // i < MaxVirtualNodes
			r.points = append(r.points, point{pos: cfg.hash(memberKey(m, v)), member: m, vnode: v})
		}
	}
	// A total order: equal positions (a collision, or a test hash) fall back
	// to the member's id, then the virtual node's number.
	slices.SortFunc(r.points, func(a, b point) int {
		switch {
		case a.pos != b.pos:
			return cmp.Compare(a.pos, b.pos)
		case a.member != b.member:
			if a.member < b.member {
				return -1
			}
			return 1
		default:
			return cmp.Compare(uint64(a.vnode), uint64(b.vnode))
		}
	})
	return r, nil
}

// Members returns the ring's distinct members, sorted by id.
func (r *Ring) Members() []NodeID { return slices.Clone(r.members) }

// memberKey is the hash input of a member's i-th virtual node: a domain tag,
// the id's length and bytes, and i, so that no two (id, i) pairs encode
// alike.
func memberKey(m NodeID, i uint32) []byte {
	b := make([]byte, 0, 16+len(m)+4)
	b = append(b, "distseq/member\x00"...)
	b = binary.AppendUvarint(b, uint64(len(m)))
	b = append(b, m...)
	return binary.BigEndian.AppendUint32(b, i)
}

// rangeKey is the hash input of a range's point: a domain tag, the contract
// address's length and bytes, and floor(b/n).
func rangeKey(contract string, index uint64) []byte {
	b := make([]byte, 0, 16+len(contract)+8)
	b = append(b, "distseq/range\x00"...)
	b = binary.AppendUvarint(b, uint64(len(contract)))
	b = append(b, contract...)
	return binary.BigEndian.AppendUint64(b, index)
}

// Point returns the ring position of contract's range number index: the
// hash of (contract address, floor(b/n)). Callers pass the contract address
// in one canonical form (chain.Address is lowercase hex); two spellings of
// one address are two points.
func (r *Ring) Point(contract string, index uint64) uint64 {
	return r.hash(rangeKey(contract, index))
}

// Preference returns the ring's preference list for contract at block
// height with ranges of rangeSize blocks: see PreferenceAt.
func (r *Ring) Preference(contract string, height, rangeSize uint64, unavailable map[NodeID]bool) ([]NodeID, error) {
	rg, err := RangeOf(height, rangeSize)
	if err != nil {
		return nil, err
	}
	return r.PreferenceAt(contract, rg.Index, unavailable), nil
}

// PreferenceAt returns the available members in order of preference for
// contract's range number index, most preferred first.
//
// "Closest" is the seed's: the member with a point at the smallest distance
// from the range's point around the circle, in either direction (its worked
// example needs both: the point at 55° picks B at 45° over D at 135°, and
// when A is unavailable at 310° the next closest is C at 225°, not B at 45°).
// The walk goes outwards from the range's point in both directions at once;
// each member is listed at its first point met. A tie in distance goes to
// the clockwise point; points at one position (a 64-bit collision, or a
// test hash) are ordered by member id, so the clockwise walk meets the
// lower id first and the anticlockwise walk the higher.
//
// Members in unavailable are left out, as the seed removes them from the
// available committee and evaluates the ring again: the first element is
// the coordinator to delegate to, and the rest are the fallbacks in order.
// The list is empty when no member is available. Without unavailable
// members the result is a permutation of the committee.
func (r *Ring) PreferenceAt(contract string, index uint64, unavailable map[NodeID]bool) []NodeID {
	want := 0
	for _, m := range r.members {
		if !unavailable[m] {
			want++
		}
	}
	if want == 0 {
		return []NodeID{}
	}
	p := r.Point(contract, index)
	n := len(r.points)
	// cw: the first point at or after p (wrapping); ccw: the one before it.
	cw, _ := slices.BinarySearchFunc(r.points, p, func(pt point, t uint64) int { return cmp.Compare(pt.pos, t) })
	cw %= n
	ccw := (cw - 1 + n) % n
	out := make([]NodeID, 0, want)
	seen := make(map[NodeID]bool, want)
	for range n {
		dcw := r.points[cw].pos - p   // clockwise distance, mod 2^64
		dccw := p - r.points[ccw].pos // anticlockwise distance, mod 2^64
		var m NodeID
		if dcw <= dccw {
			m = r.points[cw].member
			cw = (cw + 1) % n
		} else {
			m = r.points[ccw].member
			ccw = (ccw - 1 + n) % n
		}
		if seen[m] || unavailable[m] {
			continue
		}
		seen[m] = true
		out = append(out, m)
		if len(out) == want {
			break
		}
	}
	return out
}

// Preference is the coordinator selector of seed 003 as a pure function:
// the members of committee in order of preference for contract at block
// height, with ranges of rangeSize blocks, leaving out the unavailable
// ones (see Ring.PreferenceAt). Every block of one range gives the same
// list. It builds the ring each call; a caller asking often keeps a Ring.
func Preference(committee []NodeID, contract string, height, rangeSize uint64, unavailable map[NodeID]bool, opts ...RingOption) ([]NodeID, error) {
	r, err := NewRing(committee, opts...)
	if err != nil {
		return nil, err
	}
	return r.Preference(contract, height, rangeSize, unavailable)
}

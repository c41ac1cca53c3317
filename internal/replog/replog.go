package replog

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
)

// Hash is an entry's SHA-256.
type Hash [sha256.Size]byte

// IsZero reports whether h is the zero hash (the Prev of the first entry,
// the hash of an empty log).
func (h Hash) IsZero() bool { return h == Hash{} }

// Entry is one change of a queue's log.
type Entry struct {
	Queue   string `json:"queue"`
	Clock   uint64 `json:"clock"`
	Version uint64 `json:"version"`
	Prev    Hash   `json:"prev"`
	Payload []byte `json:"payload"`
	Hash    Hash   `json:"hash"`
}

// Head is a replica's position in a queue's log: the clock, hash and
// replica-set version of the last entry it holds (zero for none).
type Head struct {
	Clock uint64 `json:"clock"`
	Hash  Hash   `json:"hash"`
	// Version is the replica-set version the last entry was written under.
	Version uint64 `json:"version"`
}

// Newer reports whether a log at h is more up to date than one at o: its
// last entry written under a later replica-set version, or under the same
// one at a higher clock. A longer log written under an older set (a
// member that held a queue under a set since replaced) is not: its extra
// entries were never the newer primary's, whatever their number.
func (h Head) Newer(o Head) bool {
	return h.Version > o.Version || (h.Version == o.Version && h.Clock > o.Clock)
}

// Errors Extend answers (wrapped, with the clock concerned).
var (
	// ErrGap: the batch does not start right after the head, or skips a
	// clock.
	ErrGap = errors.New("replog: gap")
	// ErrFork: an entry does not chain to the hash before it, or one at the
	// head's clock differs from the head: another history.
	ErrFork = errors.New("replog: fork")
	// ErrStaleVersion: an entry written under an older replica-set version
	// than the one the replica knows (a deposed primary).
	ErrStaleVersion = errors.New("replog: stale replica-set version")
	// ErrCorrupt: an entry whose hash is not the hash of its fields.
	ErrCorrupt = errors.New("replog: corrupt entry")
)

const domain = "ordo/replog/v1"

// Seal returns the entry of payload at clock in queue, written under
// version, after the entry whose hash is prev.
func Seal(queue string, clock, version uint64, prev Hash, payload []byte) Entry {
	e := Entry{Queue: queue, Clock: clock, Version: version, Prev: prev, Payload: append([]byte(nil), payload...)}
	e.Hash = e.sum()
	return e
}

// sum is SHA-256 over the domain tag, the queue and the payload
// (length-prefixed), the clock and the version (8 bytes big-endian each)
// and prev.
func (e Entry) sum() Hash {
	h := sha256.New()
	var b []byte
	for _, s := range [][]byte{[]byte(domain), []byte(e.Queue), e.Payload} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.BigEndian.AppendUint64(b, e.Clock)
	b = binary.BigEndian.AppendUint64(b, e.Version)
	b = append(b, e.Prev[:]...)
	h.Write(b)
	var out Hash
	h.Sum(out[:0])
	return out
}

// Valid reports whether e's hash is the hash of its fields.
func (e Entry) Valid() bool { return e.Clock > 0 && e.sum() == e.Hash }

// Head returns the head a replica holding e last is at.
func (e Entry) Head() Head { return Head{Clock: e.Clock, Hash: e.Hash, Version: e.Version} }

// Extend checks a batch of entries that a primary of replica-set version
// from sends a replica of queue at head that knows version known, and
// returns those to apply (the ones after head, in order) and the head
// after them. A sender older than known is refused (a deposed primary).
// Entries keep the versions they were written under: they may not
// decrease along the log nor exceed from. Entries at or before the head
// are allowed only as a prefix, and the one at the head's clock must be
// the head. Nothing is applied on an error.
func Extend(queue string, head Head, from, known uint64, entries []Entry) (apply []Entry, next Head, err error) {
	if from < known {
		return nil, head, fmt.Errorf("%w: sent under version %d, this replica knows %d", ErrStaleVersion, from, known)
	}
	next = head
	var version uint64
	for i, e := range entries {
		switch {
		case e.Queue != queue:
			return nil, head, fmt.Errorf("%w: entry %d is of queue %q, not %q", ErrCorrupt, i, e.Queue, queue)
		case !e.Valid():
			return nil, head, fmt.Errorf("%w: clock %d", ErrCorrupt, e.Clock)
		case e.Version > from || e.Version < version:
			return nil, head, fmt.Errorf("%w: clock %d written under version %d, after %d, sent under %d", ErrCorrupt, e.Clock, e.Version, version, from)
		}
		version = e.Version
		switch {
		case e.Clock <= head.Clock && len(apply) == 0:
			if e.Clock == head.Clock && e.Hash != head.Hash {
				return nil, head, fmt.Errorf("%w: at clock %d", ErrFork, e.Clock)
			}
			continue
		case e.Clock != next.Clock+1:
			return nil, head, fmt.Errorf("%w: clock %d after %d", ErrGap, e.Clock, next.Clock)
		case e.Prev != next.Hash:
			return nil, head, fmt.Errorf("%w: clock %d does not follow the entry at %d", ErrFork, e.Clock, next.Clock)
		}
		apply = append(apply, e)
		next = e.Head()
	}
	return apply, next, nil
}

package sequencer

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"time"
)

// uidSource makes record ids: "tx_" + 12 hex digits of time in ms + 8 random
// bytes, so they sort by creation time and never collide across restarts.
type uidSource struct{}

func (uidSource) next(now time.Time) string {
	var b [14]byte
	binary.BigEndian.PutUint64(b[:8], uint64(now.UnixMilli())<<16)
	rand.Read(b[6:])
	return "tx_" + hex.EncodeToString(b[:])
}

package sequencer

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"sync"
	"time"
)

// uidSource makes record ids: "tx_" + 12 hex digits of time in ms + 8 random
// bytes, so they sort by creation time and never collide across restarts.
type uidSource struct {
	mu sync.Mutex // Submit runs on the API's goroutines
	r  io.Reader
}

func (u *uidSource) next(now time.Time) string {
	var b [14]byte
	binary.BigEndian.PutUint64(b[:8], uint64(now.UnixMilli())<<16)
	u.mu.Lock()
	_, err := io.ReadFull(u.r, b[6:])
	u.mu.Unlock()
	if err != nil {
		panic(fmt.Sprintf("sequencer: uid source: %v", err))
	}
	return "tx_" + hex.EncodeToString(b[:])
}

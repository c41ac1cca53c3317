package devchain

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
)

// SSEKeepAlive is how often GET /v1/blocks/subscribe writes a comment line
// when no head arrives, on the chain's clock, so that proxies and clients
// see a live stream.
const SSEKeepAlive = 15 * time.Second

// subscribe serves GET /v1/blocks/subscribe: server-sent events, one
// `event: head` per new block, the current head first. The stream ends when
// the client goes away or the chain closes.
func (s *server) subscribe(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	// Subscribe before reading the head, so that no block falls between them.
	ch, err := s.c.SubscribeHeads(ctx)
	if err != nil {
		s.api.WriteError(w, err)
		return
	}
	hd, err := s.c.Head(ctx)
	if err != nil {
		s.api.WriteError(w, err)
		return
	}
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{}) // a stream outlives any server write timeout; unsupported is fine
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if writeHeadEvent(w, hd) != nil || rc.Flush() != nil {
		return
	}
	clk := s.c.Config().Clock
	keepAlive := clk.NewTimer(SSEKeepAlive)
	defer func() { keepAlive.Stop() }()
	for {
		select {
		case <-ctx.Done():
			return
		case h, ok := <-ch:
			if !ok {
				return
			}
			if writeHeadEvent(w, h) != nil || rc.Flush() != nil {
				return
			}
		case <-keepAlive.C():
			if _, err := io.WriteString(w, ": keepalive\n\n"); err != nil || rc.Flush() != nil {
				return
			}
			keepAlive = clk.NewTimer(SSEKeepAlive)
		}
	}
}

// writeHeadEvent writes one server-sent event carrying a header.
func writeHeadEvent(w io.Writer, h chain.BlockHeader) error {
	b, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("encoding head: %w", err)
	}
	_, err = fmt.Fprintf(w, "event: head\ndata: %s\n\n", b)
	return err
}

package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/httpjson"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/store"
)

// The change stream, GET /v1/changes (issue 29): server-sent events, one
// `event: change` per state transition of a record, in the store's feed
// order (store.ChangeFeed), resumable from a change's id.
const (
	// ChangesKeepAlive is how often the stream writes a `: keepalive`
	// comment, on Options.Clock.
	ChangesKeepAlive = 15 * time.Second
	// ChangesPoll is how often the stream reads the store without a wake
	// from the node's own commits: the changes other nodes of a shared
	// PostgreSQL write.
	ChangesPoll = time.Second
	// ChangesPage is the most changes one read of the store returns: a
	// stream writes a page, then reads the next.
	ChangesPage = 256
)

// Streams ends the node's open change streams at shutdown (the HTTP
// server's RegisterOnShutdown: a stream is a request that never ends on
// its own). The zero value is ready to use.
type Streams struct {
	once sync.Once
	mu   sync.Mutex
	done chan struct{}
}

// ch returns the channel End closes.
func (s *Streams) ch() chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done == nil {
		s.done = make(chan struct{})
	}
	return s.done
}

// End ends every change stream, open or to come. It may be called more
// than once.
func (s *Streams) End() { s.once.Do(func() { close(s.ch()) }) }

// ChangesNow is the after of GET /v1/changes that starts at the feed's
// tail: only the changes committed after the stream opened (`ordo tx send
// --wait` opens its stream so before it sends).
const ChangesNow = "now"

// changesQuery parses GET /v1/changes' query (queue, after: each at most
// once) and the Last-Event-ID header, which wins over after (a browser
// resends its first URL with the last id it read).
func changesQuery(r *http.Request) (store.ChangeFilter, error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return store.ChangeFilter{}, httpjson.Errorf(CodeBadQuery, "query string: %s", excerptQuoted(err.Error()))
	}
	f := store.ChangeFilter{Limit: ChangesPage}
	for k, vs := range q {
		if len(vs) != 1 {
			return f, httpjson.Errorf(CodeBadQuery, "query parameter %s is given %d times", sequencer.Excerpt(k), len(vs))
		}
		switch k {
		case "queue":
			f.Queue = vs[0]
		case "after":
			f.After = vs[0]
		default:
			return f, httpjson.Errorf(CodeBadQuery, "unknown query parameter %s (parameters are queue, after)", sequencer.Excerpt(k))
		}
	}
	if id := strings.TrimSpace(r.Header.Get("Last-Event-ID")); id != "" {
		f.After = id
	}
	return f, nil
}

// changes is GET /v1/changes. It reads a page of the feed, writes each
// change as an event and flushes it, and when it has caught up waits for
// the node's next commit with history (sequencer.Node.Committed), for
// ChangesPoll, for the next keepalive, or for the end: of the request, or
// of the server (Options.Streams). A slow client holds only its own
// stream: each read is one page, written before the next is read.
func (s *server) changes(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	f, err := changesQuery(r)
	if err != nil {
		s.api.WriteError(w, err)
		return
	}
	// The first page before the headers, so that a bad cursor is a 400;
	// the wake before each read, so that a commit after it wakes us.
	wake := s.n.Committed()
	if f.After == ChangesNow {
		if f.After, err = s.st.ChangesTail(ctx); err != nil {
			if ctx.Err() == nil {
				s.api.WriteError(w, fmt.Errorf("api: changes: %w", err))
			}
			return
		}
	}
	page, err := s.st.Changes(ctx, f)
	if errors.Is(err, store.ErrBadCursor) {
		s.api.WriteError(w, httpjson.Errorf(CodeBadQuery, "change id %s is not the id of a change of this node's feed", sequencer.Excerpt(f.After)))
		return
	}
	if err != nil && ctx.Err() != nil { // the client has gone
		return
	}
	if err != nil {
		s.api.WriteError(w, fmt.Errorf("api: changes: %w", err))
		return
	}
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{}) // a stream outlives any server write timeout; unsupported is fine
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if rc.Flush() != nil {
		return
	}
	keepAlive := s.clock.NewTimer(ChangesKeepAlive)
	defer func() { keepAlive.Stop() }()
	end := s.streams.ch()
	for {
		for _, c := range page {
			if writeChange(w, c) != nil || rc.Flush() != nil {
				return
			}
			f.After = c.ID
		}
		if len(page) < f.Limit {
			poll := s.clock.NewTimer(ChangesPoll)
			select {
			case <-ctx.Done():
				poll.Stop()
				return
			case <-end:
				poll.Stop()
				return
			case <-wake:
			case <-poll.C():
			case <-keepAlive.C():
				keepAlive = s.clock.NewTimer(ChangesKeepAlive)
				if _, err := io.WriteString(w, ": keepalive\n\n"); err != nil || rc.Flush() != nil {
					poll.Stop()
					return
				}
			}
			poll.Stop()
		} else if ctx.Err() != nil {
			return
		}
		wake = s.n.Committed()
		if page, err = s.st.Changes(ctx, f); err != nil {
			if ctx.Err() == nil {
				s.log.Error("api: changes", "err", err)
			}
			return
		}
	}
}

// writeChange writes one change as a server-sent event.
func writeChange(w io.Writer, c store.TxChange) error {
	b, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("encoding change %s: %w", c.ID, err)
	}
	_, err = fmt.Fprintf(w, "id: %s\nevent: change\ndata: %s\n\n", c.ID, b)
	return err
}

// realClock is Options.Clock's default.
var realClock clock.Clock = clock.Real{}

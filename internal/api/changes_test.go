package api_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/api"
	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/testkit"
)

// sseEvent is one server-sent event, or a comment (comment set).
type sseEvent struct {
	id, event, data, comment string
}

// stream is an open GET /v1/changes.
type stream struct {
	status int
	header http.Header
	events chan sseEvent // closed at the stream's end
	cancel context.CancelFunc
}

// openChanges opens GET path with the given headers and parses its events
// on a goroutine until the stream ends or the test does.
func openChanges(t *testing.T, e *env, path string, h http.Header) *stream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range h {
		req.Header[k] = vs
	}
	resp, err := e.srv.Client().Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	t.Cleanup(func() { _ = resp.Body.Close() })
	s := &stream{status: resp.StatusCode, header: resp.Header, events: make(chan sseEvent, 1024), cancel: cancel}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		s.events <- sseEvent{data: string(b)}
		close(s.events)
		return s
	}
	go func() {
		defer close(s.events)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev != (sseEvent{}) {
					s.events <- ev
				}
				ev = sseEvent{}
			case strings.HasPrefix(line, ":"):
				s.events <- sseEvent{comment: strings.TrimSpace(line[1:])}
			default:
				k, v, _ := strings.Cut(line, ": ")
				switch k {
				case "id":
					ev.id = v
				case "event":
					ev.event = v
				case "data":
					ev.data = v
				}
			}
		}
	}()
	return s
}

// next returns the stream's next event (comments skipped unless
// comments), failing the test after within.
func (s *stream) next(t *testing.T, within time.Duration, comments bool) (sseEvent, bool) {
	t.Helper()
	tm := time.NewTimer(within)
	defer tm.Stop()
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				return sseEvent{}, false
			}
			if ev.comment != "" && !comments {
				continue
			}
			return ev, true
		case <-tm.C:
			t.Fatalf("no event within %v", within)
			return sseEvent{}, false
		}
	}
}

// change decodes an event's data, checking its id and name.
func change(t *testing.T, ev sseEvent) store.TxChange {
	t.Helper()
	var c store.TxChange
	if err := json.Unmarshal([]byte(ev.data), &c); err != nil {
		t.Fatalf("event data %q: %v", ev.data, err)
	}
	if ev.event != "change" || c.ID != ev.id || ev.id == "" {
		t.Fatalf("event %+v: want event change with its data's id", ev)
	}
	for _, k := range []string{`"id"`, `"uid"`, `"queue"`, `"from"`, `"to"`, `"at"`, `"note"`} {
		if !strings.Contains(ev.data, k) {
			t.Fatalf("event data %s lacks %s", ev.data, k)
		}
	}
	return c
}

// untilDone reads changes until each of uids reached DONE or FAILED.
func untilDone(t *testing.T, s *stream, uids ...string) []store.TxChange {
	t.Helper()
	left := map[string]bool{}
	for _, u := range uids {
		left[u] = true
	}
	var out []store.TxChange
	for len(left) > 0 {
		ev, ok := s.next(t, 30*time.Second, false)
		if !ok {
			t.Fatalf("the stream ended; still waiting for %v", left)
		}
		c := change(t, ev)
		if n := len(out); n > 0 && c.ID <= out[n-1].ID {
			t.Fatalf("change id %s after %s: ids must increase", c.ID, out[n-1].ID)
		}
		out = append(out, c)
		if c.To == store.Done || c.To == store.Failed {
			delete(left, c.UID)
		}
	}
	return out
}

// TestChangesStream: GET /v1/changes streams each state transition as an
// event, woken by the node's own commits (its clock is virtual and never
// advanced, so no poll ever fires); it resumes after an id (?after= and
// Last-Event-ID, which wins), filters by queue, refuses a bad id, writes a
// keepalive when its clock passes 15s, and ends at shutdown.
func TestChangesStream(t *testing.T) {
	clk := clock.NewVirtual(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	e := newEnv(t, envOptions{BlockTime: 50 * time.Millisecond, Clock: clk})
	all := openChanges(t, e, "/v1/changes", nil)
	if all.status != http.StatusOK || all.header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET /v1/changes: %d %s", all.status, all.header.Get("Content-Type"))
	}
	a, _ := e.post(t, "feed-a", typ, `{"title":"a"}`, "feed-a")
	b, _ := e.post(t, "feed-b", typ, `{"title":"b"}`, "feed-b")
	got := untilDone(t, all, a.UID, b.UID)
	for _, c := range got {
		want := map[string]string{a.UID: "feed-a", b.UID: "feed-b"}[c.UID]
		if c.Queue != want {
			t.Fatalf("change %+v: queue want %s", c, want)
		}
	}
	if len(got) < 4 {
		t.Fatalf("changes %+v: want two transitions each at least", got)
	}

	t.Run("resume", func(t *testing.T) {
		for name, s := range map[string]*stream{
			"after":         openChanges(t, e, "/v1/changes?after="+got[0].ID, nil),
			"Last-Event-ID": openChanges(t, e, "/v1/changes?after=nonsense", http.Header{"Last-Event-Id": {got[0].ID}}),
		} {
			ev, _ := s.next(t, 10*time.Second, false)
			if c := change(t, ev); c.ID != got[1].ID {
				t.Fatalf("%s: resumed at %s, want %s (the change after %s)", name, c.ID, got[1].ID, got[0].ID)
			}
		}
	})
	t.Run("now", func(t *testing.T) {
		// ?after=now skips every change already in the feed: the first
		// event is a change of an intent sent after the stream opened.
		s := openChanges(t, e, "/v1/changes?after=now", nil)
		c, _ := e.post(t, "feed-c", typ, `{"title":"c"}`, "feed-c")
		ev, _ := s.next(t, 10*time.Second, false)
		if ch := change(t, ev); ch.UID != c.UID || ch.ID <= got[len(got)-1].ID {
			t.Fatalf("?after=now: first change %+v, want one of %s after %s", ch, c.UID, got[len(got)-1].ID)
		}
	})
	t.Run("queue", func(t *testing.T) {
		// From the oldest, all would give a's first change, then b's.
		s := openChanges(t, e, "/v1/changes?queue=feed-a", nil)
		for i, want := range []store.TxState{store.Revision, store.Done} {
			ev, _ := s.next(t, 10*time.Second, false)
			if c := change(t, ev); c.UID != a.UID || c.Queue != "feed-a" || c.To != want {
				t.Fatalf("?queue=feed-a: change %d = %+v, want a's to %s", i, c, want)
			}
		}
	})
	t.Run("bad", func(t *testing.T) {
		for _, q := range []string{"?after=nonsense", "?after=1&after=2", "?state=DONE"} {
			s := openChanges(t, e, "/v1/changes"+q, nil)
			ev, _ := s.next(t, 5*time.Second, false)
			if s.status != http.StatusBadRequest || !strings.Contains(ev.data, api.CodeBadQuery) {
				t.Fatalf("GET /v1/changes%s: %d %s, want 400 bad_query", q, s.status, ev.data)
			}
		}
	})
	t.Run("keepalive", func(t *testing.T) {
		s := openChanges(t, e, "/v1/changes?queue=quiet", nil)
		// The clock passes 15s until the stream waits on its timer.
		testkit.WaitFor(t, 10*time.Second, 10*time.Millisecond, "a keepalive", func() bool {
			clk.Advance(api.ChangesKeepAlive)
			select {
			case ev := <-s.events:
				if ev.comment != "keepalive" {
					t.Fatalf("on a quiet queue: %+v, want a keepalive comment", ev)
				}
				return true
			default:
				return false
			}
		})
	})
	t.Run("shutdown", func(t *testing.T) {
		e.Streams.End()
		for {
			if _, ok := all.next(t, 10*time.Second, true); !ok {
				break
			}
		}
	})
}

// TestSession: GET /v1/session tells the caller's principal and roles.
func TestSession(t *testing.T) {
	e, _ := accessEnv(t, envOptions{})
	for _, tc := range []struct {
		token, principal, role string
	}{{tokReader, "reader", "read"}, {tokAdmin, "admin", "admin"}} {
		r := e.call(t, "GET /v1/session", tc.token)
		s := decode[api.SessionResponse](t, r)
		if r.status != http.StatusOK || s.Principal != tc.principal || len(s.Roles) != 1 || s.Roles[0] != tc.role {
			t.Fatalf("GET /v1/session as %s: %d %s", tc.principal, r.status, r.body)
		}
	}
	if r := e.call(t, "GET /v1/session", ""); r.status != http.StatusUnauthorized {
		t.Fatalf("GET /v1/session without a token: %d, want 401", r.status)
	}
	open := newEnv(t, envOptions{NoRun: true})
	s := decode[api.SessionResponse](t, open.do(t, http.MethodGet, "/v1/session", nil))
	if s.Principal != "dev" || len(s.Roles) != 1 || s.Roles[0] != "admin" {
		t.Fatalf("GET /v1/session on an open node: %+v, want dev, admin", s)
	}
	h := decode[api.StatsHistoryResponse](t, open.do(t, http.MethodGet, "/v1/stats/history", nil))
	if h.Samples == nil || len(h.Samples) != 0 {
		t.Fatalf("GET /v1/stats/history without a sampler: %+v, want no samples", h)
	}
}

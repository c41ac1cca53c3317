package leader

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/httpjson"
	"github.com/ordolabs/ordo/internal/store"
)

// API error codes.
const (
	CodeNotFound    = "not_found"
	CodeBadQuery    = "bad_query"
	CodeUnavailable = "unavailable"
)

// statuses are the HTTP statuses of the leader API's codes, given to the
// node's router (auth.Router.MapStatus).
var statuses = map[string]int{
	CodeNotFound:    http.StatusNotFound,
	CodeConflict:    http.StatusConflict,
	CodeBadQuery:    http.StatusBadRequest,
	CodeUnavailable: http.StatusServiceUnavailable,
}

// EventsPage is the body of GET /v1/leader/events: Next is the after= of the
// following page.
type EventsPage struct {
	Events []store.LeaderEvent `json:"events"`
	Next   int64               `json:"next"`
}

// ChannelView is a channel as GET /v1/leader/channels shows it.
type ChannelView struct {
	store.LeaderChannel
	Blocked bool `json:"blocked"`
}

// Register mounts the leader's routes: the reads need read; retrying a
// Dead event needs admin.
func (n *Node) Register(rt *auth.Router) {
	for code, status := range statuses {
		rt.MapStatus(code, status)
	}
	srv := rt.Server()
	get := func(pattern string, fn func(*http.Request) (any, error)) {
		rt.Handle(pattern, auth.Read, srv.JSONHandler(fn))
	}
	get("GET /v1/leader/events", n.apiEvents)
	get("GET /v1/leader/events/{id}", n.apiEvent)
	get("GET /v1/leader/channels", n.apiChannels)
	rt.Handle("POST /v1/leader/events/{id}/retry", auth.Need(auth.RoleAdmin), srv.JSONOnly(srv.JSONHandler(n.apiRetry)))
}

func (n *Node) apiEvents(r *http.Request) (any, error) {
	q := r.URL.Query()
	f := store.LeaderFilter{Status: store.EventStatus(q.Get("status")), Limit: 100}
	switch f.Status {
	case "", store.EventQueued, store.EventActive, store.EventSuccessful, store.EventDead:
	default:
		return nil, httpjson.Errorf(CodeBadQuery, "status must be Queued, Active, Successful or Dead, got %s", httpjson.Excerpt(string(f.Status)))
	}
	for key, dst := range map[string]*int64{"after": &f.After} {
		if v := q.Get(key); v != "" {
			x, err := strconv.ParseInt(v, 10, 64)
			if err != nil || x < 0 {
				return nil, httpjson.Errorf(CodeBadQuery, "%s must be a whole number from 0, got %s", key, httpjson.Excerpt(v))
			}
			*dst = x
		}
	}
	if v := q.Get("limit"); v != "" {
		x, err := strconv.Atoi(v)
		if err != nil || x < 1 || x > 1000 {
			return nil, httpjson.Errorf(CodeBadQuery, "limit must be from 1 to 1000, got %s", httpjson.Excerpt(v))
		}
		f.Limit = x
	}
	evs, err := n.cfg.Store.LeaderEvents(r.Context(), f)
	if err != nil {
		return nil, err
	}
	next := f.After
	if len(evs) > 0 {
		next = evs[len(evs)-1].ID
	}
	if evs == nil {
		evs = []store.LeaderEvent{}
	}
	return EventsPage{Events: evs, Next: next}, nil
}

func (n *Node) eventOf(r *http.Request) (store.LeaderEvent, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		return store.LeaderEvent{}, httpjson.Errorf(CodeNotFound, "no event %s", httpjson.Excerpt(r.PathValue("id")))
	}
	e, err := n.cfg.Store.LeaderEvent(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		return e, httpjson.Errorf(CodeNotFound, "no event %d", id)
	}
	return e, err
}

func (n *Node) apiEvent(r *http.Request) (any, error) { return n.eventOf(r) }

func (n *Node) apiChannels(r *http.Request) (any, error) {
	chs, err := n.cfg.Store.LeaderChannels(r.Context())
	if err != nil {
		return nil, err
	}
	now := n.cfg.Clock.Now()
	out := make([]ChannelView, 0, len(chs))
	for _, ch := range chs {
		out = append(out, ChannelView{LeaderChannel: ch, Blocked: now.Before(ch.BlockedUntil)})
	}
	return out, nil
}

func (n *Node) apiRetry(r *http.Request) (any, error) {
	e, err := n.eventOf(r)
	if err != nil {
		return nil, err
	}
	l := n.currentLoop()
	if l == nil {
		return nil, httpjson.Errorf(CodeUnavailable, "the leader engine has not started")
	}
	rep, err := l.Do(r.Context(), Retry(time.Time{}, 0, e))
	switch {
	case errors.Is(err, ErrRetired):
		return nil, httpjson.Errorf(CodeUnavailable, "%s", err)
	case err != nil:
		return nil, err
	case rep.Code != "":
		return nil, httpjson.Errorf(rep.Code, "%s", rep.Message)
	}
	return rep.Body, nil
}

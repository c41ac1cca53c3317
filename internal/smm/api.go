package smm

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/ordolabs/ordo/internal/api"
	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/httpjson"
	"github.com/ordolabs/ordo/internal/store"
)

// Routes are the state machine manager's routes on the node's API; with a
// nil N (replication off) each answers 404 route_not_found saying so.
//   - GET /v1/smm (read): Status;
//   - POST /v1/queues/{name}/sync (admin): Sync, a recurring sync of each
//     secondary of a queue this node is primary of;
//   - GET /v1/queues/{name}/log?after=&limit= (read): this node's replica
//     of a queue's log, entry by entry, marked with its head;
//   - GET /v1/smm/sets?after=&limit= (read): the replica sets naming this
//     node, each with its members' heads and lag.
type Routes struct{ N *Node }

// Register mounts the routes.
func (rt Routes) Register(r *auth.Router) {
	r.HandleJSON("GET /v1/smm", auth.Read, rt.on(func(req *http.Request) (any, error) { return rt.N.Status(req.Context()) }))
	r.HandleJSON("POST /v1/queues/{name}/sync", auth.Need(auth.RoleAdmin), rt.on(rt.sync))
	r.HandleJSON("GET /v1/queues/{name}/log", auth.Read, rt.on(rt.log))
	r.HandleJSON("GET /v1/smm/sets", auth.Read, rt.on(rt.sets))
}

func (rt Routes) sets(req *http.Request) (any, error) {
	q := req.URL.Query()
	for k, v := range q {
		if (k != "after" && k != "limit") || len(v) != 1 {
			return nil, httpjson.Errorf(api.CodeBadQuery, "the query takes after and limit, each at most once")
		}
	}
	limit := 100
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			return nil, httpjson.Errorf(api.CodeBadQuery, "limit must be from 1 to 1000")
		}
		limit = n
	}
	return rt.N.Sets(req.Context(), q.Get("after"), limit)
}

func (rt Routes) on(f func(*http.Request) (any, error)) func(*http.Request) (any, error) {
	return func(req *http.Request) (any, error) {
		if rt.N == nil {
			return nil, httpjson.Errorf(api.CodeRouteNotFound, "replication is not enabled on this node (replication.enabled in its config)")
		}
		return f(req)
	}
}

func (rt Routes) sync(req *http.Request) (any, error) {
	name := req.PathValue("name")
	k, err := rt.N.Sync(req.Context(), name)
	switch {
	case errors.Is(err, ErrNoReplicaSet):
		return nil, httpjson.Errorf(api.CodeNotFound, "%v", err)
	case errors.Is(err, ErrNotPrimary):
		return nil, httpjson.Errorf(api.CodeNotPrimary, "%v", err)
	case err != nil:
		return nil, err
	}
	return SyncResponse{Queue: name, SyncsQueued: k}, nil
}

// SyncResponse is the body of POST /v1/queues/{name}/sync: how many
// secondaries got a sync queued.
type SyncResponse struct {
	Queue       string `json:"queue"`
	SyncsQueued int    `json:"syncsQueued"`
}

// LogEntry is one entry of GET /v1/queues/{name}/log: the entry's place in
// the hash chain and the change it records.
type LogEntry struct {
	Clock          uint64        `json:"clock"`
	Version        uint64        `json:"version"`
	Hash           string        `json:"hash"`
	Prev           string        `json:"prev"`
	Op             string        `json:"op"`
	UID            string        `json:"uid"`
	Type           string        `json:"type,omitempty"`
	IdempotencyKey string        `json:"idempotencyKey,omitempty"`
	State          store.TxState `json:"state,omitempty"`
	At             time.Time     `json:"at"`
}

// LogPage is the body of GET /v1/queues/{name}/log.
type LogPage struct {
	Queue string `json:"queue"`
	// Clock and Hash are this node's head of the queue's log.
	Clock   uint64     `json:"clock"`
	Hash    string     `json:"hash"`
	Entries []LogEntry `json:"entries"`
	// Next is the after of the following page, empty at the head.
	Next string `json:"next"`
}

func (rt Routes) log(req *http.Request) (any, error) {
	name := req.PathValue("name")
	q := req.URL.Query()
	for k, v := range q {
		if (k != "after" && k != "limit") || len(v) != 1 {
			return nil, httpjson.Errorf(api.CodeBadQuery, "the query takes after and limit, each at most once")
		}
	}
	var after uint64
	limit := 100
	if v := q.Get("after"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return nil, httpjson.Errorf(api.CodeBadQuery, "after must be a clock (a non-negative integer)")
		}
		after = n
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			return nil, httpjson.Errorf(api.CodeBadQuery, "limit must be from 1 to 1000")
		}
		limit = n
	}
	ctx := req.Context()
	head, err := rt.N.cfg.Store.LogHead(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("smm: log of %q: %w", name, err)
	}
	if head.Clock == 0 {
		if _, err := rt.N.cfg.Store.ReplicaSet(ctx, name); errors.Is(err, store.ErrNotFound) {
			return nil, httpjson.Errorf(api.CodeNotFound, "no replicated queue %q on this node", name)
		}
	}
	es, err := rt.N.cfg.Store.LogAfter(ctx, name, after, limit)
	if err != nil {
		return nil, fmt.Errorf("smm: log of %q: %w", name, err)
	}
	page := LogPage{Queue: name, Clock: head.Clock, Hash: fmt.Sprintf("%x", head.Hash[:]), Entries: make([]LogEntry, 0, len(es))}
	for _, e := range es {
		c, err := store.DecodeChange(e.Payload)
		if err != nil {
			return nil, fmt.Errorf("smm: log of %q at clock %d: %w", name, e.Clock, err)
		}
		page.Entries = append(page.Entries, LogEntry{Clock: e.Clock, Version: e.Version, Hash: fmt.Sprintf("%x", e.Hash[:]), Prev: fmt.Sprintf("%x", e.Prev[:]),
			Op: c.Op, UID: c.UID, Type: c.Type, IdempotencyKey: c.IdempotencyKey, State: c.State, At: c.At})
	}
	if len(es) == limit && es[len(es)-1].Clock < head.Clock {
		page.Next = strconv.FormatUint(es[len(es)-1].Clock, 10)
	}
	return page, nil
}

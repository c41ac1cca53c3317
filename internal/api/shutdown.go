package api

import (
	"encoding/json"
	"net/http"
	"strconv"
	"sync"

	"github.com/ordolabs/ordo/internal/httpjson"
)

// CodeShuttingDown (503, with Retry-After): the node is stopping (SIGTERM
// or SIGINT) and takes no request that may change state (POST, PUT, PATCH,
// DELETE: intake, /rpc, the engines' routes); nothing of it was done.
// Send it again, with the same idempotency key, to another node or once
// this one is back.
const CodeShuttingDown = "shutting_down"

// Drain is the hook by which a stopping node refuses new requests that may
// change state while those under way finish. Wrap puts it in front of a
// handler; Stop starts refusing. Reads (GET, HEAD, OPTIONS) are served as
// before. The zero value is ready to use.
type Drain struct {
	mu       sync.Mutex
	stopping bool
	inflight int           // mutating requests let through and not yet answered
	idle     chan struct{} // closed when inflight reaches 0 after Stop
	refused  int
}

// Wrap returns h behind the drain.
func (d *Drain) Wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !httpjson.Mutating(r.Method) {
			h.ServeHTTP(w, r)
			return
		}
		if !d.enter() {
			b, _ := json.Marshal(httpjson.ErrorBody{Error: httpjson.ErrorDetail{Code: CodeShuttingDown,
				Message: "the node is stopping and takes no new request that may change state; send it again (same idempotency key) to another node, or once this one is back"}})
			b = append(b, '\n')
			hd := w.Header()
			hd.Set("Content-Type", "application/json")
			hd.Set("Content-Length", strconv.Itoa(len(b)))
			hd.Set("Retry-After", "5")
			hd.Set("Connection", "close")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write(b)
			return
		}
		defer d.leave()
		h.ServeHTTP(w, r)
	})
}

func (d *Drain) enter() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stopping {
		d.refused++
		return false
	}
	d.inflight++
	return true
}

func (d *Drain) leave() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.inflight--
	if d.inflight == 0 && d.idle != nil {
		close(d.idle)
		d.idle = nil
	}
}

// Stop makes every later request that may change state answer 503
// shutting_down. It returns how many such requests are under way, and a
// channel closed once they have all been answered.
func (d *Drain) Stop() (inflight int, idle <-chan struct{}) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stopping = true
	if d.inflight == 0 {
		c := make(chan struct{})
		close(c)
		return 0, c
	}
	if d.idle == nil {
		d.idle = make(chan struct{})
	}
	return d.inflight, d.idle
}

// Refused is how many requests were answered shutting_down.
func (d *Drain) Refused() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.refused
}

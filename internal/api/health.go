package api

import (
	"context"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
)

// DefaultChainTimeout is how long the chain may go without answering before
// GET /healthz answers 503, unless Options.ChainTimeout says otherwise.
const DefaultChainTimeout = 30 * time.Second

// Health statuses: the status field of GET /healthz and GET /readyz.
const (
	// StatusOK (/healthz, 200): started, and the chain answers.
	StatusOK = "ok"
	// StatusReady (/readyz, 200): recovery is over, the run cycle runs.
	StatusReady = "ready"
	// StatusStarting (503): the sequencer has not finished loading the
	// store and recovering what was in flight.
	StatusStarting = "starting"
	// StatusStopped (503): the sequencer has stopped.
	StatusStopped = "stopped"
	// StatusChainUnreachable (/healthz, 503): the chain has not answered
	// for Options.ChainTimeout.
	StatusChainUnreachable = "chain_unreachable"
)

// HealthResponse is the body of GET /healthz and GET /readyz (which has no
// chain).
type HealthResponse struct {
	Status string `json:"status"`
	// Chain is what the node knows of its chain; absent from /readyz and
	// when the node was built without a chain monitor.
	Chain *ChainHealth `json:"chain,omitempty"`
}

// ChainHealth is the chain part of GET /healthz. Durations are Go duration
// strings ("1.5s") rounded to the millisecond.
type ChainHealth struct {
	// Reachable is false from a call the chain did not answer until one it
	// answers.
	Reachable bool `json:"reachable"`
	// LastAnswerAgo is the time since the chain last answered a call; null
	// if it never has.
	LastAnswerAgo *string `json:"lastAnswerAgo"`
	// Head is the newest head's height (0 before any), HeadAge its age by
	// its block time (null before any).
	Head    uint64  `json:"head"`
	HeadAge *string `json:"headAge"`
	// Timeout is how long the chain may go without answering before
	// /healthz answers 503.
	Timeout string `json:"timeout"`
	// LastError is the error of the latest unanswered call while the
	// chain is not reachable.
	LastError string `json:"lastError,omitempty"`
}

// probeAfter is how long since the chain's last answer before /healthz asks
// it for its head (in the background): a node whose chain is idle (no new
// heads, no calls) still knows whether it answers.
const probeAfter = time.Second

// maxProbe bounds a probe's wait for an answer.
const maxProbe = 10 * time.Second

// health reports the chain's state for /healthz.
type health struct {
	c       chain.HealthReporter
	timeout time.Duration
	probing atomic.Bool
}

func newHealth(c chain.HealthReporter, timeout time.Duration) *health {
	if timeout <= 0 {
		timeout = DefaultChainTimeout
	}
	return &health{c: c, timeout: timeout}
}

// chain returns the chain's health and whether it has gone unanswered too
// long; nil without a chain monitor. It starts a background probe when the
// chain has been quiet for a while.
func (h *health) chain() (*ChainHealth, bool) {
	if h.c == nil {
		return nil, false
	}
	now := h.c.Now()
	st := h.c.Health()
	quiet := st.Unanswered(now)
	if quiet >= probeAfter {
		h.probe()
	}
	out := &ChainHealth{Reachable: st.Reachable, Head: st.Head.Height, Timeout: h.timeout.String()}
	if !st.LastAnswer.IsZero() {
		out.LastAnswerAgo = durationString(quiet)
	}
	if age, ok := st.HeadAge(now); ok {
		out.HeadAge = durationString(age)
	}
	if !st.Reachable {
		out.LastError = st.LastError
	}
	return out, quiet >= h.timeout
}

// probe asks the chain for its head in the background, one probe at a time;
// the monitor records the answer or the failure.
func (h *health) probe() {
	if !h.probing.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer h.probing.Store(false)
		ctx, cancel := context.WithTimeout(context.Background(), min(h.timeout, maxProbe))
		defer cancel()
		_, _ = h.c.Head(ctx)
	}()
}

func durationString(d time.Duration) *string {
	s := d.Round(time.Millisecond).String()
	return &s
}

// node returns the sequencer's status: starting, stopped, or "" once it
// runs.
func (s *server) nodeStatus() string {
	select {
	case <-s.n.Stopped():
		return StatusStopped
	case <-s.n.Started():
		return ""
	default:
		return StatusStarting
	}
}

// healthz is GET /healthz: 200 ok once the sequencer has started while the
// chain answers; 503 starting, stopped, or chain_unreachable when the chain
// has not answered for the chain timeout. The body reports the chain.
func (s *server) healthz(w http.ResponseWriter, _ *http.Request) {
	c, unreachable := s.health.chain()
	resp := HealthResponse{Status: s.nodeStatus(), Chain: c}
	switch {
	case resp.Status != "":
	case unreachable:
		resp.Status = StatusChainUnreachable
	default:
		s.api.WriteJSON(w, http.StatusOK, HealthResponse{Status: StatusOK, Chain: c})
		return
	}
	s.api.WriteJSON(w, http.StatusServiceUnavailable, resp)
}

// readyz is GET /readyz: 200 ready once the sequencer has loaded the store
// and begun the run cycle (recovery of what was in flight is under way in
// it), 503 starting before, 503 stopped after it stops.
func (s *server) readyz(w http.ResponseWriter, _ *http.Request) {
	if st := s.nodeStatus(); st != "" {
		s.api.WriteJSON(w, http.StatusServiceUnavailable, HealthResponse{Status: st})
		return
	}
	s.api.WriteJSON(w, http.StatusOK, HealthResponse{Status: StatusReady})
}

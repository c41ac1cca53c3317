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
	// for Options.ChainTimeout, or has not answered yet since the node
	// started (its engines wait for it; intake works).
	StatusChainUnreachable = "chain_unreachable"
	// StatusChainMismatch (/healthz, 503): the node's chain is not the
	// one its store belongs to; the engines stay stopped. The condition's
	// data names both identities (store and chain).
	StatusChainMismatch = "chain_identity_mismatch"
	// StatusStorageFull (/healthz, 503): the store refused the latest
	// write for want of room; intake answers 503 storage_full until a
	// write goes through.
	StatusStorageFull = CodeStorageFull
)

// CodeStorageFull (503): the store has no room for the write; nothing was
// committed: retry later with the same idempotency key.
const CodeStorageFull = "storage_full"

// Condition is a state of the node that keeps /healthz at 503: Code is
// the status the response carries when it is the first condition.
type Condition struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// Data is the condition's facts, by name (both identities of a
	// chain_identity_mismatch); absent when none.
	Data any `json:"data,omitempty"`
}

// HealthResponse is the body of GET /healthz and GET /readyz (which has no
// chain).
type HealthResponse struct {
	Status string `json:"status"`
	// Conditions are the node's conditions, worst first, when it has any
	// (Options.Conditions, and storage_full); absent from /readyz.
	Conditions []Condition `json:"conditions,omitempty"`
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
	// conds are Options.Conditions (nil: none).
	conds func() []Condition
}

func newHealth(c chain.HealthReporter, timeout time.Duration, conds func() []Condition) *health {
	if timeout <= 0 {
		timeout = DefaultChainTimeout
	}
	return &health{c: c, timeout: timeout, conds: conds}
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

// conditions are the node's conditions (Options.Conditions), then
// storage_full while the sequencer's store refuses writes for want of room.
func (s *server) conditions() []Condition {
	var out []Condition
	if s.health.conds != nil {
		out = s.health.conds()
	}
	if s.n.StorageFull() {
		out = append(out, Condition{Code: StatusStorageFull,
			Message: "the store refused the latest write for want of room: intake answers 503 storage_full and the engines wait; free space on the store's disk (nothing acknowledged is lost)"})
	}
	return out
}

// healthz is GET /healthz: 200 ok once the sequencer has started while the
// chain answers; 503 with the first condition's code when the node has one
// (chain_identity_mismatch, chain_unreachable while it waits for its
// chain, storage_full), else starting, stopped, or chain_unreachable when
// the chain has not answered for the chain timeout. The body reports the
// conditions and the chain.
func (s *server) healthz(w http.ResponseWriter, _ *http.Request) {
	c, unreachable := s.health.chain()
	resp := HealthResponse{Status: s.nodeStatus(), Chain: c, Conditions: s.conditions()}
	switch {
	case len(resp.Conditions) > 0:
		resp.Status = resp.Conditions[0].Code
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

package api

import (
	"net/http"
	"time"

	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/store"
)

// The routes the dashboard (issue 29) reads beside the others: who the
// caller is and what runs on the node (GET /v1/session), and the node's
// recent figures (GET /v1/stats/history).

// SessionChain names the node's chain for the dashboard.
type SessionChain struct {
	// Name is "devchain" or "evm".
	Name string `json:"name"`
	// ExplorerTxURL is the chain's explorer link of a transaction, with
	// {hash} to replace by the attempt's hash; "" when none is configured.
	ExplorerTxURL string `json:"explorerTxURL"`
}

// Session is what the node tells of itself on GET /v1/session
// (Options.Session).
type Session struct {
	DevMode bool
	// Engines are those running on this node: sequencer, processor,
	// leader, distseq, smm.
	Engines []string
	Chain   SessionChain
	Version string
}

// SessionResponse is the body of GET /v1/session: the caller's principal
// and roles (in dev mode "dev" and admin; with open reads and no token, ""
// and read), and the node's.
type SessionResponse struct {
	Principal string       `json:"principal"`
	Roles     []string     `json:"roles"`
	DevMode   bool         `json:"devMode"`
	Engines   []string     `json:"engines"`
	Chain     SessionChain `json:"chain"`
	Version   string       `json:"version"`
}

// StatsSample is one sample of the node's figures (GET /v1/stats/history).
// The totals are counters since the node started: a client derives rates
// from two samples.
type StatsSample struct {
	At time.Time `json:"at"`
	// Intents counts the store's records by state (every state present).
	Intents map[store.TxState]int `json:"intents"`
	// IntakeTotal counts the records intake created on this node.
	IntakeTotal float64 `json:"intakeTotal"`
	// DoneTotal counts the records this node saw DONE.
	DoneTotal float64 `json:"doneTotal"`
	// RetriesTotal counts this node's retries, every reason.
	RetriesTotal float64 `json:"retriesTotal"`
	// SlotsInUse are the records in flight (REVISION and RETRY): a queue
	// holds one at a time, on its bound sender.
	SlotsInUse int `json:"slotsInUse"`
	// SendersBusy and SendersFree count the senders bound to a queue and
	// those free.
	SendersBusy int `json:"sendersBusy"`
	SendersFree int `json:"sendersFree"`
	// HeadHeight is the newest chain head seen; HeadAgeSeconds its age
	// (0 before any).
	HeadHeight     uint64  `json:"headHeight"`
	HeadAgeSeconds float64 `json:"headAgeSeconds"`
	// Engines holds per engine (processor, leader, smm) the figures the
	// node counts for it: counters by outcome ("outcome.<label>"), and
	// the leader's events by status ("events.<status>") when it runs
	// here.
	Engines map[string]map[string]float64 `json:"engines"`
}

// StatsHistoryResponse is the body of GET /v1/stats/history: the samples,
// oldest first, one every IntervalSeconds, at most Capacity of them.
type StatsHistoryResponse struct {
	IntervalSeconds float64       `json:"intervalSeconds"`
	Capacity        int           `json:"capacity"`
	Samples         []StatsSample `json:"samples"`
}

// session is GET /v1/session.
func (s *server) session(r *http.Request) (any, error) {
	out := SessionResponse{Roles: []string{}, Engines: []string{}}
	if s.sess != nil {
		out.DevMode, out.Chain, out.Version = s.sess.DevMode, s.sess.Chain, s.sess.Version
		out.Engines = append(out.Engines, s.sess.Engines...)
	}
	p, ok := auth.PrincipalFrom(r.Context())
	if !ok { // open reads, no token
		out.Roles = append(out.Roles, string(auth.RoleRead))
		return out, nil
	}
	out.Principal = p.Name
	for _, role := range p.Roles {
		out.Roles = append(out.Roles, string(role))
	}
	return out, nil
}

// statsHistory is GET /v1/stats/history.
func (s *server) statsHistory(*http.Request) (any, error) {
	if s.history == nil {
		return StatsHistoryResponse{Samples: []StatsSample{}}, nil
	}
	h := s.history()
	if h.Samples == nil {
		h.Samples = []StatsSample{}
	}
	return h, nil
}

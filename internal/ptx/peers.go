package ptx

import (
	"context"
	"net/http"
	"time"

	"github.com/ordolabs/ordo/internal/auth"
)

// PeerView is a peer as GET /v1/peers shows it: its connection state and
// counters (issue 11, "Operations").
type PeerView struct {
	ID         string    `json:"id"`
	State      string    `json:"state"`
	Queued     int       `json:"queued"`
	In         uint64    `json:"in"`
	Out        uint64    `json:"out"`
	Drops      uint64    `json:"drops"`
	Lost       uint64    `json:"lost"`
	Reconnects uint64    `json:"reconnects"`
	LastIn     time.Time `json:"lastIn,omitzero"`
	LastOut    time.Time `json:"lastOut,omitzero"`
	// LastHeartbeat is the latest heartbeat, startup or answer the
	// distributed sequencer heard from the peer for a contract it holds
	// in memory (zero when none is held).
	LastHeartbeat time.Time `json:"lastHeartbeat,omitzero"`
}

// ContractView is a privacy group as this node sees it: its block range
// and the coordinator this node would delegate to now.
type ContractView struct {
	Contract     string `json:"contract"`
	Height       uint64 `json:"height"`
	Range        uint64 `json:"range"`
	Coordinator  string `json:"coordinator"`
	Coordinating bool   `json:"coordinating"`
}

// PeersPage is the body of GET /v1/peers: this node's id in its
// committees (empty when the distributed sequencer is off) and its peers.
type PeersPage struct {
	Self  string     `json:"self"`
	Peers []PeerView `json:"peers"`
	// Coordinators maps each privacy group to its current coordinator as
	// this node sees it; Contracts says more of each.
	Coordinators map[string]string `json:"coordinators"`
	Contracts    []ContractView    `json:"contracts"`
}

// ContractStates counts one privacy group's intents held in memory: this
// node's own in-flight intents by the sender's state, and the delegations
// it coordinates by the coordinator's (seed 003's two state machines).
type ContractStates struct {
	Contract    string         `json:"contract"`
	Sender      map[string]int `json:"sender"`
	Coordinator map[string]int `json:"coordinator"`
}

// IntentStates is the body of GET /v1/distseq/intents: the states of each
// machine in the seed's order, and the counts of every privacy group with
// an intent in flight here. A final intent leaves memory once committed:
// ptx_queryTransactions lists those.
type IntentStates struct {
	SenderStates      []string         `json:"senderStates"`
	CoordinatorStates []string         `json:"coordinatorStates"`
	Contracts         []ContractStates `json:"contracts"`
}

// PeerSource gives the pages (the node's distributed sequencer).
type PeerSource interface {
	PeersPage(ctx context.Context) (PeersPage, error)
	IntentStates(ctx context.Context) (IntentStates, error)
}

// Peers mounts GET /v1/peers and GET /v1/distseq/intents (role read);
// src nil answers empty pages.
type Peers struct{ Src PeerSource }

// Register mounts the routes.
func (p Peers) Register(rt *auth.Router) {
	rt.HandleJSON("GET /v1/peers", auth.Read, func(r *http.Request) (any, error) {
		if p.Src == nil {
			return PeersPage{Peers: []PeerView{}, Coordinators: map[string]string{}, Contracts: []ContractView{}}, nil
		}
		return p.Src.PeersPage(r.Context())
	})
	rt.HandleJSON("GET /v1/distseq/intents", auth.Read, func(r *http.Request) (any, error) {
		if p.Src == nil {
			return IntentStates{SenderStates: []string{}, CoordinatorStates: []string{}, Contracts: []ContractStates{}}, nil
		}
		return p.Src.IntentStates(r.Context())
	})
}

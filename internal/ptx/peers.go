package ptx

import (
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
}

// PeersPage is the body of GET /v1/peers: this node's id in its
// committees (empty when the distributed sequencer is off) and its peers.
type PeersPage struct {
	Self  string     `json:"self"`
	Peers []PeerView `json:"peers"`
}

// PeerSource gives the page (the node's distributed sequencer).
type PeerSource interface{ PeersPage() PeersPage }

// Peers mounts GET /v1/peers (role read); src nil answers an empty page.
type Peers struct{ Src PeerSource }

// Register mounts the route.
func (p Peers) Register(rt *auth.Router) {
	rt.HandleJSON("GET /v1/peers", auth.Read, func(*http.Request) (any, error) {
		if p.Src == nil {
			return PeersPage{Peers: []PeerView{}}, nil
		}
		return p.Src.PeersPage(), nil
	})
}

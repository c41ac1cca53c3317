package smm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/ordolabs/ordo/internal/smm/smmpb"
	"github.com/ordolabs/ordo/internal/transport"
	"google.golang.org/protobuf/proto"
)

// The state machine manager's requests between nodes ride on the node's
// transport (the authenticated, per-peer FIFO message seam) as two kinds
// of message: a request, and its response correlated by id. Requests are
// served by a fixed pool of workers reading a bounded queue; a request
// arriving when the queue is full is answered CodeBusy at once.

// Message kinds.
const (
	kindRequest  = "smm.Request"
	kindResponse = "smm.Response"
)

// IsMessage reports whether m is the state machine manager's: the node
// hands those to Node.Handle and the rest to the distributed sequencer.
func IsMessage(m transport.Message) bool { return strings.HasPrefix(m.Kind, "smm.") }

// Stable error codes of responses (and of the API where it shows them).
const (
	CodeBusy       = "smm_busy"
	CodeNotPrimary = "not_primary"
	CodeNotMember  = "not_member"
	CodeGap        = "log_gap"
	CodeFork       = "log_fork"
	CodeStale      = "stale_replica_set"
	CodeCorrupt    = "log_corrupt"
	CodeForbidden  = "forbidden"
	CodeInvalid    = "invalid_transaction"
	CodeInternal   = "internal"
)

// RemoteError is a response's error: a stable code and the peer's sentence.
type RemoteError struct {
	Peer    transport.NodeID
	Code    string
	Message string
}

func (e *RemoteError) Error() string {
	return fmt.Sprintf("smm: %s answered %s: %s", e.Peer, e.Code, e.Message)
}

// CodeOf is err's remote code, "" when err is not a RemoteError.
func CodeOf(err error) string {
	var re *RemoteError
	if errors.As(err, &re) {
		return re.Code
	}
	return ""
}

// inbound is a request waiting for a server worker.
type inbound struct {
	from transport.NodeID
	req  *smmpb.Request
}

// rpc correlates requests and responses over a transport.
type rpc struct {
	t     transport.Transport
	serve chan inbound

	mu      sync.Mutex
	next    uint64
	waiting map[uint64]chan *smmpb.Response
}

func newRPC(t transport.Transport, backlog int) *rpc {
	return &rpc{t: t, serve: make(chan inbound, backlog), waiting: map[uint64]chan *smmpb.Response{}}
}

// call sends req to a peer and waits for its response or ctx.
func (r *rpc) call(ctx context.Context, to transport.NodeID, req *smmpb.Request) (*smmpb.Response, error) {
	ch := make(chan *smmpb.Response, 1)
	r.mu.Lock()
	r.next++
	req.Id = r.next
	r.waiting[req.Id] = ch
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.waiting, req.Id)
		r.mu.Unlock()
	}()
	body, err := proto.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("smm: encoding a request: %w", err)
	}
	if err := r.t.Send(ctx, to, transport.Message{Kind: kindRequest, Assured: true, Body: body}); err != nil {
		return nil, fmt.Errorf("smm: request to %s: %w", to, err)
	}
	select {
	case resp := <-ch:
		if resp.Code != "" {
			return resp, &RemoteError{Peer: to, Code: resp.Code, Message: resp.Error}
		}
		return resp, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("smm: request to %s: %w", to, ctx.Err())
	}
}

// handle takes one message from the transport: a response goes to its
// waiting caller (or nowhere, when it gave up), a request to the server
// queue. It never blocks.
func (r *rpc) handle(m transport.Message) {
	switch m.Kind {
	case kindResponse:
		var resp smmpb.Response
		if proto.Unmarshal(m.Body, &resp) != nil {
			return
		}
		r.mu.Lock()
		ch := r.waiting[resp.Id]
		r.mu.Unlock()
		if ch != nil {
			select {
			case ch <- &resp:
			default:
			}
		}
	case kindRequest:
		var req smmpb.Request
		if proto.Unmarshal(m.Body, &req) != nil {
			return
		}
		select {
		case r.serve <- inbound{from: m.From, req: &req}:
		default:
			r.reply(context.Background(), m.From, failure(req.Id, CodeBusy, "the node's request queue is full"))
		}
	}
}

// reply sends a response (best effort: the caller times out otherwise).
func (r *rpc) reply(ctx context.Context, to transport.NodeID, resp *smmpb.Response) {
	body, err := proto.Marshal(resp)
	if err != nil {
		return
	}
	_ = r.t.Send(ctx, to, transport.Message{Kind: kindResponse, Assured: true, Body: body})
}

// failure is a response carrying an error.
func failure(id uint64, code, msg string) *smmpb.Response {
	return &smmpb.Response{Id: id, Code: code, Error: msg}
}

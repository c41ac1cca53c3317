package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/ordolabs/ordo/apitypes"
)

// The statuses of a leader event (LeaderEvent.Status), the seed's (001)
// vocabulary.
const (
	// LeaderQueued: indexed, waiting for the execution engine (again, after
	// a retriable failure).
	LeaderQueued = "Queued"
	// LeaderActive: taken by the execution engine; Phase says where.
	LeaderActive = "Active"
	// LeaderSuccessful: its successful result is on chain.
	LeaderSuccessful = "Successful"
	// LeaderDead: it ended without a successful result (a fatal failure
	// reported on chain, retries used up, stale, or its request reorged
	// out); Error says why. An admin may retry it.
	LeaderDead = "Dead"
)

// The phases of an Active leader event (LeaderEvent.Phase).
const (
	// PhaseInvoke: the tool runs.
	PhaseInvoke = "invoke"
	// PhaseReport: the result waits for a channel.
	PhaseReport = "report"
	// PhaseSent: the result transaction is in the sequencer.
	PhaseSent = "sent"
)

// The wire types of the leader's routes: the node's own (package
// apitypes).
type (
	// LeaderEvent is an on-chain request the leader indexed, and its
	// progress (Status, Phase, the tool's answer, the result sent back).
	LeaderEvent = apitypes.LeaderEvent
	// LeaderChannel is one of the leader's channels: an account that sends
	// results back on chain, and whether it is blocked.
	LeaderChannel = apitypes.ChannelView
)

// LeaderEventsOptions selects leader events: Status (empty: any), IDs
// above After, at most Limit (1-1000; 0 means the node's default, 100), in
// ID order.
type LeaderEventsOptions struct {
	Status string
	After  int64
	Limit  int
}

// leaderEventPath is /v1/leader/events/{id} followed by the segments.
func leaderEventPath(id int64, segs ...string) string {
	p := "/v1/leader/events/" + strconv.FormatInt(id, 10)
	for _, s := range segs {
		p += "/" + url.PathEscape(s)
	}
	return p
}

// LeaderEvents lists the leader's indexed events and returns the After of
// the following page (o.After itself when the page is empty). A status
// other than the four is an *APIError CodeBadQuery.
func (c *Client) LeaderEvents(ctx context.Context, o LeaderEventsOptions) ([]LeaderEvent, int64, error) {
	q := url.Values{}
	if o.Status != "" {
		q.Set("status", o.Status)
	}
	if o.After != 0 {
		q.Set("after", strconv.FormatInt(o.After, 10))
	}
	if o.Limit != 0 {
		q.Set("limit", strconv.Itoa(o.Limit))
	}
	path := "/v1/leader/events"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	var out apitypes.EventsPage
	if _, err := c.do(ctx, http.MethodGet, path, nil, &out); err != nil {
		return nil, 0, err
	}
	return out.Events, out.Next, nil
}

// LeaderEvent returns one leader event by ID (an *APIError CodeNotFound
// when there is none).
func (c *Client) LeaderEvent(ctx context.Context, id int64) (LeaderEvent, error) {
	var e LeaderEvent
	if _, err := c.do(ctx, http.MethodGet, leaderEventPath(id), nil, &e); err != nil {
		return LeaderEvent{}, err
	}
	return e, nil
}

// RetryLeaderEvent puts a Dead event back to Queued with its retries reset
// (the caller must be an admin) and returns it as the node committed it.
// An event that is not Dead is an *APIError CodeConflict; a node whose
// leader engine has not started answers CodeUnavailable.
func (c *Client) RetryLeaderEvent(ctx context.Context, id int64) (LeaderEvent, error) {
	var e LeaderEvent
	if _, err := c.do(ctx, http.MethodPost, leaderEventPath(id, "retry"), struct{}{}, &e); err != nil {
		return LeaderEvent{}, err
	}
	return e, nil
}

// LeaderChannels returns the leader's channels in index order.
func (c *Client) LeaderChannels(ctx context.Context) ([]LeaderChannel, error) {
	var out []LeaderChannel
	if _, err := c.do(ctx, http.MethodGet, "/v1/leader/channels", nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}

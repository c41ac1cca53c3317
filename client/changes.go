package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/ordolabs/ordo/apitypes"
)

// Change is a state transition of a record, as GET /v1/changes streams it:
// ID is its cursor (ChangesOptions.After resumes right after it).
type Change = apitypes.Change

// ChangesNow is the ChangesOptions.After that streams only the changes
// committed after the stream opened.
const ChangesNow = "now"

// ChangesOptions selects the changes Changes streams.
type ChangesOptions struct {
	// Queue, when set, keeps only that queue's changes.
	Queue string
	// After resumes after the change of this ID; ChangesNow starts at the
	// node's newest change (only changes to come); empty starts at the
	// oldest change the node keeps.
	After string
	// Opened, when set, is called once the node accepted the stream,
	// before any change: a caller that must not miss a change of what it
	// does next (a send, say) does it then.
	Opened func()
}

// ErrStreamEnded is what Changes returns when the node ended the stream
// (it shuts down, say) or the connection dropped: resume with the ID of
// the last change read.
var ErrStreamEnded = errors.New("ordo client: the change stream ended")

// maxEventLine bounds one line of the change stream.
const maxEventLine = 1 << 20

// Changes streams GET /v1/changes: it calls f with each change, in the
// node's order, until ctx ends (it returns ctx.Err()), f returns an error
// (it returns that error), or the stream ends (ErrStreamEnded). It
// returns once the node answered: an error answer (a bad After: 400
// bad_query) is an *APIError. Changes does not reconnect; a caller that
// does resumes from the last Change's ID.
func (c *Client) Changes(ctx context.Context, o ChangesOptions, f func(Change) error) error {
	body, err := c.openChanges(ctx, o)
	if err != nil {
		return err
	}
	defer body.Close()
	if o.Opened != nil {
		o.Opened()
	}
	return readChanges(ctx, body, f)
}

// openChanges sends GET /v1/changes and returns the open stream's body.
func (c *Client) openChanges(ctx context.Context, o ChangesOptions) (io.ReadCloser, error) {
	if c.err != nil {
		return nil, c.err
	}
	q := url.Values{}
	if o.Queue != "" {
		q.Set("queue", o.Queue)
	}
	if o.After != "" {
		q.Set("after", o.After)
	}
	path := "/v1/changes"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return nil, fmt.Errorf("ordo client: %w", err)
	}
	req.Header.Set("Accept", "text/event-stream")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("ordo client: GET %s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
		return nil, decodeError(resp.StatusCode, b)
	}
	return resp.Body, nil
}

// readChanges reads server-sent events from body until it ends.
func readChanges(ctx context.Context, body io.Reader, f func(Change) error) error {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 4096), maxEventLine)
	var event, data string
	for sc.Scan() {
		line := sc.Text()
		if line == "" { // an event's end
			if event == "change" && data != "" {
				var ch Change
				if err := json.Unmarshal([]byte(data), &ch); err != nil {
					return fmt.Errorf("ordo client: a change event: %w", err)
				}
				if err := f(ch); err != nil {
					return err
				}
			}
			event, data = "", ""
			continue
		}
		k, v, _ := strings.Cut(line, ":")
		v = strings.TrimPrefix(v, " ")
		switch k {
		case "event":
			event = v
		case "data":
			data = v
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%w: %w", ErrStreamEnded, err)
	}
	return ErrStreamEnded
}

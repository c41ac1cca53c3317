package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"

	"github.com/ordolabs/ordo/internal/tool"
)

// The tools of a leader run: in-process, behind an http.RoundTripper that
// the leader's tool client sends through. Each invocation's behaviour is
// drawn from the run's seed in the order invocations come: correct (served
// by a real tool.Server that demands the leader's signature), slow (past
// the tool timeout), a 5xx, a 4xx, or a lie (a 200 whose output breaks the
// output schema).

// toolBehaviour is what one invocation does.
type toolBehaviour uint8

const (
	behCorrect toolBehaviour = iota
	behSlow
	beh5xx
	beh4xx
	behLie
	numBehaviours
)

var behaviourNames = [numBehaviours]string{"correct", "slow", "5xx", "4xx", "lie"}

// leadToolInput is a tool's input schema: {"n": integer}.
const leadToolInput = `{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"],"additionalProperties":false}`

// leadToolOutput is version v's output schema: {"r": integer, "v": v}.
func leadToolOutput(v uint64) string {
	return fmt.Sprintf(`{"type":"object","properties":{"r":{"type":"integer"},"v":{"const":%d}},"required":["r","v"],"additionalProperties":false}`, v)
}

// leadToolURL is where version v of tool i is served.
func leadToolURL(i int, v uint64) string { return fmt.Sprintf("http://t%d-v%d.sim/", i, v) }

// simTool is version v of a tool: r = 2n, and its version.
type simTool struct {
	name string
	v    uint64
}

func (t simTool) Meta() tool.Meta {
	return tool.Meta{Name: t.name, Description: "doubles n", InputSchema: json.RawMessage(leadToolInput),
		OutputSchema: json.RawMessage(leadToolOutput(t.v)), Version: strconv.FormatUint(t.v, 10)}
}

func (t simTool) Invoke(_ context.Context, input json.RawMessage) (json.RawMessage, error) {
	var in struct {
		N int64 `json:"n"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return nil, fmt.Errorf("%w: %w", tool.ErrInvalidInput, err)
	}
	return json.Marshal(map[string]any{"r": 2 * in.N, "v": t.v})
}

// toolNet routes the leader's tool calls to the in-process tools.
type toolNet struct {
	w       *leadWorld
	rng     *rand.Rand
	faulty  bool // false in the drain: every invocation is correct
	servers map[string]*tool.Server
	// invoked counts invocations by behaviour.
	invoked [numBehaviours]int
}

func newToolNet(w *leadWorld, seed uint64) *toolNet {
	return &toolNet{w: w, rng: rand.New(rand.NewPCG(seed, 0x746f6f6c)), faulty: true, servers: map[string]*tool.Server{}}
}

// draw picks an invocation's behaviour.
func (n *toolNet) draw() toolBehaviour {
	if !n.faulty {
		return behCorrect
	}
	switch x := n.rng.IntN(100); {
	case x < 72:
		return behCorrect
	case x < 80:
		return behSlow
	case x < 88:
		return beh5xx
	case x < 93:
		return beh4xx
	}
	return behLie
}

func (n *toolNet) server(host string) (*tool.Server, error) {
	if s, ok := n.servers[host]; ok {
		return s, nil
	}
	name, ver, ok := strings.Cut(strings.TrimSuffix(host, ".sim"), "-v")
	v, err := strconv.ParseUint(ver, 10, 64)
	if !ok || err != nil {
		return nil, fmt.Errorf("no tool at %s", host)
	}
	s, err := tool.NewServer(simTool{name: name, v: v}, tool.RequireLeader([]string{n.w.signer}), tool.WithClock(n.w.clk),
		tool.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		return nil, err
	}
	n.servers[host] = s
	return s, nil
}

func (n *toolNet) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	if req.URL.Path == "/invoke" {
		n.w.chk.invoked(req.Context(), req.URL.Host)
	}
	b := n.draw()
	n.invoked[b]++
	switch b {
	case behSlow:
		return nil, fmt.Errorf("sim: the tool at %s did not answer in time: %w", req.URL.Host, context.DeadlineExceeded)
	case beh5xx:
		return jsonResponse(req, http.StatusServiceUnavailable, `{"error":{"code":"unavailable","message":"the tool is down"}}`), nil
	case beh4xx:
		return jsonResponse(req, http.StatusBadRequest, `{"error":{"code":"refused","message":"the tool refuses this input"}}`), nil
	case behLie:
		return jsonResponse(req, http.StatusOK, `{"output":{"r":"not a number"}}`), nil
	default: // behCorrect: the tool's own server answers
	}
	s, err := n.server(req.URL.Host)
	if err != nil {
		return nil, errors.Join(err, errors.New("connection refused"))
	}
	r := httptest.NewRequestWithContext(req.Context(), req.Method, req.URL.String(), bytes.NewReader(body))
	r.Header = req.Header.Clone()
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, r)
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}

func jsonResponse(req *http.Request, code int, body string) *http.Response {
	return &http.Response{StatusCode: code, Status: fmt.Sprintf("%d %s", code, http.StatusText(code)), Proto: "HTTP/1.1",
		ProtoMajor: 1, ProtoMinor: 1, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(body)), Request: req}
}

package crash_test

import (
	"encoding/json"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The leader crash test's tools, served by the test itself on plain
// net/http (not internal/tool's server: "written outside ordo"). Each
// speaks the tool protocol: POST /invoke {input} → {output}, GET /meta,
// GET /health. Every input carries the walk's id ("walk"), so a tool's
// answers are recorded per walk and its seeded choices are drawn per
// (tool, walk, invocation).
const (
	toolOK    = "ok"    // echoes the text and its length: always correct
	toolFlaky = "flaky" // squares n; slow past the node's toolTimeout, 503, or correct
	toolLiar  = "liar"  // adds a and b; sometimes an output off its schema, or a 4xx

	flakySlowShare = 0.2
	flaky503Share  = 0.35
	liarLieShare   = 0.2
	liar4xxShare   = 0.15
)

// answerKind is what a tool answered to one invocation.
type answerKind string

const (
	ansCorrect     answerKind = "correct"     // the right output, on schema
	ansSlow        answerKind = "slow"        // no answer before the node's toolTimeout
	ansUnavailable answerKind = "unavailable" // 503
	ansLie         answerKind = "lie"         // an output violating the output schema
	ansRefused     answerKind = "refused"     // a 4xx
	ansBadInput    answerKind = "bad-input"   // the tool got an input off its schema (the leader must not send one)
)

// toolAnswer is one invocation as the tool saw it.
type toolAnswer struct {
	kind answerKind
	run  int64 // the node's run (start count) when the invocation arrived
	at   time.Time
}

// toolSchemas are a tool's declared input and output schemas.
type toolSchemas struct{ in, out string }

var leaderToolSchemas = map[string]toolSchemas{
	toolOK: {
		in:  `{"type":"object","required":["walk","text"],"properties":{"walk":{"type":"string"},"text":{"type":"string"}},"additionalProperties":false}`,
		out: `{"type":"object","required":["echo","len"],"properties":{"echo":{"type":"string"},"len":{"type":"integer"}},"additionalProperties":false}`,
	},
	toolFlaky: {
		in:  `{"type":"object","required":["walk","n"],"properties":{"walk":{"type":"string"},"n":{"type":"integer"}},"additionalProperties":false}`,
		out: `{"type":"object","required":["square"],"properties":{"square":{"type":"integer"}},"additionalProperties":false}`,
	},
	toolLiar: {
		in:  `{"type":"object","required":["walk","a","b"],"properties":{"walk":{"type":"string"},"a":{"type":"integer"},"b":{"type":"integer"}},"additionalProperties":false}`,
		out: `{"type":"object","required":["sum"],"properties":{"sum":{"type":"integer"}},"additionalProperties":false}`,
	},
}

// toolInput is every tool's input decoded loosely (the tool checks it).
type toolInput struct {
	Walk string          `json:"walk"`
	Text json.RawMessage `json:"text"`
	N    json.RawMessage `json:"n"`
	A    json.RawMessage `json:"a"`
	B    json.RawMessage `json:"b"`
}

// correctOutput is the right output of tool for input, false when the
// input is off the tool's schema (the tools check by hand).
func correctOutput(tool string, raw json.RawMessage) (json.RawMessage, bool) {
	var in toolInput
	if json.Unmarshal(raw, &in) != nil || in.Walk == "" {
		return nil, false
	}
	var out any
	switch tool {
	case toolOK:
		var s string
		if json.Unmarshal(in.Text, &s) != nil {
			return nil, false
		}
		out = map[string]any{"echo": s, "len": len(s)}
	case toolFlaky:
		var n int64
		if json.Unmarshal(in.N, &n) != nil {
			return nil, false
		}
		out = map[string]any{"square": n * n}
	case toolLiar:
		var a, b int64
		if json.Unmarshal(in.A, &a) != nil || json.Unmarshal(in.B, &b) != nil {
			return nil, false
		}
		out = map[string]any{"sum": a + b}
	default:
		return nil, false
	}
	b, _ := json.Marshal(out)
	return b, true
}

// toolFarm serves the three tools under /<tool>/ on one listener and
// records every invocation per walk.
type toolFarm struct {
	srv     *http.Server
	base    string
	seed    uint64
	slowFor time.Duration // how long a slow answer takes (past the node's toolTimeout)

	run      atomic.Int64 // the node's current run, set by the test
	inFlight atomic.Int64 // invocations being answered now

	mu       sync.Mutex
	answers  map[string][]toolAnswer // by walk
	counts   map[string]map[answerKind]int
	unsigned int    // invocations whose Ordo-Leader is not the expected leader
	leader   string // the account that signs invocations (leader.accounts[0])
}

func newToolFarm(seed uint64, slowFor time.Duration) (*toolFarm, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	f := &toolFarm{seed: seed, slowFor: slowFor, answers: map[string][]toolAnswer{}, counts: map[string]map[answerKind]int{}}
	f.base = "http://" + ln.Addr().String()
	mux := http.NewServeMux()
	for name := range leaderToolSchemas {
		mux.HandleFunc("GET /"+name+"/meta", func(w http.ResponseWriter, _ *http.Request) { f.meta(w, name) })
		mux.HandleFunc("GET /"+name+"/health", func(w http.ResponseWriter, _ *http.Request) {
			writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
		})
		mux.HandleFunc("POST /"+name+"/invoke", func(w http.ResponseWriter, r *http.Request) { f.invoke(w, r, name) })
	}
	f.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = f.srv.Serve(ln) }()
	return f, nil
}

func (f *toolFarm) close() { _ = f.srv.Close() }

// setLeader sets the account every invocation must name in Ordo-Leader.
func (f *toolFarm) setLeader(a string) {
	f.mu.Lock()
	f.leader = a
	f.mu.Unlock()
}

// url is the base URL the registry holds for tool.
func (f *toolFarm) url(tool string) string { return f.base + "/" + tool }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeToolError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]string{"code": code, "message": msg}})
}

func (f *toolFarm) meta(w http.ResponseWriter, tool string) {
	s := leaderToolSchemas[tool]
	writeJSON(w, http.StatusOK, map[string]any{"name": tool, "description": "the leader crash test's " + tool + " tool",
		"inputSchema": json.RawMessage(s.in), "outputSchema": json.RawMessage(s.out), "version": "1.0.0"})
}

// choose draws the n-th invocation's behaviour of tool for walk.
func (f *toolFarm) choose(tool, walk string, n int) answerKind {
	h := fnv.New64a()
	_, _ = io.WriteString(h, tool+"/"+walk)
	r := rand.New(rand.NewPCG(f.seed^h.Sum64(), uint64(n)))
	x := r.Float64()
	switch tool {
	case toolFlaky:
		switch {
		case x < flakySlowShare:
			return ansSlow
		case x < flakySlowShare+flaky503Share:
			return ansUnavailable
		}
	case toolLiar:
		switch {
		case x < liarLieShare:
			return ansLie
		case x < liarLieShare+liar4xxShare:
			return ansRefused
		}
	}
	return ansCorrect
}

func (f *toolFarm) invoke(w http.ResponseWriter, r *http.Request, tool string) {
	f.inFlight.Add(1)
	defer f.inFlight.Add(-1)
	raw, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var body struct {
		Input json.RawMessage `json:"input"`
	}
	if err != nil || json.Unmarshal(raw, &body) != nil || len(body.Input) == 0 {
		writeToolError(w, http.StatusBadRequest, "bad_request", "the body is not {input}")
		return
	}
	var in toolInput
	_ = json.Unmarshal(body.Input, &in)
	want, valid := correctOutput(tool, body.Input)

	f.mu.Lock()
	n := len(f.answers[in.Walk])
	kind := ansBadInput
	if valid {
		kind = f.choose(tool, in.Walk, n)
	}
	f.answers[in.Walk] = append(f.answers[in.Walk], toolAnswer{kind: kind, run: f.run.Load(), at: time.Now()})
	if f.counts[tool] == nil {
		f.counts[tool] = map[answerKind]int{}
	}
	f.counts[tool][kind]++
	if f.leader != "" && r.Header.Get("Ordo-Leader") != f.leader {
		f.unsigned++
	}
	f.mu.Unlock()

	switch kind {
	case ansBadInput:
		writeToolError(w, http.StatusUnprocessableEntity, "invalid_input", "the input does not match the input schema")
	case ansSlow:
		t := time.NewTimer(f.slowFor)
		select {
		case <-t.C:
		case <-r.Context().Done():
		}
		t.Stop()
		writeJSON(w, http.StatusOK, map[string]json.RawMessage{"output": want})
	case ansUnavailable:
		writeToolError(w, http.StatusServiceUnavailable, "unavailable", "the flaky tool is down for a moment")
	case ansRefused:
		writeToolError(w, http.StatusForbidden, "refused", "the liar refuses this input")
	case ansLie:
		lie := `{"sum":"` + strings.Repeat("x", 3) + `"}`
		if n%2 == 1 {
			lie = `{"sum":1,"extra":true}`
		}
		writeJSON(w, http.StatusOK, map[string]json.RawMessage{"output": json.RawMessage(lie)})
	default:
		writeJSON(w, http.StatusOK, map[string]json.RawMessage{"output": want})
	}
}

// snapshot copies the answers by walk, the counts by tool, the count of
// invocations not signed by the leader and the leader.
func (f *toolFarm) snapshot() (map[string][]toolAnswer, map[string]map[answerKind]int, int, string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	as := make(map[string][]toolAnswer, len(f.answers))
	for k, v := range f.answers {
		as[k] = append([]toolAnswer(nil), v...)
	}
	cs := map[string]map[answerKind]int{}
	for t, m := range f.counts {
		cs[t] = map[answerKind]int{}
		for k, n := range m {
			cs[t][k] = n
		}
	}
	return as, cs, f.unsigned, f.leader
}

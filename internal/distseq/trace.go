package distseq

import (
	"crypto/ed25519"
	"fmt"
	"io"
	"time"

	"github.com/ordolabs/ordo/internal/trace"
	"google.golang.org/protobuf/proto"
)

// TraceEngine names the distributed sequencer in its traces.
const TraceEngine = "distseq"

// TraceConfig is a CoreConfig as a trace records it: the Domain by name
// (Replay is handed the domains it may build).
type TraceConfig struct {
	Self              NodeID             `json:"self"`
	Key               ed25519.PrivateKey `json:"key"`
	Domain            string             `json:"domain"`
	RangeSize         uint64             `json:"rangeSize"`
	HeartbeatInterval time.Duration      `json:"heartbeatInterval"`
	HeartbeatMisses   int                `json:"heartbeatMisses"`
	RetryInterval     time.Duration      `json:"retryInterval"`
	DelegationTimeout time.Duration      `json:"delegationTimeout"`
	AssembleTimeout   time.Duration      `json:"assembleTimeout"`
	SubmitterMisses   int                `json:"submitterMisses"`
	ParkRetry         time.Duration      `json:"parkRetry"`
	ParkTimeout       time.Duration      `json:"parkTimeout"`
	MaxReverts        int                `json:"maxReverts"`
	IdleAfter         time.Duration      `json:"idleAfter"`
	MaxAssembling     int                `json:"maxAssembling"`
}

func traceConfig(c CoreConfig, domain string) TraceConfig {
	return TraceConfig{Self: c.Self, Key: c.Key, Domain: domain, RangeSize: c.RangeSize, HeartbeatInterval: c.HeartbeatInterval,
		HeartbeatMisses: c.HeartbeatMisses, RetryInterval: c.RetryInterval, DelegationTimeout: c.DelegationTimeout,
		AssembleTimeout: c.AssembleTimeout, SubmitterMisses: c.SubmitterMisses, ParkRetry: c.ParkRetry, ParkTimeout: c.ParkTimeout,
		MaxReverts: c.MaxReverts, IdleAfter: c.IdleAfter, MaxAssembling: c.MaxAssembling}
}

func (t TraceConfig) core(d Domain) CoreConfig {
	return CoreConfig{Self: t.Self, Key: t.Key, Domain: d, RangeSize: t.RangeSize, HeartbeatInterval: t.HeartbeatInterval,
		HeartbeatMisses: t.HeartbeatMisses, RetryInterval: t.RetryInterval, DelegationTimeout: t.DelegationTimeout,
		AssembleTimeout: t.AssembleTimeout, SubmitterMisses: t.SubmitterMisses, ParkRetry: t.ParkRetry, ParkTimeout: t.ParkTimeout,
		MaxReverts: t.MaxReverts, IdleAfter: t.IdleAfter, MaxAssembling: t.MaxAssembling}
}

// TraceInput is one input as a trace records it: exactly one field set.
type TraceInput struct {
	Tick       *InputTick       `json:"tick,omitempty"`
	Height     *InputHeight     `json:"height,omitempty"`
	Events     *InputEvents     `json:"events,omitempty"`
	Submit     *InputSubmit     `json:"submit,omitempty"`
	Message    *InputMessage    `json:"message,omitempty"`
	Loaded     *InputLoaded     `json:"loaded,omitempty"`
	Dispatched *InputDispatched `json:"dispatched,omitempty"`
	SpendsRead *InputSpendsRead `json:"spendsRead,omitempty"`
}

func traceInput(in Input) TraceInput {
	switch v := in.(type) {
	case InputTick:
		return TraceInput{Tick: &v}
	case InputHeight:
		return TraceInput{Height: &v}
	case InputEvents:
		return TraceInput{Events: &v}
	case InputSubmit:
		return TraceInput{Submit: &v}
	case InputMessage:
		return TraceInput{Message: &v}
	case InputLoaded:
		return TraceInput{Loaded: &v}
	case InputDispatched:
		return TraceInput{Dispatched: &v}
	case InputSpendsRead:
		return TraceInput{SpendsRead: &v}
	}
	return TraceInput{}
}

func (t TraceInput) input() Input {
	switch {
	case t.Tick != nil:
		return *t.Tick
	case t.Height != nil:
		return *t.Height
	case t.Events != nil:
		return *t.Events
	case t.Submit != nil:
		return *t.Submit
	case t.Message != nil:
		return *t.Message
	case t.Loaded != nil:
		return *t.Loaded
	case t.Dispatched != nil:
		return *t.Dispatched
	case t.SpendsRead != nil:
		return *t.SpendsRead
	}
	return nil
}

// readyView is what a trace digests of a Ready: messages by their
// deterministic encoding, errors by their text.
type readyView struct {
	Batch       any          `json:"batch"`
	Sends       []sendView   `json:"sends"`
	Effects     []Effect     `json:"effects"`
	Replies     []replyView  `json:"replies"`
	Transitions []Transition `json:"transitions"`
	Err         string       `json:"err,omitempty"`
}

type sendView struct {
	To      NodeID `json:"to"`
	Kind    string `json:"kind"`
	Assured bool   `json:"assured"`
	Body    []byte `json:"body"`
}

type replyView struct {
	Ref  uint64 `json:"ref"`
	TxID string `json:"txId"`
	Err  string `json:"err,omitempty"`
}

func view(r Ready, err error) readyView {
	v := readyView{Batch: r.Batch, Effects: r.Effects, Transitions: r.Transitions}
	for _, s := range r.Sends {
		b, _ := proto.MarshalOptions{Deterministic: true}.Marshal(s.Env)
		v.Sends = append(v.Sends, sendView{To: s.To, Kind: s.Kind, Assured: s.Assured, Body: b})
	}
	for _, rp := range r.Replies {
		rv := replyView{Ref: rp.Ref, TxID: rp.TxID}
		if rp.Err != nil {
			rv.Err = rp.Err.Error()
		}
		v.Replies = append(v.Replies, rv)
	}
	if err != nil {
		v.Err = err.Error()
	}
	return v
}

// Tracer records a core's run: its starts, every input and a digest of
// every Ready. A nil *Tracer records nothing.
type Tracer struct {
	w      *trace.Writer[TraceConfig, InputStart, TraceInput]
	domain string
}

// NewTracer returns a Tracer writing to w (nil when w is nil); domain
// names the core's Domain for Replay.
func NewTracer(w io.Writer, domain string) *Tracer {
	if w == nil {
		return nil
	}
	return &Tracer{w: trace.NewWriter[TraceConfig, InputStart, TraceInput](TraceEngine, w), domain: domain}
}

// Step steps c with in, recording both, and returns what c.Step returns.
func (t *Tracer) Step(c *Core, in Input) (Ready, error) {
	r, err := c.Step(in)
	if t == nil {
		return r, err
	}
	if st, ok := in.(InputStart); ok {
		t.w.Start(traceConfig(c.cfg, t.domain), st.Now, st)
	} else {
		t.w.Input(traceInput(in))
	}
	t.w.Ready(view(r, err))
	return r, err
}

// Flush writes what is buffered; it returns the first error met.
func (t *Tracer) Flush() error {
	if t == nil {
		return nil
	}
	return t.w.Flush()
}

// replayCore adapts a Core to trace.Core.
type replayCore struct {
	c     *Core
	ready readyView
}

func (r *replayCore) Step(in TraceInput) {
	rd, err := r.c.Step(in.input())
	r.ready = view(rd, err)
}
func (r *replayCore) Ready() readyView { return r.ready }
func (r *replayCore) Advance()         {}

// Replay checks a distseq trace: each recorded core built again (its
// domain taken from domains by name), the same inputs stepped, every
// Ready compared with the recorded digest.
func Replay(rd io.Reader, domains map[string]Domain) (trace.Stats, error) {
	return trace.Replay(rd, func(cfg TraceConfig, _ time.Time, st InputStart) (trace.Core[TraceInput, readyView], error) {
		d, ok := domains[cfg.Domain]
		if !ok {
			return nil, fmt.Errorf("distseq: replay: unknown domain %q", cfg.Domain)
		}
		c, err := New(cfg.core(d))
		if err != nil {
			return nil, err
		}
		rc := &replayCore{c: c}
		rd, err := c.Step(st)
		rc.ready = view(rd, err)
		return rc, nil
	})
}

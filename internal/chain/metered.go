package chain

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ordolabs/ordo/internal/clock"
)

// Call names: the values of the call label of Metered's metrics.
const (
	CallHead           = "head"
	CallSendTx         = "send_tx"
	CallTxStatus       = "tx_status"
	CallEvents         = "events"
	CallCall           = "call"
	CallAccount        = "account"
	CallMinFee         = "min_fee"
	CallBlocks         = "blocks"
	CallSubscribeHeads = "subscribe_heads"
)

// Error kinds: the values of the kind label of ordo_chain_call_errors_total.
const (
	// ErrKindChain: the chain answered with one of its coded errors
	// (nonce_too_low, rejected, ...). It is reachable.
	ErrKindChain = "chain"
	// ErrKindUnreachable: no answer (connection refused, a timeout, a broken
	// or unreadable answer). The chain counts as not answering.
	ErrKindUnreachable = "unreachable"
)

// Health is what a Metered chain knows of the chain it wraps.
type Health struct {
	// Reachable is false from a call that got no answer until the next one
	// that did (a call started before the failure does not count).
	Reachable bool
	// LastAnswer is when a call last got an answer (a chain error is an
	// answer), zero if none has yet.
	LastAnswer time.Time
	// Since is when the Metered chain was made: how long "never" has been.
	Since time.Time
	// DownSince is when the current outage began (zero while Reachable),
	// and LastError the error of its latest failed call.
	DownSince time.Time
	LastError string
	// Head is the newest head seen (from Head or a head notification), zero
	// if none; HeadAt is when it was seen.
	Head   BlockHeader
	HeadAt time.Time
}

// Unanswered returns how long the chain has gone without answering as of
// now: since its last answer, or since the wrapper was made if it never
// answered.
func (h Health) Unanswered(now time.Time) time.Duration {
	t := h.LastAnswer
	if t.IsZero() {
		t = h.Since
	}
	return max(now.Sub(t), 0)
}

// HeadAge returns the age of the newest head seen as of now (by its block
// time), and false when no head has been seen.
func (h Health) HeadAge(now time.Time) (time.Duration, bool) {
	if h.HeadAt.IsZero() {
		return 0, false
	}
	return max(now.Sub(h.Head.Time), 0), true
}

// MeteredOptions configure NewMetered. The zero value of each field means
// its default.
type MeteredOptions struct {
	// Registerer takes the metrics; nil registers none (Health still
	// works).
	Registerer prometheus.Registerer
	// Clock times answers, heads' ages and call latency. Defaults to the
	// wall clock.
	Clock clock.Clock
	// Logger reports a chain that stops answering (one warning) and comes
	// back (one info). Defaults to slog.Default().
	Logger *slog.Logger
}

// Metered is a Chain that measures and watches the chain it wraps: every
// call's latency and errors by call, the newest head and its age, and
// whether the chain answers. It forwards the optional interfaces
// (HeadSubscriber, BlockReader) when the wrapped chain has them: use
// NewMetered, which returns a value that implements exactly those the
// wrapped chain does.
//
// Metrics (when MeteredOptions.Registerer is set):
//
//	ordo_chain_call_duration_seconds{call}   histogram of call latency
//	ordo_chain_call_errors_total{call,kind}  errors; kind is chain or unreachable
//	ordo_chain_head_height                   the newest head's height
//	ordo_chain_head_age_seconds              now minus the newest head's block time
//	ordo_chain_reachable                     1 while the chain answers, else 0
//	ordo_chain_unanswered_seconds            time since the chain last answered
type Metered struct {
	c     Chain
	clk   clock.Clock
	log   *slog.Logger
	dur   *prometheus.HistogramVec
	errs  *prometheus.CounterVec
	headH prometheus.Gauge

	mu     sync.Mutex
	h      Health
	gen    uint64 // outages so far: a call that started in an earlier one does not end the current one
	failed int    // calls failed in the current outage
}

// NewMetered wraps c. The result implements HeadSubscriber and BlockReader
// exactly when c does (so the sequencer's type assertions see what c has),
// and Unwrap returns c; Health reports what it has seen.
func NewMetered(c Chain, o MeteredOptions) HealthReporter {
	m := newMetered(c, o)
	sub, isSub := c.(HeadSubscriber)
	br, isBR := c.(BlockReader)
	switch {
	case isSub && isBR:
		return &meteredSubReader{m, meteredSub{m, sub}, meteredReader{m, br}}
	case isSub:
		return &meteredSubOnly{m, meteredSub{m, sub}}
	case isBR:
		return &meteredReaderOnly{m, meteredReader{m, br}}
	}
	return m
}

// HealthReporter is implemented by NewMetered's chains.
type HealthReporter interface {
	Chain
	// Health returns what the wrapper has seen so far.
	Health() Health
	// Now is the wrapper's clock.
	Now() time.Time
}

type (
	meteredSubReader struct {
		*Metered
		meteredSub
		meteredReader
	}
	meteredSubOnly struct {
		*Metered
		meteredSub
	}
	meteredReaderOnly struct {
		*Metered
		meteredReader
	}
)

var (
	_ HeadSubscriber = (*meteredSubReader)(nil)
	_ BlockReader    = (*meteredSubReader)(nil)
	_ HealthReporter = (*meteredSubReader)(nil)
	_ HeadSubscriber = (*meteredSubOnly)(nil)
	_ BlockReader    = (*meteredReaderOnly)(nil)
	_ HealthReporter = (*Metered)(nil)
)

func newMetered(c Chain, o MeteredOptions) *Metered {
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	m := &Metered{c: c, clk: o.Clock, log: o.Logger,
		dur: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "ordo_chain_call_duration_seconds", Help: "Latency of calls to the chain, by call.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}}, []string{"call"}),
		errs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ordo_chain_call_errors_total",
			Help: "Chain calls that failed, by call and kind (chain: the chain answered with an error; unreachable: no answer)."}, []string{"call", "kind"}),
		headH: prometheus.NewGauge(prometheus.GaugeOpts{Name: "ordo_chain_head_height", Help: "Height of the newest chain head seen."}),
	}
	m.h = Health{Reachable: true, Since: m.clk.Now()}
	if o.Registerer != nil {
		headAge := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "ordo_chain_head_age_seconds", Help: "Age of the newest chain head seen (now minus its block time); 0 before any."},
			func() float64 { a, _ := m.Health().HeadAge(m.clk.Now()); return a.Seconds() })
		reachable := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "ordo_chain_reachable", Help: "1 while the chain answers calls, 0 from a call it did not answer until one it does."},
			func() float64 {
				if m.Health().Reachable {
					return 1
				}
				return 0
			})
		unanswered := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "ordo_chain_unanswered_seconds", Help: "Time since the chain last answered a call."},
			func() float64 { return m.Health().Unanswered(m.clk.Now()).Seconds() })
		o.Registerer.MustRegister(m.dur, m.errs, m.headH, headAge, reachable, unanswered)
	}
	return m
}

// Health implements HealthReporter.
func (m *Metered) Health() Health {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.h
}

// Now implements HealthReporter.
func (m *Metered) Now() time.Time { return m.clk.Now() }

// start begins a call: the returned function ends it with its error.
func (m *Metered) start(ctx context.Context, call string) func(error) {
	t0 := m.clk.Now()
	gen := m.generation()
	return func(err error) {
		m.dur.WithLabelValues(call).Observe(m.clk.Now().Sub(t0).Seconds())
		m.done(ctx, call, gen, err)
	}
}

// generation returns the number of outages so far.
func (m *Metered) generation() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.gen
}

// done records a call's answer or failure; gen is the generation the call
// started in.
func (m *Metered) done(ctx context.Context, call string, gen uint64, err error) {
	if err != nil && ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return // the caller gave up (a shutdown): says nothing about the chain
	}
	answered := err == nil || CodeOf(err) != ""
	if err != nil {
		kind := ErrKindUnreachable
		if answered {
			kind = ErrKindChain
		}
		m.errs.WithLabelValues(call, kind).Inc()
	}
	now := m.clk.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case !answered && m.h.Reachable:
		m.h.Reachable, m.h.DownSince, m.h.LastError = false, now, err.Error()
		m.gen++
		m.failed = 1
		m.log.Warn("chain not answering", "call", call, "err", err, "lastAnswerAgo", m.h.Unanswered(now).Round(time.Millisecond))
	case !answered:
		m.h.LastError = err.Error()
		m.failed++
	case m.h.Reachable:
		m.h.LastAnswer = now
	case gen == m.gen:
		// The first answer to a call made during the outage.
		m.log.Info("chain answering again", "call", call, "down", now.Sub(m.h.DownSince).Round(time.Millisecond), "failedCalls", m.failed, "lastErr", m.h.LastError)
		m.h.Reachable, m.h.LastAnswer, m.h.DownSince, m.h.LastError, m.failed = true, now, time.Time{}, "", 0
	default:
		// An answer to a call made before the outage began: it says
		// nothing about the chain now.
	}
}

// sawHead records a head if it is the newest seen.
func (m *Metered) sawHead(h BlockHeader) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.h.HeadAt.IsZero() || h.Height >= m.h.Head.Height || h.Time.After(m.h.Head.Time) {
		m.h.Head, m.h.HeadAt = h, m.clk.Now()
		m.headH.Set(float64(h.Height))
	}
}

// Head implements Chain.
func (m *Metered) Head(ctx context.Context) (BlockHeader, error) {
	end := m.start(ctx, CallHead)
	h, err := m.c.Head(ctx)
	end(err)
	if err == nil {
		m.sawHead(h)
	}
	return h, err
}

// SendTx implements Chain.
func (m *Metered) SendTx(ctx context.Context, tx Tx) (Hash, error) {
	end := m.start(ctx, CallSendTx)
	h, err := m.c.SendTx(ctx, tx)
	end(err)
	return h, err
}

// TxStatus implements Chain.
func (m *Metered) TxStatus(ctx context.Context, h Hash) (TxStatus, error) {
	end := m.start(ctx, CallTxStatus)
	st, err := m.c.TxStatus(ctx, h)
	end(err)
	return st, err
}

// Events implements Chain.
func (m *Metered) Events(ctx context.Context, after uint64, limit int) ([]Event, error) {
	end := m.start(ctx, CallEvents)
	es, err := m.c.Events(ctx, after, limit)
	end(err)
	return es, err
}

// Call implements Chain.
func (m *Metered) Call(ctx context.Context, contract, method string, args json.RawMessage) (json.RawMessage, error) {
	end := m.start(ctx, CallCall)
	out, err := m.c.Call(ctx, contract, method, args)
	end(err)
	return out, err
}

// Account implements Chain.
func (m *Metered) Account(ctx context.Context, addr Address) (Account, error) {
	end := m.start(ctx, CallAccount)
	a, err := m.c.Account(ctx, addr)
	end(err)
	return a, err
}

// MinFee implements Chain.
func (m *Metered) MinFee(ctx context.Context) (uint64, error) {
	end := m.start(ctx, CallMinFee)
	f, err := m.c.MinFee(ctx)
	end(err)
	return f, err
}

// Unwrap returns the wrapped chain.
func (m *Metered) Unwrap() Chain { return m.c }

type meteredSub struct {
	m   *Metered
	sub HeadSubscriber
}

// SubscribeHeads implements HeadSubscriber: each head delivered counts as an
// answer of the chain.
func (s meteredSub) SubscribeHeads(ctx context.Context) (<-chan BlockHeader, error) {
	m := s.m
	end := m.start(ctx, CallSubscribeHeads)
	in, err := s.sub.SubscribeHeads(ctx)
	end(err)
	if err != nil {
		return nil, err
	}
	out := make(chan BlockHeader, cap(in))
	go func() {
		defer close(out)
		for h := range in {
			// A head pushed now is an answer now.
			m.done(ctx, CallSubscribeHeads, m.generation(), nil)
			m.sawHead(h)
			select {
			case out <- h:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}

type meteredReader struct {
	m  *Metered
	br BlockReader
}

// Blocks implements BlockReader.
func (r meteredReader) Blocks(ctx context.Context, from, to uint64) ([]Block, error) {
	end := r.m.start(ctx, CallBlocks)
	bs, err := r.br.Blocks(ctx, from, to)
	end(err)
	return bs, err
}

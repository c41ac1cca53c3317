package api_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/api"
	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/testkit"
)

// flakyChain is a chain that stops answering on demand: every call fails as
// a refused connection would while down is set.
type flakyChain struct {
	chain.Chain
	down atomic.Bool
}

var errRefused = errors.New("dial tcp 127.0.0.1:7545: connect: connection refused")

func (f *flakyChain) Head(ctx context.Context) (chain.BlockHeader, error) {
	if f.down.Load() {
		return chain.BlockHeader{}, errRefused
	}
	return f.Chain.Head(ctx)
}

func (f *flakyChain) SendTx(ctx context.Context, tx chain.Tx) (chain.Hash, error) {
	if f.down.Load() {
		return "", errRefused
	}
	return f.Chain.SendTx(ctx, tx)
}

func (f *flakyChain) TxStatus(ctx context.Context, h chain.Hash) (chain.TxStatus, error) {
	if f.down.Load() {
		return chain.TxStatus{}, errRefused
	}
	return f.Chain.TxStatus(ctx, h)
}

func (f *flakyChain) Account(ctx context.Context, a chain.Address) (chain.Account, error) {
	if f.down.Load() {
		return chain.Account{}, errRefused
	}
	return f.Chain.Account(ctx, a)
}

func (f *flakyChain) MinFee(ctx context.Context) (uint64, error) {
	if f.down.Load() {
		return 0, errRefused
	}
	return f.Chain.MinFee(ctx)
}

// health reads /healthz.
func (e *env) health(t *testing.T) (int, api.HealthResponse) {
	t.Helper()
	r := e.do(t, http.MethodGet, "/healthz", nil)
	return r.status, decode[api.HealthResponse](t, r)
}

// waitHealth polls /healthz until it answers status.
func (e *env) waitHealth(t *testing.T, status int, within time.Duration) api.HealthResponse {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		got, h := e.health(t)
		if got == status {
			return h
		}
		if time.Now().After(deadline) {
			t.Fatalf("/healthz still %d %+v after %v, want %d", got, h, within, status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A chain that stops answering: /healthz turns 503 chain_unreachable once
// it has not answered for the chain timeout, and 200 again when it answers;
// the node logs one warning when it stops and one info when it comes back,
// not one per failed call; /readyz stays 200 (the node has started).
func TestHealthChainOutage(t *testing.T) {
	var logs testkit.LogBuffer
	flaky := &flakyChain{}
	e := newEnv(t, envOptions{
		Logger:       slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		ChainTimeout: 300 * time.Millisecond,
		BlockTime:    50 * time.Millisecond,
		WrapChain:    func(c chain.Chain) chain.Chain { flaky.Chain = c; return flaky },
	})
	h := e.waitHealth(t, http.StatusOK, 5*time.Second)
	if h.Status != api.StatusOK || h.Chain == nil || !h.Chain.Reachable || h.Chain.LastAnswerAgo == nil || h.Chain.HeadAge == nil || h.Chain.Timeout != "300ms" {
		t.Fatalf("healthy: %+v %+v", h, h.Chain)
	}
	if got := testkit.Metric(t, e.Registry, "ordo_chain_reachable"); got != 1 {
		t.Fatalf("ordo_chain_reachable %v while up", got)
	}

	flaky.down.Store(true)
	h = e.waitHealth(t, http.StatusServiceUnavailable, 5*time.Second)
	if h.Status != api.StatusChainUnreachable || h.Chain.Reachable || !strings.Contains(h.Chain.LastError, "connection refused") {
		t.Fatalf("down: %+v %+v", h, h.Chain)
	}
	if ago, err := time.ParseDuration(*h.Chain.LastAnswerAgo); err != nil || ago < 300*time.Millisecond {
		t.Fatalf("down: lastAnswerAgo %q (%v)", *h.Chain.LastAnswerAgo, err)
	}
	if r := e.do(t, http.MethodGet, "/readyz", nil); r.status != http.StatusOK {
		t.Fatalf("readyz while the chain is down: %d %s", r.status, r.body)
	}
	if got := testkit.Metric(t, e.Registry, "ordo_chain_call_errors_total", "call", "head", "kind", chain.ErrKindUnreachable); got < 2 {
		t.Fatalf("head errors %v: the sequencer polls every 20ms", got)
	}
	if got := testkit.Metric(t, e.Registry, "ordo_chain_reachable"); got != 0 {
		t.Fatalf("ordo_chain_reachable %v while down", got)
	}

	flaky.down.Store(false)
	e.waitHealth(t, http.StatusOK, 5*time.Second)
	if got := testkit.Metric(t, e.Registry, "ordo_chain_reachable"); got != 1 {
		t.Fatalf("ordo_chain_reachable %v after", got)
	}
	down := logs.Records(t, "chain not answering")
	back := logs.Records(t, "chain answering again")
	if len(down) != 1 || len(back) != 1 {
		t.Fatalf("%d 'chain not answering' and %d 'chain answering again' lines, want 1 and 1", len(down), len(back))
	}
	if down[0]["level"] != "WARN" || !strings.Contains(down[0]["err"].(string), "connection refused") || back[0]["level"] != "INFO" {
		t.Fatalf("log lines: %v / %v", down[0], back[0])
	}
	if n, _ := back[0]["failedCalls"].(float64); n < 2 {
		t.Fatalf("answering again: failedCalls %v", back[0]["failedCalls"])
	}
}

// /healthz asks an idle chain for its head: a chain that answers but makes
// no blocks (and no calls come) is reachable, with an old head.
func TestHealthProbesIdleChain(t *testing.T) {
	e := newEnv(t, envOptions{ChainTimeout: 1500 * time.Millisecond}) // blocks on demand only: none come
	time.Sleep(1600 * time.Millisecond)                               // the sequencer makes no calls meanwhile
	// The first answer may be 503 (no answer for 1.6s); the probe it starts
	// brings the answer that makes the next one 200.
	h := e.waitHealth(t, http.StatusOK, 5*time.Second)
	if !h.Chain.Reachable || h.Chain.HeadAge == nil {
		t.Fatalf("%+v", h.Chain)
	}
	if age, err := time.ParseDuration(*h.Chain.HeadAge); err != nil || age < time.Second {
		t.Fatalf("headAge %q (%v): the chain made no block", *h.Chain.HeadAge, err)
	}
}

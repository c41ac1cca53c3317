package chain_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/testkit"
)

// fakeChain answers every call with err (nil: success); Head returns head.
type fakeChain struct {
	mu   sync.Mutex
	err  error
	head chain.BlockHeader
	// gate, when set, holds Head until it is closed.
	gate chan struct{}
}

func (f *fakeChain) fail() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

func (f *fakeChain) set(err error) { f.mu.Lock(); f.err = err; f.mu.Unlock() }

func (f *fakeChain) Head(ctx context.Context) (chain.BlockHeader, error) {
	f.mu.Lock()
	gate := f.gate
	f.mu.Unlock()
	if gate != nil {
		<-gate
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if ctx.Err() != nil {
		return chain.BlockHeader{}, ctx.Err()
	}
	return f.head, f.err
}
func (f *fakeChain) SendTx(context.Context, chain.Tx) (chain.Hash, error) { return "h", f.fail() }
func (f *fakeChain) TxStatus(context.Context, chain.Hash) (chain.TxStatus, error) {
	return chain.TxStatus{}, f.fail()
}
func (f *fakeChain) Events(context.Context, uint64, int) ([]chain.Event, error) { return nil, f.fail() }
func (f *fakeChain) Call(context.Context, string, string, json.RawMessage) (json.RawMessage, error) {
	return nil, f.fail()
}
func (f *fakeChain) Account(context.Context, chain.Address) (chain.Account, error) {
	return chain.Account{}, f.fail()
}
func (f *fakeChain) MinFee(context.Context) (uint64, error) { return 0, f.fail() }

type fakeReader struct{ *fakeChain }

func (r fakeReader) Blocks(context.Context, uint64, uint64) ([]chain.Block, error) {
	return nil, r.fail()
}

type fakeSub struct {
	*fakeChain
	heads chan chain.BlockHeader
}

func (s fakeSub) SubscribeHeads(context.Context) (<-chan chain.BlockHeader, error) {
	return s.heads, s.fail()
}

type fakeSubReader struct {
	fakeSub
}

func (r fakeSubReader) Blocks(ctx context.Context, from, to uint64) ([]chain.Block, error) {
	return fakeReader{r.fakeChain}.Blocks(ctx, from, to)
}

// NewMetered forwards exactly the optional interfaces its chain has.
func TestMeteredForwardsOptionalInterfaces(t *testing.T) {
	f := &fakeChain{}
	sub := fakeSub{f, make(chan chain.BlockHeader)}
	for _, tt := range []struct {
		name        string
		c           chain.Chain
		sub, reader bool
	}{
		{"plain", f, false, false},
		{"reader", fakeReader{f}, false, true},
		{"subscriber", sub, true, false},
		{"both", fakeSubReader{sub}, true, true},
	} {
		m := chain.NewMetered(tt.c, chain.MeteredOptions{})
		_, isSub := m.(chain.HeadSubscriber)
		_, isReader := m.(chain.BlockReader)
		if isSub != tt.sub || isReader != tt.reader {
			t.Errorf("%s: HeadSubscriber %v BlockReader %v, want %v %v", tt.name, isSub, isReader, tt.sub, tt.reader)
		}
	}
}

// An outage: one warning when calls stop being answered, one info when one
// is answered again, whatever the number of failed calls; a chain error is
// an answer; a call abandoned by its caller says nothing; metrics count
// calls and errors by call and kind.
func TestMeteredOutage(t *testing.T) {
	f := &fakeChain{head: chain.BlockHeader{Height: 7}}
	clk := clock.NewVirtual(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	f.head.Time = clk.Now().Add(-2 * time.Second)
	var logs testkit.LogBuffer
	reg := prometheus.NewRegistry()
	m := chain.NewMetered(fakeReader{f}, chain.MeteredOptions{Registerer: reg, Clock: clk, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	ctx := context.Background()

	if _, err := m.Head(ctx); err != nil {
		t.Fatal(err)
	}
	h := m.Health()
	if !h.Reachable || !h.LastAnswer.Equal(clk.Now()) || h.Head.Height != 7 {
		t.Fatalf("after an answer: %+v", h)
	}
	if age, ok := h.HeadAge(clk.Now()); !ok || age != 2*time.Second {
		t.Fatalf("head age %v %v", age, ok)
	}
	if got := testkit.Metric(t, reg, "ordo_chain_head_height"); got != 7 {
		t.Fatalf("head height %v", got)
	}
	if got := testkit.Metric(t, reg, "ordo_chain_head_age_seconds"); got != 2 {
		t.Fatalf("head age metric %v", got)
	}

	// A chain error is an answer.
	f.set(chain.ErrNonceTooLow)
	if _, err := m.SendTx(ctx, chain.Tx{}); !errors.Is(err, chain.ErrNonceTooLow) {
		t.Fatalf("SendTx: %v", err)
	}
	if !m.Health().Reachable || testkit.Metric(t, reg, "ordo_chain_call_errors_total", "call", "send_tx", "kind", "chain") != 1 {
		t.Fatalf("a chain error: %+v", m.Health())
	}

	// The chain stops answering: many failed calls, one warning.
	f.set(errors.New("connection refused"))
	clk.Advance(time.Second)
	for range 5 {
		_, _ = m.Head(ctx)
		_, _ = m.TxStatus(ctx, "h")
		_, _ = m.(chain.BlockReader).Blocks(ctx, 1, 2)
	}
	h = m.Health()
	if h.Reachable || h.LastError != "connection refused" || !h.DownSince.Equal(clk.Now()) {
		t.Fatalf("down: %+v", h)
	}
	if got := testkit.Metric(t, reg, "ordo_chain_call_errors_total", "call", "blocks", "kind", "unreachable"); got != 5 {
		t.Fatalf("blocks errors %v", got)
	}
	if got := testkit.Metric(t, reg, "ordo_chain_reachable"); got != 0 {
		t.Fatalf("reachable %v", got)
	}
	clk.Advance(10 * time.Second)
	if got := testkit.Metric(t, reg, "ordo_chain_unanswered_seconds"); got != 11 {
		t.Fatalf("unanswered %v", got)
	}

	// A call its caller abandons (a shutdown) says nothing.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	f.set(nil)
	if _, err := m.Head(cctx); err == nil {
		t.Fatal("Head with a cancelled context succeeded")
	}
	if m.Health().Reachable {
		t.Fatal("a cancelled call ended the outage")
	}

	// An answer ends it: one info.
	if _, err := m.MinFee(ctx); err != nil {
		t.Fatal(err)
	}
	if h := m.Health(); !h.Reachable || !h.DownSince.IsZero() || h.LastError != "" {
		t.Fatalf("back: %+v", h)
	}
	if w, i := strings.Count(logs.String(), `msg="chain not answering"`), strings.Count(logs.String(), `msg="chain answering again"`); w != 1 || i != 1 {
		t.Fatalf("%d warnings, %d infos:\n%s", w, i, logs.String())
	}
	for _, want := range []string{`level=WARN msg="chain not answering" call=head err="connection refused"`, `level=INFO msg="chain answering again" call=min_fee down=10s failedCalls=15`} {
		if !strings.Contains(logs.String(), want) {
			t.Fatalf("logs lack %q:\n%s", want, logs.String())
		}
	}
	if got := testkit.Metric(t, reg, "ordo_chain_call_duration_seconds", "call", "head"); got != 7 {
		t.Fatalf("head calls observed %v, want 7", got)
	}
}

// An answer to a call made before the outage began does not end it.
func TestMeteredStaleAnswer(t *testing.T) {
	f := &fakeChain{gate: make(chan struct{})}
	m := chain.NewMetered(f, chain.MeteredOptions{Logger: slog.New(slog.DiscardHandler)})
	done := make(chan struct{})
	go func() { defer close(done); _, _ = m.Head(context.Background()) }() // held at the gate
	time.Sleep(10 * time.Millisecond)
	f.set(errors.New("timeout"))
	if _, err := m.MinFee(context.Background()); err == nil {
		t.Fatal("MinFee succeeded")
	}
	f.set(nil)
	close(f.gate) // the old call is answered
	<-done
	if m.Health().Reachable {
		t.Fatal("an answer to a call made before the outage ended it")
	}
	if _, err := m.MinFee(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !m.Health().Reachable {
		t.Fatal("a new answer did not end the outage")
	}
}

// Heads pushed by a subscription are forwarded, count as answers and set the
// head.
func TestMeteredSubscription(t *testing.T) {
	f := &fakeChain{}
	sub := fakeSub{f, make(chan chain.BlockHeader, 4)}
	reg := prometheus.NewRegistry()
	m := chain.NewMetered(sub, chain.MeteredOptions{Registerer: reg, Logger: slog.New(slog.DiscardHandler)})
	f.set(errors.New("refused"))
	_, _ = m.MinFee(context.Background())
	f.set(nil)
	ch, err := m.(chain.HeadSubscriber).SubscribeHeads(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sub.heads <- chain.BlockHeader{Height: 3}
	sub.heads <- chain.BlockHeader{Height: 4}
	close(sub.heads)
	var got []uint64
	for h := range ch {
		got = append(got, h.Height)
	}
	if fmt.Sprint(got) != "[3 4]" {
		t.Fatalf("heads %v", got)
	}
	if h := m.Health(); !h.Reachable || h.Head.Height != 4 {
		t.Fatalf("%+v", h)
	}
	if got := testkit.Metric(t, reg, "ordo_chain_head_height"); got != 4 {
		t.Fatalf("head height %v", got)
	}
}

package evm_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain/evm"
	"github.com/ordolabs/ordo/internal/clock"
)

// rpcServer is a JSON-RPC endpoint that counts the requests it gets and
// answers eth_chainId and eth_blockNumber, or fails as told.
type rpcServer struct {
	*httptest.Server
	n    atomic.Int64
	mode atomic.Value // "ok", "429", "503" or "hang"
}

func newRPCServer(t *testing.T, mode string) *rpcServer {
	t.Helper()
	s := &rpcServer{}
	s.mode.Store(mode)
	release := make(chan struct{})
	var once sync.Once
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.n.Add(1)
		body, _ := io.ReadAll(r.Body)
		switch s.mode.Load().(string) {
		case "429":
			http.Error(w, "slow down", http.StatusTooManyRequests)
			return
		case "503":
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		case "hang":
			select {
			case <-r.Context().Done():
			case <-release:
			}
			return
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(body, &req)
		result := map[string]string{"eth_chainId": "0x539", "eth_blockNumber": "0x5"}[req.Method]
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
	}))
	t.Cleanup(func() {
		once.Do(func() { close(release) })
		s.Close()
	})
	return s
}

// TestFailover: an endpoint answering 429 and one hanging past the call
// timeout are backed off (1s, then 2s) and calls go to the good one; when
// every endpoint is backed off, the one whose backoff ends first is used.
func TestFailover(t *testing.T) {
	t.Parallel()
	limited, hanging, good := newRPCServer(t, "429"), newRPCServer(t, "hang"), newRPCServer(t, "ok")
	clk := clock.NewVirtual(clock.Epoch)
	b, err := evm.New(t.Context(), evm.Config{
		URLs:        []string{limited.URL, hanging.URL, good.URL},
		CallTimeout: 200 * time.Millisecond,
		Backoff:     evm.Backoff{Start: time.Second, Max: 4 * time.Second},
		ReorgDepth:  100, // Events then makes one call: eth_blockNumber
		Clock:       clk,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	counts := func(step string, a, h, g int64) {
		t.Helper()
		if la, lh, lg := limited.n.Load(), hanging.n.Load(), good.n.Load(); la != a || lh != h || lg != g {
			t.Errorf("%s: requests 429/hang/good = %d/%d/%d, want %d/%d/%d", step, la, lh, lg, a, h, g)
		}
	}
	events := func() error { _, err := b.Events(t.Context(), 0, 10); return err }
	counts("eth_chainId at New", 1, 1, 1)
	if _, err := b.SubscribeHeads(t.Context()); err == nil {
		t.Error("SubscribeHeads over HTTP only: no error (chain.WatchHeads would not poll)")
	}
	if err := events(); err != nil {
		t.Fatal(err)
	}
	counts("while both are backed off", 1, 1, 2)
	clk.Advance(time.Second)
	if err := events(); err != nil {
		t.Fatal(err)
	}
	counts("after 1s: both tried again, backed off 2s", 2, 2, 3)
	good.mode.Store("503") // backed off 1s, until before the others' 2s end
	if err := events(); err == nil {
		t.Fatal("every endpoint failing: no error")
	}
	counts("the good one fails", 2, 2, 4)
	good.mode.Store("ok")
	if err := events(); err != nil {
		t.Fatalf("all backed off: the first to end (the good one, 1s) is used: %v", err)
	}
	counts("all backed off", 2, 2, 5)
	clk.Advance(time.Second)
	if err := events(); err != nil {
		t.Fatal(err)
	}
	counts("1s later: the others still backed off", 2, 2, 6)
}

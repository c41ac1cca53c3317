package evmdev

import (
	"context"
	"log/slog"
	"net"
	"testing"
	"time"
)

func TestDialable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"127.0.0.1:8545", "127.0.0.1:8545"},
		{"0.0.0.0:8545", "127.0.0.1:8545"},
		{"[::]:8546", "[::1]:8546"},
		{"192.0.2.7:1", "192.0.2.7:1"},
		{"garbage", "garbage"},
	} {
		if got := dialable(tc.in); got != tc.want {
			t.Errorf("dialable(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestGethHandlerRecordsEndpoints feeds the handler the records go-ethereum's
// node logs when its servers listen (node/rpcstack.go).
func TestGethHandlerRecordsEndpoints(t *testing.T) {
	t.Parallel()
	eps := &endpoints{}
	h := &gethHandler{next: slog.DiscardHandler, eps: eps}
	ws := slog.NewRecord(time.Time{}, slog.LevelInfo, msgWSEnabled, 0)
	ws.AddAttrs(slog.String("url", "ws://0.0.0.0:4321"))
	http := slog.NewRecord(time.Time{}, slog.LevelInfo, msgHTTPStarted, 0)
	http.AddAttrs(slog.Any("endpoint", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1234}), slog.Bool("auth", false))
	for _, r := range []slog.Record{ws, http} {
		if err := h.Handle(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	if hu, wu := eps.urls(); hu != "http://127.0.0.1:1234" || wu != "ws://127.0.0.1:4321" {
		t.Errorf("urls %q, %q", hu, wu)
	}
}

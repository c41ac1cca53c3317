package evmdev

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
)

// go-ethereum's node logs these when its JSON-RPC servers listen (node's
// rpcstack.go, v1.17.10): the only place that tells the port picked for
// port 0.
const (
	msgHTTPStarted = "HTTP server started" // endpoint: host:port
	msgWSEnabled   = "WebSocket enabled"   // url: ws://host:port
)

// endpoints are the URLs the node's servers reported.
type endpoints struct {
	mu       sync.Mutex
	http, ws string
}

func (e *endpoints) urls() (http, ws string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.http, e.ws
}

// gethHandler is the slog.Handler of the go-ethereum node's logger: it
// records the servers' addresses into eps and hands each record to next, at
// debug level unless it is a warning or worse.
type gethHandler struct {
	next slog.Handler
	eps  *endpoints
}

func (h *gethHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *gethHandler) Handle(ctx context.Context, r slog.Record) error {
	switch r.Message {
	case msgHTTPStarted, msgWSEnabled:
		r.Attrs(func(a slog.Attr) bool {
			v := fmt.Sprint(a.Value.Resolve().Any())
			h.eps.mu.Lock()
			defer h.eps.mu.Unlock()
			switch {
			case r.Message == msgHTTPStarted && a.Key == "endpoint":
				h.eps.http = "http://" + dialable(v)
			case r.Message == msgWSEnabled && a.Key == "url":
				h.eps.ws = "ws://" + dialable(strings.TrimPrefix(v, "ws://"))
			}
			return true
		})
	}
	level := r.Level
	if level < slog.LevelWarn {
		level = slog.LevelDebug
	}
	if !h.next.Enabled(ctx, level) {
		return nil
	}
	out := slog.NewRecord(r.Time, level, r.Message, r.PC)
	out.AddAttrs(slog.String("component", "geth"))
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(a)
		return true
	})
	return h.next.Handle(ctx, out)
}

func (h *gethHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &gethHandler{next: h.next.WithAttrs(as), eps: h.eps}
}

func (h *gethHandler) WithGroup(name string) slog.Handler {
	return &gethHandler{next: h.next.WithGroup(name), eps: h.eps}
}

// dialable is hostport with an unspecified host (0.0.0.0, ::) replaced by
// the loopback address, so that a client on this machine can dial it.
func dialable(hostport string) string {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return hostport
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
		if ip.To4() == nil {
			host = "::1"
		}
	}
	return net.JoinHostPort(host, port)
}

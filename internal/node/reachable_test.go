package node

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
)

// TestBuildUnreachableChain: a chain that does not answer at start is one
// sentence naming its URL, before anything else is set up.
func TestBuildUnreachableChain(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0") // a free port, closed again: nothing answers there
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	_ = ln.Close()
	cfg := Config{Data: t.TempDir(), Chain: url, DevSenders: 1}
	_, err = Build(context.Background(), cfg, Options{})
	if !errors.Is(err, ErrChainUnreachable) || !strings.Contains(err.Error(), url) || strings.Count(err.Error(), "\n") > 0 {
		t.Fatalf("Build against %s: %v, want one line with ErrChainUnreachable naming the URL", url, err)
	}
}

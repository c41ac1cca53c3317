package grpcnet

import (
	"bytes"
	"crypto/rand"
	"crypto/tls"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/identity"
	"github.com/ordolabs/ordo/internal/transport"
)

// logBuf is a slog sink tests read from.
type logBuf struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuf) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuf) contains(s string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Contains(b.buf.String(), s)
}

// node is a test node: its transport and what it received.
type node struct {
	id   transport.NodeID
	key  identity.Key
	cert tls.Certificate
	tr   *Transport
	log  *logBuf

	mu    sync.Mutex
	got   map[transport.NodeID][]transport.Message
	block chan struct{} // when set, the handler waits on it
}

func newKey(t *testing.T) (identity.Key, tls.Certificate) {
	t.Helper()
	k, err := identity.Generate(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	c, err := identity.NewCertificate(k, now.Add(-time.Hour), now.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	return k, c
}

// start runs a transport for n on addr, registering it in dir when reg.
func (n *node) start(t *testing.T, dir *Static, addr string, reg bool, limit int) {
	t.Helper()
	if n.got == nil {
		n.got = map[transport.NodeID][]transport.Message{}
		n.log = &logBuf{}
	}
	tr, err := New(Config{
		Key: n.key, Certificate: n.cert, Listen: addr, Peers: dir,
		QueueLimit: limit, MinBackoff: 5 * time.Millisecond, MaxBackoff: 100 * time.Millisecond,
		MaxFrameBytes: 1 << 20,
		Logger:        slog.New(slog.NewTextHandler(n.log, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}, n.handle)
	if err != nil {
		t.Fatal(err)
	}
	n.tr = tr
	if reg {
		dir.Set(n.id, Peer{Endpoint: tr.Addr().String(), Fingerprint: identity.Fingerprint(n.cert.Leaf)})
	}
	t.Cleanup(func() { _ = tr.Close() })
}

func newNode(t *testing.T, dir *Static, reg bool, limit int) *node {
	t.Helper()
	k, c := newKey(t)
	n := &node{id: k.ID(), key: k, cert: c}
	n.start(t, dir, "127.0.0.1:0", reg, limit)
	return n
}

func (n *node) handle(m transport.Message) {
	n.mu.Lock()
	b := n.block
	n.got[m.From] = append(n.got[m.From], m)
	n.mu.Unlock()
	if b != nil {
		<-b
	}
}

func (n *node) received(from transport.NodeID) []transport.Message {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]transport.Message(nil), n.got[from]...)
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond) // polling interval, not a timed assertion
	}
}

func (n *node) stats(id transport.NodeID) PeerStats {
	for _, s := range n.tr.Peers() {
		if s.ID == id {
			return s
		}
	}
	return PeerStats{ID: id}
}

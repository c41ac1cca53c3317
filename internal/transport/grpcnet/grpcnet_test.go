package grpcnet

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/ordolabs/ordo/internal/identity"
	"github.com/ordolabs/ordo/internal/transport"
	"github.com/ordolabs/ordo/internal/transport/grpcnet/transportpb"
)

// inOrder reports whether got is exactly 0..n-1 from from.
func inOrder(got []transport.Message, from transport.NodeID, n int) error {
	if len(got) != n {
		return fmt.Errorf("%d messages, want %d", len(got), n)
	}
	for i, m := range got {
		if m.From != from || string(m.Body) != strconv.Itoa(i) || m.Kind != "x" {
			return fmt.Errorf("message %d: %+v", i, m)
		}
	}
	return nil
}

func TestFourNodesInOrder(t *testing.T) {
	dir := NewStatic(nil)
	var nodes []*node
	for range 4 {
		nodes = append(nodes, newNode(t, dir, true, 0))
	}
	const n = 300
	var wg sync.WaitGroup
	for _, a := range nodes {
		for _, b := range nodes { // every pair at once (and each node to itself): simultaneous dials
			wg.Go(func() {
				for i := range n {
					m := transport.Message{From: "forged", Kind: "x", Assured: i%3 != 0, Body: []byte(strconv.Itoa(i))}
					if err := a.tr.Send(context.Background(), b.id, m); err != nil {
						t.Errorf("send %d from %s to %s: %v", i, a.id, b.id, err)
						return
					}
				}
			})
		}
	}
	wg.Wait()
	for _, b := range nodes {
		for _, a := range nodes {
			eventually(t, fmt.Sprintf("%s to receive %d from %s", b.id, n, a.id), func() bool { return len(b.received(a.id)) >= n })
			if err := inOrder(b.received(a.id), a.id, n); err != nil {
				t.Errorf("%s from %s: %v", b.id, a.id, err)
			}
		}
	}
	for _, a := range nodes {
		for _, s := range a.tr.Peers() {
			if s.State != StateConnected || s.In != n || s.Out != n && s.ID != a.id || s.Drops != 0 {
				t.Errorf("%s's stats of %s: %+v", a.id, s.ID, s)
			}
		}
	}
}

func TestSendErrors(t *testing.T) {
	dir := NewStatic(nil)
	a := newNode(t, dir, true, 0)
	ctx := context.Background()
	if err := a.tr.Send(ctx, "nobody", transport.Message{}); !errors.Is(err, transport.ErrUnknownPeer) {
		t.Errorf("unknown peer: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := a.tr.Send(cctx, a.id, transport.Message{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled ctx: %v", err)
	}
	if a.tr.Self() != a.id {
		t.Errorf("Self = %s", a.tr.Self())
	}
	if err := a.tr.Close(); err != nil {
		t.Fatal(err)
	}
	if err := a.tr.Send(ctx, a.id, transport.Message{}); !errors.Is(err, transport.ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
	if _, err := New(Config{Key: a.key, Certificate: a.cert, Listen: "127.0.0.1:0"}, a.handle); !errors.Is(err, ErrConfig) {
		t.Errorf("config without a directory: %v", err)
	}
	_, other := newKey(t)
	if _, err := New(Config{Key: a.key, Certificate: other, Listen: "127.0.0.1:0", Peers: dir}, a.handle); !errors.Is(err, ErrConfig) {
		t.Errorf("certificate of another key: %v", err)
	}
}

func sendN(t *testing.T, from *node, to transport.NodeID, first, n int) {
	t.Helper()
	for i := first; i < first+n; i++ {
		if err := from.tr.Send(context.Background(), to, transport.Message{Kind: "x", Assured: true, Body: []byte(strconv.Itoa(i))}); err != nil {
			t.Fatalf("send %d: %v", i, err)
		}
	}
}

func TestPeerRestart(t *testing.T) {
	dir := NewStatic(nil)
	a := newNode(t, dir, true, 0)
	b := newNode(t, dir, true, 0)
	sendN(t, a, b.id, 0, 50)
	eventually(t, "b to receive 50", func() bool { return len(b.received(a.id)) == 50 })
	if err := inOrder(b.received(a.id), a.id, 50); err != nil {
		t.Fatal(err)
	}
	addr := b.tr.Addr().String()
	if err := b.tr.Close(); err != nil {
		t.Fatal(err)
	}
	// b's new process: the same identity at the same address, an empty inbox.
	b2 := &node{id: b.id, key: b.key, cert: b.cert}
	b2.start(t, dir, addr, false, 0)
	eventually(t, "a to reconnect to b", func() bool {
		s := a.stats(b.id)
		return s.State == StateConnected && s.Reconnects >= 1
	})
	sendN(t, a, b.id, 0, 50)
	eventually(t, "b's new process to receive 50", func() bool { return len(b2.received(a.id)) == 50 })
	if err := inOrder(b2.received(a.id), a.id, 50); err != nil {
		t.Fatal(err)
	}
}

func TestRefusesNonMember(t *testing.T) {
	dir := NewStatic(nil)
	a := newNode(t, dir, true, 0)
	// x has a valid certificate and knows a, but a's directory does not
	// hold x: x's own directory is a copy that also lists x.
	xdir := NewStatic(nil)
	x := newNode(t, xdir, true, 0)
	pa, _ := dir.Lookup(a.id)
	xdir.Set(a.id, pa)
	sendN(t, x, a.id, 0, 5)
	eventually(t, "a to log the refusal", func() bool { return a.log.contains(ErrNotMember.Error()) })
	eventually(t, "x to back off", func() bool { return x.stats(a.id).State == StateBackoff })
	if got := a.received(x.id); len(got) != 0 {
		t.Fatalf("a's handler got %d messages from a non-member", len(got))
	}
	if err := a.tr.Send(context.Background(), x.id, transport.Message{}); !errors.Is(err, transport.ErrUnknownPeer) {
		t.Fatalf("send to a non-member: %v", err)
	}
}

// TestRefusesOtherCertificateOfMember: b's key with a certificate other
// than the one the directory pins (a fingerprint mismatch).
func TestRefusesOtherCertificateOfMember(t *testing.T) {
	dir := NewStatic(nil)
	a := newNode(t, dir, true, 0)
	b := newNode(t, dir, true, 0)
	now := time.Now()
	other, err := identity.NewCertificate(b.key, now.Add(-2*time.Hour), now.Add(48*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	imp := &node{id: b.id, key: b.key, cert: other}
	imp.start(t, dir, "127.0.0.1:0", false, 0)
	sendN(t, imp, a.id, 0, 5)
	eventually(t, "a to log the refusal", func() bool { return a.log.contains(ErrFingerprint.Error()) })
	if got := a.received(b.id); len(got) != 0 {
		t.Fatalf("a's handler got %d messages from the impostor", len(got))
	}
}

// TestRefusesMemberIDWithAnotherKey: a client presenting a certificate that
// names a member's id (CN and URI SAN) but holds another key is refused at
// the handshake, and nothing reaches the handler.
func TestRefusesMemberIDWithAnotherKey(t *testing.T) {
	dir := NewStatic(nil)
	a := newNode(t, dir, true, 0)
	b := newNode(t, dir, true, 0)
	k, _ := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: string(b.id)},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		URIs: []*url.URL{identity.URI(b.id)},
	}
	der, err := x509.CreateCertificate(nil, tmpl, tmpl, k.Public(), k.Private)
	if err != nil {
		t.Fatal(err)
	}
	creds := credentials.NewTLS(&tls.Config{
		Certificates:       []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: k.Private}},
		InsecureSkipVerify: true, //nolint:gosec // the test's impostor does not check a
		MinVersion:         tls.VersionTLS13,
	})
	cc, err := grpc.NewClient("passthrough:///"+a.tr.Addr().String(), grpc.WithTransportCredentials(creds))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cc.Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	st, err := transportpb.NewPeerClient(cc).Connect(ctx)
	if err == nil {
		_ = st.Send(&transportpb.Frame{Kind: "x", Body: []byte("0")})
		if f, rerr := st.Recv(); rerr == nil {
			t.Fatalf("the impostor's stream was accepted: %v", f)
		}
	}
	eventually(t, "a to log the refusal", func() bool { return a.log.contains(identity.ErrMismatch.Error()) })
	if got := a.received(b.id); len(got) != 0 {
		t.Fatalf("a's handler got %d messages from the impostor", len(got))
	}
}

// TestShedsForAPeerThatNeverReads: b's handler blocks, so a's queue for b
// fills; non-assured frames are shed first, then assured ones are refused,
// and a's messages to c still go through.
func TestShedsForAPeerThatNeverReads(t *testing.T) {
	dir := NewStatic(nil)
	const limit = 8
	a := newNode(t, dir, true, limit)
	b := newNode(t, dir, true, 0)
	c := newNode(t, dir, true, 0)
	release := make(chan struct{})
	b.mu.Lock()
	b.block = release
	b.mu.Unlock()
	defer close(release) // before the Cleanups close the transports
	ctx := context.Background()
	big := make([]byte, 512<<10)
	// Non-assured frames until the stream's windows are full and the queue
	// sheds.
	eventually(t, "a to shed a frame for b", func() bool {
		if err := a.tr.Send(ctx, b.id, transport.Message{Kind: "hb", Body: big}); err != nil {
			t.Fatalf("non-assured send: %v", err)
		}
		return a.stats(b.id).Drops > 0
	})
	// The queue holds non-assured frames: assured ones take their places
	// until it is all assured, then are refused.
	var full error
	for i := 0; i < 2*limit+1 && full == nil; i++ {
		full = a.tr.Send(ctx, b.id, transport.Message{Kind: "x", Assured: true, Body: []byte("a")})
	}
	if !errors.Is(full, transport.ErrQueueFull) {
		t.Fatalf("assured sends to a full queue: %v", full)
	}
	if s := a.stats(b.id); s.Queued != limit {
		t.Fatalf("queued %d, want %d", s.Queued, limit)
	}
	// A slow peer does not hold up another.
	sendN(t, a, c.id, 0, limit) // its queue holds limit frames until the stream is up
	eventually(t, "c to receive them", func() bool { return len(c.received(a.id)) == limit })
	if err := inOrder(c.received(a.id), a.id, limit); err != nil {
		t.Fatal(err)
	}
}

func TestQueue(t *testing.T) {
	m := func(s string, assured bool) transport.Message {
		return transport.Message{Kind: s, Assured: assured}
	}
	tests := []struct {
		name       string
		start      []transport.Message
		push       transport.Message
		shed, full bool
		want       string
	}{
		{"room", []transport.Message{m("a", true)}, m("b", false), false, false, "ab"},
		{"sheds the oldest non-assured", []transport.Message{m("a", true), m("b", false), m("c", false)}, m("d", true), true, false, "acd"},
		{"sheds the new non-assured", []transport.Message{m("a", true), m("b", true), m("c", true)}, m("d", false), true, false, "abc"},
		{"refuses an assured", []transport.Message{m("a", true), m("b", true), m("c", true)}, m("d", true), false, true, "abc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := queue{limit: 3}
			for _, s := range tt.start {
				q.push(s)
			}
			shed, full := q.push(tt.push)
			got := ""
			for {
				x, ok := q.pop()
				if !ok {
					break
				}
				got += x.Kind
			}
			if shed != tt.shed || full != tt.full || got != tt.want {
				t.Fatalf("push: shed %v full %v, queue %q; want %v %v %q", shed, full, got, tt.shed, tt.full, tt.want)
			}
		})
	}
}

// Peers lists every node of a listing directory (this node aside) before
// any message, idle, then each with its state: one this node talks to
// becomes connected, the others stay listed, one that never runs too.
func TestPeersListsEveryConfiguredPeer(t *testing.T) {
	dir := NewStatic(nil)
	a, b, c := newNode(t, dir, true, 0), newNode(t, dir, true, 0), newNode(t, dir, true, 0)
	offline, _ := newKey(t)
	dir.Set(offline.ID(), Peer{Endpoint: "127.0.0.1:1", Fingerprint: strings.Repeat("0", 64)})
	want := []transport.NodeID{b.id, c.id, offline.ID()}
	slices.Sort(want)
	ids := func(ps []PeerStats) []transport.NodeID {
		out := make([]transport.NodeID, len(ps))
		for i, p := range ps {
			out[i] = p.ID
		}
		return out
	}
	ps := a.tr.Peers()
	if !slices.Equal(ids(ps), want) {
		t.Fatalf("before any message: peers %v, want %v", ids(ps), want)
	}
	for _, p := range ps {
		if p.State != StateIdle || p.In != 0 || p.Out != 0 {
			t.Errorf("before any message: %+v", p)
		}
	}
	if err := a.tr.Send(context.Background(), b.id, transport.Message{Kind: "x", Assured: true, Body: []byte("1")}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "b to receive", func() bool { return len(b.received(a.id)) == 1 })
	ps = a.tr.Peers()
	if !slices.Equal(ids(ps), want) {
		t.Fatalf("after a message: peers %v, want %v", ids(ps), want)
	}
	for _, p := range ps {
		connected := p.State == StateConnected
		if connected != (p.ID == b.id) {
			t.Errorf("after a message to b: %+v", p)
		}
	}
	// c, which has exchanged nothing, lists the others too.
	if n := len(c.tr.Peers()); n != 3 {
		t.Errorf("c lists %d peers, want 3", n)
	}
}

package node

import (
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// tcpProxy forwards loopback TCP connections to a target, byte for byte
// (TLS passes through untouched), and can cut the link: Cut closes every
// live connection and refuses new ones until Heal. A committee routes each
// directed pair of nodes through one, so a partition is a set of cuts.
type tcpProxy struct {
	ln     net.Listener
	target func() string
	mu     sync.Mutex
	cut    bool
	conns  map[net.Conn]struct{}
	wg     sync.WaitGroup
}

// newTCPProxy listens on a free loopback port and forwards to target(),
// read at each new connection (a restarted node may listen elsewhere).
// It is closed at the test's end.
func newTCPProxy(t *testing.T, target func() string) *tcpProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &tcpProxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	p.wg.Go(p.serve)
	t.Cleanup(p.close)
	return p
}

// Addr is the address to dial instead of the target's.
func (p *tcpProxy) Addr() string { return p.ln.Addr().String() }

// Cut closes every live connection and refuses new ones.
func (p *tcpProxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	for c := range p.conns {
		_ = c.Close()
	}
}

// Heal accepts connections again.
func (p *tcpProxy) Heal() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = false
}

func (p *tcpProxy) close() {
	_ = p.ln.Close()
	p.Cut()
	p.wg.Wait()
}

func (p *tcpProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.wg.Go(func() { p.handle(c) })
	}
}

// track registers c unless the link is cut (then c is closed).
func (p *tcpProxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cut {
		_ = c.Close()
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *tcpProxy) untrack(cs ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range cs {
		_ = c.Close()
		delete(p.conns, c)
	}
}

func (p *tcpProxy) handle(in net.Conn) {
	if !p.track(in) {
		return
	}
	out, err := net.DialTimeout("tcp", p.target(), 2*time.Second)
	if err != nil {
		p.untrack(in)
		return
	}
	if !p.track(out) {
		p.untrack(in)
		return
	}
	var done sync.WaitGroup
	pipe := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		p.untrack(in, out) // one direction ended: end the link
	}
	done.Go(func() { pipe(out, in) })
	done.Go(func() { pipe(in, out) })
	done.Wait()
}

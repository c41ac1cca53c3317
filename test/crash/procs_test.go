package crash_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/procs"
	"github.com/ordolabs/ordo/internal/testkit/ports"
)

// buildOrdo builds ./cmd/ordo into dir and returns the binary's path.
func buildOrdo(t *testing.T, dir string) string {
	t.Helper()
	bin, err := procs.Build(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// freeAddrs returns n distinct loopback addresses whose ports were free a
// moment ago, below the kernel's ephemeral range (internal/testkit/ports).
func freeAddrs(t *testing.T, n int) []string {
	t.Helper()
	addrs, err := ports.Addrs(n)
	if err != nil {
		t.Fatalf("free ports: %v", err)
	}
	return addrs
}

// proc is a child process that can be killed and started again with the
// same arguments (internal/procs.Process: its output appended to its log,
// a marker line per start, signal and exit), with the crash tests' helpers.
type proc struct {
	*procs.Process
	name string
}

func newProc(name, bin, logPath string, args ...string) *proc {
	return &proc{Process: procs.NewProcess(name, bin, logPath, args...), name: name}
}

func (p *proc) start() error          { return p.Start() }
func (p *proc) done() <-chan struct{} { return p.Done() }
func (p *proc) kill() error           { return p.Kill() }
func (p *proc) tail(n int) string     { return p.Tail(n) }

// stop kills the current run, if alive, for cleanup.
func (p *proc) stop() {
	if p.Running() {
		_ = p.Kill()
	}
}

// waitReady polls url until it answers 200, the run exits, or the deadline
// passes.
func (p *proc) waitReady(ctx context.Context, url string, within time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	hc := &http.Client{Timeout: time.Second}
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	exited := p.done()
	var last string
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := hc.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = resp.Status
		} else {
			last = err.Error()
		}
		select {
		case <-exited:
			return fmt.Errorf("%s exited before %s answered 200 (last: %s)", p.name, url, last)
		case <-ctx.Done():
			return fmt.Errorf("%s: %s did not answer 200 within %s (last: %s)", p.name, url, within, last)
		case <-tick.C:
		}
	}
}

// killRestart is one kill of a crash test: it fails if the run already
// exited on its own, else kills it, calls afterKill with what the kill
// gave, starts it again and waits until url answers. It returns how long
// that took from the kill; n (the kill's number, from 1) names the kill in
// the error.
func (p *proc) killRestart(ctx context.Context, url string, n int, afterKill func(error)) (time.Duration, error) {
	select {
	case <-p.done():
		return 0, errors.New("the node exited on its own")
	default:
	}
	t0 := time.Now()
	err := p.kill()
	afterKill(err)
	if err != nil {
		return 0, err
	}
	if err := p.start(); err != nil {
		return 0, err
	}
	if err := p.waitReady(ctx, url, 30*time.Second); err != nil {
		return 0, fmt.Errorf("restart after kill #%d: %w", n, err)
	}
	return time.Since(t0), nil
}

// up starts p and waits up to 30s until url answers; it fails t otherwise.
func (p *proc) up(ctx context.Context, t *testing.T, url string) {
	t.Helper()
	if err := p.start(); err != nil {
		t.Fatal(err)
	}
	if err := p.waitReady(ctx, url, 30*time.Second); err != nil {
		t.Fatal(err)
	}
}

// logOnFailure makes a failed test log the seed that replays it (what
// names the test) and the tail of the node's and the devchain's logs.
func logOnFailure(t *testing.T, what string, seed uint64, node, chain *proc) {
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s seed %d (replay with ORDO_CRASH_SEED=%d)", what, seed, seed)
			t.Logf("---- node log (tail) ----\n%s", node.tail(80))
			t.Logf("---- devchain log (tail) ----\n%s", chain.tail(30))
		}
	})
}

// pace waits d, or until ctx ends: the posters' pace, so that the load
// spans several kills.
func pace(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// failOn reports every error of errs (closed) and stops t if there was one.
func failOn(t *testing.T, errs <-chan error) {
	t.Helper()
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		t.FailNow()
	}
}

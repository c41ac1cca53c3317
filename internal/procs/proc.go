package procs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ErrNotRunning is returned (wrapped) by Kill and Term for a process that
// is not running, and by a wait for readiness when the process exited.
var ErrNotRunning = errors.New("procs: process not running")

// proc is a child process that can be killed and started again with the
// same arguments, its output appended to logPath.
type proc struct {
	name    string
	bin     string
	args    []string
	logPath string

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{} // closed when the current run has exited
	starts int
}

func newProc(name, bin, logPath string, args ...string) *proc {
	return &proc{name: name, bin: bin, args: args, logPath: logPath}
}

// marker appends one line to the log.
func (p *proc) marker(format string, a ...any) {
	f, err := os.OpenFile(p.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "=== %s %s: %s\n", time.Now().Format("15:04:05.000"), p.name, fmt.Sprintf(format, a...))
}

// start runs the process; the previous run, if any, must have exited.
func (p *proc) start() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.running() {
		return fmt.Errorf("procs: %s: started while running", p.name)
	}
	p.starts++
	p.marker("start #%d: %s %s", p.starts, p.bin, strings.Join(p.args, " "))
	f, err := os.OpenFile(p.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("procs: %s: %w", p.name, err)
	}
	cmd := exec.Command(p.bin, p.args...)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		f.Close()
		return fmt.Errorf("procs: %s: start: %w", p.name, err)
	}
	exited := make(chan struct{})
	n := p.starts
	go func() {
		err := cmd.Wait()
		f.Close()
		p.marker("run #%d exited: %v", n, err)
		close(exited)
	}()
	p.cmd, p.exited = cmd, exited
	return nil
}

// running reports whether the current run is alive; p.mu held.
func (p *proc) running() bool {
	if p.exited == nil {
		return false
	}
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// Running reports whether the process is alive.
func (p *proc) Running() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.running()
}

// done is closed when the current run exits (nil before the first start).
func (p *proc) done() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exited
}

// kill sends SIGKILL and waits for the exit.
func (p *proc) kill() error {
	p.mu.Lock()
	cmd, alive, exited := p.cmd, p.running(), p.exited
	p.mu.Unlock()
	if !alive {
		return fmt.Errorf("%w: %s", ErrNotRunning, p.name)
	}
	p.marker("SIGKILL")
	if err := cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("procs: %s: kill: %w", p.name, err)
	}
	<-exited
	return nil
}

// term sends SIGTERM and waits for the exit up to grace, then SIGKILL.
// It reports whether the process ended on SIGTERM.
func (p *proc) term(ctx context.Context, grace time.Duration) (clean bool, err error) {
	p.mu.Lock()
	cmd, alive, exited := p.cmd, p.running(), p.exited
	p.mu.Unlock()
	if !alive {
		return false, fmt.Errorf("%w: %s", ErrNotRunning, p.name)
	}
	p.marker("SIGTERM")
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		_ = cmd.Process.Kill() // a platform without SIGTERM
		<-exited
		return false, nil
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-exited:
		return true, nil
	case <-t.C:
	case <-ctx.Done():
	}
	p.marker("still running %s after SIGTERM: SIGKILL", grace)
	_ = cmd.Process.Kill()
	<-exited
	return false, nil
}

// tail returns the last n lines of the log.
func (p *proc) tail(n int) string {
	b, err := os.ReadFile(p.logPath)
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	lines := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}

// withTail wraps err with the tail of p's log.
func (p *proc) withTail(err error) error {
	return fmt.Errorf("%w\n--- last lines of %s (%s) ---\n%s", err, p.name, p.logPath, p.tail(40))
}

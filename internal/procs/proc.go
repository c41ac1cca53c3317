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

	"github.com/ordolabs/ordo/internal/clock"
)

// ErrNotRunning is returned (wrapped) by Kill and Term for a process that
// is not running, and by a wait for readiness when the process exited.
var ErrNotRunning = errors.New("procs: process not running")

// Process is a child process that can be killed and started again with
// the same arguments, its output appended to its log file with a marker
// line per start, signal and exit. A Committee runs its nodes and its
// devchain as Processes; a caller may run more (an intruder, a client).
type Process struct {
	name    string
	bin     string
	args    []string
	logPath string

	clock clock.Clock // times the log's markers and the grace after SIGTERM

	mu      sync.Mutex
	cmd     *exec.Cmd
	exited  chan struct{} // closed when the current run has exited
	starts  int
	exitErr error // how the last run that exited ended (cmd.Wait's error)
}

// NewProcess returns a Process (not started) running bin with args,
// logging to logPath, on the wall clock.
func NewProcess(name, bin, logPath string, args ...string) *Process {
	return &Process{name: name, bin: bin, args: args, logPath: logPath, clock: clock.Real{}}
}

// marker appends one line to the log.
func (p *Process) marker(format string, a ...any) {
	f, err := os.OpenFile(p.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "=== %s %s: %s\n", p.clock.Now().Format("15:04:05.000"), p.name, fmt.Sprintf(format, a...))
}

// Start runs the process; the previous run, if any, must have exited.
func (p *Process) Start() error { return p.start() }

// start runs the process; the previous run, if any, must have exited.
func (p *Process) start() error {
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
		p.mu.Lock()
		p.exitErr = err
		p.mu.Unlock()
		close(exited)
	}()
	p.cmd, p.exited = cmd, exited
	return nil
}

// running reports whether the current run is alive; p.mu held.
func (p *Process) running() bool {
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

// PID is the running process's id, or 0 when it is not running.
func (p *Process) PID() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.running() {
		return 0
	}
	return p.cmd.Process.Pid
}

// Running reports whether the process is alive.
func (p *Process) Running() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.running()
}

// done is closed when the current run exits (nil before the first start).
func (p *Process) done() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exited
}

// Kill sends SIGKILL and waits for the exit.
func (p *Process) Kill() error { return p.kill() }

// Term sends SIGTERM and waits for the exit up to grace, then sends
// SIGKILL; clean says whether it ended on SIGTERM.
func (p *Process) Term(ctx context.Context, grace time.Duration) (clean bool, err error) {
	return p.term(ctx, grace)
}

// ExitErr is how the last run that exited ended: nil for exit status 0,
// else cmd.Wait's error (an *exec.ExitError for a status or a signal).
func (p *Process) ExitErr() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exitErr
}

// Tail is the last n lines of the log.
func (p *Process) Tail(n int) string { return p.tail(n) }

// LogPath is the log file.
func (p *Process) LogPath() string { return p.logPath }

// Done is closed when the current run exits (nil before the first
// start).
func (p *Process) Done() <-chan struct{} { return p.done() }

// kill sends SIGKILL and waits for the exit.
func (p *Process) kill() error {
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
func (p *Process) term(ctx context.Context, grace time.Duration) (clean bool, err error) {
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
	t := p.clock.NewTimer(grace)
	defer t.Stop()
	select {
	case <-exited:
		return true, nil
	case <-t.C():
	case <-ctx.Done():
	}
	p.marker("still running %s after SIGTERM: SIGKILL", grace)
	_ = cmd.Process.Kill()
	<-exited
	return false, nil
}

// tail returns the last n lines of the log.
func (p *Process) tail(n int) string {
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
func (p *Process) withTail(err error) error {
	return fmt.Errorf("%w\n--- last lines of %s (%s) ---\n%s", err, p.name, p.logPath, p.tail(40))
}

package fslock

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"
)

func TestAcquireIsExclusive(t *testing.T) {
	dir := t.TempDir()
	a, err := Acquire(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Acquire(dir); !errors.Is(err, ErrLocked) {
		t.Fatalf("second Acquire: %v, want ErrLocked", err)
	}
	if err := a.Release(); err != nil {
		t.Fatal(err)
	}
	if err := a.Release(); err != nil {
		t.Fatalf("second Release: %v, want nil", err)
	}
	b, err := Acquire(dir)
	if err != nil {
		t.Fatalf("Acquire after Release: %v", err)
	}
	if err := b.Release(); err != nil {
		t.Fatal(err)
	}
}

// helperEnv names the directory the helper process locks; set only in the
// child that TestLockHeldByAnotherProcess starts.
const helperEnv = "FSLOCK_TEST_HOLD_DIR"

// TestHelperHold is not a test: run as a child process with helperEnv set, it
// takes the lock, says so on stdout and holds it until killed.
func TestHelperHold(t *testing.T) {
	dir := os.Getenv(helperEnv)
	if dir == "" {
		t.Skip("helper process only")
	}
	if _, err := Acquire(dir); err != nil {
		fmt.Println("error:", err)
		os.Exit(2)
	}
	fmt.Println("locked")
	select {} // hold the lock until the parent kills us
}

// TestLockHeldByAnotherProcess: a lock held by another process refuses at
// once, and the process dying (kill -9, no Release) frees it.
func TestLockHeldByAnotherProcess(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHold$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	defer func() {
		if !killed {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "locked\n" {
		t.Fatalf("helper said %q (%v), want \"locked\"", line, err)
	}

	start := time.Now()
	if _, err := Acquire(dir); !errors.Is(err, ErrLocked) {
		t.Fatalf("Acquire while another process holds the lock: %v, want ErrLocked", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("refusal took %v, want it at once", d)
	}

	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait() // "signal: killed" is the expected outcome
	killed = true

	// The OS drops the dead process's lock; on Windows that release is
	// documented as asynchronous, so allow it a moment.
	deadline := time.Now().Add(10 * time.Second)
	for {
		l, err := Acquire(dir)
		if err == nil {
			if err := l.Release(); err != nil {
				t.Fatal(err)
			}
			return
		}
		if !errors.Is(err, ErrLocked) || time.Now().After(deadline) {
			t.Fatalf("Acquire after the holder died: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

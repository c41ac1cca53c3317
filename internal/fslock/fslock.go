package fslock

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ErrLocked is returned when another process (or another handle in this
// process) holds the directory's lock.
var ErrLocked = errors.New("data directory is in use by another process")

// Lock is a held directory lock.
type Lock struct{ f *os.File }

// Acquire locks dir (creating it and its LOCK file if needed) or fails at
// once with an error wrapping ErrLocked.
func Acquire(dir string) (*Lock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	f, err := os.OpenFile(filepath.Join(dir, "LOCK"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	if err := withFd(f, lockFd); err != nil {
		_ = f.Close() // the error that matters is the lock's
		if errors.Is(err, ErrLocked) {
			return nil, fmt.Errorf("%s: %w", dir, ErrLocked)
		}
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	return &Lock{f: f}, nil
}

// Release drops the lock. Releasing a nil or already released Lock is a
// no-op.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	f := l.f
	l.f = nil
	// Unlock explicitly before closing: closing the handle alone releases the
	// lock too, but Windows documents that release as asynchronous.
	uerr := withFd(f, unlockFd)
	if err := f.Close(); err != nil {
		return fmt.Errorf("release %s: %w", f.Name(), err)
	}
	if uerr != nil {
		return fmt.Errorf("release %s: %w", f.Name(), uerr)
	}
	return nil
}

// withFd runs fn on f's descriptor (a handle on Windows) without switching
// the file to blocking mode, as f.Fd would.
func withFd(f *os.File, fn func(fd uintptr) error) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = fn(fd) }); err != nil {
		return err
	}
	return ferr
}

//go:build !windows && (!unix || aix)

package fslock

import (
	"errors"
	"fmt"
	"runtime"
)

// lockFd refuses: this platform has neither flock(2) nor LockFileEx, and a
// lock that does not exclude would be worse than none.
func lockFd(uintptr) error {
	return fmt.Errorf("directory locks on %s: %w", runtime.GOOS, errors.ErrUnsupported)
}

func unlockFd(uintptr) error { return nil }

//go:build windows

package fslock

import (
	"errors"

	"golang.org/x/sys/windows"
)

// lockRange is the byte range locked: all of it, as cmd/go's lockedfile does.
// The range may extend past the end of the file; the LOCK file stays empty.
const lockRange = ^uint32(0)

// lockFd takes LockFileEx(LOCKFILE_EXCLUSIVE_LOCK|LOCKFILE_FAIL_IMMEDIATELY)
// on handle fd. Windows locks belong to the handle, so a second open of the
// same file (in this process or another) is refused, and the system releases
// them when the handle is closed or the process ends.
func lockFd(fd uintptr) error {
	err := windows.LockFileEx(windows.Handle(fd),
		windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY,
		0, lockRange, lockRange, new(windows.Overlapped))
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return ErrLocked
	}
	return err
}

func unlockFd(fd uintptr) error {
	return windows.UnlockFileEx(windows.Handle(fd), 0, lockRange, lockRange, new(windows.Overlapped))
}

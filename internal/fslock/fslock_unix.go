//go:build unix && !aix

package fslock

import (
	"errors"

	"golang.org/x/sys/unix"
)

// lockFd takes flock(2) LOCK_EX|LOCK_NB on fd. flock locks belong to the open
// file description, so a second open of the same file (in this process or
// another) is refused, and the kernel drops the lock when the last
// descriptor closes, which includes the process dying.
func lockFd(fd uintptr) error {
	for {
		err := unix.Flock(int(fd), unix.LOCK_EX|unix.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EWOULDBLOCK):
			return ErrLocked
		default:
			return err
		}
	}
}

func unlockFd(fd uintptr) error {
	return unix.Flock(int(fd), unix.LOCK_UN)
}

package main

import (
	"context"
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// exitWith returns a context that ends when process pid exits. A pidfd
// becomes readable exactly then, so nothing polls, and a pid reused by a new
// process after the watched one exited cannot fool it.
func exitWith(ctx context.Context, pid int) (context.Context, error) {
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		ctx, cancel := context.WithCancel(ctx)
		cancel()
		return ctx, nil
	}
	if err != nil {
		return nil, fmt.Errorf("-exit-with %d: %w", pid, err)
	}
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		defer cancel()
		defer unix.Close(fd)
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}} //nolint:gosec // a file descriptor fits in int32
		for {
			if _, err := unix.Poll(fds, -1); !errors.Is(err, unix.EINTR) {
				return
			}
		}
	}()
	return ctx, nil
}

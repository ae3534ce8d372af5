//go:build !linux

package main

import (
	"context"
	"fmt"
)

// exitWith needs a pidfd, which only Linux has; scripts elsewhere stop the
// mock with a signal as before.
func exitWith(context.Context, int) (context.Context, error) {
	return nil, fmt.Errorf("-exit-with is supported on Linux only")
}

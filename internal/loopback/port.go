// Package loopback finds free ports on 127.0.0.1 for the servers the tests
// and benchmarks start (PostgreSQL, the object stores).
package loopback

import (
	"context"
	"fmt"
	"net"
)

// FreePort is a loopback port nothing listens on at the moment; a server
// may lose it to another process before it binds, so its starts are retried.
func FreePort(ctx context.Context) (int, error) {
	var lc net.ListenConfig
	l, err := lc.Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	addr, ok := l.Addr().(*net.TCPAddr)
	if !ok {
		return 0, fmt.Errorf("a TCP listener has the address %v", l.Addr())
	}
	return addr.Port, nil
}

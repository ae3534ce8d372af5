//go:build linux

package e2e

import (
	"context"
	"testing"

	"github.com/videogen/terraform-provider-videogen/internal/pgtest"
)

// startPostgres starts a throwaway PostgreSQL server (see pgtest.Start) and
// returns the connection string of Terraform's pg backend for it. When the
// test ends the server is shut down and its directory removed.
func startPostgres(t *testing.T) string {
	t.Helper()
	return startPostgresServer(t).URL
}

// pgServer is a throwaway PostgreSQL server that a test may restart.
type pgServer struct {
	// URL is the connection string of the test's role.
	URL string

	t   *testing.T
	srv *pgtest.Server
}

// Restart stops the server (a fast shutdown, which ends every session) and
// starts it again on the same port and data.
func (p *pgServer) Restart() {
	p.t.Helper()
	if err := p.srv.Restart(context.WithoutCancel(p.t.Context())); err != nil {
		p.t.Fatal(err)
	}
}

// startPostgresServer is startPostgres, with the server.
func startPostgresServer(t *testing.T) *pgServer {
	t.Helper()
	srv, err := pgtest.Start(t.Context(), pgtest.Options{Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("PostgreSQL log:\n%s", srv.Log())
		}
		if err := srv.Close(); err != nil {
			t.Errorf("stopping PostgreSQL: %v", err)
		}
	})
	return &pgServer{URL: srv.URL, t: t, srv: srv}
}

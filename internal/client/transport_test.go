package client

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
)

// refusedURL is mockapi's address where every connection is refused (mockapi.RefusedURL).
func refusedURL(t *testing.T) string {
	t.Helper()
	u, err := mockapi.RefusedURL(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestListModelsUnreachableAfterRetries(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, refusedURL(t))
	_, err := c.ListModels(t.Context())
	var u *UnreachableError
	if !errors.As(err, &u) {
		t.Fatalf("ListModels = %v (%T), want an *UnreachableError", err, err)
	}
	if u.Reason() != "the connection was refused" || !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("reason %q, error %q: want a refused connection", u.Reason(), err)
	}
	if !strings.Contains(err.Error(), "GET /v1/models") || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("error %q does not name the call and the transport error", err)
	}
}

// When the call's context ends while the retries of a refused connection are
// still going on, the error names the refusal, not only the context. The
// context is cancelled from the trace as soon as the first dial failed, so the
// test does not depend on how long anything takes.
func TestListModelsUnreachableKeepsCauseWhenContextEnds(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, refusedURL(t), WithMaxRetries(50), WithRetryWait(time.Hour, time.Hour))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		ConnectDone: func(_, _ string, err error) {
			if err != nil {
				cancel()
			}
		},
	})
	_, err := c.ListModels(ctx)
	if !IsUnreachable(err) || !errors.Is(err, syscall.ECONNREFUSED) || !errors.Is(err, context.Canceled) {
		t.Fatalf("ListModels = %v, want an unreachable error naming the refusal and the cancellation", err)
	}
	if !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("error %q does not say the connection was refused", err)
	}
}

// An answer, whatever its status or body, means the address was reached.
func TestListModelsAnswerIsNotUnreachable(t *testing.T) {
	t.Parallel()
	for _, r := range []reply{{status: http.StatusNotFound, body: `{"error":{"message":"no"}}`}, okReply("<html></html>")} {
		srv, _ := newScriptServer(t, r)
		_, err := newTestClient(t, srv.URL).ListModels(t.Context())
		if err == nil || IsUnreachable(err) {
			t.Errorf("answer %d %q: ListModels = %v, want an error that is not unreachable", r.status, r.body, err)
		}
	}
}

// A server that accepts the connection and never answers is unreachable too,
// and with no dial failure to blame, the reason says nothing answered.
func TestListModelsNoAnswer(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-release }))
	t.Cleanup(func() { close(release); srv.Close() })
	c := newTestClient(t, srv.URL, WithMaxRetries(0))
	ctx, cancel := context.WithCancel(t.Context())
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { cancel() }})
	_, err := c.ListModels(ctx)
	// A cancellation with no dial failure is the caller's, not the service's.
	if IsUnreachable(err) || !errors.Is(err, context.Canceled) {
		t.Fatalf("ListModels = %v, want the cancellation as it is", err)
	}
	u := &UnreachableError{Method: "GET", Endpoint: "/v1/models", Cause: fmt.Errorf("GET /v1/models: %w", context.DeadlineExceeded)}
	if u.Reason() != "nothing answered in time" {
		t.Errorf("Reason = %q for a deadline without a dial failure", u.Reason())
	}
}

func TestUnreachableReason(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		last error
		want string
	}{
		{&net.DNSError{Err: "no such host", Name: "videogen.invalid", IsNotFound: true}, "DNS"},
		{&net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}, "refused"},
		{&net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.EHOSTUNREACH)}, "unreachable"},
		{x509.UnknownAuthorityError{}, "certificate"},
		{errors.New("tls: first record does not look like a TLS handshake"), "TLS handshake"},
		{&net.OpError{Op: "dial", Net: "tcp", Err: timeoutErr{}}, "timed out"},
	} {
		u := &UnreachableError{Method: "GET", Endpoint: "/v1/models", Last: tt.last, Cause: context.DeadlineExceeded}
		if !strings.Contains(u.Reason(), tt.want) {
			t.Errorf("Reason for %v = %q, want it to mention %q", tt.last, u.Reason(), tt.want)
		}
		if !strings.Contains(u.Error(), tt.last.Error()) {
			t.Errorf("Error() = %q does not quote %q", u.Error(), tt.last)
		}
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

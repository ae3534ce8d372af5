package client

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http/httptrace"
	"strings"
	"sync"
	"syscall"
)

// UnreachableError is a call that got no HTTP answer at all: the host name did
// not resolve, the connection was refused or timed out, the TLS handshake
// failed, or the call's deadline passed before anything answered. It keeps the
// last failure to reach the host even when what ended the call was its
// deadline, which would otherwise hide the cause behind "context deadline
// exceeded" after the retries of a refused connection used up the time.
type UnreachableError struct {
	Method   string
	Endpoint string
	// Last is the last failure to resolve, dial or shake hands with the host;
	// nil when a connection was made and nothing answered on it.
	Last error
	// Cause is what ended the call: a *TransportError, or the context's error.
	Cause error
}

func (e *UnreachableError) Error() string {
	if e.Last == nil || errors.Is(e.Cause, e.Last) {
		return fmt.Sprintf("%s %s: %s: %v", e.Method, e.Endpoint, e.Reason(), e.Cause)
	}
	return fmt.Sprintf("%s %s: %s: %v (the call then ended: %v)", e.Method, e.Endpoint, e.Reason(), e.Last, e.Cause)
}

func (e *UnreachableError) Unwrap() []error {
	if e.Last == nil {
		return []error{e.Cause}
	}
	return []error{e.Last, e.Cause}
}

// Reason names the kind of failure in a few words a user can act on.
func (e *UnreachableError) Reason() string {
	err := e.Last
	if err == nil {
		err = e.Cause
	}
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var unknownCA x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalidCert x509.CertificateInvalidError
	var recordErr tls.RecordHeaderError
	switch {
	case errors.As(err, &dnsErr):
		return "the host name could not be resolved (DNS)"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "the connection was refused"
	case errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH):
		return "the host or its network is unreachable"
	case errors.As(err, &certErr) || errors.As(err, &unknownCA) || errors.As(err, &hostErr) || errors.As(err, &invalidCert):
		return "the TLS certificate was not accepted"
	case errors.As(err, &recordErr) || strings.Contains(err.Error(), "tls:"):
		return "the TLS handshake failed"
	case e.Last == nil && (errors.Is(err, context.DeadlineExceeded) || isTimeout(err)):
		return "nothing answered in time"
	case isTimeout(err):
		return "the connection timed out"
	}
	return "no HTTP answer came"
}

func isTimeout(err error) bool {
	var netErr net.Error
	return errors.As(err, &netErr) && netErr.Timeout()
}

// IsUnreachable reports a call that got no HTTP answer from the service.
func IsUnreachable(err error) bool {
	var u *UnreachableError
	return errors.As(err, &u)
}

// reachTrace records the last failure to reach a host across the attempts of
// one call, through net/http's client trace, which sees every dial of every
// retry without the retry loop having to report them.
type reachTrace struct {
	mu   sync.Mutex
	last error
}

func traceReach(ctx context.Context) (context.Context, *reachTrace) {
	t := &reachTrace{}
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		DNSDone: func(info httptrace.DNSDoneInfo) {
			if info.Err != nil {
				t.set(info.Err)
			}
		},
		// A success clears what an earlier address or attempt failed with, so
		// that a connection which then gets no answer is not blamed on it.
		ConnectDone:      func(_, _ string, err error) { t.set(err) },
		TLSHandshakeDone: func(_ tls.ConnectionState, err error) { t.set(err) },
	}), t
}

func (t *reachTrace) set(err error) {
	t.mu.Lock()
	t.last = err
	t.mu.Unlock()
}

// explain turns an error of a call made under t into an *UnreachableError
// when no HTTP answer came; any answer, even an error status, is left as it
// is.
func (t *reachTrace) explain(method, endpoint string, err error) error {
	var apiErr *APIError
	if err == nil || errors.As(err, &apiErr) {
		return err
	}
	var tErr *TransportError
	isCtx := errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
	if !errors.As(err, &tErr) && !isCtx {
		return err
	}
	t.mu.Lock()
	last := t.last
	t.mu.Unlock()
	if isCtx && last == nil && errors.Is(err, context.Canceled) {
		// Interrupted by the caller, not failed: not a statement about the service.
		return err
	}
	return &UnreachableError{Method: method, Endpoint: endpoint, Last: last, Cause: err}
}

// IsUntrustedCertificate reports a call that failed because the server's TLS
// certificate is signed by an authority this machine does not trust, as an
// internal certificate authority is until the client is given its certificate
// (WithCACertificates).
func IsUntrustedCertificate(err error) bool {
	var unknownCA x509.UnknownAuthorityError
	return errors.As(err, &unknownCA)
}

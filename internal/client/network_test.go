package client

import (
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const (
	gatewayHeader = "X-Gateway-Token"
	gatewayValue  = "gw-TEST-4b1e9d77-DO-NOT-LEAK"
)

// headerRecorder serves a model list (or a clip, or a redirect, by path) and
// records the gateway header of every request by path.
type headerRecorder struct {
	mu   sync.Mutex
	seen map[string][]string
}

func (h *headerRecorder) record(r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.seen == nil {
		h.seen = map[string][]string{}
	}
	h.seen[r.URL.Path] = append(h.seen[r.URL.Path], r.Header.Get(gatewayHeader))
}

func (h *headerRecorder) got(path string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.seen[path]...)
}

// The extra headers go with API calls and downloads on the API's origin, and
// nowhere else: not to a clip on another host, not past a redirect that leaves
// the origin. No log line shows their values, and neither does an error that
// quotes one back.
func TestExtraHeadersStayOnTheAPIOrigin(t *testing.T) {
	t.Parallel()
	clip := dlClip(64 << 10)
	other := &headerRecorder{}
	otherSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		other.record(r)
		serveClip(clip)(w, r)
	}))
	t.Cleanup(otherSrv.Close)
	api := &headerRecorder{}
	apiSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		api.record(r)
		switch r.URL.Path {
		case "/v1/models":
			_, _ = fmt.Fprint(w, `{"object":"list","data":[{"id":"m","object":"model"}]}`)
		case "/v1/video/generations/echo":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			//nolint:gosec // G705: a test server that quotes the header back on purpose
			_, _ = fmt.Fprintf(w, `{"error":{"message":"bad token %s","type":"invalid_request_error"}}`, r.Header.Get(gatewayHeader))
		case "/v1/videos/leave/content":
			http.Redirect(w, r, otherSrv.URL+"/moved", http.StatusFound)
		default:
			serveClip(clip)(w, r)
		}
	}))
	t.Cleanup(apiSrv.Close)
	logger := &recordingLogger{}
	c := newTestClient(t, apiSrv.URL, WithLogger(logger), WithHeaders(map[string]string{strings.ToLower(gatewayHeader): gatewayValue}))

	if _, err := c.ListModels(t.Context()); err != nil {
		t.Fatal(err)
	}
	_, err := c.GetVideo(t.Context(), "echo")
	if err == nil || strings.Contains(err.Error(), gatewayValue) || !strings.Contains(err.Error(), "bad token") {
		t.Errorf("an error quoting the header: %v, want it without the value", err)
	}
	for _, u := range []string{apiSrv.URL + "/v1/videos/same/content", otherSrv.URL + "/elsewhere", apiSrv.URL + "/v1/videos/leave/content"} {
		if _, err := c.downloadClip(t.Context(), u, &dlSink{}, noLimit); err != nil {
			t.Fatalf("download %s: %v", u, err)
		}
	}
	want := map[string]struct {
		rec  *headerRecorder
		want string
	}{
		"/v1/models":                    {api, gatewayValue},
		"/v1/video/generations/echo":    {api, gatewayValue},
		"/v1/videos/same/content":       {api, gatewayValue},
		"/v1/videos/leave/content":      {api, gatewayValue},
		"/elsewhere (another origin)":   {other, ""},
		"/moved (after leaving origin)": {other, ""},
	}
	for name, w := range want {
		path, _, _ := strings.Cut(name, " ")
		if got := w.rec.got(path); len(got) == 0 || got[0] != w.want {
			t.Errorf("%s received %s: %q, want %q", name, gatewayHeader, got, w.want)
		}
	}
	requests := 0
	for _, e := range logger.all() {
		for k, v := range e.fields {
			if strings.Contains(fmt.Sprint(v), gatewayValue) {
				t.Errorf("log line %q field %q holds the header's value", e.msg, k)
			}
		}
		if e.msg == "videogen API request" {
			requests++
			if h := e.fields["headers"].(map[string]string); h[gatewayHeader] != redactedText { //nolint:forcetypeassert // the request log's shape
				t.Errorf("logged %s = %q, want %q", gatewayHeader, h[gatewayHeader], redactedText)
			}
		}
	}
	if requests == 0 {
		t.Fatal("no request was logged; the test would prove nothing")
	}
}

func TestWithHeadersRefusesWhatCannotBeSent(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		h    map[string]string
		want string
	}{
		{map[string]string{"authorization": "Bearer x"}, "set by the provider itself"},
		{map[string]string{"Idempotency-Key": "x"}, "set by the provider itself"},
		{map[string]string{"bad name": "x"}, "not a valid HTTP header name"},
		{map[string]string{"X-Token": "line\nbreak-SECRET"}, "line break"},
		{map[string]string{"X-Token": "a", "x-token": "b"}, "given twice"},
	} {
		_, err := New("http://127.0.0.1:1", testAPIKey, WithHeaders(tt.h))
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "SECRET") {
			t.Errorf("WithHeaders(%q): %v, want an error saying %q without the value", tt.h, err, tt.want)
		}
	}
}

// handshakeCounter is a TLS test server that counts the connections it accepts.
func handshakeCounter(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = fmt.Fprint(w, `{"object":"list","data":[{"id":"m","object":"model"}]}`)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Config.ErrorLog = nil
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv, &conns
}

// A certificate from an authority this machine does not know fails at once:
// no retry changes it. With the authority's certificate given, the same server
// answers.
func TestUnknownAuthorityFailsAtOnceAndExtraCATrustsIt(t *testing.T) {
	t.Parallel()
	srv, conns := handshakeCounter(t)
	c := newTestClient(t, srv.URL, WithMaxRetries(DefaultMaxRetries))
	_, err := c.ListModels(t.Context())
	var u *UnreachableError
	if !errors.As(err, &u) || u.Reason() != "the TLS certificate was not accepted" {
		t.Fatalf("ListModels: %v, want an unaccepted certificate", err)
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("the server saw %d connections, want 1: a certificate that is not trusted is not retried", n)
	}
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	c = newTestClient(t, srv.URL, WithCACertificates(ca))
	if _, err := c.ListModels(t.Context()); err != nil {
		t.Fatalf("ListModels with the server's CA trusted: %v", err)
	}
}

// Plain HTTP to a TLS port is no transient failure either.
func TestPlainHTTPToTLSPortFailsAtOnce(t *testing.T) {
	t.Parallel()
	srv, conns := handshakeCounter(t)
	c := newTestClient(t, strings.Replace(srv.URL, "https://", "http://", 1), WithMaxRetries(DefaultMaxRetries))
	if _, err := c.ListModels(t.Context()); err == nil {
		t.Fatal("plain HTTP to a TLS server succeeded")
	}
	// An HTTP request to a TLS server is answered 400 by net/http's server: an
	// answer, which is not retried either.
	if n := conns.Load(); n != 1 {
		t.Errorf("the server saw %d connections, want 1", n)
	}
	// TLS to a plain HTTP port.
	plain := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(plain.Close)
	c = newTestClient(t, strings.Replace(plain.URL, "http://", "https://", 1), WithMaxRetries(DefaultMaxRetries))
	_, err := c.ListModels(t.Context())
	var tErr *TransportError
	if !errors.As(err, &tErr) || tErr.Attempts != 1 {
		t.Errorf("TLS to a plain HTTP server: %v, want one attempt", err)
	}
}

func TestCheckCACertificates(t *testing.T) {
	t.Parallel()
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	good := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := CheckCACertificates(good); err != nil {
		t.Errorf("a CA certificate: %v", err)
	}
	for _, tt := range []struct {
		name, pem, want string
	}{
		{"empty", "", "no PEM certificate"},
		{"not PEM", "hello", "no PEM certificate"},
		{"a key", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", "not a CERTIFICATE"},
		{"garbage", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", "not a valid certificate"},
	} {
		if err := CheckCACertificates([]byte(tt.pem)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
	if _, err := New("https://127.0.0.1:1", testAPIKey, WithCACertificates([]byte("nothing"))); err == nil {
		t.Error("New accepted CA certificates without a certificate")
	}
}

// A refused connection is tried MaxRefusedAttempts times, not once per retry:
// nothing listens, and each retry only made the user wait longer (7 attempts
// over 20 s before).
func TestRefusedConnectionIsTriedAFewTimes(t *testing.T) {
	t.Parallel()
	var lc net.ListenConfig
	ln, err := lc.Listen(t.Context(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c := newTestClient(t, "http://"+addr, WithMaxRetries(DefaultMaxRetries))
	for _, call := range []struct {
		name string
		do   func() error
	}{
		{"ListModels", func() error { _, err := c.ListModels(t.Context()); return err }},
		{"SubmitVideo", func() error { _, err := c.SubmitVideo(t.Context(), VideoRequest{Model: "m", Prompt: "p"}); return err }},
		{"downloadClip", func() error {
			_, err := c.downloadClip(t.Context(), "http://"+addr+"/clip", &dlSink{}, noLimit)
			return err
		}},
	} {
		err := call.do()
		var tErr *TransportError
		if !errors.As(err, &tErr) || tErr.Attempts != MaxRefusedAttempts {
			t.Errorf("%s: %v, want %d attempts", call.name, err, MaxRefusedAttempts)
		}
	}
}

// HTTPS_PROXY, HTTP_PROXY and NO_PROXY are read when the client is made.
// Loopback is never proxied by Go, so the API is a name that resolves nowhere:
// through the proxy it answers; listed in NO_PROXY it is dialled directly and
// fails at once (a name that does not exist is no transient failure).
func TestProxyFromTheEnvironment(t *testing.T) {
	var proxied atomic.Int32
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Host != "videogen.invalid" || r.Header.Get("Authorization") != "Bearer "+testAPIKey {
			http.Error(w, "unexpected request", http.StatusBadGateway)
			return
		}
		proxied.Add(1)
		_, _ = fmt.Fprint(w, `{"object":"list","data":[{"id":"m","object":"model"}]}`)
	}))
	t.Cleanup(proxy.Close)
	t.Setenv("HTTP_PROXY", proxy.URL)
	t.Setenv("HTTPS_PROXY", proxy.URL)
	t.Setenv("NO_PROXY", "")
	c := newTestClient(t, "http://videogen.invalid")
	if _, err := c.ListModels(t.Context()); err != nil || proxied.Load() != 1 {
		t.Fatalf("through HTTP_PROXY: %v, %d proxied requests", err, proxied.Load())
	}
	t.Setenv("NO_PROXY", "videogen.invalid")
	c = newTestClient(t, "http://videogen.invalid", WithMaxRetries(DefaultMaxRetries))
	_, err := c.ListModels(t.Context())
	var dnsErr *net.DNSError
	if !errors.As(err, &dnsErr) || proxied.Load() != 1 {
		t.Errorf("with NO_PROXY: %v, %d proxied requests; want a direct DNS failure", err, proxied.Load())
	}
	var tErr *TransportError
	if errors.As(err, &tErr) && tErr.Attempts != 1 {
		t.Errorf("a host name that does not exist was tried %d times, want once", tErr.Attempts)
	}
}

// The bound the provider page states for a refused port follows from the
// retry settings, not from a stopwatch: MaxRefusedAttempts attempts, with the
// longest back-off before each retry (the jitter only shortens it).
func TestRefusedWaitBound(t *testing.T) {
	t.Parallel()
	if got := RefusedWaitBound(DefaultRetryWaitMin, DefaultRetryWaitMax); got != 1500*time.Millisecond {
		t.Errorf("RefusedWaitBound = %s, want 1.5s (0.5 s, then 1 s)", got)
	}
	c, err := New("http://127.0.0.1:1", testAPIKey)
	if err != nil {
		t.Fatal(err)
	}
	if c.retryWaitMin != DefaultRetryWaitMin || c.retryWaitMax != DefaultRetryWaitMax {
		t.Errorf("a client waits %s to %s between retries, want the defaults the bound is stated for", c.retryWaitMin, c.retryWaitMax)
	}
}

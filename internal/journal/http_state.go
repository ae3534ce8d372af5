package journal

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"net/url"
)

// StateReaderUserAgent is the User-Agent of the provider's own read of a
// state an http backend serves, so that the server's logs (and a test) tell
// it from Terraform's.
const StateReaderUserAgent = "terraform-provider-videogen (saved state read)"

// httpSettings are the http backend's settings its reader follows or that do
// not change a read (where and how it locks and writes, its retries).
var httpSettings = []string{
	"address", "username", "password", "skip_cert_verification",
	"client_ca_certificate_pem", "client_certificate_pem", "client_private_key_pem",
	"update_method", "lock_address", "unlock_address", "lock_method", "unlock_method",
	"retry_max", "retry_wait_min", "retry_wait_max",
}

// httpState is the savedState of a state Terraform's http backend keeps: a
// GET of its address, once, the first time the journal offers a task, as the
// backend sends it: with its username and password, its TLS settings (a CA to
// trust, a client certificate, skip_cert_verification), each from the block
// or the TF_HTTP_ environment variable the backend reads in its place. No
// content (204) or not found (404) is no state, which holds nothing, as the
// backend takes it; any other answer or failure proves nothing. The backend
// keeps only the default workspace. Nothing it reads or is given is ever
// shown or logged.
type httpState struct {
	address, username, password string
	caPEM, certPEM, keyPEM      string
	skipVerify, otherWorkspace  bool

	readOnce
}

// currentHTTPState is the http backend b's state.
func currentHTTPState(b *recordedBackend) *httpState {
	return &httpState{
		address:        b.settingOrEnv("address", "TF_HTTP_ADDRESS"),
		username:       b.settingOrEnv("username", "TF_HTTP_USERNAME"),
		password:       b.settingOrEnv("password", "TF_HTTP_PASSWORD"),
		caPEM:          b.settingOrEnv("client_ca_certificate_pem", "TF_HTTP_CLIENT_CA_CERTIFICATE_PEM"),
		certPEM:        b.settingOrEnv("client_certificate_pem", "TF_HTTP_CLIENT_CERTIFICATE_PEM"),
		keyPEM:         b.settingOrEnv("client_private_key_pem", "TF_HTTP_CLIENT_PRIVATE_KEY_PEM"),
		skipVerify:     b.flag("skip_cert_verification"),
		otherWorkspace: workspace() != "default",
	}
}

func (s *httpState) heldTasks(ctx context.Context) map[string]bool { return s.get(ctx, s.read) }

// read returns the tasks of the saved state; nil when it cannot tell.
func (s *httpState) read(ctx context.Context) map[string]bool {
	u, err := url.Parse(s.address)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || s.otherWorkspace {
		return nil
	}
	transport, ok := s.transport()
	if !ok {
		return nil
	}
	defer transport.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(ctx, stateReadTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil
	}
	req.Header.Set("User-Agent", StateReaderUserAgent)
	if s.username != "" {
		req.SetBasicAuth(s.username, s.password)
	}
	resp, err := (&http.Client{Transport: transport}).Do(req)
	if err != nil {
		return nil
	}
	defer func() { _ = resp.Body.Close() }()
	switch resp.StatusCode {
	case http.StatusNoContent, http.StatusNotFound:
		return map[string]bool{}
	case http.StatusOK:
	default:
		return nil
	}
	data, err := io.ReadAll(resp.Body)
	switch {
	case err != nil:
		return nil
	case len(data) == 0:
		return map[string]bool{}
	}
	return stateTasks(data)
}

// transport is an HTTP transport with the backend's TLS settings; false for
// settings it cannot use (which the backend refuses too).
func (s *httpState) transport() (*http.Transport, bool) {
	base, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		return nil, false
	}
	t := base.Clone()
	if !s.skipVerify && s.caPEM == "" && s.certPEM == "" && s.keyPEM == "" {
		return t, true
	}
	//nolint:gosec // G402: skip_cert_verification, which the backend's own settings ask for
	cfg := &tls.Config{InsecureSkipVerify: s.skipVerify, MinVersion: tls.VersionTLS12}
	if s.caPEM != "" {
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM([]byte(s.caPEM)) {
			return nil, false
		}
	}
	if s.certPEM != "" || s.keyPEM != "" {
		cert, err := tls.X509KeyPair([]byte(s.certPEM), []byte(s.keyPEM))
		if err != nil {
			return nil, false
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	t.TLSClientConfig = cfg
	return t, true
}

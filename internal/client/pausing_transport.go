package client

import "net/http"

// pausingTransport is the transport of clip downloads: each attempt first
// waits out a pause the service asked for (limiter.awaitPause), and takes no
// token.
type pausingTransport struct {
	l    *limiter
	next http.RoundTripper
}

var _ http.RoundTripper = pausingTransport{}

func (t pausingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := t.l.awaitPause(req.Context()); err != nil {
		return nil, err
	}
	return t.next.RoundTrip(req)
}

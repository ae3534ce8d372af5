package client

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"

	"golang.org/x/net/http/httpguts"
)

// extraHeaders are the headers a user adds to every request to the API's origin,
// such as the token of a gateway in front of a self-hosted server. Their values
// are treated as secrets, like the API key: they go only to the API's origin
// (never to a clip host, never past a redirect off it), and no log, error or
// diagnostic shows them (see redactor).
type extraHeaders struct {
	names  []string // canonical, sorted, for a stable order on the wire and in logs
	values map[string]string
}

// reservedHeaders are the headers the client sets itself: a user's value would
// change what the call means (the key, the body's type) or break the transport.
var reservedHeaders = []string{
	"Authorization", "Content-Type", "Content-Length", "Host", "Accept", "User-Agent",
	"Idempotency-Key", "Transfer-Encoding", "Connection",
}

// WithHeaders adds headers to every API call and to every clip download from the
// API's origin. New fails on a name that is not a valid header name, on a value
// with a line break, and on a header the client sets itself (reservedHeaders).
func WithHeaders(h map[string]string) Option {
	return func(c *Client) {
		c.headersErr = nil
		eh := &extraHeaders{values: make(map[string]string, len(h))}
		for name, value := range h {
			canon := http.CanonicalHeaderKey(strings.TrimSpace(name))
			switch {
			case !httpguts.ValidHeaderFieldName(canon):
				c.headersErr = fmt.Errorf("header name %q is not a valid HTTP header name", name)
			case slices.Contains(reservedHeaders, canon):
				c.headersErr = fmt.Errorf("header %s is set by the provider itself and cannot be given; the reserved headers are %s",
					canon, strings.Join(reservedHeaders, ", "))
			case !httpguts.ValidHeaderFieldValue(value):
				// The value is a secret: never quoted, not even in this error.
				c.headersErr = fmt.Errorf("the value of header %s holds a line break or another control character", canon)
			}
			if c.headersErr != nil {
				return
			}
			if _, dup := eh.values[canon]; dup {
				c.headersErr = fmt.Errorf("header %s is given twice (header names are case-insensitive)", canon)
				return
			}
			eh.values[canon] = value
			eh.names = append(eh.names, canon)
		}
		sort.Strings(eh.names)
		c.headers = eh
	}
}

// set puts the headers on h.
func (e *extraHeaders) set(h http.Header) {
	if e == nil {
		return
	}
	for _, name := range e.names {
		h.Set(name, e.values[name])
	}
}

// remove takes them off h again: a redirect that left the API's origin.
func (e *extraHeaders) remove(h http.Header) {
	if e == nil {
		return
	}
	for _, name := range e.names {
		h.Del(name)
	}
}

// has reports whether name is one of them.
func (e *extraHeaders) has(name string) bool {
	if e == nil {
		return false
	}
	_, ok := e.values[http.CanonicalHeaderKey(name)]
	return ok
}

// secrets returns the values worth looking for in text a server sent back:
// those of at least minSecretHeaderLength characters. A shorter value ("1",
// "yes") would mask every such word in every log line and still not be told from
// one; the request log masks every value whole whatever its length.
func (e *extraHeaders) secrets() []string {
	if e == nil {
		return nil
	}
	var out []string
	for _, name := range e.names {
		if v := strings.TrimSpace(e.values[name]); len(v) >= minSecretHeaderLength {
			out = append(out, v)
		}
	}
	return out
}

// minSecretHeaderLength is the shortest header value redacted wherever it occurs.
const minSecretHeaderLength = 6

// CheckHeaders reports why WithHeaders(h) would make New fail, without quoting
// any value.
func CheckHeaders(h map[string]string) error {
	c := &Client{}
	WithHeaders(h)(c)
	return c.headersErr
}

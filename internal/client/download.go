package client

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// MP4SniffBytes is how much of the start of a file LooksLikeMP4 needs.
const MP4SniffBytes = 4096

const (
	// downloadEndpoint names clip downloads in errors and logs, beside the API's endpoints.
	downloadEndpoint = "clip download"
	// sniffBytes is how far into a download the MP4 signature (an ftyp box) is looked for.
	sniffBytes = MP4SniffBytes
	// copyBufferBytes is the one buffer a download streams through: large enough
	// to keep system calls few, small enough that memory stays flat.
	copyBufferBytes = 1 << 20
	// maxDownloadErrorBytes caps how much of an error page is read.
	maxDownloadErrorBytes = 4096
)

// DownloadError is an error status from the host that serves a clip, which is a
// storage bucket or CDN rather than the API: a signed URL that expired or was
// revoked (403, 404), or a failure of the host itself.
type DownloadError struct {
	StatusCode int
	// URL is the clip URL without its query: the query of a signed URL is a credential.
	URL     string
	Message string
	// Attempts and Elapsed count every try, retries included.
	Attempts int
	Elapsed  time.Duration
}

func (e *DownloadError) Error() string {
	msg := fmt.Sprintf("GET %s %s: HTTP %d", downloadEndpoint, e.URL, e.StatusCode)
	if e.Message != "" {
		msg += ": " + e.Message
	}
	if e.Attempts > 1 {
		msg += fmt.Sprintf(" [after %d attempts over %s]", e.Attempts, e.Elapsed.Round(100*time.Millisecond))
	}
	return msg
}

// NotMP4Error is a download that succeeded at the HTTP level but is not an MP4
// video, typically a proxy's or CDN's HTML error page answered with 200.
type NotMP4Error struct {
	URL         string
	ContentType string
	// Start is the beginning of the body, made printable.
	Start string
}

func (e *NotMP4Error) Error() string {
	ct := e.ContentType
	if ct == "" {
		ct = "none"
	}
	return fmt.Sprintf("GET %s %s: the body is not an MP4 video (no ftyp box in its first %d bytes; Content-Type: %s; it starts with %q)",
		downloadEndpoint, e.URL, sniffBytes, ct, e.Start)
}

// IsExpiredURL reports a download refused with 403, 404 or 410: what a storage
// host answers for an expired or revoked signed URL. Reading the task again
// yields a fresh URL.
func IsExpiredURL(err error) bool {
	var dErr *DownloadError
	if !errors.As(err, &dErr) {
		return false
	}
	switch dErr.StatusCode {
	case http.StatusForbidden, http.StatusNotFound, http.StatusGone:
		return true
	}
	return false
}

// IsNotMP4 reports a download whose body is not an MP4 video.
func IsNotMP4(err error) bool {
	var nErr *NotMP4Error
	return errors.As(err, &nErr)
}

// DownloadClip streams the clip at clipURL into a writer and returns the number
// of bytes written. Before each attempt that receives a body, it calls open,
// which must return a writer positioned at the start of an empty output (for a
// file: truncated and rewound, with any running checksum reset), because a
// retry after a partial body starts over.
//
// The download follows the client's retry policy: 429, 5xx and connection
// errors, including a connection lost in the middle of the body, are retried
// with the same capped, jittered back-off. It never sends the API key: the URL
// is signed and may live on a CDN. The body must start like an MP4 (an ftyp
// box within its first 4 KiB), otherwise nothing is written and a *NotMP4Error
// is returned. Error statuses come back as *DownloadError (see IsExpiredURL).
//
// A download is bounded by stalls rather than by its total time: an attempt
// fails when no byte arrives for the client's request timeout.
func (c *Client) DownloadClip(ctx context.Context, clipURL string, open func() (io.Writer, error)) (int64, error) {
	u, err := url.Parse(clipURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return 0, fmt.Errorf("%s: %q is not an absolute http or https URL", downloadEndpoint, redactURLString(clipURL))
	}
	d := &download{
		c:        c,
		rawURL:   clipURL,
		redacted: redactURL(u),
		open:     open,
		start:    time.Now(),
		buf:      make([]byte, copyBufferBytes),
	}
	d.http = c.retryingClient(c.downloadHTTPClient(), func(_ retryablehttp.Logger, req *http.Request, _ int) {
		d.attempts++
		if d.attempts > 1 {
			c.log(req.Context(), "videogen clip download retry", map[string]any{"url": d.redacted, "attempt": d.attempts})
		}
	})
	// Failures inside the body are outside go-retryablehttp's reach. They draw on
	// the same budget of retries, with the same back-off, and restart the output.
	for {
		d.http.RetryMax = max(0, c.maxRetries-d.attempts)
		n, err := d.attempt(ctx)
		var bErr *bodyError
		if errors.As(err, &bErr) && d.attempts <= c.maxRetries {
			wait := backoff(c.retryWaitMin, c.retryWaitMax, d.attempts-1, nil)
			c.log(ctx, "videogen clip download interrupted; starting over", map[string]any{
				"url": d.redacted, "bytes": n, "error": bErr.err.Error(), "wait_ms": wait.Milliseconds()})
			timer := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				timer.Stop()
				return 0, fmt.Errorf("GET %s %s: %w", downloadEndpoint, d.redacted, ctx.Err())
			case <-timer.C:
			}
			continue
		}
		if errors.As(err, &bErr) {
			err = &TransportError{Method: http.MethodGet, Endpoint: downloadEndpoint + " " + d.redacted,
				Attempts: d.attempts, Elapsed: time.Since(d.start), Err: bErr.err, sent: true}
		}
		d.logDone(ctx, n, err)
		return n, err
	}
}

type download struct {
	c        *Client
	http     *retryablehttp.Client
	rawURL   string
	redacted string
	open     func() (io.Writer, error)
	start    time.Time
	attempts int
	buf      []byte
}

// bodyError is a failure while reading a response body, after which the whole
// download may be tried again.
type bodyError struct{ err error }

func (e *bodyError) Error() string { return e.err.Error() }
func (e *bodyError) Unwrap() error { return e.err }

var errStalled = errors.New("no data received within the request timeout")

func (d *download) attempt(ctx context.Context) (int64, error) {
	attemptCtx, cancel := context.WithCancelCause(context.WithValue(ctx, idempotencyKey{}, true))
	defer cancel(nil)
	req, err := retryablehttp.NewRequestWithContext(attemptCtx, http.MethodGet, d.rawURL, nil)
	if err != nil {
		return 0, fmt.Errorf("building %s request: %w", downloadEndpoint, err)
	}
	// Deliberately no Authorization header: the API key never leaves for the clip host.
	req.Header.Set("User-Agent", d.c.userAgent)
	req.Header.Set("Accept", "video/mp4, */*;q=0.1")
	d.c.log(ctx, "videogen clip download", map[string]any{"url": d.redacted, "method": http.MethodGet})

	resp, err := d.http.Do(req)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return 0, fmt.Errorf("GET %s %s: %w", downloadEndpoint, d.redacted, ctxErr)
		}
		var uErr *url.Error
		if errors.As(err, &uErr) {
			uErr.URL = d.redacted
		}
		return 0, &TransportError{Method: http.MethodGet, Endpoint: downloadEndpoint + " " + d.redacted,
			Attempts: d.attempts, Elapsed: time.Since(d.start), Err: err}
	}
	defer resp.Body.Close()

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, maxDownloadErrorBytes))
		return 0, &DownloadError{StatusCode: resp.StatusCode, URL: d.redacted, Attempts: d.attempts,
			Elapsed: time.Since(d.start), Message: describeDownloadError(resp.StatusCode, resp.Header.Get("Content-Type"), data)}
	}

	// From here the request timeout bounds each stall, not the whole transfer.
	timeout := d.c.requestTimeout
	watchdog := time.AfterFunc(timeout, func() { cancel(errStalled) })
	defer watchdog.Stop()
	body := &bodyReader{r: resp.Body, onRead: func() { watchdog.Reset(timeout) }}
	br := bufio.NewReaderSize(body, sniffBytes)
	head, err := br.Peek(sniffBytes)
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, d.bodyFailure(ctx, attemptCtx, err)
	}
	if !LooksLikeMP4(head) {
		return 0, &NotMP4Error{URL: d.redacted, ContentType: resp.Header.Get("Content-Type"), Start: printable(head, 80)}
	}

	w, err := d.open()
	if err != nil {
		return 0, fmt.Errorf("preparing the output of %s: %w", downloadEndpoint, err)
	}
	// readerOnly hides bufio's WriteTo so that the copy goes through d.buf.
	n, err := io.CopyBuffer(w, readerOnly{br}, d.buf)
	switch {
	case err == nil:
		return n, nil
	case body.err != nil && errors.Is(err, body.err):
		return n, d.bodyFailure(ctx, attemptCtx, err)
	default:
		return n, fmt.Errorf("writing the clip from %s: %w", d.redacted, err)
	}
}

// bodyFailure classifies an error from reading the body: the caller's cancellation
// ends the download, anything else (a reset, a short body, a stall) may be retried.
func (d *download) bodyFailure(ctx, attemptCtx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("GET %s %s: %w", downloadEndpoint, d.redacted, ctxErr)
	}
	if errors.Is(context.Cause(attemptCtx), errStalled) {
		err = fmt.Errorf("%w (%s)", errStalled, d.c.requestTimeout)
	}
	return &bodyError{err: fmt.Errorf("reading the clip body: %w", err)}
}

func (d *download) logDone(ctx context.Context, n int64, err error) {
	elapsed := time.Since(d.start)
	fields := map[string]any{"url": d.redacted, "bytes": n, "attempts": d.attempts, "duration_ms": elapsed.Milliseconds()}
	if err != nil {
		fields["error"] = err.Error()
	} else if secs := elapsed.Seconds(); secs > 0 {
		fields["mib_per_second"] = float64(n) / (1 << 20) / secs
	}
	d.c.log(ctx, "videogen clip download finished", fields)
}

// downloadHTTPClient is the API's HTTP client without its overall timeout, which
// would cut a large clip short; the request timeout bounds the wait for the
// response headers instead, and a watchdog bounds stalls in the body.
func (c *Client) downloadHTTPClient() *http.Client {
	hc := *c.httpClient
	hc.Timeout = 0
	if t, ok := hc.Transport.(*http.Transport); ok {
		t = t.Clone()
		if t.ResponseHeaderTimeout == 0 || t.ResponseHeaderTimeout > c.requestTimeout {
			t.ResponseHeaderTimeout = c.requestTimeout
		}
		hc.Transport = t
	}
	return &hc
}

// bodyReader remembers the last read error, so that it can be told from a write
// error, and reports progress to the stall watchdog.
type bodyReader struct {
	r      io.Reader
	onRead func()
	err    error
}

func (b *bodyReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if n > 0 {
		b.onRead()
	}
	if err != nil && !errors.Is(err, io.EOF) {
		b.err = err
	}
	return n, err
}

type readerOnly struct{ io.Reader }

// LooksLikeMP4 walks the ISO base media boxes at the start of head (the first
// MP4SniffBytes are enough) and accepts it when an ftyp box comes before anything
// that is not a box. It tells a clip from an HTML error page saved in its place.
func LooksLikeMP4(head []byte) bool {
	for off := uint64(0); off+8 <= uint64(len(head)); {
		size := uint64(binary.BigEndian.Uint32(head[off:]))
		typ := head[off+4 : off+8]
		if string(typ) == "ftyp" {
			return size == 0 || size == 1 || size >= 16
		}
		for _, ch := range typ {
			if ch < 0x20 || ch > 0x7e {
				return false
			}
		}
		switch {
		case size == 1 && off+16 <= uint64(len(head)):
			size = binary.BigEndian.Uint64(head[off+8:])
		case size < 8:
			return false
		}
		if size < 8 || size > uint64(len(head)) {
			return false
		}
		off += size
	}
	return false
}

func printable(data []byte, n int) string {
	if len(data) > n {
		data = data[:n]
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '\uFFFD' {
			return '.'
		}
		return r
	}, string(data))
}

var (
	xmlCodePattern    = regexp.MustCompile(`<Code>([^<]*)</Code>`)
	xmlMessagePattern = regexp.MustCompile(`<Message>([^<]*)</Message>`)
)

// describeDownloadError reads a storage host's error: S3-style XML
// (<Code>, <Message>), the API's JSON, or whatever else it sent.
func describeDownloadError(status int, contentType string, data []byte) string {
	if code := xmlCodePattern.FindSubmatch(data); code != nil {
		msg := string(code[1])
		if m := xmlMessagePattern.FindSubmatch(data); m != nil && len(m[1]) > 0 {
			msg += ": " + string(m[1])
		}
		return msg
	}
	return decodeAPIError(status, contentType, data).Message
}

// redactURL drops the query and any user information: on a signed URL they are
// credentials, and they have no place in logs or error messages.
func redactURL(u *url.URL) string {
	r := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path, RawPath: u.RawPath}
	s := r.String()
	if u.RawQuery != "" {
		s += "?(redacted)"
	}
	return s
}

func redactURLString(raw string) string {
	if i := strings.IndexAny(raw, "?#"); i >= 0 {
		return raw[:i] + "?(redacted)"
	}
	return raw
}

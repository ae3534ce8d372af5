package client

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/videogen/terraform-provider-videogen/internal/localfile"
)

const (
	// downloadEndpoint names clip downloads in errors and logs, beside the API's endpoints.
	downloadEndpoint = "clip download"
	// sniffBytes is how far into a download the MP4 signature (an ftyp box) is looked for.
	sniffBytes = localfile.MP4SniffBytes
	// copyBufferBytes is the one buffer a download streams through: large enough
	// to keep system calls few, small enough that memory stays flat.
	copyBufferBytes = 1 << 20
	// maxDownloadErrorBytes caps how much of an error page is read.
	maxDownloadErrorBytes = 4096
)

// Output receives a download. Reset empties it and rewinds it to the start, with
// any running checksum: a retry after a partial body starts over.
type Output interface {
	io.Writer
	Reset() error
}

// SizedOutput is an Output that takes the body's length, when the host
// announces one (Content-Length), after each Reset and before the body: an
// object store can then take the clip in one streamed request.
type SizedOutput interface {
	Output
	Expect(size int64)
}

// DownloadError is an error status from the host that serves a clip, which is a
// storage bucket or CDN rather than the API: a signed URL that expired or was
// revoked (403, 404), or a failure of the host itself.
type DownloadError struct {
	StatusCode int
	// URL is the clip URL without its query: the query of a signed URL is a credential.
	URL     string
	Message string
	// WithKey is a download from the API's own origin, which carried the key
	// (a 401 or 403 then concerns the key, not a signature).
	WithKey bool
	// Attempts and Elapsed count every try, retries included.
	Attempts int
	Elapsed  time.Duration
}

func (e *DownloadError) Error() string {
	msg := fmt.Sprintf("GET %s %s: HTTP %d", downloadEndpoint, e.URL, e.StatusCode)
	if e.WithKey {
		msg = fmt.Sprintf("GET %s %s (sent with the API key, as the API's own address): HTTP %d", downloadEndpoint, e.URL, e.StatusCode)
	}
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

// TooLargeError is a download larger than the caller allows: announced so by its
// Content-Length, or, when the host announced no size, grown past the limit.
// Nothing beyond the limit is written.
type TooLargeError struct {
	URL      string
	MaxBytes int64
	// Announced is the Content-Length, or -1 when the host sent none.
	Announced int64
}

func (e *TooLargeError) Error() string {
	if e.Announced >= 0 {
		return fmt.Sprintf("GET %s %s: the host announced %d bytes (Content-Length), more than the maximum of %d",
			downloadEndpoint, e.URL, e.Announced, e.MaxBytes)
	}
	return fmt.Sprintf("GET %s %s: the body grew past the maximum of %d bytes (the host announced no Content-Length)",
		downloadEndpoint, e.URL, e.MaxBytes)
}

// IsTooLarge reports a download refused for its size.
func IsTooLarge(err error) bool {
	var tErr *TooLargeError
	return errors.As(err, &tErr)
}

// errLongBody is a body that goes on past its Content-Length. net/http frames
// an HTTP/1.1 body by that length already; the check keeps the bound whatever
// the transport.
var errLongBody = errors.New("the body is longer than its Content-Length")

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

// Download is a finished download.
type Download struct {
	Bytes int64
	// URL is the clip URL the bytes came from, which is the task's URL read again
	// when the first one was refused as expired.
	URL string
}

// DownloadVideo writes the clip of video, a task that has succeeded, to out. A
// clip URL that its host refuses as expired or revoked (see IsExpiredURL) is
// replaced once by a fresh one, read from the task again: signed URLs are
// short-lived, and the task signs a new one whenever it is read. A second refusal
// is returned as it is, so that IsExpiredURL still recognises it.
//
// Nothing larger than maxBytes is written: a Content-Length above it fails at
// once, and a body without one fails when it grows past it, with a
// *TooLargeError. See downloadClip for the rest of the contract.
func (c *Client) DownloadVideo(ctx context.Context, video *Video, out Output, maxBytes int64) (Download, error) {
	switch {
	case video.InlineClip && c.api == APIVertex:
		return c.downloadInlineClip(ctx, video, out, maxBytes)
	case strings.HasPrefix(video.URL, "gs://"):
		return Download{}, fmt.Errorf("%s: task %s: %w (%s)", downloadEndpoint, video.TaskID, errCloudStorageClip, video.URL)
	}
	if video.URL == "" {
		return Download{}, fmt.Errorf("%s: task %s reports no clip URL (status %q)", downloadEndpoint, video.TaskID, video.Status)
	}
	n, err := c.downloadClip(ctx, video.URL, out, maxBytes)
	if !IsExpiredURL(err) {
		return Download{Bytes: n, URL: video.URL}, err
	}
	c.log(ctx, "videogen clip URL refused as expired; reading the task again for a fresh one",
		map[string]any{"task_id": video.TaskID, "error": err.Error()})
	fresh, getErr := c.GetVideo(ctx, video.TaskID)
	switch {
	case getErr != nil:
		return Download{}, fmt.Errorf("the clip URL was refused (%w) and the task could not be read again for a fresh one: %w", err, getErr)
	case fresh.Status != StatusSucceeded || fresh.URL == "":
		return Download{}, fmt.Errorf("the clip URL was refused (%w) and task %s no longer reports a download URL (status %q)",
			err, video.TaskID, fresh.Status)
	}
	n, err = c.downloadClip(ctx, fresh.URL, out, maxBytes)
	if IsExpiredURL(err) && !fresh.ExpiresAt.IsZero() && !time.Now().Before(fresh.ExpiresAt) {
		// No fresh URL brings back a clip whose server has let it go.
		err = fmt.Errorf("%w; the server kept task %s's clip only until %s (its expires_at): it can no longer be "+
			"downloaded, and only a new clip, generated and billed again, gives one", err, video.TaskID,
			fresh.ExpiresAt.UTC().Format(time.RFC3339))
	}
	return Download{Bytes: n, URL: fresh.URL}, err
}

// downloadClip streams the clip at clipURL into out and returns the number of
// bytes written. Before each attempt that receives a body, it resets out,
// because a retry after a partial body starts over.
//
// The download follows the client's retry policy: 429, 5xx and connection
// errors, including a connection lost in the middle of the body (a body shorter
// than its Content-Length), are retried with the same capped, jittered
// back-off. It sends the API key only to the API's own origin (see keyFor): a
// gateway serves clips there behind the key, while a signed URL on a storage
// host or CDN needs none. The body must start like an MP4 (an ftyp box within its first 4 KiB),
// otherwise nothing is written and a *NotMP4Error is returned. Error statuses
// come back as *DownloadError (see IsExpiredURL).
//
// A download is bounded in size by its Content-Length, or by maxBytes when it
// has none (see DownloadVideo), and in time by stalls rather than by its total
// duration: an attempt fails when no byte arrives for the client's request
// timeout. The body is copied in chunks, and ctx is checked between them, so a
// cancellation ends the download at once whatever the host does.
func (c *Client) downloadClip(ctx context.Context, clipURL string, out Output, maxBytes int64) (int64, error) {
	u, err := url.Parse(clipURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return 0, fmt.Errorf("%s: %q is not an absolute http or https URL", downloadEndpoint, redactURLString(clipURL))
	}
	if maxBytes <= 0 {
		return 0, fmt.Errorf("%s: the maximum size must be positive, got %d", downloadEndpoint, maxBytes)
	}
	ctx = withRefusals(ctx)
	d := &download{
		c:        c,
		rawURL:   clipURL,
		keyed:    c.keyFor(u),
		redacted: redactURL(u),
		out:      out,
		maxBytes: maxBytes,
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
	keyed    bool // the URL is on the API's origin: the request carries the key
	redacted string
	out      Output
	maxBytes int64
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
	if d.keyed {
		// Redirects keep them only while they stay on the origin (keepKeyOnOrigin).
		d.c.headers.set(req.Header)
		if err := d.c.authorize(req.Request); err != nil {
			return 0, fmt.Errorf("GET %s %s: %w", downloadEndpoint, d.redacted, err)
		}
	}
	req.Header.Set("User-Agent", d.c.userAgent)
	req.Header.Set("Accept", "video/mp4, */*;q=0.1")
	d.c.log(ctx, "videogen clip download", map[string]any{"url": d.redacted, "method": http.MethodGet, "with_api_key": d.keyed})

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

	// A host that got the key may quote it back, like the API (see doRequest).
	redact := d.c.redactor()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, maxDownloadErrorBytes))
		msg := describeDownloadError(resp.StatusCode, resp.Header.Get("Content-Type"), redact.Bytes(data))
		return 0, &DownloadError{StatusCode: resp.StatusCode, URL: d.redacted, Attempts: d.attempts,
			Elapsed: time.Since(d.start), Message: redact.Text(msg), WithKey: d.keyed}
	}

	announced := resp.ContentLength
	if announced > d.maxBytes {
		return 0, &TooLargeError{URL: d.redacted, MaxBytes: d.maxBytes, Announced: announced}
	}

	// From here the request timeout bounds each stall, not the whole transfer.
	timeout := d.c.requestTimeout
	watchdog := time.AfterFunc(timeout, func() { cancel(errStalled) })
	defer watchdog.Stop()
	body := &bodyReader{r: resp.Body, onRead: func() { watchdog.Reset(timeout) }}
	br := bufio.NewReaderSize(body, sniffBytes)
	head, err := br.Peek(sniffBytes)
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, d.bodyFailure(ctx, attemptCtx, err, int64(br.Buffered()), announced)
	}
	if !localfile.LooksLikeMP4(head) {
		return 0, &NotMP4Error{URL: d.redacted, ContentType: redact.String(resp.Header.Get("Content-Type")),
			Start: redact.Text(printable(head, 80))}
	}

	if err := d.out.Reset(); err != nil {
		return 0, fmt.Errorf("preparing the output of %s: %w", downloadEndpoint, err)
	}
	if sized, ok := d.out.(SizedOutput); ok && announced >= 0 {
		sized.Expect(announced)
	}
	return d.copyBody(ctx, attemptCtx, br, announced)
}

// copyBody copies the body to the output chunk by chunk, checking ctx and the
// size bound between chunks.
func (d *download) copyBody(ctx, attemptCtx context.Context, body io.Reader, announced int64) (int64, error) {
	limit := d.maxBytes
	if announced >= 0 {
		limit = announced
	}
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return n, fmt.Errorf("GET %s %s: %w", downloadEndpoint, d.redacted, err)
		}
		r, readErr := body.Read(d.buf)
		if int64(r) > limit-n {
			if announced >= 0 {
				return n, fmt.Errorf("GET %s %s: %w (%d bytes announced)", downloadEndpoint, d.redacted, errLongBody, announced)
			}
			return n, &TooLargeError{URL: d.redacted, MaxBytes: d.maxBytes, Announced: -1}
		}
		if r > 0 {
			w, err := d.out.Write(d.buf[:r])
			n += int64(w)
			if err != nil {
				return n, fmt.Errorf("writing the clip from %s: %w", d.redacted, err)
			}
		}
		switch {
		case readErr == nil:
		case errors.Is(readErr, io.EOF) && announced >= 0 && n < announced:
			return n, d.bodyFailure(ctx, attemptCtx, io.ErrUnexpectedEOF, n, announced)
		case errors.Is(readErr, io.EOF):
			return n, nil
		default:
			return n, d.bodyFailure(ctx, attemptCtx, readErr, n, announced)
		}
	}
}

// bodyFailure classifies an error from reading the body: the caller's cancellation
// ends the download, anything else (a reset, a short body, a stall) may be retried.
func (d *download) bodyFailure(ctx, attemptCtx context.Context, err error, got, announced int64) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("GET %s %s: %w", downloadEndpoint, d.redacted, ctxErr)
	}
	switch {
	case errors.Is(context.Cause(attemptCtx), errStalled):
		err = fmt.Errorf("%w (%s)", errStalled, d.c.requestTimeout)
	case errors.Is(err, io.ErrUnexpectedEOF) && announced >= 0:
		err = fmt.Errorf("the body ended after %d of the %d bytes its Content-Length announced: %w", got, announced, err)
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
	// The clip host is not the API: downloads take nothing from the request budget,
	// but a pause the service asked for (a 429's Retry-After) holds them too.
	hc.Transport = c.limiter.sharePauses(hc.Transport)
	hc.CheckRedirect = c.keepKeyOnOrigin
	return &hc
}

// keyFor reports whether a download of u carries the API key: only when u has
// the base URL's scheme, host and port, where a gateway serves its clips behind
// the key (new-api's /v1/videos/{task_id}/content). Any other host is a
// storage bucket or CDN that has no business seeing it.
func (c *Client) keyFor(u *url.URL) bool { return sameOrigin(u, c.baseURL) }

// keepKeyOnOrigin follows a download's redirects, as storage hosts and CDNs
// expect, up to 10. The key (and the extra headers, WithHeaders) go only as far as the redirects stay on the API's
// origin: once one leaves it, that hop and every later one go without it, even
// back on the origin, since the host that sent it there is not the API.
// net/http's own rule is not enough: it keeps Authorization on a redirect to
// the same host name on another port, and to a subdomain.
func (c *Client) keepKeyOnOrigin(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	for _, hop := range append(via[:len(via):len(via)], req) {
		if !c.keyFor(hop.URL) {
			req.Header.Del("Authorization")
			c.headers.remove(req.Header)
			req.Header.Del(googleKeyHeader)
			break
		}
	}
	return nil
}

// sameOrigin compares scheme, host and port, a missing port being the scheme's
// default (RFC 6454).
func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) &&
		effectivePort(a) == effectivePort(b)
}

func effectivePort(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch strings.ToLower(u.Scheme) {
	case "http":
		return "80"
	case "https":
		return "443"
	}
	return ""
}

// bodyReader reports progress to the stall watchdog.
type bodyReader struct {
	r      io.Reader
	onRead func()
}

func (b *bodyReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if n > 0 {
		b.onRead()
	}
	return n, err
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

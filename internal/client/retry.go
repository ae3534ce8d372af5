package client

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// checkRetry decides whether go-retryablehttp tries again. A GET may always be
// repeated. A POST creates a billed task, so it is repeated only when the
// attempt provably created nothing: the request never left this machine (a failed
// dial), the service rate-limited it (429), or the service itself answered with its
// own JSON error (a 5xx other than 502 and 504; the service bills no failed request).
// A 502, a 504 or a 5xx that is not the service's JSON (a gateway's page) may have
// come after the service accepted the task: such an attempt is recorded as a doubt
// and repeated at most submitGatewayRetries times. Any other failure after the body
// may have been sent is ambiguous and is never retried.
//
// A submission that was interrupted is never retried, and the attempt that
// follows a retry is no longer on the wire for its guard (see submitGuard).
func (c *Client) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	rec, _ := ctx.Value(submitRecordKey{}).(*submitRecord)
	if rec != nil && resp != nil {
		rec.lastStatus = resp.StatusCode
	}
	retry, checkErr := c.decideRetry(ctx, resp, err, rec)
	if retry && rec != nil {
		if rec.guard.isInterrupted() {
			return false, nil
		}
		rec.guard.offWire()
	}
	return retry, checkErr
}

func (c *Client) decideRetry(ctx context.Context, resp *http.Response, err error, rec *submitRecord) (bool, error) {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return false, ctxErr
	}
	idempotent, _ := ctx.Value(idempotencyKey{}).(bool)
	if err != nil {
		if isPermanentTransportError(err) || errors.Is(err, ErrNotSubmitted) {
			return false, err
		}
		if errors.Is(err, syscall.ECONNREFUSED) && refusedTooOften(ctx) {
			return false, err
		}
		if idempotent || isDialError(err) {
			return true, nil
		}
		return false, &ambiguousSendError{err: err}
	}
	if !retryableStatus(resp.StatusCode) || namesUnknownModel(resp) || quotaExhausted(resp) {
		return false, nil
	}
	if idempotent || resp.StatusCode == http.StatusTooManyRequests || !mayHaveActed(resp) {
		return true, nil
	}
	if rec == nil {
		return false, nil
	}
	rec.doubts = append(rec.doubts, describeDoubt(ctx, resp))
	return len(rec.doubts) <= c.submitGatewayRetries, nil
}

// mayHaveActed reports an error response that a gateway in front of the service
// may have sent after forwarding the request: 502 and 504 always, and any other 5xx
// whose body is not the service's own {"error": ...} JSON.
func mayHaveActed(resp *http.Response) bool {
	if resp.StatusCode == http.StatusBadGateway || resp.StatusCode == http.StatusGatewayTimeout {
		return true
	}
	head, err := peekBody(resp)
	if err != nil {
		return true
	}
	var body struct {
		Error json.RawMessage `json:"error"`
	}
	return json.Unmarshal(head, &body) != nil || len(body.Error) == 0 || string(body.Error) == "null"
}

// namesUnknownModel reports an error answer whose code says that no model (or
// no channel serving it) has the requested ID, as new-api answers with 503: no
// retry changes that, and repeating it only keeps the user waiting.
func namesUnknownModel(resp *http.Response) bool {
	if resp.StatusCode < 400 {
		return false
	}
	head, err := peekBody(resp)
	if err != nil {
		return false
	}
	return decodeAPIError(resp.StatusCode, "", head).Code == codeModelNotFound
}

// quotaExhausted reports OpenAI's 429 insufficient_quota: the account has no
// quota or balance left, which no wait or retry changes, unlike a rate limit.
func quotaExhausted(resp *http.Response) bool {
	if resp.StatusCode != http.StatusTooManyRequests {
		return false
	}
	head, err := peekBody(resp)
	if err != nil {
		return false
	}
	e := decodeAPIError(resp.StatusCode, "", head)
	return e.Code == codeInsufficientQuota || e.Type == codeInsufficientQuota
}

// peekBody reads an answer's body (as much as doRequest would) and puts it back
// for doRequest to read.
func peekBody(resp *http.Response) ([]byte, error) {
	head, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), resp.Body), resp.Body}
	return head, err
}

func describeDoubt(ctx context.Context, resp *http.Response) string {
	attempt := 1
	if counter, ok := ctx.Value(attemptKey{}).(*attemptCounter); ok && counter.attempts > 0 {
		attempt = counter.attempts
	}
	return fmt.Sprintf("attempt %d was answered HTTP %d %s", attempt, resp.StatusCode, http.StatusText(resp.StatusCode))
}

// submitRecord collects, for one submission, the attempts that failed after the
// service may already have created the task.
type submitRecord struct {
	attempts int
	doubts   []string
	// lastStatus is the status of the last answer, 0 before any.
	lastStatus int
	guard      *submitGuard
	// key is the submission's Idempotency-Key; empty sends none.
	key string
}

type submitRecordKey struct{}

func retryableStatus(code int) bool {
	return code == http.StatusTooManyRequests || (code >= 500 && code != http.StatusNotImplemented)
}

// ambiguousSendError marks a failure after which the service may or may not have
// acted on the request.
type ambiguousSendError struct{ err error }

func (e *ambiguousSendError) Error() string { return e.err.Error() }
func (e *ambiguousSendError) Unwrap() error { return e.err }

func isDialError(err error) bool {
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Op == "dial" {
		return true
	}
	var dnsErr *net.DNSError
	return errors.As(err, &dnsErr)
}

// isPermanentTransportError reports a failure that the same request would meet
// again at once, so that a retry only delays the error: a certificate this
// machine does not trust or that names another host, a TLS handshake with a
// server that does not speak TLS (or speaks plain HTTP) or that refuses the
// client's TLS, a host name that does not exist, a URL or header the client
// cannot send, and a redirect loop.
func isPermanentTransportError(err error) bool {
	var certErr *tls.CertificateVerificationError
	var unknownCA x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalidCert x509.CertificateInvalidError
	var recordErr tls.RecordHeaderError
	var alert tls.AlertError
	var dnsErr *net.DNSError
	switch {
	case errors.As(err, &certErr), errors.As(err, &unknownCA), errors.As(err, &hostErr), errors.As(err, &invalidCert),
		errors.As(err, &recordErr), errors.As(err, &alert):
		return true
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "unsupported protocol scheme") || strings.Contains(msg, "stopped after") ||
		strings.Contains(msg, "invalid header") || strings.Contains(msg, "server gave HTTP response to HTTPS client")
}

// MaxRefusedAttempts is how many times one call tries a host that refuses the
// connection: nothing listens on the port, which a retry fixes only when the
// server is just restarting. Three attempts with the back-off between them end
// within about two seconds (at most 0.5 s and 1 s of waiting), instead of the
// half minute that every retry would take.
const MaxRefusedAttempts = 3

// RefusedWaitBound is the longest a call waits, in all, between its attempts at
// a host that refuses the connection, with back-off between minWait and maxWait:
// the longest back-off before each retry after the first MaxRefusedAttempts-1
// attempts. The provider page's "Plan-time checks" states it, rounded up.
func RefusedWaitBound(minWait, maxWait time.Duration) time.Duration {
	var total time.Duration
	for attempt := range MaxRefusedAttempts - 1 {
		total += longestBackoff(minWait, maxWait, attempt)
	}
	return total
}

// refusals counts the refused connections of one call; doRequest and
// downloadClip give each call its own (withRefusals).
type refusals struct {
	mu sync.Mutex
	n  int
}

type refusalsKey struct{}

func withRefusals(ctx context.Context) context.Context {
	return context.WithValue(ctx, refusalsKey{}, &refusals{})
}

// refusedTooOften counts one more refused connection of the call and reports
// whether it was the last attempt the call may make.
func refusedTooOften(ctx context.Context) bool {
	r, ok := ctx.Value(refusalsKey{}).(*refusals)
	if !ok {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.n++
	return r.n >= MaxRefusedAttempts
}

// keepLastResponse hands the final response to doRequest when retries run out, so
// that the service's own error message reaches the user instead of a generic one.
func keepLastResponse(resp *http.Response, err error, _ int) (*http.Response, error) {
	if resp != nil && err == nil {
		return resp, nil
	}
	if resp != nil {
		resp.Body.Close()
	}
	return nil, err
}

// backoff waits as long as the service asks through Retry-After (seconds or an
// HTTP date), up to RetryAfterCeiling; otherwise it grows exponentially from
// minWait to maxWait, with "equal jitter" so that parallel clients spread out.
func backoff(minWait, maxWait time.Duration, attempt int, resp *http.Response) time.Duration {
	if resp != nil {
		if d, ok := parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
			return min(d, RetryAfterCeiling)
		}
	}
	return jitteredExponential(minWait, maxWait, attempt)
}

func jitteredExponential(minWait, maxWait time.Duration, attempt int) time.Duration {
	d := longestBackoff(minWait, maxWait, attempt)
	half := d / 2
	if half <= 0 {
		return d
	}
	return half + rand.N(half+1)
}

// longestBackoff is the longest wait before retry attempt+1 when the service
// asks for none: jitteredExponential waits between half of it and all of it.
func longestBackoff(minWait, maxWait time.Duration, attempt int) time.Duration {
	d := minWait
	for i := 0; i < attempt && d < maxWait; i++ {
		d *= 2
	}
	return min(d, maxWait)
}

// parseRetryAfter reads both forms of RFC 9110's Retry-After, a number of seconds or
// an HTTP date, and bounds either by RetryAfterCeiling: whichever form a server
// picks, one answer cannot stall an apply for longer. A number too large to read
// asks for the longest wait, so it gets the ceiling too.
func parseRetryAfter(value string, now time.Time) (time.Duration, bool) {
	value = strings.TrimSpace(value)
	if value == "" {
		return 0, false
	}
	if strings.Trim(value, "0123456789") == "" {
		secs, err := strconv.ParseInt(value, 10, 64)
		if err != nil || secs > int64(RetryAfterCeiling/time.Second) {
			return RetryAfterCeiling, true
		}
		return time.Duration(secs) * time.Second, true
	}
	at, err := http.ParseTime(value)
	if err != nil {
		return 0, false
	}
	return min(max(at.Sub(now), 0), RetryAfterCeiling), true
}

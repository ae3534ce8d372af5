// Package client is a small typed client of the asynchronous video generation API
// (its contract as this project reads it: CONTRIBUTING.md, "API contract"). It
// owns everything HTTP: the base URL, the bearer key, retries with back-off, error
// decoding and waiting for tasks. It knows nothing about Terraform.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/hashicorp/go-cleanhttp"
	"github.com/hashicorp/go-retryablehttp"

	"github.com/videogen/terraform-provider-videogen/internal/poll"
)

// Defaults chosen for a rate-limited service whose transient errors "clear within
// seconds" (CONTRIBUTING.md, "Retries"): six retries span roughly half a minute of back-off.
const (
	DefaultMaxRetries     = 6
	DefaultRequestTimeout = 60 * time.Second
	DefaultRetryWaitMin   = 500 * time.Millisecond
	DefaultRetryWaitMax   = 20 * time.Second
	// RetryAfterCeiling bounds a server's Retry-After so that one response cannot
	// stall an apply for an arbitrary time.
	RetryAfterCeiling = 60 * time.Second
	// DefaultSubmitGatewayRetries is how many times one submission is repeated after
	// a gateway error that may have followed the service's acceptance of the task:
	// once, so that a gateway that always fails after forwarding bills at most two
	// tasks per clip, while a single blip still gets through.
	DefaultSubmitGatewayRetries = 1
	// maxResponseBytes caps every JSON body read from the service.
	maxResponseBytes = 1 << 20
)

// Logger receives one structured line per request and response, with the API key
// taken out of the message and every field (see Client.log). The provider routes it to tflog.
type Logger interface {
	Debug(ctx context.Context, msg string, fields map[string]any)
}

// Client talks to one service endpoint with one API key. It is safe for concurrent use.
type Client struct {
	api            API
	baseURL        *url.URL
	apiKey         string
	userAgent      string
	maxRetries     int
	requestTimeout time.Duration
	retryWaitMin   time.Duration
	retryWaitMax   time.Duration
	httpClient     *http.Client
	logger         Logger
	poll           PollPolicy
	// submitGatewayRetries bounds the retries of a submission after answers that a
	// gateway may have sent after the service acted (see checkRetry).
	submitGatewayRetries int
	http                 *retryablehttp.Client
	// API calls share one rate limiter (limiter.go), and waits share what they
	// learn about generation times (poll.Estimator).
	rateLimit         float64
	rateLimitPatience time.Duration
	limiter           *limiter
	learner           *poll.Estimator
	// submitGrace is SubmitInterruptGrace; interruptHook, when set, learns how
	// each interrupt of a submission was met (tests wait for it).
	submitGrace   time.Duration
	interruptHook func(onWire bool)
	// headers go with every request to the API's origin (WithHeaders); caPEM
	// holds the extra certificate authorities (WithCACertificates).
	headers    *extraHeaders
	headersErr error
	caPEM      [][]byte
	// google holds what Google's Veo APIs need beyond the base URL and key:
	// the vertex API's project, location and token source.
	google googleAuth
}

// Option customises a Client.
type Option func(*Client)

// WithUserAgent sets the User-Agent header, normally "terraform-provider-videogen/<version>".
func WithUserAgent(ua string) Option { return func(c *Client) { c.userAgent = ua } }

// WithMaxRetries sets how many times a retryable request is retried after the first attempt.
func WithMaxRetries(n int) Option { return func(c *Client) { c.maxRetries = n } }

// WithRequestTimeout bounds one HTTP attempt, from dialling to reading the body.
func WithRequestTimeout(d time.Duration) Option { return func(c *Client) { c.requestTimeout = d } }

// WithRetryWait sets the bounds of the exponential back-off between retries.
func WithRetryWait(minWait, maxWait time.Duration) Option {
	return func(c *Client) { c.retryWaitMin, c.retryWaitMax = minWait, maxWait }
}

// WithHTTPClient replaces the underlying HTTP client (its Timeout is overwritten by
// WithRequestTimeout's value).
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.httpClient = hc } }

// WithLogger routes request and response logs to l.
func WithLogger(l Logger) Option { return func(c *Client) { c.logger = l } }

// WithSubmitGatewayRetries sets how many times a submission is repeated after a
// 502, a 504 or a non-JSON 5xx, each of which may hide a task the service created.
// Zero never repeats such a submission.
func WithSubmitGatewayRetries(n int) Option { return func(c *Client) { c.submitGatewayRetries = n } }

// WithPollPolicy replaces the waiter's polling schedule.
func WithPollPolicy(p PollPolicy) Option { return func(c *Client) { c.poll = p } }

// New returns a client for the service at baseURL, given with or without its /v1
// suffix. The URL must be an absolute http or https URL.
//
// Google's Veo APIs take their own base URLs (see NormalizeGoogleBaseURL); the
// vertex API takes no key but a token source (WithTokenSource) and a project
// and location (WithVertexProject).
func New(baseURL, apiKey string, options ...Option) (*Client, error) {
	c := &Client{
		api:            APIVideoGenerations,
		apiKey:         apiKey,
		userAgent:      "terraform-provider-videogen/dev",
		maxRetries:     DefaultMaxRetries,
		requestTimeout: DefaultRequestTimeout,
		retryWaitMin:   DefaultRetryWaitMin,
		retryWaitMax:   DefaultRetryWaitMax,
		poll:           DefaultPollPolicy(),

		submitGatewayRetries: DefaultSubmitGatewayRetries,
		rateLimitPatience:    DefaultRateLimitPatience,
		submitGrace:          SubmitInterruptGrace,
	}
	for _, o := range options {
		o(c)
	}
	if _, err := ParseAPI(string(c.api)); err != nil {
		return nil, err
	}
	var err error
	if c.baseURL, err = c.normalizeBaseURL(baseURL); err != nil {
		return nil, err
	}
	if err := c.checkCredentials(); err != nil {
		return nil, err
	}
	if c.submitGatewayRetries < 0 {
		return nil, fmt.Errorf("submission gateway retries must be zero or more, got %d", c.submitGatewayRetries)
	}
	if c.maxRetries < 0 {
		return nil, fmt.Errorf("max retries must be zero or more, got %d", c.maxRetries)
	}
	if c.headersErr != nil {
		return nil, c.headersErr
	}
	ownTransport := c.httpClient == nil
	if ownTransport {
		c.httpClient = cleanhttp.DefaultPooledClient()
	}
	if err := c.setUpTransport(ownTransport); err != nil {
		return nil, err
	}
	c.httpClient.Timeout = c.requestTimeout
	c.httpClient.CheckRedirect = checkRedirect
	if c.poll.Fixed <= 0 && (c.poll.Initial <= 0 || c.poll.Max <= 0) {
		return nil, errors.New("a poll policy needs a fixed interval or a positive initial and maximum interval")
	}
	if c.limiter, err = newLimiter(c.rateLimit, c.rateLimitPatience); err != nil {
		return nil, err
	}
	if c.poll.Rate <= 0 {
		// The waits plan their looks within the key's rate, so that a batch
		// whose finishes re-plan it does not queue in the limiter in a burst.
		c.poll.Rate = c.rateLimit
	}
	c.learner = poll.NewEstimator()
	c.http = c.retryingClient(c.apiHTTPClient(gatedHTTPClient(c.httpClient)), c.logAttempt)
	return c, nil
}

// retryingClient applies this client's retry policy to hc. Requests are logged by
// the hook, which sees each request's context, rather than by the library's logger.
func (c *Client) retryingClient(hc *http.Client, hook retryablehttp.RequestLogHook) *retryablehttp.Client {
	return &retryablehttp.Client{
		HTTPClient:     hc,
		RetryWaitMin:   c.retryWaitMin,
		RetryWaitMax:   c.retryWaitMax,
		RetryMax:       c.maxRetries,
		CheckRetry:     c.checkRetry,
		Backoff:        backoff,
		ErrorHandler:   keepLastResponse,
		RequestLogHook: hook,
	}
}

// checkRedirect reports redirects of API calls instead of following them: a followed
// 301/302 turns a submission into a GET. Clip downloads follow theirs
// (keepKeyOnOrigin in download.go).
func checkRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// NormalizeBaseURL accepts the service URL with or without the /v1 suffix that
// OpenAI-style tools are given, and returns it ending in /v1 with no trailing slash.
func NormalizeBaseURL(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil || raw == "" {
		return nil, errors.New("base URL is empty or not a valid URL")
	}
	// Messages show only scheme, host and path: a URL may carry a password or a key
	// in its user info or query, and errors end up in logs and diagnostics.
	shown := (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("base URL %q must be an absolute http or https URL, such as https://api.example.com/v1", shown)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("base URL %q must not contain credentials, a query or a fragment", shown)
	}
	path := strings.TrimRight(u.Path, "/")
	if !strings.HasSuffix(path, "/v1") {
		path += "/v1"
	}
	return &url.URL{Scheme: u.Scheme, Host: u.Host, Path: path}, nil
}

// BaseURL returns the normalized base URL, ending in /v1.
func (c *Client) BaseURL() string { return c.baseURL.String() }

// endpoint joins escaped path segments to the base URL, so that no task ID can
// climb out of its path ("..", "/", "?" and "%" are all escaped).
func (c *Client) endpoint(segments ...string) string {
	u := *c.baseURL
	escaped := make([]string, len(segments))
	for i, s := range segments {
		escaped[i] = url.PathEscape(s)
		if s == "." || s == ".." {
			escaped[i] = strings.ReplaceAll(s, ".", "%2E")
		}
	}
	u.RawPath = c.baseURL.EscapedPath() + "/" + strings.Join(escaped, "/")
	unescaped, _ := url.PathUnescape(u.RawPath)
	u.Path = unescaped
	return u.String()
}

type idempotencyKey struct{}

// formBody is a request body already encoded (OpenAI's video API takes
// multipart/form-data), which doRequest sends as it is instead of as JSON.
type formBody struct {
	data        []byte
	contentType string
}

type attemptCounter struct {
	attempts int
}

type attemptKey struct{}

// doRequest is the one place that talks HTTP: it sets the headers, retries through
// go-retryablehttp, caps and decodes the body, and turns error statuses into *APIError.
// It returns the final response's headers (nil when no response came), for callers
// that read one: the waiter reads Retry-After.
func (c *Client) doRequest(ctx context.Context, method, endpointName, rawURL string, in, out any) (http.Header, error) {
	var body []byte
	contentType := "application/json"
	if form, ok := in.(formBody); ok {
		body, contentType = form.data, form.contentType
	} else if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return nil, fmt.Errorf("encoding %s request: %w", endpointName, err)
		}
	}
	counter := &attemptCounter{}
	ctx = context.WithValue(ctx, attemptKey{}, counter)
	// Deleting twice deletes nothing more: a DELETE is repeated like a read.
	ctx = context.WithValue(ctx, idempotencyKey{}, method == http.MethodGet || method == http.MethodDelete || isReadCall(ctx))
	ctx = withCallPatience(ctx)
	ctx = withRefusals(ctx)

	var reqBody any
	if body != nil {
		reqBody = body
	}
	req, err := retryablehttp.NewRequestWithContext(ctx, method, rawURL, reqBody)
	if err != nil {
		return nil, fmt.Errorf("building %s request: %w", endpointName, err)
	}
	c.headers.set(req.Header)
	if err := c.authorize(req.Request); err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, endpointName, err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	if rec, ok := ctx.Value(submitRecordKey{}).(*submitRecord); ok && rec.key != "" {
		// Set once on the request that every retry sends again.
		req.Header.Set(IdempotencyKeyHeader, rec.key)
	}
	if c.logger != nil {
		c.log(ctx, "videogen API request", map[string]any{
			"method": method, "url": rawURL, "body": withoutSignatures(string(body)), "headers": c.redactedHeaders(req.Header),
		})
	}

	start := time.Now()
	resp, err := c.http.Do(req)
	elapsed := time.Since(start)
	if err != nil {
		return nil, c.transportError(ctx, method, endpointName, err, counter.attempts, elapsed)
	}
	defer resp.Body.Close()

	limit := responseLimit(ctx)
	data, readErr := io.ReadAll(io.LimitReader(resp.Body, int64(limit)+1))
	if readErr == nil && len(data) <= limit {
		// A Vertex operation may carry its clip inline: set aside before the
		// rest is redacted and logged (see takeInlineClips).
		data = takeInlineClips(ctx, data)
	}
	// Some gateways quote the rejected key back ("Incorrect API key provided: ..."),
	// raw or escaped. Nothing the response says reaches a log or an error before
	// this: body, headers and decoded messages alike.
	redact := c.redactor()
	data = redact.Bytes(data)
	if c.logger != nil {
		c.log(ctx, "videogen API response", map[string]any{
			"method": method, "url": rawURL, "status": resp.StatusCode, "attempts": counter.attempts,
			"duration_ms": elapsed.Milliseconds(), "body": truncate(withoutSignatures(string(data)), 4096),
		})
	}
	if readErr != nil {
		return resp.Header, &TransportError{Method: method, Endpoint: endpointName, Attempts: counter.attempts, Elapsed: elapsed,
			Err: redact.Error(fmt.Errorf("reading response body: %w", readErr)), sent: true}
	}
	if len(data) > limit {
		return resp.Header, fmt.Errorf("%s %s: the response body exceeds %d bytes; the service at %s may not be a video generation API",
			method, endpointName, limit, c.baseURL)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		apiErr := decodeAPIError(resp.StatusCode, redact.String(resp.Header.Get("Content-Type")), data)
		if c.api.Google() {
			readGoogleError(apiErr, data)
		}
		apiErr.Message, apiErr.Type, apiErr.Param = redact.Text(apiErr.Message), redact.Text(apiErr.Type), redact.Text(apiErr.Param)
		apiErr.Code = redact.Text(apiErr.Code)
		apiErr.Method, apiErr.Endpoint = method, endpointName
		apiErr.Attempts, apiErr.Elapsed = counter.attempts, elapsed
		if loc := resp.Header.Get("Location"); resp.StatusCode >= 300 && resp.StatusCode < 400 && loc != "" {
			apiErr.Message = fmt.Sprintf("the service redirects to %s; set the base URL to the address it redirects to",
				redact.String(redirectTarget(loc)))
		}
		return resp.Header, apiErr
	}
	if out == nil {
		return resp.Header, nil
	}
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(out); err != nil {
		return resp.Header, redact.Error(fmt.Errorf("%s %s: the service answered %d with a body that is not the expected JSON (%w): %s",
			method, endpointName, resp.StatusCode, err, snippet(data)))
	}
	return resp.Header, nil
}

func (c *Client) transportError(ctx context.Context, method, endpointName string, err error, attempts int, elapsed time.Duration) error {
	if ctx.Err() != nil {
		// The cause says why: an interrupt, or a submission's grace that ran out.
		return fmt.Errorf("%s %s: %w", method, endpointName, context.Cause(ctx))
	}
	var ambiguous *ambiguousSendError
	sent := errors.As(err, &ambiguous)
	if sent {
		err = ambiguous.err
	}
	// A malformed answer is quoted by net/http ("malformed HTTP response ..."), so
	// even a transport error may repeat what the server sent.
	return &TransportError{Method: method, Endpoint: endpointName, Attempts: attempts, Elapsed: elapsed,
		Err: c.redactor().Error(err), sent: sent}
}

func (c *Client) logAttempt(_ retryablehttp.Logger, req *http.Request, retry int) {
	if counter, ok := req.Context().Value(attemptKey{}).(*attemptCounter); ok {
		counter.attempts = retry + 1
	}
	if rec, ok := req.Context().Value(submitRecordKey{}).(*submitRecord); ok {
		rec.attempts = retry + 1
	}
	if retry > 0 {
		c.log(req.Context(), "videogen API retry", map[string]any{"method": req.Method, "url": req.URL.String(), "attempt": retry + 1})
	}
}

// log hands a line to the logger without the API key in any form, in the
// message or any field, so that not even TF_LOG=TRACE shows it: a server may
// quote the key back anywhere.
func (c *Client) log(ctx context.Context, msg string, fields map[string]any) {
	if c.logger == nil {
		return
	}
	redact := c.redactor()
	clean := make(map[string]any, len(fields))
	for k, v := range fields {
		clean[k] = redact.logField(k, v)
	}
	c.logger.Debug(ctx, redact.String(msg), clean)
}

func (c *Client) redactedHeaders(h http.Header) map[string]string {
	out := make(map[string]string, len(h))
	for k, v := range h {
		if strings.EqualFold(k, "Authorization") {
			out[k] = "Bearer (redacted)"
			continue
		}
		if c.headers.has(k) || strings.EqualFold(k, googleKeyHeader) {
			out[k] = redactedText
			continue
		}
		out[k] = strings.Join(v, ", ")
	}
	return out
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("... (%d more bytes)", len(s)-n)
}

package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// limitedTransport sends API calls through the limiter. It wraps a whole
// *http.Client rather than its transport, so that the request timeout bounds
// each attempt on the wire and not the time a call waits for its turn or for a
// pause to end.
type limitedTransport struct {
	l          *limiter
	next       *http.Client
	retryWait  time.Duration // the first pause after a 429 without Retry-After
	logLimited func(ctx context.Context, fields map[string]any)
}

var _ http.RoundTripper = (*limitedTransport)(nil)

func (t *limitedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	class := classRead
	if req.Method == http.MethodPost && !isReadCall(ctx) {
		class = classSubmit
	}
	patience, _ := ctx.Value(callPatienceKey{}).(*callPatience)
	if patience == nil {
		patience = &callPatience{}
	}
	attempt := req
	for {
		if err := t.l.wait(ctx, class); err != nil {
			return nil, err
		}
		resp, err := t.next.Do(attempt) //nolint:bodyclose // returned to the caller, or closed below
		if err != nil {
			var uErr *url.Error
			if errors.As(err, &uErr) {
				// The caller's http.Client adds its own *url.Error.
				err = uErr.Err
			}
			return nil, err
		}
		if resp.StatusCode != http.StatusTooManyRequests || quotaExhausted(resp) {
			// A quota used up is no rate limit: nothing to pause for.
			return resp, nil
		}
		now := time.Now()
		pause, hinted := parseRetryAfter(resp.Header.Get("Retry-After"), now)
		if !hinted {
			pause = t.retryWait
		}
		pause = min(pause, RetryAfterCeiling)
		t.l.rateLimited(now, pause)
		st := t.l.state()
		resend := hinted && patience.allows(now, now.Add(pause), t.l.patience) && req.GetBody != nil
		if t.logLimited != nil {
			t.logLimited(ctx, map[string]any{
				"method": req.Method, "url": req.URL.String(), "pause_ms": pause.Milliseconds(),
				"rate_per_second": st.Rate, "sent_again_by_limiter": resend,
			})
		}
		if !resend {
			return resp, nil
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxResponseBytes))
		resp.Body.Close()
		attempt = req.Clone(ctx)
		if attempt.Body, err = req.GetBody(); err != nil {
			return nil, fmt.Errorf("rewinding the request body: %w", err)
		}
	}
}

// apiHTTPClient is the HTTP client of API calls: hc behind the limiter.
func (c *Client) apiHTTPClient(hc *http.Client) *http.Client {
	return &http.Client{
		Transport: &limitedTransport{
			l: c.limiter, next: hc, retryWait: c.retryWaitMin,
			logLimited: func(ctx context.Context, fields map[string]any) {
				c.log(ctx, "videogen API rate limited; every call of this provider waits", fields)
			},
		},
		CheckRedirect: hc.CheckRedirect,
	}
}

package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// ClipServes reports whether the clip of a succeeded task still serves,
// without downloading it: a HEAD of its URL, and where the host refuses a
// HEAD (a URL signed for GET only refuses any other method), a GET of its
// first byte. false means the URL is refused as expired or revoked (403, 404,
// 410) and so is a fresh one, read from the task again: the service no longer
// holds the clip's bytes although it may still answer for the task. Any other
// failure (the host unreachable, a server error) proves nothing and comes
// back as an error.
func (c *Client) ClipServes(ctx context.Context, video *Video) (bool, error) {
	if video.InlineClip || strings.HasPrefix(video.URL, "gs://") || video.URL == "" {
		// Held in the task itself, or in a bucket only its owner reads.
		return true, nil
	}
	serves, err := c.probeClip(ctx, video.URL)
	if serves || err != nil {
		return serves, err
	}
	fresh, err := c.GetVideo(ctx, video.TaskID)
	switch {
	case err != nil:
		return false, err
	case fresh.Status != StatusSucceeded || fresh.URL == "":
		return false, nil
	}
	return c.probeClip(ctx, fresh.URL)
}

// probeClip asks the host of clipURL whether it serves it: HEAD, then a GET of
// one byte.
func (c *Client) probeClip(ctx context.Context, clipURL string) (bool, error) {
	status, err := c.probeOnce(ctx, http.MethodHead, clipURL)
	if err != nil || status/100 == 2 {
		return status/100 == 2, err
	}
	if status, err = c.probeOnce(ctx, http.MethodGet, clipURL); err != nil || status/100 == 2 {
		return status/100 == 2, err
	}
	switch status {
	case http.StatusForbidden, http.StatusNotFound, http.StatusGone:
		return false, nil
	}
	return false, &DownloadError{StatusCode: status, URL: redactURLString(clipURL)}
}

func (c *Client) probeOnce(ctx context.Context, method, clipURL string) (int, error) {
	u, err := url.Parse(clipURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return 0, fmt.Errorf("%s: %q is not an absolute http or https URL", downloadEndpoint, redactURLString(clipURL))
	}
	req, err := http.NewRequestWithContext(ctx, method, clipURL, nil)
	if err != nil {
		return 0, fmt.Errorf("building %s request: %w", downloadEndpoint, err)
	}
	if c.keyFor(u) {
		c.headers.set(req.Header)
		if err := c.authorize(req); err != nil {
			return 0, fmt.Errorf("%s %s %s: %w", method, downloadEndpoint, redactURL(u), err)
		}
	}
	req.Header.Set("User-Agent", c.userAgent)
	if method == http.MethodGet {
		req.Header.Set("Range", "bytes=0-0")
	}
	resp, err := c.downloadHTTPClient().Do(req)
	if err != nil {
		var uErr *url.Error
		if errors.As(err, &uErr) {
			uErr.URL = redactURL(u)
		}
		return 0, fmt.Errorf("%s %s %s: %w", method, downloadEndpoint, redactURL(u), err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxDownloadErrorBytes))
	_ = resp.Body.Close()
	c.log(ctx, "videogen clip probe", map[string]any{"url": redactURL(u), "method": method, "status": resp.StatusCode})
	return resp.StatusCode, nil
}

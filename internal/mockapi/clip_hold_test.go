package mockapi

import (
	"bytes"
	"io"
	"net/http"
	"testing"
)

// A held download gives its first n bytes and nothing more until it is
// released, then the rest; a client that gives up frees the handler; after
// release nothing is held.
func TestHoldClipBodies(t *testing.T) {
	t.Parallel()
	const size, after = 1 << 20, 300 << 10
	srv, ts := newTestServer(t, func(c *Config) { c.TaskDuration = 0; c.ClipBytes = size })
	id := submit(t, ts, `{"model":"videogen-1","prompt":"p"}`)
	url := getTask(t, ts, id).URL
	want, _ := srv.Clip(id)
	held, release := srv.HoldClipBodies(after)

	get := func() io.ReadCloser {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := ts.Client().Do(req) //nolint:bodyclose // the caller closes the body
		if err != nil {
			t.Fatal(err)
		}
		return resp.Body
	}

	// Given up: the handler returns, which Close waits for when the test ends.
	gaveUp := get()
	if _, err := io.ReadFull(gaveUp, make([]byte, after)); err != nil {
		t.Fatal(err)
	}
	<-held
	_ = gaveUp.Close()

	body := get()
	defer body.Close()
	got := make([]byte, after)
	if _, err := io.ReadFull(body, got); err != nil {
		t.Fatal(err)
	}
	rest := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(body)
		rest <- b
	}()
	release()
	got = append(got[:after:after], <-rest...)
	if !bytes.Equal(got, want) {
		t.Errorf("the released download gave %d bytes, not the clip's %d", len(got), len(want))
	}
	if res := do(t, ts, http.MethodGet, url, "", ""); !bytes.Equal(res.body, want) {
		t.Errorf("a download after release gave %d bytes, not the clip's %d", len(res.body), len(want))
	}
}

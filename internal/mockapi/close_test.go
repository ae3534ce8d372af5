package mockapi

import (
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
	"time"
)

// TestCloseLeavesNoGoroutines is deliberately not parallel: it counts the
// process's goroutines, which parallel tests would disturb.
func TestCloseLeavesNoGoroutines(t *testing.T) {
	baseline := runtime.NumGoroutine()

	inFlight := make(chan struct{}, 1)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The server notices a closed connection only once the body is read.
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case inFlight <- struct{}{}:
		default:
		}
		<-r.Context().Done() // hang until the mock gives up
	}))
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
	}))

	cfg := testConfig()
	cfg.TaskDuration = 0
	cfg.Webhook.InitialBackoff = Duration(time.Hour)
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	submit(t, ts, `{"model":"videogen-1","prompt":"hangs","metadata":{"callback_url":"`+slow.URL+`"}}`)
	failedID := submit(t, ts, `{"model":"videogen-1","prompt":"backs off","metadata":{"callback_url":"`+failing.URL+`"}}`)
	submit(t, ts, `{"model":"videogen-1","prompt":"timer pending [mock:duration=1h]","metadata":{"callback_url":"`+failing.URL+`"}}`)
	submit(t, ts, `{"model":"videogen-1","prompt":"held [mock:hold]","metadata":{"callback_url":"`+failing.URL+`"}}`)
	<-inFlight
	awaitWebhookAttempts(t, srv, failedID, 1)

	ts.Close()
	srv.Close()
	slow.Close()
	failing.Close()

	// Goroutines end asynchronously after Close returns (connection
	// readers, for one); look again until they are gone or the liveness
	// bound is reached.
	var stacks string
	deadline := time.Now().Add(livenessBound)
	for {
		var b strings.Builder
		if err := pprof.Lookup("goroutine").WriteTo(&b, 1); err != nil {
			t.Fatal(err)
		}
		stacks = b.String()
		if runtime.NumGoroutine() <= baseline && !strings.Contains(stacks, "mockapi.(*Server)") {
			return
		}
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("%d goroutines after Close, %d before:\n%s", runtime.NumGoroutine(), baseline, stacks)
}

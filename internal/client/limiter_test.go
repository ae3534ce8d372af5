package client

import (
	"context"
	"errors"
	"math"
	"net/http"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

func newTestLimiter(t *testing.T, ceiling float64) *limiter {
	t.Helper()
	l, err := newLimiter(ceiling, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// limitedClient is a test client paced at ceiling, with the patience given,
// whose calls h answers in memory: run in a synctest bubble, it sees only the
// bubble's clock.
func limitedClient(t *testing.T, h http.Handler, ceiling float64, patience time.Duration, opts ...Option) *Client {
	t.Helper()
	return newTestClient(t, "http://service.invalid", append([]Option{WithRateLimit(ceiling),
		WithRateLimitPatience(patience), WithHTTPClient(&http.Client{Transport: inMemory{h}})}, opts...)...)
}

func approx(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

func TestLimiterPacesAtItsRate(t *testing.T) {
	t.Parallel()
	l := newTestLimiter(t, 10) // a token every 100 ms; the bucket holds one
	t0 := time.Now()
	var ws []*limitWaiter
	for range 4 {
		ws = append(ws, l.enqueue(classRead))
	}
	next := l.dispatch(t0)
	if !ws[0].granted || ws[1].granted {
		t.Fatalf("at the start: granted %v %v, want only the first (a full bucket of one)", ws[0].granted, ws[1].granted)
	}
	if want := t0.Add(100 * time.Millisecond); !next.Equal(want) {
		t.Fatalf("next grant at %s, want %s", next.Sub(t0), want.Sub(t0))
	}
	l.dispatch(t0.Add(99 * time.Millisecond))
	if ws[1].granted {
		t.Fatal("a call was admitted before its token")
	}
	for i := 1; i < 4; i++ {
		l.dispatch(t0.Add(time.Duration(i) * 100 * time.Millisecond))
		if !ws[i].granted {
			t.Fatalf("call %d not admitted at %d ms", i, i*100)
		}
		if i+1 < 4 && ws[i+1].granted {
			t.Fatalf("call %d admitted early", i+1)
		}
	}
	if next := l.dispatch(t0.Add(time.Second)); !next.IsZero() {
		t.Errorf("with nobody waiting, next = %s, want zero", next)
	}
}

func TestLimiterUnpacedUntilLimited(t *testing.T) {
	t.Parallel()
	l := newTestLimiter(t, 0)
	var ws []*limitWaiter
	for range 50 {
		ws = append(ws, l.enqueue(classRead))
	}
	l.dispatch(time.Now())
	for i, w := range ws {
		if !w.granted {
			t.Fatalf("call %d waits although no rate is set and the service never refused", i)
		}
	}
}

// Submissions are never starved by polls: whenever a token comes free and a
// submission waits, the submission gets it, however many reads queued first.
func TestLimiterSubmissionsFirst(t *testing.T) {
	t.Parallel()
	l := newTestLimiter(t, 10)
	t0 := time.Now()
	var reads []*limitWaiter
	for range 20 {
		reads = append(reads, l.enqueue(classRead))
	}
	l.dispatch(t0) // the bucket's one token goes to the first read
	if !reads[0].granted {
		t.Fatal("the first read did not get the free token")
	}
	submits := []*limitWaiter{l.enqueue(classSubmit), l.enqueue(classSubmit), l.enqueue(classSubmit)}
	for i := range submits {
		l.dispatch(t0.Add(time.Duration(i+1) * 100 * time.Millisecond))
		for j, s := range submits {
			if s.granted != (j <= i) {
				t.Fatalf("after %d tokens: submission %d granted = %v", i+1, j, s.granted)
			}
		}
		if reads[1].granted {
			t.Fatalf("a read was admitted while a submission waited")
		}
	}
	l.dispatch(t0.Add(400 * time.Millisecond))
	if !reads[1].granted || reads[2].granted {
		t.Error("once no submission waits, reads should resume in order")
	}
}

func TestLimiterCutAndRecovery(t *testing.T) {
	t.Parallel()
	t.Run("configured rate", func(t *testing.T) {
		t.Parallel()
		synctest.Test(t, func(t *testing.T) {
			l := newTestLimiter(t, 20)
			t0 := time.Now()
			l.rateLimited(t0, time.Second)
			st := l.state()
			if !approx(st.Rate, 10) || !st.PausedUntil.Equal(t0.Add(time.Second)) {
				t.Fatalf("after a 429: %+v, want rate 10 and a pause of 1s", st)
			}
			// Another 429 of the same pause extends it but does not cut again.
			time.Sleep(500 * time.Millisecond)
			l.rateLimited(time.Now(), time.Second)
			if st := l.state(); !approx(st.Rate, 10) || !st.PausedUntil.Equal(t0.Add(1500*time.Millisecond)) {
				t.Fatalf("after a second 429 of the same pause: %+v, want rate 10 and the pause extended to 1.5s", st)
			}
			// The rate stays put during the pause, then climbs back in rateRecoveryTime.
			time.Sleep(time.Second) // pause over
			if st := l.state(); !approx(st.Rate, 10) {
				t.Fatalf("rate at the end of the pause = %v, want 10", st.Rate)
			}
			time.Sleep(rateRecoveryTime / 2)
			if st := l.state(); !approx(st.Rate, 15) {
				t.Fatalf("rate half-way through the recovery = %v, want 15", st.Rate)
			}
			time.Sleep(rateRecoveryTime)
			if st := l.state(); !approx(st.Rate, 20) {
				t.Fatalf("rate after the recovery = %v, want the configured 20 and no more", st.Rate)
			}
			// A 429 after the pause is a new episode: it cuts again.
			l.rateLimited(time.Now(), time.Second)
			if st := l.state(); !approx(st.Rate, 10) || st.Limited != 3 {
				t.Fatalf("after a later 429: %+v, want rate 10 and 3 refusals counted", st)
			}
		})
	})
	t.Run("unpaced client learns from the rate it achieved", func(t *testing.T) {
		t.Parallel()
		synctest.Test(t, func(t *testing.T) {
			l := newTestLimiter(t, 0)
			for range 5 { // 30 calls in the half second since the first: 60/s
				for range 6 {
					l.enqueue(classRead)
				}
				l.dispatch(time.Now())
				time.Sleep(100 * time.Millisecond)
			}
			l.rateLimited(time.Now(), time.Second)
			if st := l.state(); !approx(st.Rate, 30) {
				t.Fatalf("rate after the first 429 = %v, want half of the 60/s achieved", st.Rate)
			}
			time.Sleep(time.Second + rateRecoveryTime)
			if st := l.state(); !approx(st.Rate, 60) {
				t.Fatalf("rate after the recovery = %v, want the refused 60/s", st.Rate)
			}
			time.Sleep(rateProbeDoubling)
			if st := l.state(); !approx(st.Rate, 120) {
				t.Fatalf("rate = %v, want 120: without a configured rate the climb goes on past the refused 60/s, "+
					"doubling every %s", st.Rate, rateProbeDoubling)
			}
			time.Sleep(10 * rateProbeDoubling)
			if st := l.state(); st.Rate != 0 {
				t.Fatalf("rate = %v, want 0: a climb past %v/s with no 429 leaves the client unpaced again", st.Rate, rateUnpacedAgain)
			}
		})
	})
	// A run of 429s that each come after the last pause cuts the rate to the
	// floor. Climbing back linearly to the rate refused last, the floor
	// itself, would leave the client there for good.
	t.Run("rate cut to the floor climbs back in seconds", func(t *testing.T) {
		t.Parallel()
		synctest.Test(t, func(t *testing.T) {
			l := newTestLimiter(t, 20)
			for range 8 {
				l.rateLimited(time.Now(), time.Second)
				time.Sleep(time.Second)
			}
			if st := l.state(); !approx(st.Rate, minRate) {
				t.Fatalf("rate after 8 refusals = %v, want the floor %v", st.Rate, minRate)
			}
			time.Sleep(4 * rateProbeDoubling)
			if st := l.state(); !approx(st.Rate, 16*minRate) {
				t.Fatalf("rate = %v, want %v: doubling every %s from the floor", st.Rate, 16*minRate, rateProbeDoubling)
			}
			time.Sleep(2 * rateProbeDoubling)
			if st := l.state(); !approx(st.Rate, 20) {
				t.Fatalf("rate = %v, want the configured 20", st.Rate)
			}
		})
	})
	t.Run("unpaced client limited within moments of its first call", func(t *testing.T) {
		t.Parallel()
		synctest.Test(t, func(t *testing.T) {
			l := newTestLimiter(t, 0)
			for range 3 { // the service's burst: three calls, then a 429 20 ms on
				l.enqueue(classSubmit)
			}
			l.dispatch(time.Now())
			time.Sleep(20 * time.Millisecond)
			l.rateLimited(time.Now(), time.Second)
			if st := l.state(); !approx(st.Rate, 15) {
				t.Fatalf("rate after the first 429 = %v, want 15: three calls in less than a tenth of a second are "+
					"30/s, and taking them for 3/s would leave the client at 1.5/s", st.Rate)
			}
		})
	})
	t.Run("floor", func(t *testing.T) {
		t.Parallel()
		synctest.Test(t, func(t *testing.T) {
			l := newTestLimiter(t, 0.6)
			l.rateLimited(time.Now(), time.Second)
			if st := l.state(); !approx(st.Rate, minRate) {
				t.Fatalf("rate = %v, want the floor %v", st.Rate, minRate)
			}
		})
	})
}

// A 429 with Retry-After holds back every call of the client, not only the one
// that got it; the refused call is sent again by the limiter once the pause ends.
func TestLimiterRetryAfterPausesEveryCall(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var hits atomic.Int32
		service := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if hits.Add(1) == 1 {
				w.Header().Set("Retry-After", "2")
				w.WriteHeader(http.StatusTooManyRequests)
				_, _ = w.Write([]byte(`{"error":{"message":"slow down","type":"rate_limit_error"}}`))
				return
			}
			if r.Method == http.MethodPost {
				_, _ = w.Write([]byte(`{"task_id":"t9","status":"submitted"}`))
				return
			}
			_, _ = w.Write([]byte(runningTask))
		})
		// The cut leaves 50 calls a second: both calls fit in the bucket when the pause ends.
		c := limitedClient(t, service, 100, time.Minute, WithMaxRetries(0))

		errs := make(chan error, 2)
		go func() { _, err := c.GetVideo(t.Context(), "task-1"); errs <- err }()
		synctest.Wait() // the refused read waits out the pause
		if hits.Load() != 1 {
			t.Fatalf("hits = %d before the pause ends, want 1", hits.Load())
		}
		go func() { _, err := c.SubmitVideo(t.Context(), VideoRequest{Model: "m", Prompt: "p"}); errs <- err }()
		synctest.Wait() // so does a submission that came later
		if hits.Load() != 1 {
			t.Fatalf("hits = %d: a call went out during the pause", hits.Load())
		}
		time.Sleep(1999 * time.Millisecond)
		synctest.Wait()
		if hits.Load() != 1 {
			t.Fatalf("hits = %d: a call went out before Retry-After passed", hits.Load())
		}
		time.Sleep(time.Millisecond)
		for range 2 {
			if err := <-errs; err != nil {
				t.Fatalf("call after the pause: %v", err)
			}
		}
		if hits.Load() != 3 {
			t.Errorf("hits = %d, want 3 (the refused read again, and the submission)", hits.Load())
		}
	})
}

// How long a call tolerates 429s is bounded by time, not by max_retries: with
// no retries at all, a call refused with Retry-After: 1 keeps being sent for the
// patience, then the 429 reaches the caller.
func TestLimiterPatience(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		s := &script{t: t, replies: []reply{{status: http.StatusTooManyRequests, header: map[string]string{"Retry-After": "1"},
			body: `{"error":{"message":"slow down","type":"rate_limit_error"}}`}}}
		c := limitedClient(t, s, 100, 3*time.Second, WithMaxRetries(0))
		errs := make(chan error, 1)
		go func() {
			_, err := c.SubmitVideo(t.Context(), VideoRequest{Model: "m", Prompt: "p"})
			errs <- err
		}()
		for i := 1; i <= 3; i++ {
			synctest.Wait()
			if s.hits() != i {
				t.Fatalf("hits = %d, want %d", s.hits(), i)
			}
			time.Sleep(time.Second)
		}
		err := <-errs
		if !IsRateLimited(err) {
			t.Fatalf("error = %v, want the 429 once the patience is spent", err)
		}
		// 0 s, 1 s, 2 s and 3 s: the fourth 429 asks for a pause past the patience.
		if s.hits() != 4 {
			t.Errorf("hits = %d, want 4", s.hits())
		}
		for i := 1; i < s.hits(); i++ {
			if string(s.request(i).Body) != string(s.request(0).Body) || s.request(i).Method != http.MethodPost {
				t.Errorf("attempt %d differs from the first: %s %s", i+1, s.request(i).Method, s.request(i).Body)
			}
		}
	})
}

func TestLimiterDownloadsShareOnlyPauses(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		l := newTestLimiter(t, 1)
		l.enqueue(classRead)
		l.dispatch(time.Now()) // the bucket is empty now
		if err := l.awaitPause(t.Context()); err != nil {
			t.Fatalf("awaitPause without a pause: %v", err)
		}
		l.rateLimited(time.Now(), 3*time.Second)
		done := make(chan error, 1)
		go func() { done <- l.awaitPause(t.Context()) }()
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("awaitPause returned during the pause: %v", err)
		default:
		}
		time.Sleep(3 * time.Second)
		if err := <-done; err != nil {
			t.Fatalf("awaitPause: %v", err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		l.rateLimited(time.Now(), time.Second)
		cancel()
		if err := l.awaitPause(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("awaitPause with a cancelled context = %v", err)
		}
	})
}

// The download transport waits out a pause before sending, and takes no token.
func TestLimiterSharePauses(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var hits atomic.Int32
		storage := inMemory{http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) })}
		l := newTestLimiter(t, 1)
		l.enqueue(classRead)
		l.dispatch(time.Now()) // no token left for a minute
		hc := &http.Client{Transport: l.sharePauses(storage)}
		get := func() error {
			req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, "http://storage.invalid/clip.mp4", nil)
			if err != nil {
				return err
			}
			resp, err := hc.Do(req)
			if err == nil {
				resp.Body.Close()
			}
			return err
		}
		if err := get(); err != nil || hits.Load() != 1 {
			t.Fatalf("download without a pause: %v, hits %d; want it sent without a token", err, hits.Load())
		}
		l.rateLimited(time.Now(), 2*time.Second)
		done := make(chan error, 1)
		go func() { done <- get() }()
		synctest.Wait()
		if hits.Load() != 1 {
			t.Fatal("a download went out during the pause")
		}
		time.Sleep(2 * time.Second)
		if err := <-done; err != nil || hits.Load() != 2 {
			t.Fatalf("download after the pause: %v, hits %d", err, hits.Load())
		}
	})
}

func TestLimiterCancelledWaitLeavesTheQueue(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		l := newTestLimiter(t, 1)
		l.enqueue(classRead)
		l.dispatch(time.Now())
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- l.wait(ctx, classSubmit) }()
		synctest.Wait()
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("wait = %v, want the cancellation", err)
		}
		l.mu.Lock()
		queued := len(l.queues[classSubmit])
		l.mu.Unlock()
		if queued != 0 {
			t.Errorf("%d waiters left in the queue", queued)
		}
	})
}

func TestNewLimiterRejectsBadSettings(t *testing.T) {
	t.Parallel()
	for _, rps := range []float64{-1, math.NaN(), math.Inf(1)} {
		if _, err := New("http://localhost", "k", WithRateLimit(rps)); err == nil {
			t.Errorf("New with a rate limit of %v: no error", rps)
		}
	}
	if _, err := New("http://localhost", "k", WithRateLimitPatience(-time.Second)); err == nil {
		t.Error("New with a negative patience: no error")
	}
}

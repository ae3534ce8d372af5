package mockapi

import (
	"net/http"
	"testing"
	"time"
)

func TestRateLimit(t *testing.T) {
	t.Parallel()
	// On the fake clock no token refills between requests, however slow
	// the machine.
	srv, ts, clock := newClockedTestServer(t, func(c *Config) {
		c.RateLimit = RateLimit{RequestsPerSecond: 0.5, Burst: 2}
		c.Keys = append(c.Keys, Key{Key: "other"})
	})
	body := `{"model":"videogen-1","prompt":"p"}`
	for i := range 2 {
		if res := do(t, ts, http.MethodPost, "/v1/video/generations", DefaultAPIKey, body); res.status != 200 {
			t.Fatalf("request %d within burst: status %d", i+1, res.status)
		}
	}
	res := do(t, ts, http.MethodPost, "/v1/video/generations", DefaultAPIKey, body)
	if res.status != http.StatusTooManyRequests {
		t.Fatalf("status %d, want 429", res.status)
	}
	if e := apiErr(t, res); e.Type != "rate_limit_error" {
		t.Errorf("error %+v", e)
	}
	// At 0.5/s an empty bucket gets its next token in 2 s.
	if ra := res.header.Get("Retry-After"); ra != "2" {
		t.Errorf("Retry-After %q, want 2", ra)
	}
	if n := len(srv.Ledger().Tasks); n != 2 {
		t.Errorf("%d tasks, want 2: a rate-limited request must not create one", n)
	}
	clock.Add(2 * time.Second)
	if res := do(t, ts, http.MethodPost, "/v1/video/generations", DefaultAPIKey, body); res.status != 200 {
		t.Errorf("after the Retry-After delay: status %d, want 200", res.status)
	}
	// Buckets are per key.
	if res := do(t, ts, http.MethodGet, "/v1/models", "other", ""); res.status != 200 {
		t.Errorf("other key: status %d", res.status)
	}
	// Unauthenticated requests don't drain anyone's bucket, and are 401 not 429.
	if res := do(t, ts, http.MethodGet, "/v1/models", "", ""); res.status != 401 {
		t.Errorf("no key: status %d", res.status)
	}
}

func TestRateLimitSubmissions(t *testing.T) {
	t.Parallel()
	// A bucket that nothing here drains: only the control refuses.
	srv, ts, _ := newClockedTestServer(t, func(c *Config) {
		c.RateLimit = RateLimit{RequestsPerSecond: 1000, Burst: 1000}
	})
	srv.RateLimitSubmissions(2)
	body := `{"model":"videogen-1","prompt":"p"}`
	if res := do(t, ts, http.MethodGet, "/v1/models", DefaultAPIKey, ""); res.status != 200 {
		t.Fatalf("a read: status %d, want 200: only submissions are refused", res.status)
	}
	for i := range 2 {
		res := do(t, ts, http.MethodPost, "/v1/video/generations", DefaultAPIKey, body)
		if res.status != http.StatusTooManyRequests || res.header.Get("Retry-After") != "1" {
			t.Fatalf("submission %d: status %d, Retry-After %q; want 429 and 1", i+1, res.status, res.header.Get("Retry-After"))
		}
		if e := apiErr(t, res); e.Type != "rate_limit_error" {
			t.Errorf("submission %d: error %+v", i+1, e)
		}
	}
	if n := len(srv.Ledger().Tasks); n != 0 {
		t.Errorf("%d tasks, want 0: a refused submission must not create one", n)
	}
	if res := do(t, ts, http.MethodPost, "/v1/video/generations", DefaultAPIKey, body); res.status != 200 {
		t.Errorf("the third submission: status %d, want 200", res.status)
	}
	if n := srv.Ledger().Responses["429"]; n != 2 {
		t.Errorf("the ledger counts %d answers 429, want 2", n)
	}
}

func TestTokenBucket(t *testing.T) {
	t.Parallel()
	var b tokenBucket
	now := time.Unix(1000, 0)
	for i := range 3 {
		if ok, _ := b.take(now, 10, 3); !ok {
			t.Fatalf("take %d within burst failed", i)
		}
	}
	ok, wait := b.take(now, 10, 3)
	if ok || wait != 100*time.Millisecond {
		t.Errorf("take beyond burst = %v, %s; want false, 100ms", ok, wait)
	}
	if ok, _ := b.take(now.Add(100*time.Millisecond), 10, 3); !ok {
		t.Error("no token after refilling for 100ms at 10/s")
	}
	// Refill is capped at the burst.
	later := now.Add(time.Hour)
	for i := range 3 {
		if ok, _ := b.take(later, 10, 3); !ok {
			t.Fatalf("take %d after a long pause failed", i)
		}
	}
	if ok, _ := b.take(later, 10, 3); ok {
		t.Error("bucket held more than its burst")
	}
}

func TestRateLimitDefaultBurst(t *testing.T) {
	t.Parallel()
	for rps, want := range map[float64]int{0.2: 1, 1: 1, 2.5: 3, 10: 10} {
		cfg := DefaultConfig()
		cfg.RateLimit.RequestsPerSecond = rps
		if got := cfg.withDefaults().RateLimit.Burst; got != want {
			t.Errorf("rps %v: burst %d, want %d", rps, got, want)
		}
	}
}

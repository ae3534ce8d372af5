package mockapi

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"
)

// tokenBucket holds a key's remaining request allowance. It starts full.
type tokenBucket struct {
	tokens  float64
	last    time.Time
	started bool
}

// take consumes one token if available; otherwise it says how long until one
// will be.
func (b *tokenBucket) take(now time.Time, rps float64, burst int) (bool, time.Duration) {
	if !b.started {
		b.tokens, b.last, b.started = float64(burst), now, true
	}
	if el := now.Sub(b.last).Seconds(); el > 0 {
		b.tokens = math.Min(float64(burst), b.tokens+el*rps)
	}
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	return false, time.Duration((1 - b.tokens) / rps * float64(time.Second))
}

// admit applies the key's rate limit and answers 429 when it is exceeded.
func (s *Server) admit(w http.ResponseWriter, ks *keyState) bool {
	rl := s.cfg.RateLimit
	if rl.RequestsPerSecond == 0 {
		return true
	}
	s.mu.Lock()
	ok, wait := ks.bucket.take(s.now(), rl.RequestsPerSecond, rl.Burst)
	s.mu.Unlock()
	if ok {
		return true
	}
	// Whole seconds, rounded up, and never 0: clients treat 0 as "retry now".
	secs := max(1, int(math.Ceil(wait.Seconds())))
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	writeError(w, http.StatusTooManyRequests, "rate_limit_error", "",
		fmt.Sprintf("rate limit exceeded: this key may make %g requests per second (burst %d); retry after %d s with exponential back-off",
			rl.RequestsPerSecond, rl.Burst, secs))
	return false
}

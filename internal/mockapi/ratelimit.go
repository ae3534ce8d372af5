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

// admit answers 429 to a submission that RateLimitSubmissions refuses, or to
// a request beyond the key's rate limit, and reports whether the request may
// go on.
func (s *Server) admit(w http.ResponseWriter, ks *keyState, submission bool) bool {
	rl := s.cfg.RateLimit
	s.mu.Lock()
	if submission && s.limitedSubmissions > 0 {
		s.limitedSubmissions--
		s.mu.Unlock()
		s.refuse(w, time.Second, "rate limit exceeded: this key's allowance is spent")
		return false
	}
	ok, wait := true, time.Duration(0)
	if rl.RequestsPerSecond > 0 {
		ok, wait = ks.bucket.take(s.now(), rl.RequestsPerSecond, rl.Burst)
	}
	s.mu.Unlock()
	if !ok {
		s.refuse(w, wait, fmt.Sprintf("rate limit exceeded: this key may make %g requests per second (burst %d)",
			rl.RequestsPerSecond, rl.Burst))
	}
	return ok
}

// refuse answers 429 with a Retry-After of wait in whole seconds, rounded up
// and never 0: clients treat 0 as "retry now". The new-api gateway's rate
// limit sends no Retry-After, only its message.
func (s *Server) refuse(w http.ResponseWriter, wait time.Duration, why string) {
	if s.newAPI {
		s.writeGatewayError(w, http.StatusTooManyRequests, "", "您已达到请求数限制："+why)
		return
	}
	secs := max(1, int(math.Ceil(wait.Seconds())))
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	if s.google() {
		writeGoogleError(w, http.StatusTooManyRequests, "RESOURCE_EXHAUSTED", fmt.Sprintf("%s; retry after %d s", why, secs), "")
		return
	}
	writeError(w, http.StatusTooManyRequests, "rate_limit_error", "",
		fmt.Sprintf("%s; retry after %d s with exponential back-off", why, secs))
}

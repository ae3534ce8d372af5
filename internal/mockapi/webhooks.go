package mockapi

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"time"
)

// maxWebhookBackoff caps the doubling so a large max_attempts can't schedule
// retries hours away.
const maxWebhookBackoff = time.Minute

// startWebhook delivers v to the task's callback URL in the background.
// Callers hold s.mu and have checked that the server isn't closed, which
// keeps wg.Add ordered before Close's wg.Wait.
func (s *Server) startWebhook(t *task, v taskView) {
	body, err := json.Marshal(v)
	if err != nil {
		return // taskView always marshals; nothing sensible to record otherwise
	}
	s.wg.Add(1)
	s.deliveriesStarted++
	go func() {
		defer s.wg.Done()
		defer s.endDelivery()
		s.deliver(t.id, t.callbackURL, body)
	}()
}

func (s *Server) endDelivery() {
	s.mu.Lock()
	s.deliveriesEnded++
	s.notify()
	s.mu.Unlock()
}

// deliver POSTs body until the receiver answers 2xx, MaxAttempts is reached
// or the server closes, recording every attempt.
func (s *Server) deliver(taskID, target string, body []byte) {
	backoff := time.Duration(s.cfg.Webhook.InitialBackoff)
	for attempt := 1; attempt <= s.cfg.Webhook.MaxAttempts; attempt++ {
		if attempt > 1 {
			timer := time.NewTimer(backoff)
			select {
			case <-s.ctx.Done():
				timer.Stop()
				return
			case <-timer.C:
			}
			backoff = min(2*backoff, maxWebhookBackoff)
		}
		start := s.now()
		code, err := s.post(target, body)
		if s.ctx.Err() != nil {
			return // cancelled by Close: not an attempt the receiver saw through
		}
		rec := WebhookAttempt{TaskID: taskID, URL: target, Attempt: attempt, StatusCode: code, At: start}
		if err != nil {
			rec.Error = err.Error()
		}
		s.mu.Lock()
		s.webhooks = append(s.webhooks, rec)
		s.notify()
		s.mu.Unlock()
		if err == nil && code >= 200 && code < 300 {
			return
		}
	}
}

func (s *Server) post(target string, body []byte) (int, error) {
	// The mock posts to the callback_url its client submitted: delivering that
	// webhook is its purpose, and tests point it at their own loopback receivers.
	req, err := http.NewRequestWithContext(s.ctx, http.MethodPost, target, bytes.NewReader(body)) //nolint:gosec // G704: see above
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "videogen-mock-webhook/1")
	resp, err := s.client.Do(req) //nolint:gosec // G704: the submitted callback_url, as above
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	// Drain a little so the connection can be reused; receivers' bodies are
	// not part of the contract.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return resp.StatusCode, nil
}

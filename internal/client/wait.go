package client

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// PollPolicy is the waiter's schedule: a quick first look, then intervals that grow
// by Factor up to Max, each jittered so that parallel waits do not poll in lockstep.
type PollPolicy struct {
	Initial time.Duration
	Max     time.Duration
	Factor  float64
	// Jitter is the fraction by which each interval may be shortened or lengthened.
	Jitter float64
	// Fixed, when positive, replaces the adaptive schedule with a constant interval.
	Fixed time.Duration
	// MaxConsecutiveErrors is how many transient GET failures in a row (each after its
	// own retries) the waiter tolerates before giving up.
	MaxConsecutiveErrors int
}

// DefaultPollPolicy starts at one second and grows to five: short clips are noticed
// within a second or so, and a long task costs no more GETs than a five-second loop.
func DefaultPollPolicy() PollPolicy {
	return PollPolicy{Initial: time.Second, Max: 5 * time.Second, Factor: 1.5, Jitter: 0.1, MaxConsecutiveErrors: 3}
}

func (p PollPolicy) first() time.Duration {
	if p.Fixed > 0 {
		return p.Fixed
	}
	return p.jitter(p.Initial)
}

func (p PollPolicy) next(prev time.Duration) time.Duration {
	if p.Fixed > 0 {
		return p.Fixed
	}
	d := time.Duration(float64(prev) * p.Factor)
	if d > p.Max || d <= 0 {
		d = p.Max
	}
	return p.jitter(d)
}

func (p PollPolicy) jitter(d time.Duration) time.Duration {
	if p.Jitter <= 0 || d <= 0 {
		return d
	}
	spread := float64(d) * p.Jitter
	return time.Duration(float64(d) - spread + rand.Float64()*2*spread)
}

// WaitError says why a wait ended without a final state, and what was last seen.
type WaitError struct {
	TaskID     string
	LastStatus Status
	Elapsed    time.Duration
	Polls      int
	Err        error
}

func (e *WaitError) Error() string {
	last := string(e.LastStatus)
	if last == "" {
		last = "unknown (no successful poll)"
	}
	return fmt.Sprintf("stopped waiting for task %s after %s and %d polls; last status seen: %s: %v",
		e.TaskID, e.Elapsed.Round(100*time.Millisecond), e.Polls, last, e.Err)
}

func (e *WaitError) Unwrap() error { return e.Err }

// Interrupted reports whether the wait ended by its deadline or a cancellation
// rather than by an error from the service.
func (e *WaitError) Interrupted() bool {
	// A request timeout also wraps context.DeadlineExceeded, but it is the service
	// hanging, not the caller's deadline.
	var tErr *TransportError
	if errors.As(e.Err, &tErr) {
		return false
	}
	return errors.Is(e.Err, context.DeadlineExceeded) || errors.Is(e.Err, context.Canceled)
}

// TaskFailedError is a task that reached the final state "failed".
type TaskFailedError struct {
	TaskID string
	Reason string
}

func (e *TaskFailedError) Error() string {
	if e.Reason == "" {
		return fmt.Sprintf("task %s failed; the service gave no reason", e.TaskID)
	}
	return fmt.Sprintf("task %s failed: %s", e.TaskID, e.Reason)
}

// WaitForVideo polls a task until it succeeds or fails, ctx ends, or the service
// keeps failing. It returns the last task state it saw alongside any error: a
// *TaskFailedError for a failed task, a *WaitError otherwise.
func (c *Client) WaitForVideo(ctx context.Context, taskID string) (*Video, error) {
	start := time.Now()
	var last *Video
	polls, consecutiveErrors := 0, 0
	stop := func(err error) (*Video, error) {
		w := &WaitError{TaskID: taskID, Elapsed: time.Since(start), Polls: polls, Err: err}
		if last != nil {
			w.LastStatus = last.Status
		}
		return last, w
	}

	timer := time.NewTimer(c.poll.first())
	defer timer.Stop()
	delay := c.poll.Initial
	for {
		select {
		case <-ctx.Done():
			return stop(ctx.Err())
		case <-timer.C:
		}
		v, err := c.GetVideo(ctx, taskID)
		polls++
		switch {
		case ctx.Err() != nil:
			return stop(ctx.Err())
		case err != nil && IsTransient(err) && consecutiveErrors < c.poll.MaxConsecutiveErrors:
			consecutiveErrors++
			c.log(ctx, "videogen wait: transient error, polling again", map[string]any{"task_id": taskID, "error": err.Error()})
		case err != nil:
			return stop(err)
		default:
			consecutiveErrors = 0
			last = v
			switch v.Status {
			case StatusSucceeded:
				return v, nil
			case StatusFailed:
				return v, &TaskFailedError{TaskID: taskID, Reason: v.FailureReason}
			}
		}
		delay = c.poll.next(delay)
		timer.Reset(delay)
	}
}

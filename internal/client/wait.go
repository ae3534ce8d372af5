package client

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/videogen/terraform-provider-videogen/internal/poll"
)

// PollPolicy is the waiter's schedule (see poll.Policy).
type PollPolicy = poll.Policy

// DefaultPollPolicy is the schedule of a wait that knows nothing about its task
// (see poll.DefaultPolicy for how its constants were chosen).
func DefaultPollPolicy() PollPolicy { return poll.DefaultPolicy() }

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

// WaitOption customises one WaitForVideo.
type WaitOption func(*waitOptions)

type waitOptions struct {
	kind poll.Kind
}

// WithKind says what kind of task the wait is for (see KindOf), so that the
// waiter learns from it and from earlier waits of the same kind: the looks of
// later waits go around the time such tasks were seen to finish instead of on
// the default schedule. Times are counted from the start of the wait, so pass it
// only to a wait that begins right after the task's submission, not to one that
// picks up an older task. It has no effect with a fixed poll interval.
func WithKind(k TaskKind) WaitOption { return func(o *waitOptions) { o.kind = k } }

// WaitForVideo polls a task until it succeeds or fails, ctx ends, or the service
// keeps failing. It returns the last task state it saw alongside any error: a
// *TaskFailedError for a failed task, a *WaitError otherwise.
func (c *Client) WaitForVideo(ctx context.Context, taskID string, opts ...WaitOption) (*Video, error) {
	w := poll.NewWait(c.schedule(opts))
	defer w.End()
	var last *Video
	for errs := 0; ; {
		if err := w.Sleep(ctx); err != nil {
			return last, newWaitError(taskID, w, last, err)
		}
		v, hint, err := c.getVideoWithHint(ctx, taskID)
		switch {
		case ctx.Err() != nil:
			return last, newWaitError(taskID, w, last, ctx.Err())
		case err != nil && IsTransient(err) && errs < c.poll.MaxConsecutiveErrors:
			errs++
			c.log(ctx, "videogen wait: transient error, polling again", map[string]any{"task_id": taskID, "error": err.Error()})
		case err != nil:
			return last, newWaitError(taskID, w, last, err)
		case v.Status.Usable():
			w.Finished()
			return v, nil
		case v.Status.Final(): // cancelled and expired too; an unknown status is not final
			return v, &TaskFailedError{TaskID: taskID, Reason: v.FailureReason}
		default:
			errs, last = 0, v
			if v.HasProgress {
				w.Progress(v.Progress)
			}
		}
		w.Looked(hint, err != nil)
		c.log(ctx, "videogen wait: polling again", map[string]any{"task_id": taskID, "polls": w.Looks(),
			"next_poll_ms": (w.Due() - w.Elapsed()).Milliseconds(), "retry_after_ms": hint.Milliseconds()})
	}
}

// schedule is the schedule of one wait: the fixed poll_interval, the learned
// looks of a wait of a known kind, or the default schedule, each wait shifted
// by its own random fraction (see PollPolicy.Jitter).
func (c *Client) schedule(opts []WaitOption) poll.Schedule {
	var o waitOptions
	for _, opt := range opts {
		opt(&o)
	}
	u := 0.0
	if c.poll.Jitter > 0 {
		u = rand.Float64() //nolint:gosec // G404: spreads waits over time, not a secret
	}
	return c.poll.Schedule(c.learner, o.kind, u)
}

func newWaitError(taskID string, w *poll.Wait, last *Video, err error) *WaitError {
	we := &WaitError{TaskID: taskID, Elapsed: w.Elapsed(), Polls: w.Looks(), Err: err}
	if last != nil {
		we.LastStatus = last.Status
	}
	return we
}

// getVideoWithHint is GetVideo that also returns the response's Retry-After
// (bounded by RetryAfterCeiling), or zero when it had none.
func (c *Client) getVideoWithHint(ctx context.Context, taskID string) (*Video, time.Duration, error) {
	v, header, err := c.getVideo(ctx, taskID)
	var hint time.Duration
	if d, ok := parseRetryAfter(header.Get("Retry-After"), time.Now()); ok {
		hint = d
	}
	return v, hint, err
}

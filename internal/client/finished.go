package client

import (
	"context"
	"errors"
	"time"
)

// FinishedVideo reads the task and, while it has not finished, waits for it
// up to timeout (WaitForVideo). A task that ends failed, cancelled or expired
// is returned without an error: its Status says so. seen is the status the
// task was first read in, for a wait that ends before it saw one; an error of
// the wait is a *WaitError.
func (c *Client) FinishedVideo(ctx context.Context, taskID string, timeout time.Duration) (video *Video, seen Status, err error) {
	video, err = c.GetVideo(ctx, taskID)
	if err != nil || video.Status.Final() {
		return video, "", err
	}
	c.log(ctx, "videogen: the task has not finished; waiting for it", map[string]any{"task_id": taskID,
		"status": string(video.Status), "timeout": timeout.String()})
	waitCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	waited, err := c.WaitForVideo(waitCtx, taskID)
	if errors.As(err, new(*TaskFailedError)) {
		err = nil
	}
	return waited, video.Status, err
}

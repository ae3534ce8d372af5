package clip

import (
	"context"
	"errors"
	"fmt"

	"github.com/videogen/terraform-provider-videogen/internal/client"
)

// readTask reads a task. gone reports a 404 that proves the task no longer
// exists: only one from an address proven to be the service (its model list
// answers), since a wrong base_url, or a gateway, answers 404 for every task,
// and taking that for gone would forget billed clips and generate them again.
// A 404 that proves nothing is an error for which WrongAddress is true. The
// provider reads the task a state holds through ReadHeld, and only there.
func (l *Lifecycle) readTask(ctx context.Context, taskID string) (v *client.Video, gone bool, err error) {
	v, err = l.client.GetVideo(ctx, taskID)
	if err == nil {
		return v, false, nil
	}
	if gone, err = l.provenGone(ctx, err); gone {
		return nil, true, err
	}
	return nil, false, err
}

// provenGone is the one place that decides whether a 404 means gone: err comes
// back, and for a 404 from an address not proven to be the service, wrapped
// with why the proof failed (see WrongAddress).
func (l *Lifecycle) provenGone(ctx context.Context, err error) (bool, error) {
	if !client.IsNotFound(err) {
		return false, err
	}
	if verr := l.models.VerifyService(ctx); verr != nil {
		return false, &unprovenNotFound{err: fmt.Errorf("%w; and %w", err, verr)}
	}
	return true, err
}

// unprovenNotFound is a 404 from an address not proven to be the service.
type unprovenNotFound struct{ err error }

func (e *unprovenNotFound) Error() string { return e.err.Error() }
func (e *unprovenNotFound) Unwrap() error { return e.err }

// WrongAddress reports whether err is a 404 that the address which answered it
// could not be proven to be the service: base_url is most likely wrong.
func WrongAddress(err error) bool {
	var u *unprovenNotFound
	return errors.As(err, &u)
}

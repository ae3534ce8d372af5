package journal

import "errors"

// unreadableError is the error of a journal that is there but that this
// provider cannot read: its file or log is damaged, its log is missing, or a
// newer provider wrote it. Unlike a journal that cannot be written, it may
// hold tasks that killed runs left for the very clips a plan creates.
type unreadableError struct{ err error }

func (e *unreadableError) Error() string { return e.err.Error() }
func (e *unreadableError) Unwrap() error { return e.err }

func unreadable(err error) error { return &unreadableError{err: err} }

// IsUnreadable reports whether err says that the journal holds records this
// provider cannot read, which may be tasks a killed run left: submitting a
// clip then may bill it twice.
func IsUnreadable(err error) bool {
	var u *unreadableError
	return errors.As(err, &u)
}

package clipstore

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/aws/smithy-go"
	"gocloud.dev/gcerrors"
	"google.golang.org/api/googleapi"
)

// Kind classifies a store's error by what the user can do about it.
type Kind int

// The kinds of Error.
const (
	// KindOther is any other failure: a network error, a server error.
	KindOther Kind = iota
	// KindNotFound: the object (or its bucket) does not exist.
	KindNotFound
	// KindExists: a conditional write found the key taken by other bytes,
	// or a condition on the object no longer held.
	KindExists
	// KindPermission: the credentials were missing, refused or not allowed.
	KindPermission
	// KindCanceled: the caller's context ended (an interrupted run).
	KindCanceled
)

// The sentinels errors.Is matches an *Error against, one per Kind.
var (
	ErrNotFound   = errors.New("object not found")
	ErrExists     = errors.New("the key holds other content")
	ErrPermission = errors.New("permission denied")
	ErrCanceled   = errors.New("canceled")
)

// Error is what a Store returns: the operation, the redacted location, the
// kind and the cause. Its message is redacted; print it, not the cause.
type Error struct {
	Op       string
	Location string
	Kind     Kind
	err      error
}

var _ error = (*Error)(nil)

func (e *Error) Error() string {
	return Redact(e.Op + " " + e.Location + ": " + e.err.Error())
}

// Is matches the sentinel of the error's kind.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrNotFound:
		return e.Kind == KindNotFound
	case ErrExists:
		return e.Kind == KindExists
	case ErrPermission:
		return e.Kind == KindPermission
	case ErrCanceled:
		return e.Kind == KindCanceled
	}
	return false
}

// Unwrap gives the cause, for errors.Is(err, context.Canceled) and the like.
// Its message is not redacted.
func (e *Error) Unwrap() error { return e.err }

// KindOf is the Kind of a Store's error, KindOther for any other error.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindOther
}

func (s *Store) fail(op string, err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return &Error{Op: op, Location: s.loc.String(), Kind: classify(err), err: err}
}

// classify looks at the HTTP status and service error codes first, because
// gocloud's own codes blur some of them (gcsblob reports 403 as not found),
// then at gocloud's code.
func classify(err error) Kind {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return KindCanceled
	}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		switch ae.ErrorCode() {
		case "NoSuchKey", "NoSuchBucket", "NotFound":
			return KindNotFound
		case "PreconditionFailed", "ConditionalRequestConflict":
			return KindExists
		case "AccessDenied", "Forbidden", "InvalidAccessKeyId", "SignatureDoesNotMatch",
			"ExpiredToken", "InvalidToken", "AllAccessDisabled", "AccountProblem":
			return KindPermission
		}
	}
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		switch ge.Code {
		case http.StatusUnauthorized, http.StatusForbidden:
			return KindPermission
		case http.StatusPreconditionFailed:
			return KindExists
		case http.StatusNotFound:
			return KindNotFound
		}
	}
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		switch re.StatusCode {
		case http.StatusUnauthorized, http.StatusForbidden:
			return KindPermission
		}
	}
	switch gcerrors.Code(err) {
	case gcerrors.NotFound:
		return KindNotFound
	case gcerrors.FailedPrecondition, gcerrors.AlreadyExists:
		return KindExists
	case gcerrors.PermissionDenied:
		return KindPermission
	case gcerrors.Canceled, gcerrors.DeadlineExceeded:
		return KindCanceled
	}
	// The credential chains fail before any request with errors of their own.
	msg := strings.ToLower(err.Error())
	if strings.Contains(msg, "credential") || strings.Contains(msg, "could not find default credentials") {
		return KindPermission
	}
	return KindOther
}

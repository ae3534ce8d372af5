package client

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Status is the provider's reading of a task's state. The service names four states
// (submitted, running, succeeded, failed), but a gateway or a newer service may say
// something else, and one odd task must never make a whole workspace unreadable. So
// every status string is read as one of the classes below, and Video.RawStatus keeps
// what the service actually said:
//
//	submitted  submitted, queued, pending, created, accepted, scheduled, waiting, not_started,
//	           not_start (new-api's)
//	running    running, in_progress, processing, generating, rendering, started
//	succeeded  succeeded, completed, complete, success, successful
//	failed     failed, failure, error, errored, rejected, timed_out, timeout;
//	           otherwise any word containing "fail", "error", "reject" or "timeout"
//	cancelled  cancelled, canceled, aborted, terminated;
//	           otherwise any word containing "cancel" or "abort"
//	expired    expired, deleted, removed, purged, gone;
//	           otherwise any word containing "expir", "delet", "remov" or "purg"
//	unknown    anything else
//
// Before the lookup a status is trimmed, lower-cased, and its spaces and hyphens
// become underscores ("In Progress" and "in-progress" read as in_progress).
//
// Only the exact words count as success: a clip is never taken as finished on a
// guess. An unknown status is taken as still in progress, so a wait keeps polling
// it (until its timeout) rather than giving up on a clip that may yet arrive.
type Status string

const (
	StatusSubmitted Status = "submitted"
	StatusRunning   Status = "running"
	StatusSucceeded Status = "succeeded"
	// StatusFailed is a generation that failed. The service does not bill it.
	StatusFailed Status = "failed"
	// StatusCancelled is a task stopped before it produced a clip.
	StatusCancelled Status = "cancelled"
	// StatusExpired is a task whose clip the service no longer keeps (expired,
	// deleted, removed): it may have been billed, and a new clip bills again.
	StatusExpired Status = "expired"
	// StatusUnknown is a status the provider cannot place; Video.RawStatus says
	// what it was. It is treated as not final.
	StatusUnknown Status = "unknown"
)

// Final reports whether no further transition is expected: succeeded, failed,
// cancelled or expired.
func (s Status) Final() bool {
	switch s {
	case StatusSucceeded, StatusFailed, StatusCancelled, StatusExpired:
		return true
	}
	return false
}

// Usable reports whether the task has a clip to download: succeeded only.
func (s Status) Usable() bool { return s == StatusSucceeded }

// Gone reports a task that ended without a clip for a reason other than a failed
// generation: it was cancelled, or its clip expired or was deleted. Like a failed
// task it can only be replaced by a new, billed one.
func (s Status) Gone() bool { return s == StatusCancelled || s == StatusExpired }

// Known reports whether s is one of the classes above other than StatusUnknown.
func (s Status) Known() bool {
	switch s {
	case StatusSubmitted, StatusRunning, StatusSucceeded, StatusFailed, StatusCancelled, StatusExpired:
		return true
	}
	return false
}

var statusWords = map[string]Status{
	"submitted": StatusSubmitted, "queued": StatusSubmitted, "pending": StatusSubmitted, "created": StatusSubmitted,
	"accepted": StatusSubmitted, "scheduled": StatusSubmitted, "waiting": StatusSubmitted, "not_started": StatusSubmitted,
	"not_start": StatusSubmitted,

	"running": StatusRunning, "in_progress": StatusRunning, "processing": StatusRunning, "generating": StatusRunning,
	"rendering": StatusRunning, "started": StatusRunning,

	"succeeded": StatusSucceeded, "completed": StatusSucceeded, "complete": StatusSucceeded, "success": StatusSucceeded,
	"successful": StatusSucceeded,

	"failed": StatusFailed, "failure": StatusFailed, "error": StatusFailed, "errored": StatusFailed,
	"rejected": StatusFailed, "timed_out": StatusFailed, "timeout": StatusFailed,

	"cancelled": StatusCancelled, "canceled": StatusCancelled, "aborted": StatusCancelled, "terminated": StatusCancelled,

	"expired": StatusExpired, "deleted": StatusExpired, "removed": StatusExpired, "purged": StatusExpired, "gone": StatusExpired,
}

// statusStems classify the final-looking words that statusWords lacks, in order:
// "cancel_failed" is a cancellation, "deletion_error" an expiry.
var statusStems = []struct {
	stems  []string
	status Status
}{
	{[]string{"cancel", "abort"}, StatusCancelled},
	{[]string{"expir", "delet", "remov", "purg"}, StatusExpired},
	{[]string{"fail", "error", "reject", "timeout", "timed_out"}, StatusFailed},
}

// ParseStatus reads any status string as one of the Status classes; it never fails.
// An empty or unplaceable string is StatusUnknown.
func ParseStatus(s string) Status {
	word := strings.NewReplacer(" ", "_", "-", "_").Replace(strings.ToLower(strings.TrimSpace(s)))
	if st, ok := statusWords[word]; ok {
		return st
	}
	for _, class := range statusStems {
		for _, stem := range class.stems {
			if strings.Contains(word, stem) {
				return class.status
			}
		}
	}
	return StatusUnknown
}

// maxRawStatus bounds the status text kept for diagnostics and state: a status is a
// word, and a server that sends a page of text in its place should not fill either.
const maxRawStatus = 64

// cleanRawStatus keeps what the service said in a form safe to show: trimmed, valid
// UTF-8 without control characters, and at most maxRawStatus runes.
func cleanRawStatus(s string) string {
	s = strings.TrimSpace(strings.ToValidUTF8(s, "\uFFFD"))
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return '\uFFFD'
		}
		return r
	}, s)
	if utf8.RuneCountInString(s) <= maxRawStatus {
		return s
	}
	return string([]rune(s)[:maxRawStatus]) + "…"
}

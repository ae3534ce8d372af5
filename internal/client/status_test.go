package client

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want Status
	}{
		{"submitted", StatusSubmitted},
		{"queued", StatusSubmitted},
		{"Not Started", StatusSubmitted},
		{"running", StatusRunning},
		{"in-progress", StatusRunning},
		{" IN_PROGRESS ", StatusRunning},
		{"succeeded", StatusSucceeded},
		{"Completed", StatusSucceeded},
		{"failed", StatusFailed},
		{"error", StatusFailed},
		{"rejected", StatusFailed},
		{"moderation_failed", StatusFailed},
		{"upstream_error", StatusFailed},
		{"cancelled", StatusCancelled},
		{"canceled", StatusCancelled},
		{"cancelled_by_user", StatusCancelled},
		{"aborted", StatusCancelled},
		{"cancel_failed", StatusCancelled},
		{"expired", StatusExpired},
		{"deleted", StatusExpired},
		{"removed", StatusExpired},
		{"Soft-Deleted", StatusExpired},
		{"gone", StatusExpired},
		{"paused", StatusUnknown},
		{"on_hold", StatusUnknown},
		{"done-ish", StatusUnknown},
		// Never a success on a guess.
		{"finished", StatusUnknown},
		{"completed_partially", StatusUnknown},
		{"", StatusUnknown},
		{"\x00\xff", StatusUnknown},
	}
	for _, tt := range tests {
		if got := ParseStatus(tt.in); got != tt.want {
			t.Errorf("ParseStatus(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestStatusClasses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s                          Status
		final, usable, gone, known bool
	}{
		{StatusSubmitted, false, false, false, true},
		{StatusRunning, false, false, false, true},
		{StatusSucceeded, true, true, false, true},
		{StatusFailed, true, false, false, true},
		{StatusCancelled, true, false, true, true},
		{StatusExpired, true, false, true, true},
		{StatusUnknown, false, false, false, false},
		// A raw word is not a class: callers parse first.
		{Status("paused"), false, false, false, false},
	}
	for _, tt := range tests {
		if got := [4]bool{tt.s.Final(), tt.s.Usable(), tt.s.Gone(), tt.s.Known()}; got != [4]bool{tt.final, tt.usable, tt.gone, tt.known} {
			t.Errorf("%q: Final, Usable, Gone, Known = %v, want %v", tt.s, got, [4]bool{tt.final, tt.usable, tt.gone, tt.known})
		}
		// Every class reads back as itself, so a status stored in state is re-read unchanged.
		if got := ParseStatus(string(tt.s)); tt.s.Known() && got != tt.s {
			t.Errorf("ParseStatus(%q) = %q, want the class itself", tt.s, got)
		}
	}
}

func TestCleanRawStatus(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"expired", "expired"},
		{"  Paused\t", "Paused"},
		{"on\nhold", "on\uFFFDhold"},
		{"bad\xffutf8", "bad\uFFFDutf8"},
		{strings.Repeat("x", maxRawStatus), strings.Repeat("x", maxRawStatus)},
		{strings.Repeat("é", maxRawStatus+1), strings.Repeat("é", maxRawStatus) + "…"},
	}
	for _, tt := range tests {
		if got := cleanRawStatus(tt.in); got != tt.want {
			t.Errorf("cleanRawStatus(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzParseStatus holds the classification's promises for any string: it never
// fails, lands in one class, ignores case and surrounding space, and only exact
// words of success are read as success.
func FuzzParseStatus(f *testing.F) {
	for w := range statusWords {
		f.Add(w)
	}
	for _, s := range []string{"", " ", "paused", "Soft-Deleted", "cancel_failed", "succeeded_with_errors", "\x00\xff", "ÉRROR"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		st := ParseStatus(s)
		if !st.Known() && st != StatusUnknown {
			t.Fatalf("ParseStatus(%q) = %q, not a class", s, st)
		}
		if st.Usable() && !st.Final() || st.Gone() && (!st.Final() || st.Usable()) {
			t.Fatalf("ParseStatus(%q) = %q: inconsistent classes", s, st)
		}
		if st.Usable() && statusWords[strings.NewReplacer(" ", "_", "-", "_").Replace(strings.ToLower(strings.TrimSpace(s)))] != StatusSucceeded {
			t.Fatalf("ParseStatus(%q) = succeeded, but %q is not a word of success", s, s)
		}
		if again := ParseStatus("  " + strings.ToUpper(s) + "\t"); utf8.ValidString(s) && strings.EqualFold(strings.ToUpper(s), s) && again != st {
			t.Fatalf("ParseStatus(%q) = %q but %q for its upper-case, padded form", s, st, again)
		}
		if ParseStatus(string(st)) != st {
			t.Fatalf("class %q does not read back as itself", st)
		}
		raw := cleanRawStatus(s)
		if !utf8.ValidString(raw) || utf8.RuneCountInString(raw) > maxRawStatus+1 || strings.ContainsAny(raw, "\n\r\x00") {
			t.Fatalf("cleanRawStatus(%q) = %q: not safe to show", s, raw)
		}
	})
}

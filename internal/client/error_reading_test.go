package client

import (
	"errors"
	"slices"
	"testing"
	"time"
)

func TestBlamedParams(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		err  error
		want []string
	}{
		{"named", &APIError{StatusCode: 400, Param: "metadata.ratio", Message: "invalid value"}, []string{"metadata.ratio"}},
		{"named_and_worded", &APIError{StatusCode: 400, Param: "size", Message: "seconds must be 4, 8 or 12"},
			[]string{"size", "seconds"}},
		{"worded", &APIError{StatusCode: 400, Message: "Unsupported aspect ratio 7:3"}, []string{ParamRatio}},
		{"first_word_in_order", &APIError{StatusCode: 400, Message: "the image is too large for this model"},
			[]string{"metadata.content[].image_url"}},
		{"word_inside_another", &APIError{StatusCode: 400, Message: "Your request was blocked by our moderation system."}, nil},
		{"not_the_service", errors.New("connection refused"), nil},
	} {
		if got := BlamedParams(tc.err); !slices.Equal(got, tc.want) {
			t.Errorf("%s: BlamedParams = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestAttempts(t *testing.T) {
	t.Parallel()
	if n, d := Attempts(&APIError{Attempts: 3, Elapsed: time.Second}); n != 3 || d != time.Second {
		t.Errorf("APIError: %d, %s", n, d)
	}
	if n, d := Attempts(&TransportError{Attempts: 2, Elapsed: time.Minute, Err: errors.New("reset")}); n != 2 || d != time.Minute {
		t.Errorf("TransportError: %d, %s", n, d)
	}
	if n, _ := Attempts(errors.New("other")); n != 1 {
		t.Errorf("other: %d", n)
	}
}

func TestServiceMessage(t *testing.T) {
	t.Parallel()
	if got := ServiceMessage(&APIError{StatusCode: 400, Message: "bad ratio"}); got != "bad ratio" {
		t.Errorf("got %q", got)
	}
	if got := ServiceMessage(errors.New("plain")); got != "plain" {
		t.Errorf("got %q", got)
	}
}

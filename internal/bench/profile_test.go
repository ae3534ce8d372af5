package bench

import (
	"testing"
	"time"
)

func TestProfileSamples(t *testing.T) {
	for text, want := range map[string]time.Duration{
		"Duration: 11.86s, Total samples = 1490ms (12.57%)": 1490 * time.Millisecond,
		"Duration: 81s, Total samples = 30.50s (37.65%)":    30500 * time.Millisecond,
		"Duration: 5mins, Total samples = 1.50mins (30%)":   90 * time.Second,
		"no header": 0,
	} {
		if got := profileSamples(text); got != want {
			t.Errorf("profileSamples(%q) = %v, want %v", text, got, want)
		}
	}
}

package poll

import (
	"slices"
	"testing"
	"time"
)

func TestSpread(t *testing.T) {
	t.Parallel()
	got := Spread(10*time.Second, 0.1, 4)
	want := []time.Duration{9250 * time.Millisecond, 9750 * time.Millisecond, 10250 * time.Millisecond, 10750 * time.Millisecond}
	if !slices.Equal(got, want) {
		t.Fatalf("Spread(10s, 0.1, 4) = %v, want %v", got, want)
	}
	if got := Spread(2*time.Second, 0, 3); got[0] != 2*time.Second || got[2] != 2*time.Second {
		t.Errorf("Spread without spread = %v, want all 2s", got)
	}
	shuffled := Shuffled(got, 1)
	if !slices.Equal(Shuffled(got, 1), shuffled) || slices.Equal(Shuffled(want, 1), want) {
		t.Errorf("Shuffled is not a fixed reordering for a seed: %v", Shuffled(want, 1))
	}
}

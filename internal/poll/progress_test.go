package poll

import (
	"math"
	"testing"
	"time"
)

// linear is progress as the mock reports it by default: 0 while the task is
// submitted (its first quarter), then the share of its time elapsed, in whole
// percents.
func linear(gen, elapsed time.Duration) (float64, bool) {
	if elapsed < gen/4 {
		return 0, true
	}
	return math.Floor(100*float64(elapsed)/float64(gen)) / 100, true
}

// curve is progress that follows f (the share of the time elapsed to the
// share done) in whole percents.
func curve(f func(x float64) float64) func(gen, elapsed time.Duration) (float64, bool) {
	return func(gen, elapsed time.Duration) (float64, bool) {
		return math.Floor(100*f(float64(elapsed)/float64(gen))) / 100, true
	}
}

// With progress that keeps pace with time, a batch's looks go to each clip's
// projected finish: 10 s and 60 s batches are noticed within 0.5 s at the
// p95 with at most 4 GETs a clip.
func TestProgressAimsAtTheFinish(t *testing.T) {
	t.Parallel()
	for _, gen := range []time.Duration{2 * time.Second, 10 * time.Second, 60 * time.Second} {
		for seed := uint64(1); seed <= 3; seed++ {
			clips, _ := simulateBatch(batch(gen, 0.1, 40, seed), simOptions{progress: linear})
			t.Logf("%s seed %d: p95 %s with %.2f GETs", gen, seed, p95(clips), meanGets(clips))
			if p95(clips) > 450*time.Millisecond || meanGets(clips) > 4 {
				t.Errorf("%s seed %d: p95 %s with %.2f GETs, want at most 0.45 s with 4", gen, seed, p95(clips), meanGets(clips))
			}
		}
	}
}

// Progress that does not keep pace with time never costs a clip more than
// the default schedule's budget of its own time (and less than one GET over
// it), nor leaves it unnoticed for longer than the default schedule's Max
// plus half its time (no look comes more than half the time waited after the
// one before).
func TestProgressThatDoesNotKeepPace(t *testing.T) {
	t.Parallel()
	p := DefaultPolicy()
	for _, tc := range []struct {
		name string
		f    func(x float64) float64
	}{
		{"stuck at 30% until done", func(x float64) float64 { return min(x, 0.3) }},
		{"99% for the last half", func(x float64) float64 { return min(2*x, 0.99) }},
		{"fast, then slow", math.Sqrt},
		{"slow, then fast", func(x float64) float64 { return x * x * x }},
		{"a jump at the half", func(x float64) float64 { return map[bool]float64{true: 0.1, false: 0.9}[x < 0.5] }},
	} {
		for _, gen := range []time.Duration{2 * time.Second, 10 * time.Second, 60 * time.Second} {
			for _, n := range []int{1, 40} {
				clips, _ := simulateBatch(batch(gen, 0.1, n, 1), simOptions{progress: curve(tc.f)})
				worst := time.Duration(0)
				for _, c := range clips {
					worst = max(worst, c.latency)
					if float64(c.gets) >= p.budget(c.gen)+1 {
						t.Errorf("%s, %d × %s: a clip of %s made %d GETs, a whole GET over the budget of %.2f",
							tc.name, n, gen, c.gen, c.gets, p.budget(c.gen))
					}
				}
				t.Logf("%s, %d × %s: p95 %s, worst %s, %.2f GETs", tc.name, n, gen, p95(clips), worst, meanGets(clips))
				if limit := p.Max + gen/2; worst > limit {
					t.Errorf("%s, %d × %s: a clip noticed %s late, more than %s", tc.name, n, gen, worst, limit)
				}
			}
		}
	}
}

package bench

import (
	"math"
	"slices"
	"time"
)

// Percentile returns the p-th percentile (0 < p <= 100) of xs by the
// nearest-rank method: the smallest sample such that at least p percent of the
// samples are less than or equal to it. It is always one of the samples, never
// an interpolation, so a p95 over 40 tasks is the 38th smallest. It returns NaN
// for no samples or a p outside (0, 100]; xs is not modified.
func Percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 || !(p > 0 && p <= 100) {
		return math.NaN()
	}
	sorted := slices.Clone(xs)
	slices.Sort(sorted)
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[max(rank, 1)-1]
}

// Median is the 50th percentile by nearest rank (the lower middle of an even count).
func Median(xs []float64) float64 { return Percentile(xs, 50) }

// Mean returns the arithmetic mean, or NaN for no samples.
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// Max returns the largest sample, or NaN for no samples.
func Max(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return slices.Max(xs)
}

// Ratio returns a/b, or NaN when b is zero or either value is NaN: a ratio
// that cannot be computed is shown as such instead of as 0 or infinity.
func Ratio(a, b float64) float64 {
	if b == 0 || math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	return a / b
}

// Seconds converts durations to float seconds.
func Seconds(ds []time.Duration) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = d.Seconds()
	}
	return out
}

// LatencyTarget is bound on the p95 detection latency for a
// generation time: max(0.5 s, 10% of the generation time).
func LatencyTarget(generation time.Duration) time.Duration {
	return max(500*time.Millisecond, generation/10)
}

// The targets of a batch that starts together and of tasks that report
// progress: forty clips of BatchGeneration are noticed within the latency
// target with at most BatchGets GETs a clip, and sooner at the p50 than by a
// poller that looks every second; with progress reported, within ProgressP95
// with at most ProgressGets.
const (
	BatchGeneration = 10 * time.Second
	BatchGets       = 5.0
	ProgressP95     = 500 * time.Millisecond
	ProgressGets    = 4.0
)

// GetsTarget is bound on GETs per task: 1.25 times what a loop
// polling every 5 s would make, plus 6 for a fast start.
func GetsTarget(generation time.Duration) float64 {
	return 1.25*generation.Seconds()/5 + 6
}

// ApplyIdeal is the wall time of an apply of n resources, each taking
// generation, at Terraform parallelism p, if the provider added nothing to
// Terraform's own time (baseline): ceil(n/p) waves of the generation time.
func ApplyIdeal(n, parallelism int, generation, baseline time.Duration) time.Duration {
	if parallelism < 1 {
		parallelism = 1
	}
	waves := (n + parallelism - 1) / parallelism
	return time.Duration(waves)*generation + baseline
}

// RefreshTarget bounds refreshing n resources under a rate limit of rps
// requests per second: factor times n/rps, plus Terraform's own time.
func RefreshTarget(n int, rps, factor float64, baseline time.Duration) time.Duration {
	return time.Duration(factor*float64(n)/rps*float64(time.Second)) + baseline
}

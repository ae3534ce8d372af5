package bench

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	t.Parallel()
	oneToForty := make([]float64, 40)
	for i := range oneToForty {
		oneToForty[i] = float64(40 - i) // unsorted on purpose
	}
	tests := []struct {
		name string
		xs   []float64
		p    float64
		want float64
	}{
		{"p95 of 40 is the 38th", oneToForty, 95, 38},
		{"p50 of 40 is the 20th", oneToForty, 50, 20},
		{"p100 is the max", oneToForty, 100, 40},
		{"tiny p is the min", oneToForty, 0.1, 1},
		{"single sample", []float64{7}, 95, 7},
		{"p95 of 20 is the 19th", oneToForty[20:], 95, 19},
		{"even median is the lower middle", []float64{4, 1, 3, 2}, 50, 2},
		{"duplicates", []float64{1, 1, 1, 5}, 75, 1},
		{"p95 of 10 is the max", []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 95, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before := append([]float64(nil), tt.xs...)
			if got := Percentile(tt.xs, tt.p); got != tt.want {
				t.Errorf("Percentile(%v, %v) = %v, want %v", tt.xs, tt.p, got, tt.want)
			}
			for i := range before {
				if before[i] != tt.xs[i] {
					t.Fatal("Percentile modified its input")
				}
			}
		})
	}
	for _, bad := range []struct {
		xs []float64
		p  float64
	}{{nil, 50}, {[]float64{1}, 0}, {[]float64{1}, 101}, {[]float64{1}, math.NaN()}} {
		if got := Percentile(bad.xs, bad.p); !math.IsNaN(got) {
			t.Errorf("Percentile(%v, %v) = %v, want NaN", bad.xs, bad.p, got)
		}
	}
}

func TestMeanMedianMaxRatio(t *testing.T) {
	t.Parallel()
	if got := Mean([]float64{1, 2, 3, 6}); got != 3 {
		t.Errorf("Mean = %v, want 3", got)
	}
	if got := Median([]float64{5, 1, 3}); got != 3 {
		t.Errorf("Median = %v, want 3", got)
	}
	if got := Max([]float64{5, 1, 9, 3}); got != 9 {
		t.Errorf("Max = %v, want 9", got)
	}
	for _, f := range []func([]float64) float64{Mean, Median, Max} {
		if !math.IsNaN(f(nil)) {
			t.Error("an empty sample must give NaN")
		}
	}
	ratios := []struct {
		a, b, want float64
	}{{1, 4, 0.25}, {12, 24, 0.5}, {3, 2, 1.5}, {0, 5, 0}}
	for _, r := range ratios {
		if got := Ratio(r.a, r.b); got != r.want {
			t.Errorf("Ratio(%v, %v) = %v, want %v", r.a, r.b, got, r.want)
		}
	}
	for _, r := range [][2]float64{{1, 0}, {math.NaN(), 1}, {1, math.NaN()}} {
		if got := Ratio(r[0], r[1]); !math.IsNaN(got) {
			t.Errorf("Ratio(%v, %v) = %v, want NaN", r[0], r[1], got)
		}
	}
	if got := Seconds([]time.Duration{1500 * time.Millisecond, 0}); got[0] != 1.5 || got[1] != 0 {
		t.Errorf("Seconds = %v", got)
	}
}

func TestTargets(t *testing.T) {
	t.Parallel()
	latency := map[time.Duration]time.Duration{
		2 * time.Second:  500 * time.Millisecond, // the floor
		5 * time.Second:  500 * time.Millisecond,
		10 * time.Second: time.Second,
		60 * time.Second: 6 * time.Second,
	}
	for gen, want := range latency {
		if got := LatencyTarget(gen); got != want {
			t.Errorf("LatencyTarget(%s) = %s, want %s", gen, got, want)
		}
	}
	gets := map[time.Duration]float64{2 * time.Second: 6.5, 10 * time.Second: 8.5, 60 * time.Second: 21, 0: 6}
	for gen, want := range gets {
		if got := GetsTarget(gen); math.Abs(got-want) > 1e-9 {
			t.Errorf("GetsTarget(%s) = %v, want %v", gen, got, want)
		}
	}
	if got := ApplyIdeal(50, 10, 2*time.Second, 1500*time.Millisecond); got != 11500*time.Millisecond {
		t.Errorf("ApplyIdeal(50, 10) = %s, want 5 waves x 2s + 1.5s", got)
	}
	if got := ApplyIdeal(51, 10, 2*time.Second, 0); got != 12*time.Second {
		t.Errorf("ApplyIdeal(51, 10) = %s, want 6 waves", got)
	}
	if got := ApplyIdeal(3, 0, time.Second, 0); got != 3*time.Second {
		t.Errorf("ApplyIdeal with parallelism 0 = %s, want serial", got)
	}
	if got := RefreshTarget(500, 50, 1.3, 2*time.Second); got != 15*time.Second {
		t.Errorf("RefreshTarget(500, 50) = %s, want 1.3 x 10s + 2s", got)
	}
}

func TestParseMemStatus(t *testing.T) {
	t.Parallel()
	m, err := parseMemStatus(strings.NewReader("Name:\tbash\nVmPeak:\t  9000 kB\nVmHWM:\t    3072 kB\nVmRSS:\t    2048 kB\n"))
	if err != nil || m.hwm != 3<<20 || m.rss != 2<<20 {
		t.Fatalf("parseMemStatus = %+v, %v", m, err)
	}
	if _, err := parseMemStatus(strings.NewReader("Name:\tkthreadd\nState:\tS\n")); err == nil {
		t.Error("a status without memory lines must be an error")
	}
	if _, err := parseMemStatus(strings.NewReader("VmRSS:\t12 MB\n")); err == nil {
		t.Error("an unexpected unit must be an error")
	}
}

package poll

import (
	"slices"
	"testing"
	"time"
)

// busiest is the most looks in any second of a batch's clock.
func busiest(looks []time.Duration) int {
	slices.Sort(looks)
	most := 0
	for i := range looks {
		j, _ := slices.BinarySearch(looks, looks[i]+time.Second)
		most = max(most, j-i)
	}
	return most
}

// p95 is the latency that 95% of the batch's clips are noticed within, as
// make bench reports it (nearest rank).
func p95(cs []simClip) time.Duration {
	lat := latencies(cs)
	return lat[(len(lat)*95+99)/100-1]
}

// With a rate set, a batch's looks, which its finishes re-plan together, never
// come more often than the rate; the same batches without it look in bursts
// above it, so the rate is what holds them.
func TestBatchKeepsTheRate(t *testing.T) {
	t.Parallel()
	limited := DefaultPolicy()
	limited.Rate = 20
	for _, gen := range []time.Duration{2 * time.Second, 10 * time.Second} {
		var free, held []time.Duration
		simulateBatch(batch(gen, 0.1, 40, 1), simOptions{looks: &free})
		clips, _ := simulateBatch(batch(gen, 0.1, 40, 1), simOptions{policy: &limited, looks: &held})
		t.Logf("%s: at most %d looks in a second without a rate, %d with 20/s; p95 %s with %.2f GETs",
			gen, busiest(free), busiest(held), p95(clips), meanGets(clips))
		if n := busiest(free); n <= 20 {
			t.Errorf("%s: without a rate the batch looked at most %d times in a second: the case tests nothing", gen, n)
		}
		if n := busiest(held); n > 20 {
			t.Errorf("%s: the batch looked %d times in one second, over the rate of 20", gen, n)
		}
	}
}

// A wait alone, of a kind nothing has taught, keeps the default schedule:
// batch sensing changes nothing for it, with a rate or without.
func TestLoneClipKeepsTheDefaultSchedule(t *testing.T) {
	t.Parallel()
	limited := DefaultPolicy()
	limited.Rate = 5
	for _, p := range []Policy{DefaultPolicy(), limited} {
		got := looks(p.Schedule(NewEstimator(), "m", 0), 12)
		if want := p.Looks(12); !slices.Equal(got, want) {
			t.Errorf("a lone wait (rate %g) looks at %v, want the default %v", p.Rate, got, want)
		}
	}
	for _, gen := range []time.Duration{2 * time.Second, 10 * time.Second, 60 * time.Second} {
		alone, _ := simulateBatch([]time.Duration{gen}, simOptions{})
		def, _ := simulateBatch([]time.Duration{gen}, simOptions{noKind: true})
		if alone[0].gets != def[0].gets || alone[0].latency != def[0].latency {
			t.Errorf("%s: a lone clip made %d GETs and was noticed %s late, the default schedule %d and %s",
				gen, alone[0].gets, alone[0].latency, def[0].gets, def[0].latency)
		}
	}
}

// A batch whose times spread widely (1 s to 60 s, or ±30% around 30 s)
// learns so from its first finishes and falls back to the schedules its clips
// would have alone: no clip makes a whole GET more than the default
// schedule's budget of its own time (as learning alone may, see pace), and the batch makes no more GETs on average than
// with the default schedule, noticed no later at the p95 but for the 5% that
// its members' looks, spread over the whole of Max instead of a tenth of it,
// may move the percentile by.
func TestWideBatchIsNoWorseThanAlone(t *testing.T) {
	t.Parallel()
	p := DefaultPolicy()
	for _, tc := range []struct {
		name string
		gens []time.Duration
	}{
		{"1 s to 60 s", batch(30500*time.Millisecond, 59.0/61, 40, 4)},
		{"30 s ±30%", batch(30*time.Second, 0.3, 20, 2)},
		{"10 s ±50%", batch(10*time.Second, 0.5, 40, 5)},
	} {
		together, _ := simulateBatch(tc.gens, simOptions{})
		alone, _ := simulateBatch(tc.gens, simOptions{noKind: true})
		t.Logf("%s: p95 %s with %.2f GETs together, %s with %.2f alone", tc.name,
			p95(together), meanGets(together), p95(alone), meanGets(alone))
		if p95(together) > p95(alone)*105/100 || meanGets(together) > meanGets(alone) {
			t.Errorf("%s: together p95 %s with %.2f GETs, worse than alone (%s with %.2f)", tc.name,
				p95(together), meanGets(together), p95(alone), meanGets(alone))
		}
		for _, c := range together {
			if float64(c.gets) >= p.budget(c.gen)+1 {
				t.Errorf("%s: a clip of %s made %d GETs, a whole GET over the default budget of %.2f", tc.name, c.gen, c.gets, p.budget(c.gen))
			}
		}
	}
}

// Forty clips of 10 s ±10% started together: the batch's first finish is seen
// within a few tenths of a second of it and re-plans every sibling, which
// the default schedule, looking every 4 s, cannot: the p95 comes down from
// about 3 s to about 1 s, at under 5 GETs a clip instead of 8.
func TestBatchSeesItsFirstFinishes(t *testing.T) {
	t.Parallel()
	for seed := uint64(1); seed <= 4; seed++ {
		gens := batch(10*time.Second, 0.1, 40, seed)
		together, _ := simulateBatch(gens, simOptions{})
		alone, _ := simulateBatch(gens, simOptions{noKind: true})
		t.Logf("seed %d: p95 %s with %.2f GETs together, %s with %.2f alone", seed,
			p95(together), meanGets(together), p95(alone), meanGets(alone))
		if p95(together) > 1300*time.Millisecond || meanGets(together) > 5.25 {
			t.Errorf("seed %d: p95 %s with %.2f GETs, want at most 1.3 s with 5.25", seed, p95(together), meanGets(together))
		}
	}
}

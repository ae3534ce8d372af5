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

// A batch whose times spread widely (1 s to 60 s, or ±30% around 30 s, or
// ±50% around 10 s) learns so from its first finishes and falls back to the
// schedules its clips would have alone: no clip makes a whole GET more than
// the default schedule's budget of its own time (as learning alone may, see
// pace), and over six orders of each batch the clips are made with no more
// GETs than with the default schedule and noticed no later at the p95, on
// average, within 2%: the members' looks sit at other places in Max than the
// default schedule's, which moves the p95 of a batch whose latencies spread
// over the whole of Max by a few hundredths of a second either way.
func TestWideBatchIsNoWorseThanAlone(t *testing.T) {
	t.Parallel()
	p := DefaultPolicy()
	for _, tc := range []struct {
		name   string
		gen    time.Duration
		spread float64
		n      int
	}{
		{"1 s to 60 s", 30500 * time.Millisecond, 59.0 / 61, 40},
		{"30 s ±30%", 30 * time.Second, 0.3, 20},
		{"10 s ±50%", 10 * time.Second, 0.5, 40},
	} {
		var togetherP95, aloneP95 time.Duration
		var togetherGets, aloneGets float64
		for seed := uint64(1); seed <= 6; seed++ {
			gens := batch(tc.gen, tc.spread, tc.n, seed)
			together, _ := simulateBatch(gens, simOptions{})
			alone, _ := simulateBatch(gens, simOptions{noKind: true})
			togetherP95, aloneP95 = togetherP95+p95(together), aloneP95+p95(alone)
			togetherGets, aloneGets = togetherGets+meanGets(together), aloneGets+meanGets(alone)
			for _, c := range together {
				if float64(c.gets) >= p.budget(c.gen)+1 {
					t.Errorf("%s seed %d: a clip of %s made %d GETs, a whole GET over the default budget of %.2f",
						tc.name, seed, c.gen, c.gets, p.budget(c.gen))
				}
			}
		}
		t.Logf("%s, six orders: p95 %s with %.2f GETs together, %s with %.2f alone", tc.name,
			togetherP95/6, togetherGets/6, aloneP95/6, aloneGets/6)
		if togetherP95 > aloneP95*102/100 || togetherGets > aloneGets {
			t.Errorf("%s: together p95 %s with %.2f GETs on average, worse than alone (%s with %.2f)", tc.name,
				togetherP95/6, togetherGets/6, aloneP95/6, aloneGets/6)
		}
	}
}

// Forty clips of 10 s ±10% started together: the batch's first finish is seen
// within a few tenths of a second of it and re-plans every sibling, which
// the default schedule, looking every 4 s, cannot: the p95 comes down from
// about 3 s to about 1 s, at under 5 GETs a clip instead of 8 (the target of
// make bench's 10 s batch).
func TestBatchSeesItsFirstFinishes(t *testing.T) {
	t.Parallel()
	for seed := uint64(1); seed <= 4; seed++ {
		gens := batch(10*time.Second, 0.1, 40, seed)
		together, _ := simulateBatch(gens, simOptions{})
		alone, _ := simulateBatch(gens, simOptions{noKind: true})
		t.Logf("seed %d: p95 %s with %.2f GETs together, %s with %.2f alone", seed,
			p95(together), meanGets(together), p95(alone), meanGets(alone))
		if p95(together) > 1250*time.Millisecond || meanGets(together) > 5 {
			t.Errorf("seed %d: p95 %s with %.2f GETs, want at most 1.25 s with 5", seed, p95(together), meanGets(together))
		}
	}
}

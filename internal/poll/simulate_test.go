package poll

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// simClip is one clip of a simulated batch: how long the service takes, and
// what its wait did.
type simClip struct {
	gen      time.Duration
	start    time.Duration // submission, on the batch's clock
	gets     int
	latency  time.Duration   // from the clip's finish to the look that saw it
	firstRun bool            // submitted before any clip of the batch finished
	looks    []time.Duration // since its submission
}

// simOptions vary a simulated batch. The zero value is Terraform at
// -parallelism equal to the batch, every clip submitted at once, the waits
// of one kind on DefaultPolicy, a service that reports no progress.
type simOptions struct {
	parallelism int           // 0: every clip at once
	gap         time.Duration // Terraform's own work between two resources of a lane
	noKind      bool          // waits without a kind: the default schedule alone
	policy      *Policy       // nil: DefaultPolicy
	// progress, when set, is what an answer says of a clip of generation gen
	// at elapsed since its submission (false: it carries no progress).
	progress func(gen, elapsed time.Duration) (float64, bool)
	// looks, when set, receives the batch-clock time of every look.
	looks *[]time.Duration
}

// simulateBatch runs the waits of a batch on a virtual clock, as Terraform
// would with -parallelism: every clip is of one kind and starts as soon as a
// slot frees, gap after the previous clip in that slot was noticed. Looks take
// no time. It drives the waiter's own decisions (Wait, with the policy's
// schedules), and the Estimator's news reaches the other waits of the kind
// after every look, as in Wait.Sleep.
func simulateBatch(gens []time.Duration, o simOptions) ([]simClip, time.Duration) {
	p := DefaultPolicy()
	if o.policy != nil {
		p = *o.policy
	}
	e := NewEstimator()
	var kind Kind = "sim"
	if o.noKind {
		kind = nil
	}
	parallelism := o.parallelism
	if parallelism <= 0 {
		parallelism = len(gens)
	}
	rng := rand.New(rand.NewPCG(7, 7)) //nolint:gosec // G404: a reproducible simulation
	clips := make([]simClip, len(gens))
	type wait struct {
		i int
		w *Wait
	}
	var active []*wait
	next, now, anyDone := 0, time.Duration(0), false
	startClip := func(at time.Duration) {
		if next >= len(gens) {
			return
		}
		clips[next] = simClip{gen: gens[next], start: at, firstRun: !anyDone}
		active = append(active, &wait{i: next, w: newWait(p.Schedule(e, kind, rng.Float64()), at)})
		next++
	}
	for range parallelism {
		startClip(0)
	}
	var end time.Duration
	for len(active) > 0 {
		// The wait whose look is due first.
		w := slices.MinFunc(active, func(a, b *wait) int {
			return int(clips[a.i].start + a.w.Due() - clips[b.i].start - b.w.Due())
		})
		cl := &clips[w.i]
		now = cl.start + w.w.Due()
		elapsed := w.w.Due()
		w.w.look(elapsed)
		cl.gets++
		cl.looks = append(cl.looks, elapsed)
		if o.looks != nil {
			*o.looks = append(*o.looks, now)
		}
		if elapsed < cl.gen {
			if o.progress != nil {
				if pr, ok := o.progress(cl.gen, elapsed); ok {
					w.w.Progress(pr)
				}
			}
			w.w.looked(elapsed, elapsed, 0, false)
		} else {
			w.w.finished(elapsed)
			w.w.End()
			cl.latency = elapsed - cl.gen
			anyDone = true
			end = max(end, now)
			active = slices.DeleteFunc(active, func(a *wait) bool { return a == w })
			startClip(now + o.gap)
		}
		for _, a := range active {
			if a.w.learn == nil {
				continue
			}
			select {
			case <-a.w.news:
				a.w.news = a.w.learn.news()
				a.w.replan(now - clips[a.i].start)
			default:
			}
		}
	}
	return clips, end
}

// instantEnd is when a batch would end if every clip were noticed the moment
// it finished: the lanes' own unevenness, which no waiter can remove.
func instantEnd(gens []time.Duration, parallelism int, gap time.Duration) time.Duration {
	free := make([]time.Duration, parallelism)
	var end time.Duration
	for _, g := range gens {
		i := slices.Index(free, slices.Min(free))
		free[i] += g
		end = max(end, free[i])
		free[i] += gap
	}
	return end
}

func meanGets(cs []simClip) float64 {
	n := 0
	for _, c := range cs {
		n += c.gets
	}
	return float64(n) / float64(len(cs))
}

func latencies(cs []simClip) []time.Duration {
	out := make([]time.Duration, len(cs))
	for i, c := range cs {
		out[i] = c.latency
	}
	slices.Sort(out)
	return out
}

// batch is a batch of n generation times over gen ± frac in an order fixed by
// seed, as make bench runs them.
func batch(gen time.Duration, frac float64, n int, seed uint64) []time.Duration {
	return Shuffled(Spread(gen, frac, n), seed)
}

// Waves: once the first clips of a kind finish, the later ones are looked at
// around their finish, at three GETs a clip or fewer and noticed within a few
// tenths of a second; the first wave costs no more than the default schedule.
func TestLearnedWaitsInWaves(t *testing.T) {
	t.Parallel()
	for seed := uint64(1); seed <= 5; seed++ {
		gens := batch(4*time.Second, 0.1, 100, seed)
		clips, end := simulateBatch(gens, simOptions{parallelism: 10, gap: 50 * time.Millisecond})
		var first, later []simClip
		for _, c := range clips {
			if c.firstRun {
				first = append(first, c)
			} else {
				later = append(later, c)
			}
		}
		lat := latencies(later)
		p95 := lat[len(lat)*95/100]
		t.Logf("seed %d: wall %s (%s if every clip were noticed the instant it finished), first wave %.2f GETs, "+
			"later %.2f GETs, latency p50 %s p95 %s max %s", seed, end,
			instantEnd(gens, 10, 50*time.Millisecond), meanGets(first), meanGets(later),
			lat[len(lat)/2], p95, lat[len(lat)-1])
		if g := meanGets(later); g > 3 {
			t.Errorf("seed %d: later waves made %.2f GETs a clip, want at most 3", seed, g)
		}
		if p95 > 500*time.Millisecond {
			t.Errorf("seed %d: later waves noticed %s late at the p95, want at most 0.5s", seed, p95)
		}
		if g := meanGets(first); g > 7 {
			t.Errorf("seed %d: the first wave made %.2f GETs a clip, more than the default schedule", seed, g)
		}
	}
}

// Learning never costs a clip a whole GET over the budget of its own
// generation time (Policy.budget, see pace), and a kind whose tasks take anything
// from 1 s to 60 s teaches nothing it trusts: there every clip keeps the
// default schedule's budget.
func TestLearnedWaitsKeepTheBudget(t *testing.T) {
	t.Parallel()
	p := DefaultPolicy()
	var gens []time.Duration
	for i := range 40 {
		gens = append(gens, time.Second+time.Duration(i)*59*time.Second/39)
	}
	for _, tc := range []struct {
		name        string
		gens        []time.Duration
		parallelism int
		over        float64 // GETs over the budget allowed, at most
	}{
		{"sweep, all at once", batch(30500*time.Millisecond, 59.0/61, 40, 4), 40, 0},
		{"sweep, eight at a time", gens, 8, 0},
		{"long clips", batch(30*time.Second, 0.3, 20, 2), 20, 0.999},
		{"waves", batch(4*time.Second, 0.1, 100, 1), 10, 0.999},
		{"2 s clips, five at a time", batch(2*time.Second, 0.1, 50, 3), 5, 0.999},
	} {
		clips, _ := simulateBatch(tc.gens, simOptions{parallelism: tc.parallelism, gap: 50 * time.Millisecond})
		over, worst := 0, 0.0
		for _, c := range clips {
			if excess := float64(c.gets) - p.budget(c.gen); excess > 0 {
				over++
				worst = max(worst, excess)
			}
		}
		lat := latencies(clips)
		t.Logf("%s: %d of %d clips over their budget (by %.2f GETs at most), %.2f GETs a clip, latency p50 %s p95 %s",
			tc.name, over, len(clips), worst, meanGets(clips), lat[len(lat)/2], lat[len(lat)*95/100])
		if worst > tc.over {
			t.Errorf("%s: a clip made %.2f GETs more than the budget of its generation time, want at most %.3f", tc.name, worst, tc.over)
		}
	}
}

// Clips that all start together teach the waiter only as the first of them
// finish, and learning must not then make the rest worse off than the default
// schedule: no later at the p95, and no more GETs than the budget of their
// generation times. Learned looks that spent a wait's last look before its
// pace once left the slowest 2 s clips to the default look at 4 s.
func TestLearningNeverNoticesABatchLater(t *testing.T) {
	t.Parallel()
	p := DefaultPolicy()
	for _, gen := range []time.Duration{2 * time.Second, 4 * time.Second, 10 * time.Second, 60 * time.Second} {
		for seed := uint64(1); seed <= 4; seed++ {
			gens := batch(gen, 0.1, 40, seed)
			learned, _ := simulateBatch(gens, simOptions{})
			def, _ := simulateBatch(gens, simOptions{noKind: true})
			lp95, dp95 := latencies(learned)[len(gens)*95/100], latencies(def)[len(gens)*95/100]
			budget := 0.0
			for _, g := range gens {
				budget += p.budget(g)
			}
			budget /= float64(len(gens))
			t.Logf("%s seed %d: learned p95 %s with %.2f GETs, default p95 %s with %.2f GETs, budget %.2f",
				gen, seed, lp95, meanGets(learned), dp95, meanGets(def), budget)
			if lp95 > dp95 {
				t.Errorf("%s seed %d: learning noticed the batch %s late at the p95, the default schedule %s", gen, seed, lp95, dp95)
			}
			if g := meanGets(learned); g > budget {
				t.Errorf("%s seed %d: learning made %.2f GETs a clip, over the budget of %.2f", gen, seed, g, budget)
			}
		}
	}
}

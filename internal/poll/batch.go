package poll

import (
	"math/rand/v2"
	"slices"
	"time"
)

// Spread returns n generation times spread evenly over [gen×(1-spread),
// gen×(1+spread)], each in the middle of its n-th of the range: the batches
// that make bench runs through the mock and the tests simulate. Real
// generation times vary; with every task at exactly the same time, a poller
// whose period divides it (a sleep-5 loop at 10 s or 60 s) would find every
// clip at once by coincidence, and one whose schedule happens to land just
// after it would too.
func Spread(gen time.Duration, spread float64, n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		f := 1 - spread + 2*spread*(float64(i)+0.5)/float64(n)
		out[i] = time.Duration(float64(gen) * f).Round(time.Millisecond)
	}
	return out
}

// Shuffled is gens in an order fixed by seed: Terraform starts resources in
// no particular order, and a batch whose first clips were its shortest would
// measure the order rather than the waiter.
func Shuffled(gens []time.Duration, seed uint64) []time.Duration {
	out := slices.Clone(gens)
	//nolint:gosec // G404: a reproducible order, not a secret
	rand.New(rand.NewPCG(seed, seed)).Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

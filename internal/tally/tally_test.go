package tally

import (
	"fmt"
	"slices"
	"sync"
	"testing"
)

func TestTallyReportsOncePerBatch(t *testing.T) {
	t.Parallel()
	var tally Tally
	const calls = 12
	for range calls {
		tally.Begin()
	}
	results := make(chan Found, calls)
	var wg sync.WaitGroup
	for i := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lines := []string{"resolution"}
			if i%3 == 0 {
				lines = append(lines, "ratio")
			}
			if found, ok := tally.End(fmt.Sprintf("task_%02d", i), lines); ok {
				results <- found
			}
		}()
	}
	wg.Wait()
	close(results)
	var all []Found
	for f := range results {
		all = append(all, f)
	}
	if len(all) != 1 {
		t.Fatalf("%d calls reported %d times, want once", calls, len(all))
	}
	f := all[0]
	if f.Sources != calls || len(f.IDs) != calls || f.Count["resolution"] != calls || f.Count["ratio"] != 4 ||
		len(f.Order) != 2 {
		t.Errorf("found %+v, want 12 sources, resolution 12 times, ratio 4 times", f)
	}

	// A call that found nothing reports nothing; the next batch starts empty.
	tally.Begin()
	if f, ok := tally.End("task_ok", nil); ok {
		t.Errorf("a batch that found nothing reported %+v", f)
	}
	tally.Begin()
	tally.Begin()
	if _, ok := tally.End("task_a", []string{"seconds"}); ok {
		t.Error("reported while a call was still in flight")
	}
	f, ok := tally.End("task_b", nil)
	if !ok || f.Sources != 1 || !slices.Equal(f.IDs, []string{"task_a"}) || !slices.Equal(f.Order, []string{"seconds"}) {
		t.Errorf("second batch: %+v, %v; want task_a's seconds alone", f, ok)
	}
}

package journal

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// BenchmarkJournal2000 measures one clip's changes (its submission noted,
// answered, and removed once a state holds it) in a file journal that already
// holds entries of other clips, up to the 2,000 of the largest apply the bench
// drives: the cost of a change must not grow with the journal.
func BenchmarkJournal2000(b *testing.B) {
	for _, held := range []int{0, 200, 2000} {
		b.Run("held="+strconv.Itoa(held), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "pending-tasks.json")
			writeEntries(b, path, held)
			j := New(path, "s", time.Hour)
			ctx := b.Context()
			clip := func(i int) {
				id := "bench-" + strconv.Itoa(i)
				t, err := j.Sending(ctx, "fp-"+id, time.Now())
				if err != nil {
					b.Fatal(err)
				}
				if err := j.Sent(ctx, t, Entry{TaskID: id, Fingerprint: "fp-" + id, SubmittedAt: time.Now()}); err != nil {
					b.Fatal(err)
				}
				if err := j.Remove(ctx, id); err != nil {
					b.Fatal(err)
				}
			}
			clip(-1) // a first change may migrate the file
			cpu := processCPU(b)
			b.ResetTimer()
			for i := range b.N {
				clip(i)
			}
			b.StopTimer()
			// The wall time of a change is mostly its sync, which the disk and
			// the machine's load decide; its CPU time is the store's own work.
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(3*b.N), "ns/change")
			b.ReportMetric(float64((processCPU(b)-cpu).Nanoseconds())/float64(3*b.N), "cpu-ns/change")
		})
	}
}

// writeEntries writes a journal of held entries in the file format every
// provider since runs and states were added reads (version 2), so that one
// benchmark compares file stores of different formats.
func writeEntries(b *testing.B, path string, held int) {
	b.Helper()
	at := time.Now()
	entries := make([]map[string]any, held)
	for i := range entries {
		entries[i] = map[string]any{"task_id": fmt.Sprintf("held-%d", i), "fingerprint": fmt.Sprintf("fp-held-%d", i),
			"submitted_at": at, "state": "s", "run": "a-dead-run", "process": "process 1 on bench"}
	}
	data, err := json.Marshal(map[string]any{"version": 2, "entries": entries})
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		b.Fatal(err)
	}
}

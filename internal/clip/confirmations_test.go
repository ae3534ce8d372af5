package clip

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestConfirmationsOneWarningPerBatch: creates that overlap give one
// warning, from the last one out, counting every clip; a later batch gets its own.
func TestConfirmationsOneWarningPerBatch(t *testing.T) {
	l := New(Config{MaxNewClips: -1})
	const clips = 12
	for range clips {
		l.BeginConfirming()
	}
	notes := make([]Notes, clips)
	var wg sync.WaitGroup
	for i := range clips {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lines := []string{"resolution: asked 720p, the service reports 1080p"}
			if i%3 == 0 {
				lines = append(lines, "ratio: not confirmed")
			}
			notes[i] = l.EndConfirming(fmt.Sprintf("task_%02d", i), lines)
		}()
	}
	wg.Wait()
	var warnings Notes
	for _, n := range notes {
		warnings = append(warnings, n...)
	}
	if len(warnings) != 1 {
		t.Fatalf("%d creates gave %d warnings, want 1: %v", clips, len(warnings), warnings)
	}
	detail := warnings[0].Detail
	for _, want := range []string{"for 12 clips first seen finished in this run", "resolution: asked 720p, the service reports 1080p (12 clips)",
		"ratio: not confirmed (4 clips)", "and 2 more"} {
		if !strings.Contains(detail, want) {
			t.Errorf("the warning does not say %q:\n%s", want, detail)
		}
	}

	// A create that made nothing unconfirmed adds nothing; the next batch is reported alone.
	l.BeginConfirming()
	quiet := l.EndConfirming("task_ok", nil)
	l.BeginConfirming()
	next := l.EndConfirming("task_next", []string{"seconds: not confirmed"})
	if len(quiet) != 0 || len(next) != 1 {
		t.Fatalf("warnings: %v then %v; want none, then one", quiet, next)
	}
	if d := next[0].Detail; !strings.Contains(d, "for 1 clip first seen finished") || strings.Contains(d, "(1 clip)") ||
		!strings.Contains(d, "Tasks: task_next.") {
		t.Errorf("the second batch's warning:\n%s", d)
	}
}

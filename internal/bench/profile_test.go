package bench

import (
	"path/filepath"
	"testing"
	"time"
)

func TestProfileSamples(t *testing.T) {
	for text, want := range map[string]time.Duration{
		"Duration: 11.86s, Total samples = 1490ms (12.57%)": 1490 * time.Millisecond,
		"Duration: 81s, Total samples = 30.50s (37.65%)":    30500 * time.Millisecond,
		"Duration: 5mins, Total samples = 1.50mins (30%)":   90 * time.Second,
		"no header": 0,
	} {
		if got := profileSamples(text); got != want {
			t.Errorf("profileSamples(%q) = %v, want %v", text, got, want)
		}
	}
}

// The providers run in the apply's working directory: a relative prefix would
// put their profiles, or fail to, there.
func TestProfileApplyIsAbsolute(t *testing.T) {
	t.Chdir(t.TempDir())
	o, prefix, err := ProfileApply(ApplyOptions{}, "results", "cpu")
	if err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(prefix) || o.Env[cpuProfileVariable] != prefix {
		t.Fatalf("prefix %q, environment %v: want one absolute prefix", prefix, o.Env)
	}
}

// The profile's variable joins the apply's other variables, and the caller's
// map, which another apply may share, is left as it was.
func TestProfileApplyKeepsTheOtherVariables(t *testing.T) {
	t.Chdir(t.TempDir())
	shared := map[string]string{"TF_LOG": "info"}
	o, prefix, err := ProfileApply(ApplyOptions{Env: shared}, "results", "cpu")
	if err != nil {
		t.Fatal(err)
	}
	if o.Env["TF_LOG"] != "info" || o.Env[cpuProfileVariable] != prefix {
		t.Errorf("environment %v: want TF_LOG kept beside the profile's prefix", o.Env)
	}
	if len(shared) != 1 {
		t.Errorf("the caller's map became %v", shared)
	}
}

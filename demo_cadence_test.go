package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDemoSaysWhatItBuilds drives `make demo`'s script with a `go` that takes
// seconds over every build, as a cold build cache does (about two minutes on
// a laptop), and a `terraform` that fails its first command, so that only the
// builds run: each build must be announced and then reported while it lasts
// (scripts/progress.sh, every PROGRESS_EVERY seconds, here 1), and the mock
// must not be built a second time where its output is hidden (scripts/mock.sh
// writes to the mock's log in the demo). Lines are counted, not timed: four
// seconds of build at one report a second leave room for a loaded machine.
func TestDemoSaysWhatItBuilds(t *testing.T) {
	for _, tool := range []string{"bash", "make", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	realGo, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	calls := filepath.Join(dir, "go-calls")
	fakeGo := filepath.Join(dir, "slow-go")
	write := func(path, content string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(content), 0o755); err != nil { //nolint:gosec // an executable script
			t.Fatal(err)
		}
	}
	write(fakeGo, "#!/bin/sh\necho \"$1\" >>'"+calls+"'\nif [ \"$1\" = build ]; then sleep 4; fi\nexec '"+realGo+"' \"$@\"\n")
	fakeTF := filepath.Join(dir, "terraform")
	write(fakeTF, "#!/bin/sh\necho 'fake terraform: stopping the demo here' >&2\nexit 1\n")
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}

	cmd := exec.CommandContext(t.Context(), "bash", "scripts/demo.sh")
	cmd.Env = append(os.Environ(), "GO="+fakeGo, "TERRAFORM="+fakeTF, "MAKE=make", "PROGRESS_EVERY=1", "TMPDIR="+tmp,
		"MAKEFLAGS=", "VIDEOGEN_MOCK_BIN=")
	out, err := cmd.CombinedOutput()
	text := string(out)
	if err == nil || !strings.Contains(text, "init failed") {
		t.Fatalf("the demo did not stop at the fake terraform init (%v):\n%s", err, text)
	}
	data, err := os.ReadFile(calls)
	if err != nil {
		t.Fatal(err)
	}
	builds := strings.Count(string(data), "build\n")
	if builds != 2 {
		t.Errorf("go build ran %d times, want 2 (the mock once, the provider once):\n%s", builds, text)
	}
	announce := strings.Index(text, "the first build takes about 2 minutes")
	first := strings.Index(text, "still building")
	if announce < 0 || first < announce {
		t.Errorf("the builds are not announced with how long the first one takes before they start:\n%s", text)
	}
	for _, what := range []string{"still building the mock API", "still building the provider"} {
		if !strings.Contains(text, what) {
			t.Errorf("no %q line during a 4 s build with a report every second:\n%s", what, text)
		}
	}
}

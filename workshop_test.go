package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The workshop: the GNUmakefile's targets as a new contributor meets them.

func requireMake(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
}

func runMake(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.CommandContext(t.Context(), "make", append([]string{"-s", "--no-print-directory"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("make %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestMakeHelpListsEveryTarget: make help names every target of .PHONY.
func TestMakeHelpListsEveryTarget(t *testing.T) {
	t.Parallel()
	requireMake(t)
	makefile, err := os.ReadFile("GNUmakefile")
	if err != nil {
		t.Fatal(err)
	}
	phony := regexp.MustCompile(`(?m)^\.PHONY:(.*)$`).FindSubmatch(makefile)
	if phony == nil {
		t.Fatal("GNUmakefile has no .PHONY line")
	}
	var listed []string
	for _, line := range strings.Split(runMake(t, "help"), "\n") {
		if f := strings.Fields(line); len(f) > 1 {
			listed = append(listed, f[0])
		}
	}
	for _, target := range strings.Fields(string(phony[1])) {
		if target != "default" && !slices.Contains(listed, target) {
			t.Errorf("make help does not list %s: end its rule's line with \"## what it does\"", target)
		}
	}
}

// TestProgressSaysStillGoing: a long step says that it is still going, and
// ends with its command's status; the slow targets use it.
func TestProgressSaysStillGoing(t *testing.T) {
	t.Parallel()
	cmd := exec.CommandContext(t.Context(), "scripts/progress.sh", "waiting", "sleep", "2.5")
	cmd.Env = append(os.Environ(), "PROGRESS_EVERY=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil || !strings.Contains(stderr.String(), "still waiting (") {
		t.Errorf("progress.sh: %v, stderr %q; want lines saying it is still waiting", err, stderr.String())
	}
	var exit *exec.ExitError
	if err := exec.CommandContext(t.Context(), "scripts/progress.sh", "failing", "sh", "-c", "exit 3").Run(); !errors.As(err, &exit) ||
		exit.ExitCode() != 3 {
		t.Errorf("progress.sh of a command that exits 3: %v", err)
	}
	requireMake(t)
	for _, target := range []string{"lint", "gateway-e2e", "release-snapshot"} {
		if dry := runMake(t, "-n", target); !strings.Contains(dry, "scripts/progress.sh") {
			t.Errorf("make %s runs its long steps without scripts/progress.sh:\n%s", target, dry)
		}
	}
}

// TestMakeCleanRemovesTryItByHand: make clean leaves examples/demo as the
// repository has it after the README's "Try it by hand".
func TestMakeCleanRemovesTryItByHand(t *testing.T) {
	t.Parallel()
	requireMake(t)
	dir := t.TempDir()
	demo := filepath.Join(dir, "demo")
	for _, f := range []string{"main.tf", ".terraform/providers/x", ".terraform/videogen/pending-tasks.json",
		".terraform.lock.hcl", "terraform.tfstate", "terraform.tfstate.backup", ".terraform.tfstate.lock.info",
		"out/clip.mp4", "clip.tfplan"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(demo, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(demo, f), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	runMake(t, "clean", "BIN_DIR="+filepath.Join(dir, "bin"), "DIST_DIR="+filepath.Join(dir, "dist"), "DEMO_DIR="+demo)
	entries, err := os.ReadDir(demo)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if !slices.Equal(left, []string{"main.tf"}) {
		t.Errorf("after make clean, examples/demo holds %v; want only main.tf", left)
	}
}

// TestBenchTimeAgrees: CONTRIBUTING.md and the GNUmakefile say alike how long
// make bench takes.
func TestBenchTimeAgrees(t *testing.T) {
	t.Parallel()
	minutes := func(file string, re *regexp.Regexp) string {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		m := re.FindSubmatch(b)
		if m == nil {
			t.Fatalf("%s does not say how long make bench takes (%s)", file, re)
		}
		return string(m[1])
	}
	contributing := minutes("CONTRIBUTING.md", regexp.MustCompile(`make bench +# about (\d+) minutes`))
	makefile := minutes("GNUmakefile", regexp.MustCompile(`BENCHMARKS.md\. Takes about (\d+) minutes`))
	if contributing != makefile {
		t.Errorf("CONTRIBUTING.md says make bench takes about %s minutes, the GNUmakefile %s", contributing, makefile)
	}
}

// TestSnapshotIsTheChangelogsVersion: make release-snapshot labels the
// archives with the version CHANGELOG.md prepares.
func TestSnapshotIsTheChangelogsVersion(t *testing.T) {
	t.Parallel()
	requireMake(t)
	changelog, err := os.ReadFile("CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	version := regexp.MustCompile(`(?m)^## v?(\d+\.\d+\.\d+)`).FindSubmatch(changelog)
	if version == nil {
		t.Fatal("CHANGELOG.md has no version heading")
	}
	if dry := runMake(t, "-n", "release-snapshot"); !strings.Contains(dry, "VIDEOGEN_VERSION='"+string(version[1])+"'") {
		t.Errorf("make release-snapshot does not pass VIDEOGEN_VERSION=%s:\n%s", version[1], dry)
	}
	config, err := os.ReadFile(".goreleaser.yml")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(config), `version_template: "{{ .Env.VIDEOGEN_VERSION }}-snapshot"`) {
		t.Error(".goreleaser.yml does not label a snapshot with VIDEOGEN_VERSION")
	}
}

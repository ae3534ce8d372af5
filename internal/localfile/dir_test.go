package localfile

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestSamePath(t *testing.T) {
	t.Parallel()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	same := []string{"out/x.mp4", "./out/x.mp4", "out//x.mp4", "out/../out/x.mp4", filepath.Join(wd, "out", "x.mp4")}
	for _, a := range same {
		for _, b := range same {
			if !SamePath(a, b) {
				t.Errorf("SamePath(%q, %q) = false", a, b)
			}
		}
	}
	for _, b := range []string{"out/y.mp4", "x.mp4", "/out/x.mp4", "../out/x.mp4", "out/x.mp4.part"} {
		if SamePath("out/x.mp4", b) {
			t.Errorf("SamePath(out/x.mp4, %q) = true", b)
		}
	}
}

func TestCheckTarget(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, ok := range []string{
		filepath.Join(dir, "clip.mp4"),
		filepath.Join(dir, "new", "deeper", "clip.mp4"),
		blocker, // an existing file is replaced
	} {
		if err := CheckTarget(ok); err != nil {
			t.Errorf("CheckTarget(%s): %v", ok, err)
		}
	}
	for p, want := range map[string]string{
		dir:                                  "existing directory",
		filepath.Join(blocker, "clip.mp4"):   "not a directory",
		filepath.Join(blocker, "a", "b.mp4"): "not a directory",
		filepath.Join(dir, "missing", "..", "file", "x.mp4"): "not a directory",
	} {
		err := CheckTarget(p)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckTarget(%s) = %v, want an error saying %q", p, err, want)
		}
	}
}

// /proc refuses new files even to root, so this case holds whoever runs the tests.
func TestCheckTargetUnwritableFileSystem(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("needs Linux's /proc")
	}
	err := CheckTarget("/proc/self/clip.mp4")
	if err == nil || !strings.Contains(err.Error(), "can be created in /proc/self") {
		t.Fatalf("want an error about /proc/self, got %v", err)
	}
}

func TestCheckTargetReadOnlyDirectory(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("permission bits do not apply on Windows")
	}
	if os.Geteuid() == 0 {
		t.Skip("root may write into a read-only directory; TestCheckTargetUnwritableFileSystem covers a directory root cannot write")
	}
	dir := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(dir, 0o755) })
	for _, p := range []string{filepath.Join(dir, "clip.mp4"), filepath.Join(dir, "sub", "clip.mp4")} {
		if err := CheckTarget(p); err == nil || !strings.Contains(err.Error(), "permission denied") {
			t.Errorf("CheckTarget(%s) = %v, want permission denied", p, err)
		}
	}
}

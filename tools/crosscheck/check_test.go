package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A module whose one file calls a function Windows lacks: the check finds it
// for Windows and nothing for Linux, so a platform the tests never run on
// still fails the lint.
func TestCheckFindsWhatBreaksTheOtherPlatform(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/probe\n\ngo 1.26\n")
	write("lock.go", "package probe\n\nimport \"syscall\"\n\nvar lock = syscall.Flock\n")
	write("lock_test.go", "package probe\n\nimport \"testing\"\n\nfunc TestLock(t *testing.T) { _ = lock }\n")
	t.Chdir(dir)

	for _, tc := range []struct {
		goos string
		want int
	}{{"linux", 0}, {"windows", 1}} {
		t.Run(tc.goos, func(t *testing.T) {
			t.Setenv("GOOS", tc.goos)
			t.Setenv("GOARCH", "amd64")
			t.Setenv("GOFLAGS", "-mod=mod")
			var out strings.Builder
			n, err := check([]string{"./..."}, &out)
			if err != nil {
				t.Fatal(err)
			}
			if n != tc.want {
				t.Fatalf("%d error(s), want %d:\n%s", n, tc.want, out.String())
			}
			if tc.want > 0 && !strings.Contains(out.String(), "undefined: syscall.Flock") {
				t.Errorf("the error does not name what is missing:\n%s", out.String())
			}
		})
	}
}

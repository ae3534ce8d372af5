package acctest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestParseStat(t *testing.T) {
	cases := []struct {
		stat string
		want procStat
		ok   bool
	}{
		{stat: "4242 (terraform) S 4200 4242 4200 0 -1 4194560", want: procStat{'S', 4200, 4242}, ok: true},
		// The command name is the executable's, and may hold ") S 1 (" itself.
		{stat: "77 (evil) S 1 (x) R 76 70 76 0", want: procStat{'R', 76, 70}, ok: true},
		{stat: "77 (terraform-provi) Z 1 77 1", want: procStat{'Z', 1, 77}, ok: true},
		{stat: "garbage"},
		{stat: "5 (x) S 1"},
		{stat: "5 (x) S one 2 3"},
	}
	for _, tc := range cases {
		got, ok := parseStat(tc.stat)
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseStat(%q) = %+v, %v; want %+v, %v", tc.stat, got, ok, tc.want, tc.ok)
		}
	}
}

// running reports whether pid runs: gone, or a zombie nobody has reaped yet
// (the process that adopts orphans may be slow to), counts as not.
func running(pid int) bool {
	st, ok := readStat(pid)
	return ok && st.state != 'Z' && st.state != 'X'
}

func TestRemoveStaleDirs(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	ended := exec.CommandContext(t.Context(), "true")
	if err := ended.Run(); err != nil {
		t.Skip("no true to run:", err)
	}
	dirs := map[string]bool{ // name: kept
		fmt.Sprintf("%s%d-1", dirPrefix, ended.Process.Pid): false,
		fmt.Sprintf("%s%d-2", dirPrefix, os.Getpid()):       true,
		fmt.Sprintf("%s%d-3", dirPrefix, os.Getppid()):      true,
		dirPrefix + "unnamed":                               true,
		fmt.Sprintf("%s%d", dirPrefix, ended.Process.Pid):   true, // an older name: a random number, no process ID
		"someone-else-1": true,
	}
	for name := range dirs {
		if err := os.Mkdir(filepath.Join(os.TempDir(), name), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	removeStaleDirs()
	for name, kept := range dirs {
		if _, err := os.Stat(filepath.Join(os.TempDir(), name)); (err == nil) != kept {
			t.Errorf("%s: kept %v, want %v", name, err == nil, kept)
		}
	}
}

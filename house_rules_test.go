package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestProviderTestFilesNameTheirSource keeps a house rule of CONTRIBUTING.md:
// foo_test.go tests foo.go, and a test file of internal/provider, or of a
// package under it, that tests no one file is listed there, under "House
// rules", as a cross-cutting test.
func TestProviderTestFilesNameTheirSource(t *testing.T) {
	t.Parallel()
	contributing, err := os.ReadFile("CONTRIBUTING.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rules, _ := strings.Cut(string(contributing), "\n## House rules\n")
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile("`(internal/provider/(?:[a-z0-9]+/)?[a-z0-9_]+_test\\.go)`").FindAllStringSubmatch(rules, -1) {
		listed[m[1]] = true
	}
	tests, err := filepath.Glob("internal/provider/*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	inRooms, err := filepath.Glob("internal/provider/*/*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	tests = append(tests, inRooms...)
	for _, f := range tests {
		_, statErr := os.Stat(strings.TrimSuffix(f, "_test.go") + ".go")
		switch {
		case statErr == nil && listed[f]:
			t.Errorf("%s is listed as cross-cutting in CONTRIBUTING.md's house rules, but it names %s.go", f,
				strings.TrimSuffix(filepath.Base(f), "_test.go"))
		case statErr != nil && !listed[f]:
			t.Errorf("%s names no source file of its package: rename it after the file it tests, or list it "+
				"as a cross-cutting test in CONTRIBUTING.md's house rules", f)
		}
		delete(listed, f)
	}
	for f := range listed {
		t.Errorf("CONTRIBUTING.md's house rules list %s as a cross-cutting test; there is no such file", f)
	}
}

package main

import (
	"io/fs"
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

// TestProviderFilesAreNamedAfterTheirJob keeps the naming scheme of
// CONTRIBUTING.md ("Where things go"): a file of internal/provider, or of a
// package under it, is named after its job, never after another package (a
// journal.go beside internal/journal) nor as a file of another package (a
// second model_catalog.go), so that a file's name says one thing in the tree.
func TestProviderFilesAreNamedAfterTheirJob(t *testing.T) {
	t.Parallel()
	packages := map[string]bool{}
	elsewhere := map[string]string{}
	err := filepath.WalkDir("internal", func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir():
			packages[d.Name()] = true
		case strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") &&
			!strings.HasPrefix(p, filepath.Join("internal", "provider")+string(filepath.Separator)):
			elsewhere[d.Name()] = p
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Glob("internal/provider/*.go")
	if err != nil {
		t.Fatal(err)
	}
	rooms, err := filepath.Glob("internal/provider/*/*.go")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, f := range append(root, rooms...) {
		name := filepath.Base(f)
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		if stem := strings.TrimSuffix(name, ".go"); packages[stem] && stem != filepath.Base(filepath.Dir(f)) {
			t.Errorf("%s is named after the package %s: name it after its job", f, stem)
		}
		if other, ok := elsewhere[name]; ok {
			t.Errorf("%s has the name of %s: name it after its job", f, other)
		}
		if other, ok := seen[name]; ok {
			t.Errorf("%s has the name of %s: name it after its job", f, other)
		}
		seen[name] = f
	}
}

package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const modulePath = "github.com/videogen/terraform-provider-videogen"

// mapRow is one package's row of CONTRIBUTING.md's module map: what its code
// may import, and what its tests may import besides.
type mapRow struct {
	std, testStd bool
	code, tests  []string // import paths; each covers the packages under it
}

// The module map in CONTRIBUTING.md is the truth about imports: every package
// of the module has a row, imports nothing its row does not name, and still
// imports every package of the module that its row names. See the paragraph
// under the map for how rows are read.
func TestModuleMap(t *testing.T) {
	t.Parallel()
	rows := readModuleMap(t, "CONTRIBUTING.md")
	pkgs := readImports(t, ".")
	for _, dir := range sortedKeys(pkgs) {
		imp, row := pkgs[dir], rows[dir]
		if row == nil {
			t.Errorf("package %s has no row in CONTRIBUTING.md's module map", dir)
			continue
		}
		for _, path := range imp.code {
			if !row.allows(path, false) {
				t.Errorf("%s imports %s, which its row in CONTRIBUTING.md's module map does not name", dir, path)
			}
		}
		self := strings.TrimSuffix(modulePath+"/"+dir, "/.")
		for _, path := range imp.tests {
			if path != self && !row.allows(path, true) {
				t.Errorf("%s's tests import %s, which its row in CONTRIBUTING.md's module map does not name", dir, path)
			}
		}
		for _, name := range row.code {
			if strings.HasPrefix(name, modulePath) && !slices.ContainsFunc(imp.code, covers(name)) {
				t.Errorf("CONTRIBUTING.md's module map says %s imports %s; it no longer does", dir, name)
			}
		}
		for _, name := range row.tests {
			if strings.HasPrefix(name, modulePath) && !slices.ContainsFunc(imp.tests, covers(name)) {
				t.Errorf("CONTRIBUTING.md's module map says %s's tests import %s; they no longer do", dir, name)
			}
		}
	}
	for dir := range rows {
		if _, ok := pkgs[dir]; !ok {
			t.Errorf("CONTRIBUTING.md's module map has a row for %s, which holds no Go package", dir)
		}
	}
}

// covers reports whether an import of path is one the name in the map stands for.
func covers(name string) func(path string) bool {
	return func(path string) bool { return path == name || strings.HasPrefix(path, name+"/") }
}

func (r *mapRow) allows(path string, test bool) bool {
	if isStd(path) {
		return r.std || (test && r.testStd)
	}
	return slices.ContainsFunc(r.code, func(name string) bool { return covers(name)(path) }) ||
		(test && slices.ContainsFunc(r.tests, func(name string) bool { return covers(name)(path) }))
}

// isStd: the standard library's paths have no dot in their first element.
func isStd(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

var (
	backticked = regexp.MustCompile("`([^`]+)`")
	// A clause that starts with "never" names what may not be imported.
	never = regexp.MustCompile(`never[^;]*?(;|\. |$)`)
)

// readModuleMap reads the rows of the table under "## Module map", keyed by
// package directory ("." for main.go).
func readModuleMap(t *testing.T, file string) map[string]*mapRow {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## Module map\n")
	if !ok {
		t.Fatalf("%s has no \"## Module map\" section", file)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	rows := map[string]*mapRow{}
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) != 5 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		dir := strings.Trim(strings.TrimSpace(cells[1]), "`")
		if dir == "main.go" {
			dir = "."
		}
		code, tests, _ := strings.Cut(never.ReplaceAllString(cells[3], "$1"), "tests also:")
		if rest, ok := strings.CutPrefix(strings.TrimSpace(code), "tests:"); ok {
			code, tests = "", rest
		}
		row := &mapRow{std: strings.Contains(code, "the standard library"), testStd: strings.Contains(tests, "the standard library"),
			code: names(code), tests: names(tests)}
		if rows[dir] != nil {
			t.Errorf("CONTRIBUTING.md's module map has two rows for %s", dir)
		}
		rows[dir] = row
	}
	if len(rows) == 0 {
		t.Fatalf("no rows read from %s's module map", file)
	}
	return rows
}

// names are the import paths a cell names in backticks; the module's own
// packages are written without the module path.
func names(cell string) []string {
	var out []string
	for _, m := range backticked.FindAllStringSubmatch(cell, -1) {
		name := m[1]
		if !strings.Contains(strings.SplitN(name, "/", 2)[0], ".") {
			name = modulePath + "/" + name
		}
		out = append(out, name)
	}
	return out
}

type pkgImports struct{ code, tests []string }

// readImports parses every Go file under root, whatever its build
// constraints, and returns the imports of each directory's code and tests.
func readImports(t *testing.T, root string) map[string]*pkgImports {
	t.Helper()
	pkgs := map[string]*pkgImports{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") ||
				name == "testdata" || name == "bin" || name == "node_modules" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		p := pkgs[dir]
		if p == nil {
			p = &pkgImports{}
			pkgs[dir] = p
		}
		for _, imp := range f.Imports {
			ip := strings.Trim(imp.Path.Value, `"`)
			if strings.HasSuffix(name, "_test.go") {
				p.tests = append(p.tests, ip)
			} else {
				p.code = append(p.code, ip)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

package main

import (
	"fmt"
	"io"
	"os"

	"golang.org/x/tools/go/packages"
)

// check loads patterns with their tests and every dependency from source,
// type-checked for the environment's GOOS and GOARCH, writes each error to w
// and returns how many there were. err is a failure to load at all.
func check(patterns []string, w io.Writer) (int, error) {
	cfg := &packages.Config{
		// Syntax and types of every package, dependencies included, and no
		// export data: nothing is compiled.
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles |
			packages.NeedImports | packages.NeedDeps | packages.NeedTypes |
			packages.NeedSyntax | packages.NeedTypesInfo,
		Tests: true,
		Env:   os.Environ(),
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return 0, err
	}
	n := 0
	seen := map[string]bool{}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			line := e.Error()
			if seen[line] {
				continue
			}
			seen[line] = true
			n++
			fmt.Fprintln(w, line)
		}
	})
	return n, nil
}

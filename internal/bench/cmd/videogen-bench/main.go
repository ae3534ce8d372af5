// Command videogen-bench is `make bench`: it builds the provider and the mock,
// runs issue 6's cases with the real Terraform CLI against the mock on
// loopback, prints the Markdown table and writes BENCHMARKS.md and a JSON file
// with every figure. See package internal/bench.
//
// Usage:
//
//	videogen-bench [-out BENCHMARKS.md] [-results internal/bench/results.json]
//	               [-quick] [-only startup,latency,sweep,apply,refresh,download]
//	               [-go go] [-terraform terraform]
//	videogen-bench -render internal/bench/results.json [-out BENCHMARKS.md]
//
// -quick and -only are for trying the harness: unless -out and -results are
// given too, they write to a temporary directory instead of the committed files.
// -render measures nothing: it rebuilds the table and the report from a results
// file, for changes to the report's wording.
// The exit status is 0 when every case ran (whether or not its targets were
// met), 1 when a case failed and 130 when interrupted.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/videogen/terraform-provider-videogen/internal/bench"
)

var allCases = []string{"startup", "latency", "sweep", "apply", "refresh", "download"}

func main() {
	os.Exit(run())
}

func run() int {
	out := flag.String("out", "BENCHMARKS.md", "Markdown report to write")
	results := flag.String("results", filepath.Join("internal", "bench", "results.json"), "JSON results file to write")
	quick := flag.Bool("quick", false, "small versions of every case")
	only := flag.String("only", strings.Join(allCases, ","), "comma-separated cases to run")
	goBin := flag.String("go", "go", "Go toolchain used to build the provider and the mock")
	terraform := flag.String("terraform", "terraform", "Terraform CLI")
	render := flag.String("render", "", "measure nothing: rewrite -out from this results file (after changing the report's wording)")
	flag.Parse()
	if *render != "" {
		return rerender(*render, *out)
	}

	explicit := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { explicit[f.Name] = true })
	cases := strings.Split(*only, ",")
	for _, c := range cases {
		if !slices.Contains(allCases, c) {
			fmt.Fprintf(os.Stderr, "videogen-bench: unknown case %q in -only (cases: %s)\n", c, strings.Join(allCases, ", "))
			return 2
		}
	}
	if (*quick || explicit["only"]) && !explicit["out"] && !explicit["results"] {
		dir, err := os.MkdirTemp("", "videogen-bench-report-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "videogen-bench:", err)
			return 1
		}
		*out, *results = filepath.Join(dir, "BENCHMARKS.md"), filepath.Join(dir, "results.json")
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	// Every case bounds its own commands; this bounds the whole run.
	ctx, cancel := context.WithTimeout(ctx, 45*time.Minute)
	defer cancel()

	root, err := repoRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "videogen-bench:", err)
		return 1
	}
	settings := bench.DefaultSettings()
	if *quick {
		settings = bench.QuickSettings()
	}
	began := time.Now()
	res := &bench.Results{GeneratedAt: began, Settings: settings, CaseErrors: map[string]string{}}
	res.Machine = bench.DescribeMachine(ctx, *goBin, *terraform)

	env, err := bench.NewEnv(ctx, root, *goBin, *terraform, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "videogen-bench:", err)
		return 1
	}
	defer env.Close()
	r := &bench.Runner{Env: env, Settings: settings, Log: os.Stderr}

	failed := false
	record := func(name string, err error) bool {
		if err == nil {
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		failed = !errors.Is(err, bench.ErrSkipped) || failed
		res.CaseErrors[name] = err.Error()
		fmt.Fprintf(os.Stderr, "videogen-bench: case %s: %v\n", name, err)
		return true
	}
	for _, c := range cases {
		if ctx.Err() != nil {
			break
		}
		switch c {
		case "startup":
			var err error
			res.Startup, err = r.Startup(ctx)
			record(c, err)
		case "latency":
			for _, gen := range settings.Generations {
				l, err := r.Latency(ctx, time.Duration(gen))
				if record(fmt.Sprintf("latency %s", time.Duration(gen)), err) && err == nil {
					res.Latency = append(res.Latency, l)
				}
			}
		case "sweep":
			var err error
			res.Sweep, err = r.Sweep(ctx)
			record(c, err)
		case "apply":
			var err error
			res.Apply, err = r.Apply(ctx)
			record(c, err)
		case "refresh":
			var err error
			res.Refresh, err = r.Refresh(ctx)
			record(c, err)
		case "download":
			var err error
			res.Download, err = r.Download(ctx)
			record(c, err)
		}
	}
	if ctx.Err() != nil {
		fmt.Fprintf(os.Stderr, "videogen-bench: stopped (%v); nothing written\n", context.Cause(ctx))
		return 130
	}
	res.Machine.LoadAvgEnd = bench.LoadAvg()
	res.Elapsed = bench.Duration(time.Since(began))
	res.Rows = bench.BuildRows(res)
	if len(res.CaseErrors) == 0 {
		res.CaseErrors = nil
	}

	data, err := json.MarshalIndent(res, "", "  ")
	if err == nil {
		err = os.WriteFile(*results, append(data, '\n'), 0o644) //nolint:gosec // a report to commit and read, not a secret
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "videogen-bench: writing results:", err)
		return 1
	}
	if code := writeDocument(res, *out, *results); code != 0 {
		return code
	}
	fmt.Fprintf(os.Stderr, "videogen-bench: wrote %s and %s in %.1f minutes\n", *out, *results, time.Since(began).Minutes())
	if failed {
		return 1
	}
	return 0
}

// rerender rebuilds the table and the document from a results file.
func rerender(results, out string) int {
	data, err := os.ReadFile(results)
	if err != nil {
		fmt.Fprintln(os.Stderr, "videogen-bench:", err)
		return 1
	}
	var res bench.Results
	if err := json.Unmarshal(data, &res); err != nil {
		fmt.Fprintln(os.Stderr, "videogen-bench: reading results:", err)
		return 1
	}
	res.Rows = bench.BuildRows(&res)
	data, err = json.MarshalIndent(&res, "", "  ")
	if err == nil {
		err = os.WriteFile(results, append(data, '\n'), 0o644) //nolint:gosec // a report to commit and read, not a secret
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "videogen-bench: writing results:", err)
		return 1
	}
	return writeDocument(&res, out, results)
}

func writeDocument(res *bench.Results, out, results string) int {
	rel, err := filepath.Rel(filepath.Dir(out), results)
	if err != nil {
		rel = results
	}
	doc := bench.Document(res, filepath.ToSlash(rel))
	if err := os.WriteFile(out, []byte(doc), 0o644); err != nil { //nolint:gosec // a report to commit and read, not a secret
		fmt.Fprintln(os.Stderr, "videogen-bench: writing report:", err)
		return 1
	}
	fmt.Println(bench.Markdown(res.Rows))
	return 0
}

// repoRoot finds the module root from the working directory.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("run from inside the repository: no go.mod found above the working directory")
		}
		dir = parent
	}
}

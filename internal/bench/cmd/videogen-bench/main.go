// Command videogen-bench is `make bench`: it runs the cases of package
// internal/bench and writes results.json (every figure and sample), table.md,
// latency-vs-gets.svg, the looks of the batch cases (looks-*.svg) and the provider's CPU profiles of the big apply
// with their top functions (profiles/) into -out, and puts the table into BENCHMARKS.md
// between its <!-- bench:table --> and <!-- /bench:table --> lines. The prose of
// BENCHMARKS.md is written by hand and never touched.
//
// Usage:
//
//	videogen-bench [-out bench/results] [-doc BENCHMARKS.md] [-quick]
//	               [-only startup,latency,sweep,apply,refresh,download,store,waves,long,fanout,bigrefresh,bigapply,journal]
//	videogen-bench -render bench/results/results.json
//
// The CLI and the Go toolchain are found as the acceptance tests find them
// (TF_ACC_TERRAFORM_PATH or TERRAFORM, then PATH; GO). -quick and -only write to
// a temporary directory unless -out is given, and leave BENCHMARKS.md alone
// unless -doc is given.
// -render measures nothing: it rebuilds the table and the plot from a results
// file. The exit status is 0 when every case ran (whether or not it met its
// targets), 1 when one failed and 130 when interrupted.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/videogen/terraform-provider-videogen/internal/bench"
)

var allCases = []string{"startup", "latency", "sweep", "apply", "refresh", "download", "store", "waves", "long", "fanout", "bigrefresh", "bigapply", "journal"}

const (
	tableStart = "<!-- bench:table -->"
	tableEnd   = "<!-- /bench:table -->"
)

func main() {
	// The store case runs this program again as its writing process.
	if len(os.Args) > 1 && os.Args[1] == bench.StoreWriteFlag {
		os.Exit(bench.StoreWriteMain(os.Args[2:]))
	}
	os.Exit(run())
}

func run() int {
	out := flag.String("out", filepath.Join("bench", "results"), "directory for results.json, table.md and latency-vs-gets.svg")
	doc := flag.String("doc", "BENCHMARKS.md", "document whose table to replace (empty: none)")
	quick := flag.Bool("quick", false, "small versions of every case")
	only := flag.String("only", strings.Join(allCases, ","), "comma-separated cases to run")
	render := flag.String("render", "", "measure nothing: rebuild the table and the plot from this results file")
	flag.Parse()
	if *render != "" {
		return rerender(*render, *doc)
	}
	cases := strings.Split(*only, ",")
	for _, c := range cases {
		if !slices.Contains(allCases, c) {
			fmt.Fprintf(os.Stderr, "videogen-bench: unknown case %q in -only (cases: %s)\n", c, strings.Join(allCases, ", "))
			return 2
		}
	}
	explicit := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { explicit[f.Name] = true })
	// A partial run's table would replace the full run's in the document, so
	// it goes there only when -doc names it; an -out of its own does not.
	if *quick || explicit["only"] {
		if !explicit["out"] {
			dir, err := os.MkdirTemp("", "videogen-bench-results-")
			if err != nil {
				return fail(err)
			}
			*out = dir
		}
		if !explicit["doc"] {
			*doc = ""
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, 90*time.Minute)
	defer cancel()
	root, err := os.Getwd()
	if err != nil {
		return fail(err)
	}
	settings := bench.DefaultSettings()
	if *quick {
		settings = bench.QuickSettings()
	}
	began := time.Now()
	res := &bench.Results{GeneratedAt: began, Settings: settings, CaseErrors: map[string]string{}}
	fmt.Fprintln(os.Stderr, "videogen-bench: building the provider")
	env, err := bench.NewEnv(ctx, root, os.Stderr)
	if err != nil {
		return fail(err)
	}
	defer env.Close()
	res.Machine = bench.NewMachine(env.H.CLI.String())
	r := &bench.Runner{Env: env, Settings: settings, Log: os.Stderr, Out: *out}

	// Each case sets its field of res only when it completes: no row is built
	// from a case that failed half-way.
	run := map[string]func() error{
		"startup": func() (err error) { res.Startup, err = keep(r.Startup(ctx)); return err },
		"latency": func() error {
			for _, gen := range settings.Generations {
				l, err := r.Latency(ctx, time.Duration(gen))
				if err != nil {
					return fmt.Errorf("%s: %w", time.Duration(gen), err)
				}
				res.Latency = append(res.Latency, l)
			}
			return nil
		},
		"sweep":    func() (err error) { res.Sweep, err = keep(r.Sweep(ctx)); return err },
		"apply":    func() (err error) { res.Apply, err = keep(r.Apply(ctx)); return err },
		"download": func() (err error) { res.Download, err = keep(r.Download(ctx)); return err },
		"store":    func() (err error) { res.Store, err = keep(r.Store(ctx)); return err },
		"waves":    func() (err error) { res.Waves, err = keep(r.Waves(ctx)); return err },
		"long":     func() (err error) { res.Long, err = keep(r.Long(ctx)); return err },
		"fanout":   func() (err error) { res.FanOut, err = keep(r.FanOut(ctx)); return err },
		"bigapply": func() (err error) { res.BigApply, err = keep(r.BigApply(ctx)); return err },
		"journal":  func() (err error) { res.Journal, err = keep(r.Journal(ctx)); return err },
		"refresh": func() (err error) {
			res.Refresh, err = keep(r.Refresh(ctx, settings.RefreshClips, settings.RefreshRPS, 0, settings.RefreshRepeats))
			return err
		},
		"bigrefresh": func() (err error) {
			res.BigRefresh, err = keep(r.Refresh(ctx, settings.BigRefreshClips, settings.BigRefreshRPS, settings.BigRefreshRPS,
				settings.RefreshRepeats))
			return err
		},
	}
	failed := false
	for _, c := range cases {
		if ctx.Err() != nil {
			break
		}
		if err := run[c](); err != nil && ctx.Err() == nil {
			failed = true
			res.CaseErrors[c] = err.Error()
			fmt.Fprintf(os.Stderr, "videogen-bench: case %s: %v\n", c, err)
		}
	}
	if ctx.Err() != nil {
		fmt.Fprintf(os.Stderr, "videogen-bench: stopped (%v); nothing written\n", context.Cause(ctx))
		return 130
	}
	res.Machine.LoadAvgEnd = bench.LoadAvg()
	res.Elapsed = bench.Duration(time.Since(began))
	if len(res.CaseErrors) == 0 {
		res.CaseErrors = nil
	}
	if err := write(res, *out, *doc); err != nil {
		return fail(err)
	}
	fmt.Fprintf(os.Stderr, "videogen-bench: wrote %s in %.1f minutes\n", *out, time.Since(began).Minutes())
	if failed {
		return 1
	}
	return 0
}

// keep returns v only when err is nil.
func keep[T any](v *T, err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	return v, nil
}

// write builds the rows and writes the three files into dir, and the table
// into doc when doc is not empty.
func write(res *bench.Results, dir, doc string) error {
	res.Rows = bench.BuildRows(res)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	table := bench.Header(res) + "\n\n" + bench.Markdown(res.Rows)
	if len(res.CaseErrors) > 0 {
		table += "\nCases that did not complete:\n\n"
		for _, c := range slices.Sorted(maps.Keys(res.CaseErrors)) {
			table += fmt.Sprintf("- %s: %s\n", c, res.CaseErrors[c])
		}
	}
	files := map[string][]byte{
		"results.json":        append(data, '\n'),
		"table.md":            []byte(table),
		"latency-vs-gets.svg": []byte(bench.SVG(bench.Points(res))),
	}
	for name, svg := range bench.LooksPlots(res) {
		files[name] = []byte(svg)
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil { //nolint:gosec // results to commit and read
			return err
		}
	}
	fmt.Println(table)
	if doc == "" {
		return nil
	}
	return replaceTable(doc, table)
}

// replaceTable puts table between the markers of doc.
func replaceTable(doc, table string) error {
	text, err := os.ReadFile(doc)
	if err != nil {
		return err
	}
	start, end := bytes.Index(text, []byte(tableStart)), bytes.Index(text, []byte(tableEnd))
	if start < 0 || end < start {
		return fmt.Errorf("%s has no %s ... %s lines to put the table between", doc, tableStart, tableEnd)
	}
	var b bytes.Buffer
	b.Write(text[:start+len(tableStart)])
	b.WriteString("\n" + table + "\n")
	b.Write(text[end:])
	return os.WriteFile(doc, b.Bytes(), 0o644) //nolint:gosec // a document to commit and read
}

// rerender rebuilds the outputs from a results file, in its directory.
func rerender(results, doc string) int {
	data, err := os.ReadFile(results)
	if err != nil {
		return fail(err)
	}
	var res bench.Results
	if err := json.Unmarshal(data, &res); err != nil {
		return fail(fmt.Errorf("reading %s: %w", results, err))
	}
	if err := write(&res, filepath.Dir(results), doc); err != nil {
		return fail(err)
	}
	return 0
}

func fail(err error) int {
	if errors.Is(err, context.Canceled) {
		return 130
	}
	fmt.Fprintln(os.Stderr, "videogen-bench:", err)
	return 1
}

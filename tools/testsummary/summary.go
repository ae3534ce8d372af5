package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// progressEvery is how long a package may run without a line before the
// summary says how far it got: the provider's acceptance tests take minutes,
// and a silent terminal looks like a hang.
const progressEvery = 20 * time.Second

// event is one line of `go test -json` (see `go doc cmd/test2json`), including
// the build events that go test interleaves since Go 1.24.
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// result is the outcome of one top-level test.
type result int

const (
	passed result = iota
	failed
	skipped
	// unfinished is a test that started but never ended because its
	// package's process did (a panic in another test, a timeout, os.Exit).
	// It counts as failed, but is listed apart: it may be blameless.
	unfinished
)

type testKey struct{ pkg, test string }

// summary reads the event stream and prints what `go test` prints without -v:
// a line per package, and the output of failed tests and packages in full.
// Passing and skipped tests stay quiet; a skipped test's reason is kept for the
// closing summary. Subtests count toward their top-level test only, so the
// counts name the functions a reader can find in the code.
type summary struct {
	w io.Writer

	testOut map[testKey][]string // output of running tests and subtests
	pkgOut  map[string][]string  // package-level output not yet printed
	started map[testKey]bool     // top-level tests with a run event
	results map[testKey]result
	reasons map[testKey]string // why a skipped top-level test skipped

	failedPkgs []string // packages that failed outside any test

	now          func() time.Time
	lastLine     time.Time      // when the last package line or progress line was printed
	finished     map[string]int // top-level tests finished per package still running
	runningTests map[string]int // top-level tests started and not finished, per package
}

func newSummary(w io.Writer) *summary {
	return &summary{
		w:       w,
		testOut: map[testKey][]string{},
		pkgOut:  map[string][]string{},
		started: map[testKey]bool{},
		results: map[testKey]result{},
		reasons: map[testKey]string{},

		now:          time.Now,
		lastLine:     time.Now(),
		finished:     map[string]int{},
		runningTests: map[string]int{},
	}
}

// progress prints how far a long package got, at most every progressEvery.
// It is called as its top-level tests finish: go test prints packages in
// order, so the tests of the package it prints now arrive as they end.
func (s *summary) progress(pkg string) {
	if now := s.now(); now.Sub(s.lastLine) >= progressEvery {
		fmt.Fprintf(s.w, "... %s: %d tests finished, %d running\n", pkg, s.finished[pkg], s.runningTests[pkg])
		s.lastLine = now
	}
}

// line handles one line of input. Lines that are not JSON events (go test
// prints a few, such as some build errors) are passed through.
func (s *summary) line(raw []byte) {
	var e event
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &e) != nil {
		fmt.Fprintln(s.w, string(raw))
		return
	}
	switch {
	case e.Action == "build-output":
		fmt.Fprint(s.w, e.Output)
	case e.Action == "build-fail":
		// The package's own fail event follows, with FailedBuild set.
	case e.Test != "":
		s.testEvent(e)
	default:
		s.packageEvent(e)
	}
}

func (s *summary) testEvent(e event) {
	k := testKey{e.Package, e.Test}
	top := !strings.Contains(e.Test, "/")
	switch e.Action {
	case "run":
		if top {
			s.started[k] = true
			s.runningTests[e.Package]++
		}
	case "output":
		// go test -json runs the tests verbosely; these markers are what
		// plain go test leaves out.
		if !isProgressLine(e.Output) {
			s.testOut[k] = append(s.testOut[k], e.Output)
		}
	case "pass", "fail", "skip":
		out := s.testOut[k]
		delete(s.testOut, k)
		if e.Action == "fail" {
			for _, o := range out {
				fmt.Fprint(s.w, o)
			}
		}
		if !top {
			return
		}
		s.runningTests[e.Package]--
		s.finished[e.Package]++
		defer s.progress(e.Package)
		switch e.Action {
		case "pass":
			s.results[k] = passed
		case "fail":
			s.results[k] = failed
		case "skip":
			s.results[k] = skipped
			s.reasons[k] = skipReason(out)
		}
	}
}

func (s *summary) packageEvent(e event) {
	if e.Action == "pass" || e.Action == "skip" || e.Action == "fail" {
		delete(s.finished, e.Package)
		delete(s.runningTests, e.Package)
		s.lastLine = s.now()
	}
	switch e.Action {
	case "output":
		s.pkgOut[e.Package] = append(s.pkgOut[e.Package], e.Output)
	case "pass", "skip":
		// Only the "ok" or "no test files" line, as plain go test prints.
		for _, o := range s.pkgOut[e.Package] {
			if strings.HasPrefix(o, "ok ") || strings.HasPrefix(o, "? ") {
				fmt.Fprint(s.w, o)
			}
		}
		delete(s.pkgOut, e.Package)
	case "fail":
		for _, o := range s.pkgOut[e.Package] {
			fmt.Fprint(s.w, o)
		}
		delete(s.pkgOut, e.Package)
		failedTests := s.anyFailed(e.Package)
		for k := range s.started {
			if _, done := s.results[k]; !done && k.pkg == e.Package {
				s.results[k] = unfinished
				for _, o := range s.testOut[k] {
					fmt.Fprint(s.w, o)
				}
			}
		}
		if !failedTests {
			s.failedPkgs = append(s.failedPkgs, e.Package)
		}
	}
}

func (s *summary) anyFailed(pkg string) bool {
	for k, r := range s.results {
		if k.pkg == pkg && r == failed {
			return true
		}
	}
	return false
}

func isProgressLine(out string) bool {
	for _, p := range []string{"=== RUN", "=== PAUSE", "=== CONT", "=== NAME"} {
		if strings.HasPrefix(out, p) {
			return true
		}
	}
	return false
}

// skipReason is the message a skipped test logged, without the file:line
// prefix that testing adds and without the closing "--- SKIP" line.
func skipReason(out []string) string {
	var msgs []string
	for _, o := range out {
		o = strings.TrimSpace(o)
		if o == "" || strings.HasPrefix(o, "--- SKIP") {
			continue
		}
		if file, msg, ok := strings.Cut(o, ": "); ok && strings.Contains(file, ".go:") && !strings.Contains(file, " ") {
			o = msg
		}
		msgs = append(msgs, o)
	}
	if len(msgs) == 0 {
		return "no reason given"
	}
	return strings.Join(msgs, " ")
}

// counts holds the totals of one group of tests.
type counts struct{ passed, failed, skipped int }

func (c *counts) add(r result) {
	switch r {
	case passed:
		c.passed++
	case failed, unfinished:
		c.failed++
	case skipped:
		c.skipped++
	}
}

func (c counts) String() string {
	return fmt.Sprintf("%d passed, %d failed, %d skipped", c.passed, c.failed, c.skipped)
}

// isAcceptance reports whether a test drives the Terraform CLI: by the
// convention of terraform-plugin-testing, its name starts with TestAcc.
func isAcceptance(test string) bool { return strings.HasPrefix(test, "TestAcc") }

// ok reports whether every test and package passed or skipped.
func (s *summary) ok() bool {
	if len(s.failedPkgs) > 0 {
		return false
	}
	for _, r := range s.results {
		if r == failed || r == unfinished {
			return false
		}
	}
	return true
}

// report prints the closing summary. Its last line is exactly
// "N passed, N failed, N skipped", for people and scripts alike.
func (s *summary) report() {
	var acc, unit, all counts
	keys := make([]testKey, 0, len(s.results))
	for k, r := range s.results {
		keys = append(keys, k)
		all.add(r)
		if isAcceptance(k.test) {
			acc.add(r)
		} else {
			unit.add(r)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].pkg != keys[j].pkg {
			return keys[i].pkg < keys[j].pkg
		}
		return keys[i].test < keys[j].test
	})

	fmt.Fprintln(s.w)
	fmt.Fprintln(s.w, "Test summary (top-level tests; subtests count toward their parent):")
	fmt.Fprintf(s.w, "  acceptance tests (TestAcc*): %s\n", acc)
	fmt.Fprintf(s.w, "  unit tests:                  %s\n", unit)

	s.printGroup(keys, failed, "Failed:")
	s.printGroup(keys, unfinished, "Did not finish, counted as failed (their package's process ended first: a panic, timeout or os.Exit; see above):")
	s.printSkips(keys)
	if len(s.failedPkgs) > 0 {
		fmt.Fprintln(s.w, "  Packages that failed outside any test (build error, TestMain, panic or timeout; see above):")
		for _, p := range s.failedPkgs {
			fmt.Fprintf(s.w, "    %s\n", p)
		}
	}
	fmt.Fprintln(s.w, all)
}

// printGroup lists the tests with one result, each package's on one line
// when there are many (a crashed package can leave dozens unfinished).
func (s *summary) printGroup(keys []testKey, want result, title string) {
	var pkgs []string
	byPkg := map[string][]string{}
	for _, k := range keys {
		if s.results[k] != want {
			continue
		}
		if _, seen := byPkg[k.pkg]; !seen {
			pkgs = append(pkgs, k.pkg)
		}
		byPkg[k.pkg] = append(byPkg[k.pkg], k.test)
	}
	if len(pkgs) == 0 {
		return
	}
	fmt.Fprintf(s.w, "  %s\n", title)
	for _, p := range pkgs {
		tests := byPkg[p]
		if len(tests) > 10 {
			fmt.Fprintf(s.w, "    %d tests in %s: %s, ...\n", len(tests), p, strings.Join(tests[:5], ", "))
			continue
		}
		for _, t := range tests {
			fmt.Fprintf(s.w, "    %s (%s)\n", t, p)
		}
	}
}

// printSkips groups skipped tests by reason: without TF_ACC every acceptance
// test skips for the same one, which is worth one line, not forty.
func (s *summary) printSkips(keys []testKey) {
	var reasons []string
	byReason := map[string][]string{}
	for _, k := range keys {
		if s.results[k] != skipped {
			continue
		}
		r := s.reasons[k]
		if _, seen := byReason[r]; !seen {
			reasons = append(reasons, r)
		}
		byReason[r] = append(byReason[r], k.test)
	}
	if len(reasons) == 0 {
		return
	}
	fmt.Fprintln(s.w, "  Skipped:")
	for _, r := range reasons {
		tests := byReason[r]
		if len(tests) > 5 {
			fmt.Fprintf(s.w, "    %d tests: %s\n", len(tests), r)
			continue
		}
		fmt.Fprintf(s.w, "    %s: %s\n", strings.Join(tests, ", "), r)
	}
}

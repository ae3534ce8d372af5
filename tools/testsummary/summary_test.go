package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// stream turns events into `go test -json` lines.
func stream(t *testing.T, events ...map[string]string) []string {
	t.Helper()
	lines := make([]string, 0, len(events))
	for _, e := range events {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	return lines
}

func ev(action, pkg, test, output string) map[string]string {
	e := map[string]string{"Action": action, "Package": pkg}
	if test != "" {
		e["Test"] = test
	}
	if output != "" {
		e["Output"] = output
	}
	return e
}

func summarise(lines []string) (string, bool) {
	var buf bytes.Buffer
	s := newSummary(&buf)
	for _, l := range lines {
		s.line([]byte(l))
	}
	s.report()
	return buf.String(), s.ok()
}

func lastLine(out string) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	return lines[len(lines)-1]
}

const pkg = "example.com/p"

func TestSummaryCountsAcceptanceAndUnitTestsApart(t *testing.T) {
	lines := stream(t,
		ev("start", pkg, "", ""),
		ev("run", pkg, "TestUnit", ""),
		ev("output", pkg, "TestUnit", "=== RUN   TestUnit\n"),
		ev("run", pkg, "TestUnit/sub", ""),
		ev("pass", pkg, "TestUnit/sub", ""),
		ev("pass", pkg, "TestUnit", ""),
		ev("run", pkg, "TestAccA", ""),
		ev("pass", pkg, "TestAccA", ""),
		ev("run", pkg, "TestAccOld", ""),
		ev("output", pkg, "TestAccOld", "=== RUN   TestAccOld\n"),
		ev("output", pkg, "TestAccOld", "    video_test.go:331: Terraform CLI version 1.0.11 is below minimum version 1.5.0: skipping test\n"),
		ev("output", pkg, "TestAccOld", "--- SKIP: TestAccOld (0.01s)\n"),
		ev("skip", pkg, "TestAccOld", ""),
		ev("output", pkg, "", "PASS\n"),
		ev("output", pkg, "", "ok  \texample.com/p\t0.1s\n"),
		ev("pass", pkg, "", ""),
	)
	out, ok := summarise(lines)
	if !ok {
		t.Fatalf("a passing run reported as failed:\n%s", out)
	}
	for _, want := range []string{
		"ok  \texample.com/p\t0.1s\n",
		"acceptance tests (TestAcc*): 1 passed, 0 failed, 1 skipped",
		"unit tests:                  1 passed, 0 failed, 0 skipped",
		"TestAccOld: Terraform CLI version 1.0.11 is below minimum version 1.5.0: skipping test",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "=== RUN") || strings.Contains(out, "PASS\n") {
		t.Errorf("a passing run printed verbose output:\n%s", out)
	}
	if got, want := lastLine(out), "2 passed, 0 failed, 1 skipped"; got != want {
		t.Errorf("last line %q, want %q", got, want)
	}
}

func TestSummaryPrintsFailures(t *testing.T) {
	lines := stream(t,
		ev("run", pkg, "TestAccBroken", ""),
		ev("output", pkg, "TestAccBroken", "=== RUN   TestAccBroken\n"),
		ev("output", pkg, "TestAccBroken", "    x_test.go:10: the refresh plan was not empty\n"),
		ev("output", pkg, "TestAccBroken", "--- FAIL: TestAccBroken (1.00s)\n"),
		ev("fail", pkg, "TestAccBroken", ""),
		ev("run", pkg, "TestFine", ""),
		ev("output", pkg, "TestFine", "    y_test.go:3: chatter\n"),
		ev("pass", pkg, "TestFine", ""),
		ev("output", pkg, "", "FAIL\n"),
		ev("output", pkg, "", "FAIL\texample.com/p\t1.2s\n"),
		ev("fail", pkg, "", ""),
	)
	out, ok := summarise(lines)
	if ok {
		t.Fatalf("a failing run reported as passed:\n%s", out)
	}
	for _, want := range []string{"the refresh plan was not empty", "--- FAIL: TestAccBroken", "FAIL\texample.com/p", "Failed:\n    TestAccBroken (example.com/p)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "chatter") {
		t.Errorf("a passing test's output was printed:\n%s", out)
	}
	if got, want := lastLine(out), "1 passed, 1 failed, 0 skipped"; got != want {
		t.Errorf("last line %q, want %q", got, want)
	}
}

// A timeout ends the package with a test still running: it counts as failed
// but is listed apart, and the package is named, its failure being its own.
// A package failing with no test at all (a build error, TestMain) fails the
// run too.
func TestSummaryCountsUnfinishedTestsAndPackageFailures(t *testing.T) {
	lines := stream(t,
		ev("run", pkg, "TestHangs", ""),
		ev("output", pkg, "TestHangs", "panic: test timed out after 30m0s\n"),
		ev("output", pkg, "", "FAIL\texample.com/p\t1800.0s\n"),
		ev("fail", pkg, "", ""),
		ev("output", "example.com/q", "", "CI is set but TF_ACC is not\n"),
		ev("output", "example.com/q", "", "FAIL\texample.com/q\t0.0s\n"),
		ev("fail", "example.com/q", "", ""),
	)
	out, ok := summarise(lines)
	if ok {
		t.Fatalf("a failing run reported as passed:\n%s", out)
	}
	for _, want := range []string{
		"panic: test timed out", "CI is set but TF_ACC is not",
		"Did not finish, counted as failed", "    TestHangs (example.com/p)\n",
		"outside any test", "    example.com/p\n", "    example.com/q\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "  Failed:") {
		t.Errorf("an unfinished test is listed as failed:\n%s", out)
	}
	if got, want := lastLine(out), "0 passed, 1 failed, 0 skipped"; got != want {
		t.Errorf("last line %q, want %q", got, want)
	}
}

// A panic in one test ends its package while parallel tests wait: the panic
// is the failure, the waiting tests did not finish, and the package is not
// reported as failing outside its tests.
func TestSummaryPanicLeavesPausedTestsUnfinished(t *testing.T) {
	events := []map[string]string{
		ev("run", pkg, "TestPanics", ""),
		ev("output", pkg, "TestPanics", "panic: runtime error: index out of range [0] with length 0\n"),
		ev("output", pkg, "TestPanics", "--- FAIL: TestPanics (0.00s)\n"),
		ev("fail", pkg, "TestPanics", ""),
	}
	for _, name := range []string{"TestW1", "TestW2", "TestW3", "TestW4", "TestW5", "TestW6", "TestW7", "TestW8", "TestW9", "TestW10", "TestW11"} {
		events = append(events, ev("run", pkg, name, ""), ev("output", pkg, name, "=== PAUSE "+name+"\n"))
	}
	events = append(events, ev("output", pkg, "", "FAIL\texample.com/p\t0.1s\n"), ev("fail", pkg, "", ""))
	out, ok := summarise(stream(t, events...))
	if ok {
		t.Fatalf("a failing run reported as passed:\n%s", out)
	}
	for _, want := range []string{"Failed:\n    TestPanics (example.com/p)\n", "    11 tests in example.com/p: TestW1, TestW10, TestW11, TestW2, TestW3, ...\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "outside any test") {
		t.Errorf("a package whose failure is a failed test is listed as failing outside tests:\n%s", out)
	}
	if got, want := lastLine(out), "0 passed, 12 failed, 0 skipped"; got != want {
		t.Errorf("last line %q, want %q", got, want)
	}
}

func TestSummaryGroupsSkipsByReason(t *testing.T) {
	var events []map[string]string
	for _, name := range []string{"TestAccA", "TestAccB", "TestAccC", "TestAccD", "TestAccE", "TestAccF"} {
		events = append(events,
			ev("run", pkg, name, ""),
			ev("output", pkg, name, "    helper.go:12: Acceptance tests skipped unless env 'TF_ACC' set\n"),
			ev("output", pkg, name, "--- SKIP: "+name+" (0.00s)\n"),
			ev("skip", pkg, name, ""),
		)
	}
	out, _ := summarise(stream(t, events...))
	if !strings.Contains(out, "    6 tests: Acceptance tests skipped unless env 'TF_ACC' set\n") {
		t.Errorf("skips not grouped:\n%s", out)
	}
}

func TestSummaryPassesOtherLinesThrough(t *testing.T) {
	out, ok := summarise([]string{"# example.com/p", "p.go:3:1: syntax error"})
	if !strings.Contains(out, "p.go:3:1: syntax error\n") {
		t.Errorf("non-JSON line dropped:\n%s", out)
	}
	if !ok {
		t.Errorf("stray lines alone must not fail the run; go test's exit status does")
	}
}

func TestRunReturnsTheCommandsFailure(t *testing.T) {
	var buf bytes.Buffer
	if got := run("sh", []string{"-c", "exit 3"}, &buf); got != 3 {
		t.Fatalf("exit status %d, want 3", got)
	}
	if got, want := lastLine(buf.String()), "0 passed, 0 failed, 0 skipped"; got != want {
		t.Fatalf("last line %q, want %q", got, want)
	}
	buf.Reset()
	line := `{"Action":"fail","Package":"p","Test":"TestX"}`
	if got := run("sh", []string{"-c", "echo '" + line + "'"}, &buf); got != 1 {
		t.Fatalf("exit status %d for a failed test with a zero exit, want 1", got)
	}
}

func TestSummaryReportsProgressOfALongPackage(t *testing.T) {
	var buf bytes.Buffer
	s := newSummary(&buf)
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return clock }
	s.lastLine = clock
	feed := func(events ...map[string]string) {
		for _, l := range stream(t, events...) {
			s.line([]byte(l))
		}
	}

	feed(ev("run", pkg, "TestAccA", ""), ev("run", pkg, "TestAccB", ""), ev("run", pkg, "TestAccC", ""),
		ev("pass", pkg, "TestAccA", ""))
	if strings.Contains(buf.String(), "...") {
		t.Fatalf("progress printed before %s passed:\n%s", progressEvery, buf.String())
	}
	clock = clock.Add(progressEvery)
	feed(ev("pass", pkg, "TestAccB", ""))
	want := "... " + pkg + ": 2 tests finished, 1 running\n"
	if buf.String() != want {
		t.Fatalf("output = %q, want %q", buf.String(), want)
	}
	clock = clock.Add(time.Second)
	feed(ev("pass", pkg, "TestAccC", ""))
	if strings.Count(buf.String(), "...") != 1 {
		t.Fatalf("a second progress line within %s:\n%s", progressEvery, buf.String())
	}
	clock = clock.Add(progressEvery)
	feed(ev("output", pkg, "", "ok  \t"+pkg+"\t60.0s\n"), ev("pass", pkg, "", ""),
		ev("run", "example.com/q", "TestX", ""), ev("pass", "example.com/q", "TestX", ""))
	if strings.Count(buf.String(), "...") != 1 {
		t.Fatalf("progress printed right after a package line:\n%s", buf.String())
	}
}

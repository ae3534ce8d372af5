// Command testsummary runs `go test -json` and prints what plain `go test`
// prints, with a progress line when a package has run for a while without
// one (how many of its tests finished and how many run), then a closing
// summary: top-level tests passed, failed and skipped,
// acceptance tests (TestAcc*) and unit tests counted apart, skip reasons, and
// a last line of exactly the form "N passed, N failed, N skipped". It exits
// non-zero when the command does or any test failed.
//
// Usage: go run ./tools/testsummary go test -json ./...
package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: testsummary go test -json [packages] [flags]")
		os.Exit(2)
	}
	os.Exit(run(os.Args[1], os.Args[2:], os.Stdout))
}

// run starts the command, summarises its standard output and returns the
// exit status to use.
func run(name string, args []string, w io.Writer) int {
	// Interrupts are passed on below rather than through a context, so that
	// go test can report what it was running before it exits.
	cmd := exec.CommandContext(context.Background(), name, args...) //nolint:gosec // running the given command is this tool's purpose
	cmd.Stdin = os.Stdin
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		return 2
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		return 2
	}
	// An interrupt is passed on to go test, which then reports what it was
	// running; this process stays to print the summary of what finished.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		for sig := range sigs {
			_ = cmd.Process.Signal(sig)
		}
	}()

	s := newSummary(w)
	r := bufio.NewReaderSize(stdout, 1<<20)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			if line[len(line)-1] == '\n' {
				line = line[:len(line)-1]
			}
			s.line(line)
		}
		if err != nil {
			break
		}
	}
	waitErr := cmd.Wait()
	s.report()

	var exit *exec.ExitError
	switch {
	case errors.As(waitErr, &exit):
		return max(exit.ExitCode(), 1)
	case waitErr != nil:
		fmt.Fprintln(os.Stderr, "testsummary:", waitErr)
		return 2
	case !s.ok():
		return 1
	}
	return 0
}

// Command crosscheck type-checks packages, their tests and every dependency
// from source for the platform GOOS and GOARCH name, and prints each error
// the Go compiler would report there: `make lint` runs it for Windows, which
// the release builds for and no test runs on.
//
// It compiles nothing. `GOOS=windows go vet` did the same check by compiling
// the whole dependency tree (the AWS SDK, gocloud, grpc, genai) for Windows,
// a build configuration nothing else uses: on a cold cache that was about ten
// minutes of a CI run on two cores. Type-checking from source finds what
// breaks a build on the other platform (a missing function, a build-tagged
// file left out, a type that differs) at a fraction of that; vet's own
// analyzers run in golangci-lint for the platform the tests run on.
//
// Usage: GOOS=windows go run ./tools/crosscheck ./...
package main

import (
	"fmt"
	"os"
	"runtime"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: GOOS=windows crosscheck packages...")
		os.Exit(2)
	}
	n, err := check(os.Args[1:], os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "crosscheck:", err)
		os.Exit(1)
	}
	if n > 0 {
		fmt.Fprintf(os.Stderr, "crosscheck: %d error(s) for %s/%s\n", n, platform("GOOS", runtime.GOOS), platform("GOARCH", runtime.GOARCH))
		os.Exit(1)
	}
}

// platform is the environment's name (GOOS or GOARCH), or this machine's
// when it is not set, as go list takes it.
func platform(name, here string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return here
}

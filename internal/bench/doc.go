// Package bench is `make bench` (issue 6): it measures the provider, through
// the real Terraform CLI, against a hand-written polling script on the offline
// mock of the service (cmd/videogen-mock), and writes BENCHMARKS.md and a JSON
// file with every figure. The command is internal/bench/cmd/videogen-bench.
//
// The toolkit (Env) builds the provider and the mock into a temporary
// directory, writes a Terraform CLI configuration whose dev_overrides point at
// that build, starts mocks with any flags, runs Terraform with -json and times
// it, and samples the peak RSS of the provider process from /proc. Every child
// runs in its own process group and the harness is a child subreaper, so that
// Close leaves no process behind. Runner holds the cases; stats.go the
// arithmetic, which has unit tests. Nothing here runs in `make test` except
// those unit tests: benchmarks are never timed assertions.
package bench

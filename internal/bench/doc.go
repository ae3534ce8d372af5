// Package bench is `make bench`: it applies clips through the real Terraform
// CLI against the in-process mock of the service, with the provider, with a
// hand-written curl + sleep 5 script (the peer, peer/peer.sh) and, as Terraform's
// own floor, with as many terraform_data resources (for the big apply also as
// many videogen_video of a provider that does no work, noop/), and writes the
// figures: a Markdown table, a JSON file with every sample, and a plot of
// detection latency against GETs per clip. The command is internal/bench/cmd/videogen-bench.
//
// The CLI, the provider build and its installation come from the acceptance
// tests' harness (internal/acctest), which runs Terraform through
// terraform-exec. stats.go holds the arithmetic, which has unit tests; nothing
// else here runs in `make test`: benchmarks are never timed assertions.
package bench

// Package e2e holds the end-to-end pipeline test: examples/pipeline applied
// from several fresh working directories ("runners") that share their state
// in a real PostgreSQL server through Terraform's pg backend, against the
// mock API. It runs only with VIDEOGEN_E2E=1, as `make e2e` sets, and only on
// Linux, where it can install and run PostgreSQL itself.
package e2e

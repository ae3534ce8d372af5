//go:build !linux

package bench

// becomeSubreaper is Linux-only; elsewhere orphans are found only while their
// parent lives. The harness as a whole needs Linux's /proc.
func becomeSubreaper() {}

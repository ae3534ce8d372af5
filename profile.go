package main

import (
	"fmt"
	"log"
	"os"
	"runtime/pprof"
)

// cpuProfileEnv names a path prefix: when it is set, the provider profiles its
// CPU for its whole life into the prefix followed by "." and its process ID,
// since Terraform starts the provider more than once in one run (validate,
// plan and apply each start their own). `make bench` sets it to see where a
// large apply's time goes; unset, nothing is profiled.
const cpuProfileEnv = "VIDEOGEN_CPUPROFILE"

// startCPUProfile starts the profile when prefix is not empty and returns the
// function that ends it and closes the file. A profile that cannot be started
// is logged and never stops the provider.
func startCPUProfile(prefix string) (stop func()) {
	stop = func() {}
	if prefix == "" {
		return stop
	}
	f, err := os.Create(fmt.Sprintf("%s.%d", prefix, os.Getpid())) //nolint:gosec // G304: a path the user chose for a profile
	if err != nil {
		log.Printf("%s: no CPU profile: %v", cpuProfileEnv, err)
		return stop
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		log.Printf("%s: no CPU profile: %v", cpuProfileEnv, err)
		_ = f.Close()
		return stop
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	}
}

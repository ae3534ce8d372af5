package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"testing"
)

func TestSilenceDroppedLogs(t *testing.T) {
	for _, tc := range []struct {
		name   string
		env    map[string]string
		silent bool
	}{
		{"no TF_LOG variable", nil, true},
		{"Terraform's own log only", map[string]string{"TF_LOG_CORE": "TRACE", "TF_LOG_PATH": "tf.log"}, true},
		{"an empty TF_LOG", map[string]string{"TF_LOG": ""}, true},
		{"TF_LOG", map[string]string{"TF_LOG": "TRACE"}, false},
		{"TF_LOG_PROVIDER", map[string]string{"TF_LOG_PROVIDER": "DEBUG"}, false},
		{"this provider's variable", map[string]string{"TF_LOG_PROVIDER_VIDEOGEN": "INFO"}, false},
		{"an SDK variable", map[string]string{"TF_LOG_SDK_FRAMEWORK": "TRACE"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// t.Setenv then Unsetenv: the variable is restored after the test.
			for _, name := range append(pluginLogLevels, "TF_LOG", "TF_LOG_CORE", "TF_LOG_PATH", "TF_LOG_PROVIDER_VIDEOGEN") {
				t.Setenv(name, "")
				_ = os.Unsetenv(name)
			}
			for name, value := range tc.env {
				t.Setenv(name, value)
			}
			silenceDroppedLogs()
			for _, name := range pluginLogLevels {
				got, want := os.Getenv(name), tc.env[name]
				if tc.silent {
					want = "off"
				}
				if got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
		})
	}
}

func TestStartCPUProfile(t *testing.T) {
	dir := t.TempDir()
	startCPUProfile("")()
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Fatalf("an empty prefix wrote %d files", len(files))
	}
	// An unset variable leaves the profiler free: starting it must succeed.
	if err := pprof.StartCPUProfile(io.Discard); err != nil {
		t.Fatalf("the profiler is taken without a prefix: %v", err)
	}
	pprof.StopCPUProfile()

	prefix := filepath.Join(dir, "cpu")
	stop := startCPUProfile(prefix)
	if err := pprof.StartCPUProfile(io.Discard); err == nil {
		pprof.StopCPUProfile()
		t.Fatal("the profiler is not running with a prefix")
	}
	stop()
	data, err := os.ReadFile(fmt.Sprintf("%s.%d", prefix, os.Getpid()))
	if err != nil {
		t.Fatal(err)
	}
	// A profile is gzip-compressed protocol buffers.
	if len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
		t.Fatalf("the profile is not gzip data: % x", data[:min(len(data), 8)])
	}

	// A directory that does not exist gives no profile and no failure.
	startCPUProfile(filepath.Join(dir, "missing", "cpu"))()
}

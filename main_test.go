package main

import (
	"os"
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

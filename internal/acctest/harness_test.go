package acctest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestFirstChangelogVersion(t *testing.T) {
	cases := []struct {
		name, text, want string
	}{
		{name: "unreleased", text: "## 0.1.0 (Unreleased)\n\nNOTES:\n", want: "0.1.0"},
		{name: "first of several", text: "# Changelog\n\n## 1.2.3 (May 1, 2027)\n\n## 1.2.2\n", want: "1.2.3"},
		{name: "v prefix", text: "## v2.0.0\n", want: "2.0.0"},
		{name: "deeper headings skipped", text: "### 9.9.9\n## 0.3.1\n", want: "0.3.1"},
		{name: "none", text: "# Changelog\n\nNothing yet.\n"},
		{name: "not a version", text: "## Unreleased\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := firstChangelogVersion(strings.NewReader(tc.text), "CHANGELOG.md")
			if tc.want == "" {
				if err == nil {
					t.Fatalf("want an error, got %q", got)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// The layout is what Terraform and OpenTofu read from an unpacked filesystem
// mirror: HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/terraform-provider-TYPE_vVERSION.
func TestPluginLayout(t *testing.T) {
	got := filepath.ToSlash(filepath.Join(PluginDir(OpenTofuRegistryHost, "0.1.0"), PluginFile("0.1.0")))
	want := "registry.opentofu.org/videogen/videogen/0.1.0/" + runtime.GOOS + "_" + runtime.GOARCH + "/terraform-provider-videogen_v0.1.0"
	if runtime.GOOS == "windows" {
		want += ".exe"
	}
	if got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

func TestCLIConfig(t *testing.T) {
	cfg := cliConfig("/tmp/m")
	for _, want := range []string{
		`path    = "/tmp/m"`,
		`"registry.terraform.io/videogen/videogen"`,
		`"registry.opentofu.org/videogen/videogen"`,
	} {
		if !strings.Contains(cfg, want) {
			t.Errorf("the CLI configuration lacks %s:\n%s", want, cfg)
		}
	}
	// dev_overrides print a warning on every command; direct would download.
	for _, unwanted := range []string{"dev_overrides", "direct"} {
		if strings.Contains(cfg, unwanted) {
			t.Errorf("the CLI configuration has %s:\n%s", unwanted, cfg)
		}
	}
}

func TestEnv(t *testing.T) {
	t.Setenv("VIDEOGEN_API_KEY", "a-real-key")
	t.Setenv("VIDEOGEN_BASE_URL", "https://real.example.com")
	t.Setenv("TF_LOG", "TRACE")
	t.Setenv("TF_VAR_prompt", "x")
	t.Setenv("TF_CLI_ARGS_apply", "-parallelism=1")
	t.Setenv("TF_DATA_DIR", "/elsewhere")
	t.Setenv("TF_CLI_CONFIG_FILE", "/home/me/.terraformrc")
	t.Setenv("CHECKPOINT_DISABLE", "")
	t.Setenv("HARNESS_TEST_KEPT", "yes")
	env := (&Harness{CLIConfig: "/tmp/h/terraformrc"}).Env()
	for _, k := range []string{"VIDEOGEN_API_KEY", "VIDEOGEN_BASE_URL", "TF_LOG", "TF_VAR_prompt", "TF_CLI_ARGS_apply", "TF_DATA_DIR"} {
		if v, ok := env[k]; ok {
			t.Errorf("%s=%s reaches the CLI", k, v)
		}
	}
	want := map[string]string{"TF_CLI_CONFIG_FILE": "/tmp/h/terraformrc", "CHECKPOINT_DISABLE": "1", "HARNESS_TEST_KEPT": "yes"}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("%s = %q, want %q", k, env[k], v)
		}
	}
}

// TestMain removes the provider build that the acceptance tests share.
func TestMain(m *testing.M) {
	code := m.Run()
	if err := Teardown(); err != nil {
		fmt.Fprintln(os.Stderr, "acctest:", err)
	}
	os.Exit(code)
}

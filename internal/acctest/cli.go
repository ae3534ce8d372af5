package acctest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Registry hosts that a provider source address without a host (such as
// "videogen/videogen") means: each CLI fills in its own registry.
const (
	TerraformRegistryHost = "registry.terraform.io"
	OpenTofuRegistryHost  = "registry.opentofu.org"
)

// Environment variables of terraform-plugin-testing that CLI configuration reads
// or sets. TF_ACC_TERRAFORM_VERSION is read only to leave it alone: it asks
// terraform-plugin-testing to download that Terraform release itself.
const (
	envAcc              = "TF_ACC"
	envAccTerraformPath = "TF_ACC_TERRAFORM_PATH"
	envAccTerraformVer  = "TF_ACC_TERRAFORM_VERSION"
	envAccProviderHost  = "TF_ACC_PROVIDER_HOST"
)

// cliProbeTimeout bounds `-version`: a CLI that hangs there is broken, and the
// acceptance tests must not hang with it.
const cliProbeTimeout = 30 * time.Second

// CLI is the Terraform-compatible command-line tool that runs the acceptance
// tests, the demo and the pipeline test: Terraform or OpenTofu.
type CLI struct {
	// Path is the absolute path of the executable.
	Path string
	// Product is the name the CLI gives itself: "Terraform" or "OpenTofu".
	Product string
	// Version is the version it reports, without the leading "v" ("1.10.10").
	Version string
}

// IsOpenTofu reports whether the CLI is OpenTofu.
func (c CLI) IsOpenTofu() bool { return c.Product == "OpenTofu" }

// ProviderHost is the registry host the CLI puts in front of a source address
// that has none. A local mirror, the reattach addresses of terraform-plugin-testing
// and any full provider address the tests write must use it, or the CLI looks
// for the provider somewhere else.
func (c CLI) ProviderHost() string {
	if c.IsOpenTofu() {
		return OpenTofuRegistryHost
	}
	return TerraformRegistryHost
}

// ProviderAddress is the full address the CLI resolves the source
// "namespace/name" to, such as registry.opentofu.org/videogen/videogen.
func (c CLI) ProviderAddress(namespace, name string) string {
	return c.ProviderHost() + "/" + namespace + "/" + name
}

func (c CLI) String() string { return c.Product + " " + c.Version + " (" + c.Path + ")" }

// DetectCLI runs `path -version` and reads which CLI it is from the first line,
// "Terraform v1.5.7" or "OpenTofu v1.10.10": both CLIs have printed it this way
// since Terraform 0.x, unlike `version -json`, whose keys OpenTofu kept from
// Terraform and which therefore cannot tell them apart.
func DetectCLI(ctx context.Context, path string) (CLI, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return CLI{}, fmt.Errorf("resolving the CLI path %q: %w", path, err)
	}
	ctx, cancel := context.WithTimeout(ctx, cliProbeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, abs, "-version") //nolint:gosec // running the CLI the caller named is the point
	// Terraform would otherwise ask checkpoint.hashicorp.com whether it is
	// outdated: a network call, and extra lines in the output.
	cmd.Env = append(os.Environ(), "CHECKPOINT_DISABLE=1")
	out, err := cmd.Output()
	if err != nil {
		return CLI{}, fmt.Errorf("running %s -version: %w", abs, err)
	}
	return parseCLIVersion(abs, string(out))
}

func parseCLIVersion(path, out string) (CLI, error) {
	// OpenTofu 1.12 prints its warnings about the CLI configuration (a
	// TF_CLI_CONFIG_FILE that names a missing file) on stdout before the
	// version line, so the first line that reads like one is taken.
	var first string
	for line := range strings.Lines(strings.TrimSpace(out)) {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if first == "" {
			first = strings.TrimSpace(line)
		}
		if len(fields) < 2 || !strings.HasPrefix(fields[1], "v") {
			continue
		}
		switch fields[0] {
		case "Terraform", "OpenTofu":
			return CLI{Path: path, Product: fields[0], Version: strings.TrimPrefix(fields[1], "v")}, nil
		}
	}
	return CLI{}, fmt.Errorf("%s -version printed %q, not \"Terraform vX.Y.Z\" or \"OpenTofu vX.Y.Z\": neither Terraform nor OpenTofu", path, first)
}

// FindCLI finds the CLI the acceptance tests run, as terraform-plugin-testing
// would, except that it never downloads one: TF_ACC_TERRAFORM_PATH when it is
// set, otherwise "terraform" on PATH.
func FindCLI(ctx context.Context) (CLI, error) {
	path := os.Getenv(envAccTerraformPath)
	if path == "" {
		found, err := exec.LookPath("terraform")
		if err != nil {
			return CLI{}, fmt.Errorf("no Terraform CLI: %s is not set and there is no terraform on PATH; "+
				"install Terraform 1.0 or later or OpenTofu, or set %s to its path: %w", envAccTerraformPath, envAccTerraformPath, err)
		}
		path = found
	}
	return DetectCLI(ctx, path)
}

// ConfigureCLI prepares terraform-plugin-testing for the CLI that FindCLI finds:
// it sets TF_ACC_TERRAFORM_PATH to that binary, so that terraform-plugin-testing
// never falls back to downloading the latest Terraform, and for OpenTofu it sets
// TF_ACC_PROVIDER_HOST to OpenTofu's registry. Without that, the provider under
// test is served under registry.terraform.io with the legacy namespace "-",
// which OpenTofu refuses at init ("The legacy provider namespace "-" can be used
// only with hostname registry.opentofu.org"), and a configuration's bare
// `provider "videogen"` would not match it. Variables the caller set are kept.
//
// It does nothing unless TF_ACC is set, so unit tests need no CLI, and nothing
// when TF_ACC_TERRAFORM_VERSION alone is set (the caller asked
// terraform-plugin-testing to install that Terraform release).
func ConfigureCLI(ctx context.Context) (*CLI, error) {
	if os.Getenv(envAcc) == "" {
		return nil, nil
	}
	if os.Getenv(envAccTerraformPath) == "" && os.Getenv(envAccTerraformVer) != "" {
		return nil, nil
	}
	cli, err := FindCLI(ctx)
	if err != nil {
		return nil, err
	}
	if err := os.Setenv(envAccTerraformPath, cli.Path); err != nil {
		return nil, fmt.Errorf("setting %s: %w", envAccTerraformPath, err)
	}
	if os.Getenv(envAccProviderHost) == "" && cli.IsOpenTofu() {
		if err := os.Setenv(envAccProviderHost, cli.ProviderHost()); err != nil {
			return nil, fmt.Errorf("setting %s: %w", envAccProviderHost, err)
		}
	}
	return &cli, nil
}

// SetupCLI is ConfigureCLI for a TestMain: it exits the test binary with status
// 1 when no usable CLI is found, since every acceptance test would then fail
// the same way.
func SetupCLI() {
	if _, err := ConfigureCLI(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "acceptance tests:", err)
		os.Exit(1)
	}
}

package acctest

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestParseCLIVersion(t *testing.T) {
	cases := []struct {
		name, out    string
		product, ver string
		host         string
		wantErr      bool
	}{
		{name: "terraform 1.0", out: "Terraform v1.0.11\non linux_amd64\n", product: "Terraform", ver: "1.0.11", host: TerraformRegistryHost},
		{name: "terraform with providers", out: "Terraform v1.11.4\non linux_amd64\n+ provider registry.terraform.io/videogen/videogen v0.1.0\n", product: "Terraform", ver: "1.11.4", host: TerraformRegistryHost},
		{name: "opentofu", out: "OpenTofu v1.10.10\non linux_amd64\n", product: "OpenTofu", ver: "1.10.10", host: OpenTofuRegistryHost},
		{name: "dev build", out: "Terraform v1.5.7-dev\non linux_amd64\n", product: "Terraform", ver: "1.5.7-dev", host: TerraformRegistryHost},
		{name: "opentofu after a config warning", out: "\nWarning: Unable to open CLI configuration file\n\nThe CLI configuration file at \"/x\" does not exist.\nOpenTofu v1.12.6\non linux_amd64\n", product: "OpenTofu", ver: "1.12.6", host: OpenTofuRegistryHost},
		{name: "other program", out: "Packer v1.9.0\n", wantErr: true},
		{name: "no version", out: "usage: terraform [-version]\n", wantErr: true},
		{name: "empty", out: "", wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cli, err := parseCLIVersion("/bin/x", tc.out)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("want an error, got %+v", cli)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cli.Product != tc.product || cli.Version != tc.ver || cli.ProviderHost() != tc.host {
				t.Fatalf("got %s %s host %s, want %s %s host %s", cli.Product, cli.Version, cli.ProviderHost(), tc.product, tc.ver, tc.host)
			}
		})
	}
}

// fakeCLI writes an executable that prints out for `-version`.
func fakeCLI(t *testing.T, out string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake CLI is a shell script")
	}
	path := filepath.Join(t.TempDir(), "tf")
	script := "#!/bin/sh\n[ \"$1\" = -version ] || exit 2\nprintf '%s' '" + out + "'\n"
	if err := os.WriteFile(path, []byte(script), 0o700); err != nil { //nolint:gosec // an executable is the point
		t.Fatal(err)
	}
	return path
}

func TestConfigureCLI(t *testing.T) {
	tofu := "OpenTofu v1.10.10\non linux_amd64\n"
	terraform := "Terraform v1.5.7\non linux_amd64\n"
	cases := []struct {
		name        string
		acc         string
		out         string
		presetHost  string
		wantCLI     bool
		wantHost    string
		wantProduct string
		wantVersion string
	}{
		{name: "opentofu sets the provider host", acc: "1", out: tofu, wantCLI: true, wantHost: OpenTofuRegistryHost, wantProduct: "OpenTofu", wantVersion: "1.10.10"},
		{name: "terraform leaves the default host", acc: "1", out: terraform, wantCLI: true, wantHost: "", wantProduct: "Terraform", wantVersion: "1.5.7"},
		{name: "a host the caller set is kept", acc: "1", out: tofu, presetHost: "example.com", wantCLI: true, wantHost: "example.com", wantProduct: "OpenTofu", wantVersion: "1.10.10"},
		{name: "without TF_ACC nothing is probed", acc: "", out: tofu, wantCLI: false, wantHost: ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := fakeCLI(t, tc.out)
			t.Setenv(envAcc, tc.acc)
			t.Setenv(envAccTerraformPath, path)
			t.Setenv(envAccTerraformVer, "")
			t.Setenv(envAccProviderHost, tc.presetHost)
			cli, err := ConfigureCLI(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if (cli != nil) != tc.wantCLI {
				t.Fatalf("ConfigureCLI returned %v, want a CLI: %v", cli, tc.wantCLI)
			}
			if cli != nil && (cli.Product != tc.wantProduct || cli.Version != tc.wantVersion || cli.Path != path) {
				t.Fatalf("got %s, want %s %s (%s)", cli, tc.wantProduct, tc.wantVersion, path)
			}
			if got := os.Getenv(envAccProviderHost); got != tc.wantHost {
				t.Fatalf("%s = %q, want %q", envAccProviderHost, got, tc.wantHost)
			}
		})
	}
}

func TestConfigureCLIFindsTerraformOnPath(t *testing.T) {
	path := fakeCLI(t, "Terraform v1.0.11\non linux_amd64\n")
	dir := filepath.Dir(path)
	if err := os.Rename(path, filepath.Join(dir, "terraform")); err != nil {
		t.Fatal(err)
	}
	t.Setenv(envAcc, "1")
	t.Setenv(envAccTerraformPath, "")
	t.Setenv(envAccTerraformVer, "")
	t.Setenv("PATH", dir)
	cli, err := ConfigureCLI(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "terraform")
	if cli == nil || cli.Version != "1.0.11" || cli.Path != want {
		t.Fatalf("got %v, want Terraform 1.0.11 at %s", cli, want)
	}
	// terraform-plugin-testing must run exactly this binary, never download one.
	if got := os.Getenv(envAccTerraformPath); got != want {
		t.Fatalf("%s = %q, want %q", envAccTerraformPath, got, want)
	}
}

func TestConfigureCLIWithoutCLIFails(t *testing.T) {
	t.Setenv(envAcc, "1")
	t.Setenv(envAccTerraformPath, "")
	t.Setenv(envAccTerraformVer, "")
	t.Setenv("PATH", t.TempDir())
	if cli, err := ConfigureCLI(t.Context()); err == nil {
		t.Fatalf("want an error when no CLI exists, got %v", cli)
	}
}

func TestConfigureCLIRejectsOtherPrograms(t *testing.T) {
	t.Setenv(envAcc, "1")
	t.Setenv(envAccTerraformPath, fakeCLI(t, "Packer v1.9.0\n"))
	t.Setenv(envAccTerraformVer, "")
	if cli, err := ConfigureCLI(t.Context()); err == nil {
		t.Fatalf("want an error for a program that is not Terraform or OpenTofu, got %v", cli)
	}
}

//go:build linux

package e2e

import (
	"archive/zip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
)

// TestInstallFromReleaseArchive installs the provider the way the installing
// guide tells a user outside this repository to: the release archive that
// .goreleaser.yml makes (snapshot mode, for this machine's platform only, to
// keep CI short), put as it is into a filesystem mirror (the packed layout),
// and, second, served by an HTTPS network mirror whose certificate an
// internal CA signed. Each working directory has no development overrides:
// its CLI configuration is the guide's, nothing else, and the version is the
// archive's. init installs the archive's binary, and a plan against the mock
// reads the model list and submits nothing.
//
// It runs with VIDEOGEN_RELEASE_E2E=1 and VIDEOGEN_GORELEASER, the goreleaser
// binary, as `make release-e2e` sets them.
func TestInstallFromReleaseArchive(t *testing.T) {
	if os.Getenv("VIDEOGEN_RELEASE_E2E") == "" {
		t.Skip("end-to-end release test: set VIDEOGEN_RELEASE_E2E=1 and VIDEOGEN_GORELEASER (make release-e2e does)")
	}
	goreleaser := os.Getenv("VIDEOGEN_GORELEASER")
	if goreleaser == "" {
		t.Fatal("VIDEOGEN_GORELEASER must name the goreleaser binary (make release-e2e builds it)")
	}
	h, err := acctest.Setup(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	// The version `make release-snapshot` gives a snapshot: the newest
	// CHANGELOG.md heading's, as a pre-release.
	version := h.Version + "-snapshot"
	host := h.CLI.ProviderHost()
	zipPath, zipSum := buildReleaseArchive(t, goreleaser, version)
	mock := acctest.NewMock(t)

	t.Run("filesystem mirror", func(t *testing.T) {
		wd := acctest.NewWorkdir(t)
		mirror := filepath.Join(t.TempDir(), "terraform-mirror")
		dir := filepath.Join(mirror, host, acctest.ProviderNamespace, acctest.ProviderType)
		must(t, os.MkdirAll(dir, 0o755))
		copyFile(t, zipPath, filepath.Join(dir, filepath.Base(zipPath)))
		installAndPlan(t, wd, mock, host, version, zipPath, fmt.Sprintf(`provider_installation {
  filesystem_mirror {
    path    = %q
    include = ["%s/videogen/videogen"]
  }
  direct {
    exclude = ["%s/videogen/videogen"]
  }
}
`, mirror, host, host))
	})

	t.Run("network mirror", func(t *testing.T) {
		wd := acctest.NewWorkdir(t)
		ca := acctest.NewTestCA(t)
		prefix := "/" + host + "/videogen/videogen/"
		name := filepath.Base(zipPath)
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			// Terraform refuses a mirror's JSON without this Content-Type.
			if strings.HasSuffix(r.URL.Path, ".json") {
				w.Header().Set("Content-Type", "application/json")
			}
			switch r.URL.Path {
			case prefix + "index.json":
				_ = json.NewEncoder(w).Encode(map[string]any{"versions": map[string]any{version: map[string]any{}}})
			case prefix + version + ".json":
				_ = json.NewEncoder(w).Encode(map[string]any{"archives": map[string]any{
					runtime.GOOS + "_" + runtime.GOARCH: map[string]any{"url": name, "hashes": []string{"zh:" + zipSum}},
				}})
			case prefix + name:
				http.ServeFile(w, r, zipPath)
			default:
				http.NotFound(w, r)
			}
		}))
		srv.TLS = ca.ServerTLS
		srv.StartTLS()
		t.Cleanup(srv.Close)
		// Terraform trusts the mirror's internal CA the way a runner image
		// does: through the system's certificate file.
		caFile := filepath.Join(t.TempDir(), "internal-ca.pem")
		must(t, os.WriteFile(caFile, ca.PEM, 0o600))
		must(t, wd.Setenv("SSL_CERT_FILE", caFile))
		installAndPlan(t, wd, mock, host, version, zipPath, fmt.Sprintf(`provider_installation {
  network_mirror {
    url     = "%s/"
    include = ["%s/videogen/videogen"]
  }
  direct {
    exclude = ["%s/videogen/videogen"]
  }
}
`, srv.URL, host, host))
	})
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// buildReleaseArchive runs goreleaser with .goreleaser.yml as it is, except
// for three settings a test needs: this machine's platform only, the output in
// a temporary directory, and no signing or publishing (as make
// release-snapshot). It returns the archive of this platform and its SHA-256,
// checked against the SHA256SUMS file goreleaser wrote.
func buildReleaseArchive(t *testing.T, goreleaser, version string) (string, string) {
	t.Helper()
	root := repoRoot(t)
	data, err := os.ReadFile(filepath.Join(root, ".goreleaser.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	must(t, yaml.Unmarshal(data, &cfg))
	builds, ok := cfg["builds"].([]any)
	if !ok || len(builds) != 1 {
		t.Fatalf(".goreleaser.yml has %d builds, want 1", len(builds))
	}
	build, ok := builds[0].(map[string]any)
	if !ok {
		t.Fatal(".goreleaser.yml's build is not a mapping")
	}
	build["goos"] = []string{runtime.GOOS}
	build["goarch"] = []string{runtime.GOARCH}
	dist := filepath.Join(t.TempDir(), "dist")
	cfg["dist"] = dist
	derived, err := yaml.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfgFile := filepath.Join(t.TempDir(), "goreleaser.yml")
	must(t, os.WriteFile(cfgFile, derived, 0o600))
	cmd := exec.CommandContext(t.Context(), goreleaser, "release", "--snapshot", "--clean", "--skip=sign,publish", "-f", cfgFile)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "VIDEOGEN_VERSION="+strings.TrimSuffix(version, "-snapshot"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("goreleaser release --snapshot: %v\n%s", err, out)
	}
	name := fmt.Sprintf("terraform-provider-videogen_%s_%s_%s.zip", version, runtime.GOOS, runtime.GOARCH)
	zipPath := filepath.Join(dist, name)
	sums, err := os.ReadFile(filepath.Join(dist, "terraform-provider-videogen_"+version+"_SHA256SUMS"))
	if err != nil {
		t.Fatalf("goreleaser wrote no SHA256SUMS: %v", err)
	}
	sum := fileSHA256(t, zipPath)
	if !strings.Contains(string(sums), sum+"  "+name) {
		t.Fatalf("SHA256SUMS does not list %s with %s:\n%s", name, sum, sums)
	}
	return zipPath, sum
}

// installAndPlan runs init and a plan in wd with cliConfig as its only CLI
// configuration, and checks that the binary init installed is the archive's.
func installAndPlan(t *testing.T, wd *acctest.Workdir, mock *acctest.Mock, host, version, zipPath, cliConfig string) {
	t.Helper()
	ctx := t.Context()
	rc := filepath.Join(t.TempDir(), "videogen.tfrc")
	must(t, os.WriteFile(rc, []byte(cliConfig), 0o600))
	must(t, wd.Setenv("TF_CLI_CONFIG_FILE", rc))
	must(t, wd.Setenv("VIDEOGEN_BASE_URL", mock.URL))
	must(t, wd.Setenv("VIDEOGEN_API_KEY", mockapi.DefaultAPIKey))
	must(t, wd.Write(fmt.Sprintf(`
terraform {
  required_providers {
    videogen = {
      source  = "videogen/videogen"
      version = %q
    }
  }
}
provider "videogen" {}
data "videogen_models" "all" {}
resource "videogen_video" "first" {
  model  = data.videogen_models.all.ids[0]
  prompt = "a lighthouse at dusk"
}
`, version)))
	before := mock.Ledger().Requests["GET /v1/models"]
	must(t, wd.Init(ctx))
	changes, err := wd.Plan(ctx)
	if err != nil || !changes {
		t.Fatalf("plan: changes %v, error %v", changes, err)
	}
	if mock.Ledger().Requests["GET /v1/models"] == before {
		t.Error("the plan did not read the model list: the installed provider never ran")
	}
	if n := mock.Submissions(); n != 0 {
		t.Errorf("a plan submitted %d task(s)", n)
	}
	installed := filepath.Join(wd.Dir, ".terraform", "providers", host, acctest.ProviderNamespace, acctest.ProviderType,
		version, runtime.GOOS+"_"+runtime.GOARCH, "terraform-provider-videogen_v"+version)
	if got, want := fileSHA256(t, installed), zippedSHA256(t, zipPath, "terraform-provider-videogen_v"+version); got != want {
		t.Errorf("init installed %s with SHA-256 %s, want the archive's binary (%s)", installed, got, want)
	}
}

func fileSHA256(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func zippedSHA256(t *testing.T, zipPath, name string) string {
	t.Helper()
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	f, err := zr.Open(name)
	if err != nil {
		t.Fatalf("the archive has no %s: %v", name, err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	must(t, os.WriteFile(to, data, 0o644)) //nolint:gosec // an archive, readable as any download
}

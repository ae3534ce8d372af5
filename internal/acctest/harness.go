package acctest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Namespace and Type of the provider's source address, "videogen/videogen".
const (
	ProviderNamespace = "videogen"
	ProviderType      = "videogen"
)

// buildTimeout bounds `go build`: a cold build on a busy machine takes a few
// minutes; only a hang gets near this.
const buildTimeout = 15 * time.Minute

// Harness is what every run of the real CLI shares: this checkout's provider,
// built once per process and installed into a local filesystem mirror, a CLI
// configuration that installs it from there, and the CLI itself (Terraform or
// OpenTofu). A plain `init` therefore finds the provider offline, under the
// address the CLI expects, without dev_overrides and their warnings.
type Harness struct {
	// CLI is the Terraform or OpenTofu that runs: TF_ACC_TERRAFORM_PATH, else
	// TERRAFORM, else terraform on PATH.
	CLI CLI
	// Version is the version the provider was built and installed as: the
	// newest version in CHANGELOG.md, the release being prepared, so that a
	// configuration's version constraint sees what a user would install.
	Version string
	// Mirror is the filesystem mirror: <Mirror>/<host>/videogen/videogen/
	// <Version>/<os>_<arch>/terraform-provider-videogen_v<Version>, for the
	// hosts registry.terraform.io and registry.opentofu.org.
	Mirror string
	// CLIConfig is the CLI configuration file (TF_CLI_CONFIG_FILE): install
	// the provider from Mirror, and nothing from anywhere else.
	CLIConfig string

	dir string
}

var shared struct {
	sync.Mutex
	h   *Harness
	err error
}

// Setup returns the process's Harness, building the provider on first use
// (with GO, else go on PATH, from the module the working directory is in). A
// failed build is remembered, so that every later caller gets its error at
// once instead of compiling again; a cancelled one is not. Teardown removes
// what Setup made.
func Setup(ctx context.Context) (*Harness, error) {
	shared.Lock()
	defer shared.Unlock()
	if shared.h != nil || shared.err != nil {
		return shared.h, shared.err
	}
	h, err := setup(ctx)
	if err != nil && ctx.Err() != nil {
		return nil, err
	}
	shared.h, shared.err = h, err
	return h, err
}

// Teardown removes the mirror and CLI configuration of Setup; the next Setup
// builds again. Call it from TestMain after m.Run, and from a program when it
// is done. The directory of a process that never called it is removed by the
// next Setup of any process once that process has ended.
func Teardown() error {
	shared.Lock()
	defer shared.Unlock()
	h := shared.h
	shared.h, shared.err = nil, nil
	if h == nil {
		return nil
	}
	return os.RemoveAll(h.dir)
}

func setup(ctx context.Context) (*Harness, error) {
	cli, err := findHarnessCLI(ctx)
	if err != nil {
		return nil, err
	}
	goBin := GoBinary()
	root, err := moduleRoot(ctx, goBin)
	if err != nil {
		return nil, err
	}
	version, err := changelogVersion(filepath.Join(root, "CHANGELOG.md"))
	if err != nil {
		return nil, err
	}
	removeStaleDirs()
	dir, err := os.MkdirTemp("", fmt.Sprintf("%s%d-", dirPrefix, os.Getpid()))
	if err != nil {
		return nil, err
	}
	h := &Harness{
		CLI:       cli,
		Version:   version,
		Mirror:    filepath.Join(dir, "mirror"),
		CLIConfig: filepath.Join(dir, "terraformrc"),
		dir:       dir,
	}
	if err := h.install(ctx, goBin, root); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	return h, nil
}

// GoBinary is the Go toolchain that builds: GO, else go on PATH. The bench
// runs its tools (pprof) with the same one.
func GoBinary() string {
	if goBin := os.Getenv("GO"); goBin != "" {
		return goBin
	}
	return "go"
}

// dirPrefix starts the name of each process's directory, followed by its
// process ID.
const dirPrefix = "videogen-acctest-"

// removeStaleDirs removes the directories of processes that ended without
// Teardown: a test binary killed by its -timeout, or by a CI runner, leaves one.
func removeStaleDirs() {
	entries, _ := os.ReadDir(os.TempDir())
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), dirPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		pidText, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if ok && err == nil && pid != os.Getpid() && !processAlive(pid) {
			_ = os.RemoveAll(filepath.Join(os.TempDir(), e.Name()))
		}
	}
}

// findHarnessCLI adds the TERRAFORM variable of the GNUmakefile to FindCLI's
// search, so that `TERRAFORM=/path/to/tofu make e2e` runs that CLI.
func findHarnessCLI(ctx context.Context) (CLI, error) {
	if os.Getenv(envAccTerraformPath) == "" {
		if name := os.Getenv("TERRAFORM"); name != "" {
			path, err := exec.LookPath(name)
			if err != nil {
				return CLI{}, fmt.Errorf("TERRAFORM=%s: %w", name, err)
			}
			return DetectCLI(ctx, path)
		}
	}
	return FindCLI(ctx)
}

// moduleRoot is the directory of the main module, which holds main.go and
// CHANGELOG.md.
func moduleRoot(ctx context.Context, goBin string) (string, error) {
	out, err := exec.CommandContext(ctx, goBin, "list", "-m", "-f", "{{.Dir}}").Output() //nolint:gosec // the Go toolchain the caller names
	if err != nil {
		return "", fmt.Errorf("finding the module root with `%s list -m` (run from inside the repository): %w", goBin, err)
	}
	return strings.TrimSpace(string(out)), nil
}

var changelogHeading = regexp.MustCompile(`^## v?(\d+\.\d+\.\d+)\b`)

// changelogVersion reads the first "## X.Y.Z" heading of the changelog.
func changelogVersion(path string) (string, error) {
	f, err := os.Open(path) //nolint:gosec // the module's own CHANGELOG.md
	if err != nil {
		return "", fmt.Errorf("reading the provider version: %w", err)
	}
	defer f.Close()
	return firstChangelogVersion(f, path)
}

func firstChangelogVersion(r io.Reader, name string) (string, error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if m := changelogHeading.FindStringSubmatch(sc.Text()); m != nil {
			return m[1], nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf(`%s has no "## X.Y.Z" heading to take the provider version from`, name)
}

// PluginDir is where a filesystem mirror keeps one unpacked provider build, relative to
// the mirror's root: <host>/videogen/videogen/<version>/<os>_<arch>.
func PluginDir(host, version string) string {
	return filepath.Join(host, ProviderNamespace, ProviderType, version, runtime.GOOS+"_"+runtime.GOARCH)
}

// PluginFile is the executable's name inside PluginDir.
func PluginFile(version string) string {
	name := "terraform-provider-" + ProviderType + "_v" + version
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	return name
}

// mirrorHosts are the registries a source address without a host can mean:
// the provider is installed under both, so Terraform and OpenTofu each find it
// under the address they resolve "videogen/videogen" to.
var mirrorHosts = []string{TerraformRegistryHost, OpenTofuRegistryHost}

func (h *Harness) install(ctx context.Context, goBin, root string) error {
	if err := h.buildIntoMirror(ctx, goBin, root, h.Version, "the provider"); err != nil {
		return err
	}
	return os.WriteFile(h.CLIConfig, []byte(cliConfig(h.Mirror)), 0o600)
}

// buildIntoMirror builds the provider from the module in dir as version, into
// the mirror under the first of mirrorHosts, and hard-links it under the
// others. what names the build in errors; env is added to the build's
// environment.
func (h *Harness) buildIntoMirror(ctx context.Context, goBin, dir, version, what string, env ...string) error {
	first := filepath.Join(h.Mirror, PluginDir(mirrorHosts[0], version), PluginFile(version))
	if err := os.MkdirAll(filepath.Dir(first), 0o755); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, buildTimeout)
	defer cancel()
	build := exec.CommandContext(ctx, goBin, "build", "-ldflags", "-X main.version="+version, "-o", first, ".") //nolint:gosec // building the provider is the point
	build.Dir = dir
	// The provider must run on this machine, whatever GOOS a caller exported.
	build.Env = append(append(os.Environ(), "GOOS="+runtime.GOOS, "GOARCH="+runtime.GOARCH), env...)
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("building %s (%s build in %s): %w\n%s", what, goBin, dir, err, out)
	}
	for _, host := range mirrorHosts[1:] {
		other := filepath.Join(h.Mirror, PluginDir(host, version), PluginFile(version))
		if err := os.MkdirAll(filepath.Dir(other), 0o755); err != nil {
			return err
		}
		if err := os.Link(first, other); err != nil {
			return fmt.Errorf("installing %s under %s: %w", what, host, err)
		}
	}
	return nil
}

// cliConfig has no `direct` block: a configuration that needs any other
// provider fails at init instead of downloading it.
func cliConfig(mirror string) string {
	var include []string
	for _, host := range mirrorHosts {
		include = append(include, fmt.Sprintf("%q", host+"/"+ProviderNamespace+"/"+ProviderType))
	}
	return fmt.Sprintf(`# Written by the test harness (internal/acctest): the provider under test,
# from a local filesystem mirror; nothing is downloaded.
provider_installation {
  filesystem_mirror {
    path    = %q
    include = [%s]
  }
}
`, mirror, strings.Join(include, ", "))
}

// Env is the environment every CLI run gets: the caller's, without what
// would change where providers come from or which state is used, without the
// provider's own settings (a test must never reach the real service with a
// developer's key by accident), and with CLIConfig and CHECKPOINT_DISABLE=1.
// Variables that terraform-exec manages itself (TF_LOG, TF_INPUT, ...) are
// left out; Start sets TF_IN_AUTOMATION as terraform-exec does.
func (h *Harness) Env() map[string]string {
	env := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	for _, k := range droppedEnv {
		delete(env, k)
	}
	for _, k := range tfexecManagedEnv {
		delete(env, k)
	}
	for k := range env {
		if strings.HasPrefix(k, "TF_VAR_") || strings.HasPrefix(k, "TF_CLI_ARGS") {
			delete(env, k)
		}
	}
	env["TF_CLI_CONFIG_FILE"] = h.CLIConfig
	env["CHECKPOINT_DISABLE"] = "1"
	return env
}

var droppedEnv = []string{
	"TF_DATA_DIR", "TF_PLUGIN_CACHE_DIR", "TF_PLUGIN_CACHE_MAY_BREAK_DEPENDENCY_LOCK_FILE",
	"TF_WORKSPACE", "TF_REGISTRY_DISCOVERY_RETRY", "TOFU_CLI_CONFIG_FILE",
	"VIDEOGEN_BASE_URL", "VIDEOGEN_API_KEY", "VIDEOGEN_JOURNAL_URL",
}

// tfexecManagedEnv are the variables terraform-exec refuses in SetEnv.
var tfexecManagedEnv = []string{
	"TF_INPUT", "TF_IN_AUTOMATION", "TF_LOG", "TF_LOG_CORE", "TF_LOG_PATH", "TF_LOG_PROVIDER",
	"TF_REATTACH_PROVIDERS", "TF_APPEND_USER_AGENT", "TF_DISABLE_PLUGIN_TLS", "TF_SKIP_PROVIDER_VERIFY",
}

var errNoHarness = errors.New("acctest: the Harness is nil (Setup failed?)")

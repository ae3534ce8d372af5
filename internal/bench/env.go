package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
)

// MockAPIKey is the key the mock accepts by default.
const MockAPIKey = mockapi.DefaultAPIKey

// Env is the toolkit every case uses: binaries built from this checkout into a
// temporary directory, a Terraform CLI configuration whose dev_overrides
// point at that provider build (so no `terraform init` and no network), and
// helpers that start the mock, write configurations, run Terraform and sample
// memory. Close removes everything and kills every process it started.
type Env struct {
	Root      string // repository root
	Work      string // temporary directory, removed by Close
	Go        string
	Terraform string // absolute path of the Terraform CLI
	Provider  string // the built provider binary
	Mock      string // the built cmd/videogen-mock binary
	CLIConfig string // Terraform CLI configuration with dev_overrides
	PeerDir   string // the committed peer script's directory
	Procs     *Procs
	Log       io.Writer
}

// NewEnv builds the provider and the mock from root with goBin, and checks that
// terraformBin runs. It never downloads anything: the Go module cache must
// already hold the dependencies, as for `make test`.
func NewEnv(ctx context.Context, root, goBin, terraformBin string, log io.Writer) (*Env, error) {
	tf, err := exec.LookPath(terraformBin)
	if err != nil {
		return nil, fmt.Errorf("terraform CLI %q not found: %w", terraformBin, err)
	}
	if tf, err = filepath.Abs(tf); err != nil {
		return nil, err
	}
	if tf, err = filepath.EvalSymlinks(tf); err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp("", "videogen-bench-")
	if err != nil {
		return nil, err
	}
	e := &Env{
		Root: root, Work: work, Go: goBin, Terraform: tf,
		Provider: filepath.Join(work, "plugins", "terraform-provider-videogen"),
		Mock:     filepath.Join(work, "bin", "videogen-mock"),
		PeerDir:  filepath.Join(root, "internal", "bench", "peer"),
		Procs:    NewProcs(), Log: log,
	}
	ok := false
	defer func() {
		if !ok {
			e.Close()
		}
	}()
	if _, err := os.Stat(filepath.Join(e.PeerDir, "peer.sh")); err != nil {
		return nil, fmt.Errorf("the peer script is missing: %w", err)
	}
	builds := []struct{ out, pkg, ldflags string }{
		{e.Provider, ".", "-X main.version=bench"},
		{e.Mock, "./cmd/videogen-mock", ""},
	}
	for _, b := range builds {
		fmt.Fprintf(log, "building %s\n", b.pkg)
		args := []string{"build", "-o", b.out}
		if b.ldflags != "" {
			args = append(args, "-ldflags", b.ldflags)
		}
		args = append(args, b.pkg)
		if out, err := e.run(ctx, 10*time.Minute, root, nil, goBin, args...); err != nil {
			return nil, fmt.Errorf("go build %s: %w\n%s", b.pkg, err, out)
		}
	}
	e.CLIConfig = filepath.Join(work, "terraformrc")
	rc := fmt.Sprintf("provider_installation {\n  dev_overrides {\n    %q = %q\n  }\n  direct {}\n}\n",
		"videogen/videogen", filepath.Dir(e.Provider))
	if err := os.WriteFile(e.CLIConfig, []byte(rc), 0o600); err != nil {
		return nil, err
	}
	ok = true
	return e, nil
}

// Close kills every process the harness started and removes the temporary directory.
func (e *Env) Close() {
	e.Procs.Close()
	_ = os.RemoveAll(e.Work)
}

// run executes a short helper command and returns its combined output.
func (e *Env) run(ctx context.Context, timeout time.Duration, dir string, env []string, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := e.Procs.Command(ctx, 2*time.Second, name, args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = env
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := e.Procs.Start(cmd); err != nil {
		return "", err
	}
	err := cmd.Wait()
	e.Procs.Done(cmd)
	return out.String(), err
}

// Mock is a running cmd/videogen-mock on a free loopback port.
type Mock struct {
	URL  string
	cmd  *exec.Cmd
	env  *Env
	log  string
	done chan struct{}
}

// StartMock starts the mock with -addr 127.0.0.1:0 -quiet and the given extra
// flags, and waits (at most 30 s) until it has written its address.
func (e *Env) StartMock(ctx context.Context, flags ...string) (*Mock, error) {
	dir, err := os.MkdirTemp(e.Work, "mock-")
	if err != nil {
		return nil, err
	}
	addrFile, logFile := filepath.Join(dir, "addr"), filepath.Join(dir, "mock.log")
	lf, err := os.Create(logFile)
	if err != nil {
		return nil, err
	}
	defer lf.Close()
	args := append([]string{"-addr", "127.0.0.1:0", "-addr-file", addrFile, "-quiet"}, flags...)
	// The mock lives until Stop, not until ctx ends: Stop is always deferred.
	cmd := e.Procs.Command(context.WithoutCancel(ctx), 5*time.Second, e.Mock, args...)
	cmd.Stdout, cmd.Stderr = lf, lf
	if err := e.Procs.Start(cmd); err != nil {
		return nil, err
	}
	m := &Mock{cmd: cmd, env: e, log: logFile, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(m.done)
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if b, err := os.ReadFile(addrFile); err == nil && strings.HasPrefix(string(b), "http://") {
			m.URL = strings.TrimSpace(string(b))
			return m, nil
		}
		select {
		case <-m.done:
			logText, _ := os.ReadFile(logFile)
			return nil, fmt.Errorf("the mock exited before it was ready: %s", logText)
		case <-ctx.Done():
			m.Stop()
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			m.Stop()
			return nil, errors.New("the mock did not write its address within 30 s")
		}
	}
}

// Ledger fetches the mock's ledger.
func (m *Mock) Ledger(ctx context.Context) (mockapi.Ledger, error) {
	var l mockapi.Ledger
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, m.URL+"/_mock/ledger", nil)
	if err != nil {
		return l, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return l, fmt.Errorf("fetching the mock's ledger: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return l, fmt.Errorf("fetching the mock's ledger: HTTP %d", resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(&l); err != nil {
		return l, fmt.Errorf("decoding the mock's ledger: %w", err)
	}
	return l, nil
}

// Stop stops the mock (SIGTERM, then SIGKILL after 5 s) and waits for it.
func (m *Mock) Stop() {
	select {
	case <-m.done:
	default:
		_ = m.cmd.Process.Signal(os.Interrupt)
		select {
		case <-m.done:
		case <-time.After(5 * time.Second):
			_ = m.cmd.Process.Kill()
			<-m.done
		}
	}
	m.env.Procs.Done(m.cmd)
}

// Workspace writes main.tf (and any extra files) into a fresh directory, so
// that every Terraform run starts from empty state.
func (e *Env) Workspace(name, mainTF string, extra map[string]string) (string, error) {
	dir, err := os.MkdirTemp(e.Work, name+"-")
	if err != nil {
		return "", err
	}
	files := map[string]string{"main.tf": mainTF}
	for k, v := range extra {
		files[k] = v
	}
	for file, content := range files {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(content), 0o600); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// Event is one line of Terraform's machine-readable UI (-json).
type Event struct {
	Level     string    `json:"@level"`
	Message   string    `json:"@message"`
	Timestamp time.Time `json:"@timestamp"`
	Type      string    `json:"type"`
	Hook      struct {
		Resource struct {
			Addr string `json:"addr"`
		} `json:"resource"`
		IDValue string `json:"id_value"`
	} `json:"hook"`
	Diagnostic *struct {
		Severity string `json:"severity"`
		Summary  string `json:"summary"`
		Detail   string `json:"detail"`
	} `json:"diagnostic"`
}

// TFRun is one timed Terraform command.
type TFRun struct {
	Start    time.Time  `json:"start"`
	Args     []string   `json:"args"`
	Wall     Duration   `json:"wall"`
	ExitCode int        `json:"exit_code"`
	Errors   []string   `json:"errors,omitempty"` // error diagnostics, summary and detail
	Mem      *MemResult `json:"memory,omitempty"`
	Events   []Event    `json:"-"`
	Stderr   string     `json:"-"`
}

// Completed returns when Terraform reported each resource address complete
// (apply_complete events).
func (r *TFRun) Completed() map[string]time.Time {
	out := map[string]time.Time{}
	for _, ev := range r.Events {
		if ev.Type == "apply_complete" {
			out[ev.Hook.Resource.Addr] = ev.Timestamp
		}
	}
	return out
}

// FirstApplyStart is how long after exec Terraform began applying its first
// resource: its start-up, plan and provider start-ups.
func (r *TFRun) FirstApplyStart() time.Duration {
	var first time.Time
	for _, ev := range r.Events {
		if ev.Type == "apply_start" && (first.IsZero() || ev.Timestamp.Before(first)) {
			first = ev.Timestamp
		}
	}
	if first.IsZero() {
		return 0
	}
	return first.Sub(r.Start)
}

// TFOptions says how to run one Terraform command.
type TFOptions struct {
	Dir       string
	MockURL   string        // VIDEOGEN_BASE_URL, when set
	Timeout   time.Duration // for the whole command
	SampleMem bool          // sample the provider's and the process tree's memory
}

// TerraformRun runs the CLI with args in o.Dir and times it from
// exec to exit. Stdout is parsed as JSON events; the environment is minimal
// (no TF_* settings of the caller leak in) and never allows a download.
func (e *Env) TerraformRun(ctx context.Context, o TFOptions, args ...string) (*TFRun, error) {
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	cmd := e.Procs.Command(ctx, 10*time.Second, e.Terraform, args...)
	cmd.Dir = o.Dir
	cmd.Env = e.terraformEnv(o.MockURL)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	run := &TFRun{Args: args, Start: start}
	if err := e.Procs.Start(cmd); err != nil {
		return nil, err
	}
	var sampler *MemSampler
	if o.SampleMem {
		sampler = SampleMemory(cmd.Process.Pid, e.Provider, 50*time.Millisecond)
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var ev Event
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		run.Events = append(run.Events, ev)
		if ev.Diagnostic != nil && ev.Diagnostic.Severity == "error" {
			run.Errors = append(run.Errors, ev.Diagnostic.Summary+": "+ev.Diagnostic.Detail)
		}
	}
	_, _ = io.Copy(io.Discard, stdout)
	waitErr := cmd.Wait()
	run.Wall = Duration(time.Since(start))
	if sampler != nil {
		mem := sampler.Stop()
		run.Mem = &mem
	}
	e.Procs.Done(cmd)
	run.Stderr = stderr.String()
	if ctx.Err() != nil {
		return run, fmt.Errorf("terraform %s: %w (stderr: %s)", strings.Join(args, " "), ctx.Err(), tail(run.Stderr, 2000))
	}
	var exitErr *exec.ExitError
	switch {
	case errors.As(waitErr, &exitErr):
		run.ExitCode = exitErr.ExitCode()
	case waitErr != nil:
		return run, waitErr
	}
	return run, nil
}

func (e *Env) terraformEnv(mockURL string) []string {
	env := []string{
		"TF_CLI_CONFIG_FILE=" + e.CLIConfig,
		"CHECKPOINT_DISABLE=1",
		"TF_IN_AUTOMATION=1",
		"VIDEOGEN_API_KEY=" + MockAPIKey,
	}
	if mockURL != "" {
		env = append(env, "VIDEOGEN_BASE_URL="+mockURL)
	}
	for _, k := range []string{"PATH", "HOME", "TMPDIR", "LANG", "LC_ALL"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// mustSucceed turns a failed Terraform run into an error that shows why.
func mustSucceed(run *TFRun, err error) error {
	if err != nil {
		return err
	}
	if run.ExitCode != 0 {
		msg := strings.Join(run.Errors, "; ")
		if msg == "" {
			msg = tail(run.Stderr, 2000)
		}
		return fmt.Errorf("terraform %s exited %d: %s", strings.Join(run.Args, " "), run.ExitCode, msg)
	}
	return nil
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}

// Duration is a time.Duration written to JSON as float seconds.
type Duration time.Duration

// MarshalJSON writes seconds with millisecond precision.
func (d Duration) MarshalJSON() ([]byte, error) {
	return []byte(fmt.Sprintf("%.3f", time.Duration(d).Seconds())), nil
}

// UnmarshalJSON reads float seconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var secs float64
	if err := json.Unmarshal(b, &secs); err != nil {
		return err
	}
	*d = Duration(time.Duration(math.Round(secs * float64(time.Second))))
	return nil
}

// Seconds returns the duration in seconds.
func (d Duration) Seconds() float64 { return time.Duration(d).Seconds() }

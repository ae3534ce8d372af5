package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
)

// Env is what every case uses: the harness's CLI and provider build, a
// temporary directory for the working directories, and the peer script.
type Env struct {
	H *acctest.Harness
	// Provider is the provider executable that the CLI installs from the
	// harness's mirror.
	Provider   string
	PeerScript string
	Work       string
	Log        io.Writer
}

// NewEnv sets up the harness (building the provider once) and a work directory
// that Close removes. root is the repository root, for the peer script.
func NewEnv(ctx context.Context, root string, log io.Writer) (*Env, error) {
	h, err := acctest.Setup(ctx)
	if err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp("", "videogen-bench-")
	if err != nil {
		return nil, err
	}
	return &Env{
		H:          h,
		Provider:   filepath.Join(h.Mirror, acctest.PluginDir(h.CLI.ProviderHost(), h.Version), acctest.PluginFile(h.Version)),
		PeerScript: filepath.Join(root, "internal", "bench", "peer", "peer.sh"),
		Work:       work, Log: log,
	}, nil
}

// Close removes the work directory and the harness's build.
func (e *Env) Close() {
	_ = os.RemoveAll(e.Work)
	_ = acctest.Teardown()
}

// NoopVersion is the version the no-op provider (internal/bench/noop) is
// installed as: older than any release, so that only NoopConfig, which asks
// for exactly it, runs it.
const NoopVersion = "0.0.1"

// InstallNoop builds the no-op provider into the harness's mirror beside the
// provider (once per process: see acctest.Harness.InstallPackage).
func (e *Env) InstallNoop(ctx context.Context) error {
	return e.H.InstallPackage(ctx, "internal/bench/noop", NoopVersion)
}

// StartMock serves a mock with the default models and key: tasks take the time
// their prompt's [mock:duration=...] marker says, and rl limits the key (zero:
// no limit). Close it when done.
func StartMock(rl float64, clipBytes int64, opts ...func(*mockapi.Config)) (*acctest.Mock, error) {
	cfg := mockapi.DefaultConfig()
	cfg.TaskDuration = 0
	cfg.ClipBytes = clipBytes
	if rl > 0 {
		cfg.RateLimit = mockapi.RateLimit{RequestsPerSecond: rl, Burst: int(math.Ceil(rl))}
	}
	for _, o := range opts {
		o(&cfg)
	}
	return acctest.StartMock(cfg)
}

// Workdir writes hcl into a fresh directory, points it at the mock and runs
// init, so that every case starts from empty state and nothing but the apply
// is timed.
func (e *Env) Workdir(ctx context.Context, name, hcl string, m *acctest.Mock) (*acctest.Workdir, error) {
	dir, err := os.MkdirTemp(e.Work, name+"-")
	if err != nil {
		return nil, err
	}
	w, err := e.H.Workdir(dir)
	if err != nil {
		return nil, err
	}
	if m != nil {
		if err := w.Setenv("VIDEOGEN_BASE_URL", m.URL); err != nil {
			return nil, err
		}
		if err := w.Setenv("VIDEOGEN_API_KEY", mockapi.DefaultAPIKey); err != nil {
			return nil, err
		}
	}
	if err := w.Write(hcl); err != nil {
		return nil, err
	}
	if err := w.Init(ctx); err != nil {
		return nil, err
	}
	// terraform-exec asks the CLI for its version before its first command and
	// keeps the answer: ask now, so that no timed run pays for it.
	if _, _, err := w.TF.Version(ctx, false); err != nil {
		return nil, err
	}
	return w, nil
}

// Event is one line of the CLI's machine-readable output (-json).
type Event struct {
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

// TFRun is one timed apply.
type TFRun struct {
	Start  time.Time  `json:"start"`
	Wall   Duration   `json:"wall"`
	Failed bool       `json:"failed"`           // the CLI exited non-zero
	Errors []string   `json:"errors,omitempty"` // error diagnostics: summary and detail
	Mem    *MemResult `json:"memory,omitempty"`
	// CPU is the CPU time of the CLI and the providers it started (see
	// childrenCPU): meaningful only when no other apply overlapped it.
	CPU    Duration `json:"cpu,omitempty"`
	Events []Event  `json:"-"`
}

// Completed returns when the CLI reported each resource address complete.
func (r *TFRun) Completed() map[string]time.Time {
	out := map[string]time.Time{}
	for _, ev := range r.Events {
		if ev.Type == "apply_complete" {
			out[ev.Hook.Resource.Addr] = ev.Timestamp
		}
	}
	return out
}

// FirstApplyStart is how long after the start the CLI began applying its first
// resource: its own start-up, the plan and the provider start-ups.
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

// ApplyOptions say how to run one apply.
type ApplyOptions struct {
	Parallelism int
	RefreshOnly bool
	SampleMem   bool
	// AllowErrors records a failed apply in the TFRun instead of returning an
	// error, for the cases whose figures count errors.
	AllowErrors bool
	// Env are variables for the CLI, which passes them on to the providers it
	// starts.
	Env map[string]string
}

// Apply runs `apply -json` in w through terraform-exec, timed from the call to
// its return, and collects the CLI's events.
func (e *Env) Apply(ctx context.Context, w *acctest.Workdir, o ApplyOptions) (*TFRun, error) {
	for name, value := range o.Env {
		if err := w.Setenv(name, value); err != nil {
			return nil, err
		}
	}
	var out bytes.Buffer
	opts := []tfexec.ApplyOption{tfexec.Parallelism(o.Parallelism)}
	if o.RefreshOnly {
		opts = append(opts, tfexec.RefreshOnly(true))
	}
	var sampler *MemSampler
	if o.SampleMem {
		sampler = SampleMemory(e.Provider, w.Dir, 50*time.Millisecond)
	}
	cpu := childrenCPU()
	run := &TFRun{Start: time.Now()}
	err := w.TF.ApplyJSON(ctx, &out, opts...)
	run.Wall = Duration(time.Since(run.Start))
	run.CPU = Duration(childrenCPU() - cpu)
	if sampler != nil {
		mem := sampler.Stop()
		run.Mem = &mem
	}
	sc := bufio.NewScanner(&out)
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
	if ctxErr := ctx.Err(); ctxErr != nil {
		return run, ctxErr
	}
	if err != nil {
		run.Failed = true
		if len(run.Errors) == 0 {
			run.Errors = []string{err.Error()}
		}
		if !o.AllowErrors {
			return run, fmt.Errorf("apply in %s: %s", w.Dir, tail(strings.Join(run.Errors, "; "), 2000))
		}
	}
	return run, nil
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

package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
)

// Settings are the sizes of the cases. DefaultSettings is what `make bench` runs.
type Settings struct {
	LatencyTasks       int        `json:"latency_tasks"`
	Generations        []Duration `json:"generation_times"`
	Spread             float64    `json:"generation_spread"` // tasks of a case spread evenly over ±Spread of its time
	ApplyClips         int        `json:"apply_clips"`
	ApplyParallelism   int        `json:"apply_parallelism"`
	ApplyGeneration    Duration   `json:"apply_generation"`
	ApplyRepeats       int        `json:"apply_repeats"`
	RefreshClips       int        `json:"refresh_clips"`
	RefreshRPS         float64    `json:"refresh_rate_limit_rps"`
	RefreshParallelism int        `json:"refresh_parallelism"`
	RefreshRepeats     int        `json:"refresh_repeats"`
	SweepTasks         int        `json:"sweep_tasks"`
	SweepFrom          Duration   `json:"sweep_from"`
	SweepTo            Duration   `json:"sweep_to"`
	StartupRuns        int        `json:"startup_runs"`
	DownloadBytes      int64      `json:"download_bytes"`
	DownloadRepeats    int        `json:"download_repeats"`
}

// DefaultSettings are issue 6's cases.
func DefaultSettings() Settings {
	return Settings{
		LatencyTasks: 40,
		Generations:  []Duration{Duration(2 * time.Second), Duration(10 * time.Second), Duration(60 * time.Second)},
		Spread:       0.1,
		ApplyClips:   50, ApplyParallelism: 10, ApplyGeneration: Duration(2 * time.Second), ApplyRepeats: 3,
		RefreshClips: 500, RefreshRPS: 50, RefreshParallelism: 10, RefreshRepeats: 2,
		SweepTasks: 40, SweepFrom: Duration(time.Second), SweepTo: Duration(60 * time.Second),
		StartupRuns:   15,
		DownloadBytes: 1 << 30, DownloadRepeats: 3,
	}
}

// QuickSettings are small versions of every case, to try the harness in a minute or two.
func QuickSettings() Settings {
	s := DefaultSettings()
	s.LatencyTasks = 8
	s.Generations = []Duration{Duration(2 * time.Second), Duration(5 * time.Second)}
	s.ApplyClips, s.ApplyRepeats = 20, 1
	s.RefreshClips, s.RefreshRepeats = 100, 1
	s.SweepTasks, s.SweepTo = 8, Duration(8*time.Second)
	s.StartupRuns = 3
	s.DownloadBytes, s.DownloadRepeats = 64<<20, 1
	return s
}

// Spread returns n generation times spread evenly over [gen×(1-spread),
// gen×(1+spread)], each in the middle of its n-th of the range. Real generation
// times vary; with every task at exactly the same time, a poller whose period
// divides it (a sleep-5 loop at 10 s or 60 s) would find every clip at once by
// coincidence, and one whose schedule happens to land just after it would too.
func Spread(gen time.Duration, spread float64, n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		f := 1 - spread + 2*spread*(float64(i)+0.5)/float64(n)
		out[i] = time.Duration(float64(gen) * f).Round(time.Millisecond)
	}
	return out
}

// TaskSample is one task as the mock's ledger and Terraform's events saw it.
type TaskSample struct {
	Index      int     `json:"index"`
	Generation float64 `json:"generation_s"` // final_at - submitted_at
	Observed   float64 `json:"observed_s"`   // final_observed_at - final_at: the GET that first saw the final status
	Returned   float64 `json:"returned_s"`   // Terraform's apply_complete - final_at: the resource reported done
	Gets       int     `json:"gets"`
}

// TaskStats summarises the tasks of one Terraform apply.
type TaskStats struct {
	Wall        Duration     `json:"wall"`
	ObservedP50 float64      `json:"observed_p50_s"`
	ObservedP95 float64      `json:"observed_p95_s"`
	ReturnedP50 float64      `json:"returned_p50_s"`
	ReturnedAvg float64      `json:"returned_mean_s"`
	ReturnedP95 float64      `json:"returned_p95_s"`
	ReturnedMax float64      `json:"returned_max_s"`
	GetsMean    float64      `json:"gets_mean"`
	GetsMax     float64      `json:"gets_max"`
	Tasks       []TaskSample `json:"tasks"`
}

// taskStats matches the ledger's tasks of a tag with Terraform's apply_complete
// events by clip index.
func taskStats(l mockapi.Ledger, run *TFRun, tag string, n int) (*TaskStats, error) {
	done := map[int]time.Time{}
	for addr, at := range run.Completed() {
		if i := clipIndex(addr); i >= 0 {
			done[i] = at
		}
	}
	seen := map[int]bool{}
	st := &TaskStats{Wall: run.Wall}
	for _, t := range l.Tasks {
		i := promptIndex(t.Prompt, tag)
		if i < 0 {
			continue
		}
		if seen[i] {
			return nil, fmt.Errorf("%s: clip %d was submitted twice", tag, i)
		}
		seen[i] = true
		if t.FinalObservedAt == nil {
			return nil, fmt.Errorf("%s: no GET of clip %d (task %s) saw its final status", tag, i, t.TaskID)
		}
		at, ok := done[i]
		if !ok {
			return nil, fmt.Errorf("%s: Terraform reported no apply_complete for clip %d", tag, i)
		}
		st.Tasks = append(st.Tasks, TaskSample{
			Index: i, Generation: t.FinalAt.Sub(t.SubmittedAt).Seconds(),
			Observed: t.FinalObservedAt.Sub(t.FinalAt).Seconds(), Returned: at.Sub(t.FinalAt).Seconds(),
			Gets: t.GetCount,
		})
	}
	if len(st.Tasks) != n {
		return nil, fmt.Errorf("%s: the ledger holds %d clips, want %d", tag, len(st.Tasks), n)
	}
	slices.SortFunc(st.Tasks, func(a, b TaskSample) int { return a.Index - b.Index })
	var observed, returned, gets []float64
	for _, t := range st.Tasks {
		observed, returned, gets = append(observed, t.Observed), append(returned, t.Returned), append(gets, float64(t.Gets))
	}
	st.ObservedP50, st.ObservedP95 = Median(observed), Percentile(observed, 95)
	st.ReturnedP50, st.ReturnedP95, st.ReturnedMax = Median(returned), Percentile(returned, 95), Max(returned)
	st.ReturnedAvg = Mean(returned)
	st.GetsMean, st.GetsMax = Mean(gets), Max(gets)
	return st, nil
}

// Runner runs the cases and collects Results.
type Runner struct {
	Env      *Env
	Settings Settings
	Log      io.Writer
}

func (r *Runner) logf(format string, args ...any) {
	fmt.Fprintf(r.Log, "%s  %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

const applyArgs = "-auto-approve -input=false -json"

func (r *Runner) apply(ctx context.Context, dir, mockURL string, parallelism int, timeout time.Duration, sampleMem bool, extra ...string) (*TFRun, error) {
	args := append([]string{"apply"}, strings.Fields(applyArgs)...)
	args = append(args, fmt.Sprintf("-parallelism=%d", parallelism))
	args = append(args, extra...)
	run, err := r.Env.TerraformRun(ctx, TFOptions{Dir: dir, MockURL: mockURL, Timeout: timeout, SampleMem: sampleMem}, args...)
	return run, mustSucceed(run, err)
}

func (r *Runner) peerScript() string { return filepath.Join(r.Env.PeerDir, "peer.sh") }

// LatencyResult is one generation time, provider and peer.
type LatencyResult struct {
	Generation Duration   `json:"generation"`
	Tasks      int        `json:"tasks"`
	Spread     float64    `json:"spread"`
	Provider   *TaskStats `json:"provider"`
	Peer       *TaskStats `json:"peer"`
}

// Latency applies LatencyTasks clips of about gen, all in parallel, once with
// the provider and once with the peer, on one mock.
func (r *Runner) Latency(ctx context.Context, gen time.Duration) (*LatencyResult, error) {
	res := &LatencyResult{Generation: Duration(gen), Tasks: r.Settings.LatencyTasks, Spread: r.Settings.Spread}
	var err error
	tag := "latency-" + strconv.FormatFloat(gen.Seconds(), 'f', -1, 64) + "s"
	res.Provider, res.Peer, err = r.parallelClips(ctx, tag, Spread(gen, r.Settings.Spread, res.Tasks))
	if err != nil {
		return nil, err
	}
	return res, nil
}

// SweepResult is one clip per generation time, evenly spread over a range.
type SweepResult struct {
	From     Duration   `json:"from"`
	To       Duration   `json:"to"`
	Tasks    int        `json:"tasks"`
	Provider *TaskStats `json:"provider"`
	Peer     *TaskStats `json:"peer"`
}

// Sweep applies SweepTasks clips whose generation times are spread evenly from
// SweepFrom to SweepTo, with the provider and with the peer: how each does at
// every generation time, not only at the three of the latency cases.
func (r *Runner) Sweep(ctx context.Context) (*SweepResult, error) {
	s := r.Settings
	n := s.SweepTasks
	gens := make([]time.Duration, n)
	for i := range gens {
		f := 0.0
		if n > 1 {
			f = float64(i) / float64(n-1)
		}
		gens[i] = (time.Duration(s.SweepFrom) + time.Duration(f*float64(s.SweepTo-s.SweepFrom))).Round(time.Millisecond)
	}
	res := &SweepResult{From: s.SweepFrom, To: s.SweepTo, Tasks: n}
	var err error
	if res.Provider, res.Peer, err = r.parallelClips(ctx, "sweep", gens); err != nil {
		return nil, err
	}
	return res, nil
}

// parallelClips applies one clip per generation time, all in parallel, with the
// provider and then with the peer, on a fresh mock.
func (r *Runner) parallelClips(ctx context.Context, label string, gens []time.Duration) (provider, peer *TaskStats, err error) {
	mock, err := r.Env.StartMock(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer mock.Stop()
	n := len(gens)
	timeout := 2*slices.Max(gens) + 5*time.Minute
	for _, kind := range []string{"provider", "peer"} {
		tag := label + "-" + kind
		prompts := make([]string, n)
		for i := range prompts {
			prompts[i] = Prompt(tag, i, gens[i])
		}
		cfg := ProviderConfig(prompts)
		if kind == "peer" {
			cfg = PeerConfig(prompts, r.peerScript())
		}
		dir, err := r.Env.Workspace(tag, cfg, nil)
		if err != nil {
			return nil, nil, err
		}
		r.logf("%s: %s applies %d clips of %s to %s in parallel", label, kind, n, slices.Min(gens), slices.Max(gens))
		run, err := r.apply(ctx, dir, mock.URL, n, timeout, false)
		if err != nil {
			return nil, nil, err
		}
		l, err := mock.Ledger(ctx)
		if err != nil {
			return nil, nil, err
		}
		st, err := taskStats(l, run, tag, n)
		if err != nil {
			return nil, nil, err
		}
		r.logf("  %s: detection p95 %.2fs, GETs/task %.1f, wall %.1fs", kind, st.ReturnedP95, st.GetsMean, run.Wall.Seconds())
		if kind == "peer" {
			peer = st
		} else {
			provider = st
		}
	}
	return provider, peer, nil
}

func secondsLabel(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
}

// ApplyResult is the apply of ApplyClips clips at ApplyParallelism.
type ApplyResult struct {
	Clips          int          `json:"clips"`
	Parallelism    int          `json:"parallelism"`
	Generation     Duration     `json:"generation"`
	BaselineWalls  []Duration   `json:"baseline_walls"`
	BaselineBefore []Duration   `json:"baseline_before_first_apply"` // exec to the first apply_start
	ProviderBefore []Duration   `json:"provider_before_first_apply"`
	ProviderWalls  []Duration   `json:"provider_walls"`
	PeerWall       Duration     `json:"peer_wall"`
	Baseline       Duration     `json:"baseline"` // median
	Provider       Duration     `json:"provider"` // median
	Ideal          Duration     `json:"ideal"`
	Target         Duration     `json:"target"`
	ProviderMemory MemResult    `json:"provider_memory"` // the largest of the provider runs
	PeerMemory     MemResult    `json:"peer_memory"`
	ProviderTasks  []*TaskStats `json:"provider_tasks"`
	PeerTasks      *TaskStats   `json:"peer_tasks"`
}

// Apply times ApplyRepeats applies of the baseline and the provider,
// interleaved, then one of the peer, on one mock. Memory is sampled during the
// provider and peer applies.
func (r *Runner) Apply(ctx context.Context) (*ApplyResult, error) {
	s := r.Settings
	gen := time.Duration(s.ApplyGeneration)
	mock, err := r.Env.StartMock(ctx, "-duration", gen.String())
	if err != nil {
		return nil, err
	}
	defer mock.Stop()
	res := &ApplyResult{Clips: s.ApplyClips, Parallelism: s.ApplyParallelism, Generation: s.ApplyGeneration}
	waves := (s.ApplyClips + s.ApplyParallelism - 1) / s.ApplyParallelism
	timeout := time.Duration(waves)*gen*10 + 5*time.Minute
	prompts := func(tag string) []string {
		out := make([]string, s.ApplyClips)
		for i := range out {
			out[i] = Prompt(tag, i, gen)
		}
		return out
	}
	for rep := 1; rep <= s.ApplyRepeats; rep++ {
		dir, err := r.Env.Workspace("apply-baseline", BaselineConfig(prompts("apply-baseline")), nil)
		if err != nil {
			return nil, err
		}
		run, err := r.apply(ctx, dir, mock.URL, s.ApplyParallelism, timeout, false)
		if err != nil {
			return nil, err
		}
		res.BaselineWalls = append(res.BaselineWalls, run.Wall)
		res.BaselineBefore = append(res.BaselineBefore, Duration(run.FirstApplyStart()))
		r.logf("apply %d: baseline (terraform_data) run %d: %.2fs", s.ApplyClips, rep, run.Wall.Seconds())

		tag := fmt.Sprintf("apply-provider-%d", rep)
		if dir, err = r.Env.Workspace(tag, ProviderConfig(prompts(tag)), nil); err != nil {
			return nil, err
		}
		if run, err = r.apply(ctx, dir, mock.URL, s.ApplyParallelism, timeout, true); err != nil {
			return nil, err
		}
		res.ProviderWalls = append(res.ProviderWalls, run.Wall)
		res.ProviderBefore = append(res.ProviderBefore, Duration(run.FirstApplyStart()))
		if run.Mem != nil && run.Mem.ExePeakHWM > res.ProviderMemory.ExePeakHWM {
			res.ProviderMemory = *run.Mem
		}
		l, err := mock.Ledger(ctx)
		if err != nil {
			return nil, err
		}
		st, err := taskStats(l, run, tag, s.ApplyClips)
		if err != nil {
			return nil, err
		}
		st.Tasks = nil // the latency cases keep per-task samples
		res.ProviderTasks = append(res.ProviderTasks, st)
		r.logf("apply %d: provider run %d: %.2fs, peak RSS %.1f MiB", s.ApplyClips, rep, run.Wall.Seconds(), mib(res.ProviderMemory.ExePeakHWM))
	}
	dir, err := r.Env.Workspace("apply-peer", PeerConfig(prompts("apply-peer"), r.peerScript()), nil)
	if err != nil {
		return nil, err
	}
	run, err := r.apply(ctx, dir, mock.URL, s.ApplyParallelism, timeout, true)
	if err != nil {
		return nil, err
	}
	res.PeerWall = run.Wall
	if run.Mem != nil {
		res.PeerMemory = *run.Mem
	}
	l, err := mock.Ledger(ctx)
	if err != nil {
		return nil, err
	}
	if res.PeerTasks, err = taskStats(l, run, "apply-peer", s.ApplyClips); err != nil {
		return nil, err
	}
	res.PeerTasks.Tasks = nil
	r.logf("apply %d: peer: %.2fs", s.ApplyClips, run.Wall.Seconds())

	res.Baseline = medianDuration(res.BaselineWalls)
	res.Provider = medianDuration(res.ProviderWalls)
	res.Ideal = Duration(ApplyIdeal(s.ApplyClips, s.ApplyParallelism, gen, time.Duration(res.Baseline)))
	res.Target = Duration(time.Duration(1.15 * float64(res.Ideal)))
	return res, nil
}

func medianDuration(ds []Duration) Duration {
	xs := make([]float64, len(ds))
	for i, d := range ds {
		xs[i] = float64(d)
	}
	if len(xs) == 0 {
		return 0
	}
	return Duration(Median(xs))
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

// RefreshRun is one timed refresh.
type RefreshRun struct {
	Wall         Duration `json:"wall"`
	Errors       []string `json:"errors,omitempty"`
	ExitCode     int      `json:"exit_code"`
	Gets         int      `json:"gets"`          // GETs of tasks the mock received, retries included
	Responses429 int      `json:"responses_429"` // rate-limited answers during the run
}

// RefreshResult is the refresh of RefreshClips existing clips under a rate limit.
type RefreshResult struct {
	Clips         int          `json:"clips"`
	RateLimit     float64      `json:"rate_limit_rps"`
	Parallelism   int          `json:"parallelism"`
	SetupWall     Duration     `json:"setup_wall"` // applying the clips, under the same rate limit
	Setup429      int          `json:"setup_responses_429"`
	BaselineWalls []Duration   `json:"baseline_walls"`
	Baseline      Duration     `json:"baseline"`
	Runs          []RefreshRun `json:"runs"`
	Provider      Duration     `json:"provider"` // median
	Errors        int          `json:"errors"`   // over all runs
	Target        Duration     `json:"target"`
}

// Refresh applies RefreshClips clips that finish at once against a mock limited
// to RefreshRPS requests per second, then times `terraform apply -refresh-only`
// of them and of as many terraform_data resources (the baseline).
func (r *Runner) Refresh(ctx context.Context) (*RefreshResult, error) {
	s := r.Settings
	mock, err := r.Env.StartMock(ctx, "-rate-limit", strconv.FormatFloat(s.RefreshRPS, 'f', -1, 64))
	if err != nil {
		return nil, err
	}
	defer mock.Stop()
	res := &RefreshResult{Clips: s.RefreshClips, RateLimit: s.RefreshRPS, Parallelism: s.RefreshParallelism}
	prompts := make([]string, s.RefreshClips)
	for i := range prompts {
		prompts[i] = Prompt("refresh", i, 0)
	}
	timeout := time.Duration(float64(10*s.RefreshClips)/s.RefreshRPS*float64(time.Second)) + 5*time.Minute
	providerDir, err := r.Env.Workspace("refresh-provider", ProviderConfig(prompts), nil)
	if err != nil {
		return nil, err
	}
	r.logf("refresh %d: creating the clips under a rate limit of %g requests/s", s.RefreshClips, s.RefreshRPS)
	run, err := r.apply(ctx, providerDir, mock.URL, s.RefreshParallelism, timeout, false)
	if err != nil {
		return nil, fmt.Errorf("creating the clips to refresh: %w", err)
	}
	res.SetupWall = run.Wall
	l, err := mock.Ledger(ctx)
	if err != nil {
		return nil, err
	}
	res.Setup429 = l.Responses["429"]
	r.logf("  created in %.1fs with %d rate-limited answers", run.Wall.Seconds(), res.Setup429)
	baselineDir, err := r.Env.Workspace("refresh-baseline", BaselineConfig(prompts), nil)
	if err != nil {
		return nil, err
	}
	if _, err := r.apply(ctx, baselineDir, "", s.RefreshParallelism, timeout, false); err != nil {
		return nil, err
	}
	for rep := 1; rep <= s.RefreshRepeats; rep++ {
		run, err := r.apply(ctx, baselineDir, "", s.RefreshParallelism, timeout, false, "-refresh-only")
		if err != nil {
			return nil, err
		}
		res.BaselineWalls = append(res.BaselineWalls, run.Wall)
		// The mock's token bucket holds one second of requests: two seconds of
		// rest give every run a full bucket.
		if err := sleep(ctx, 2*time.Second); err != nil {
			return nil, err
		}
		before, err := mock.Ledger(ctx)
		if err != nil {
			return nil, err
		}
		run, err = r.Env.TerraformRun(ctx, TFOptions{Dir: providerDir, MockURL: mock.URL, Timeout: timeout},
			append(append([]string{"apply"}, strings.Fields(applyArgs)...), fmt.Sprintf("-parallelism=%d", s.RefreshParallelism), "-refresh-only")...)
		if err != nil {
			return nil, err
		}
		after, err := mock.Ledger(ctx)
		if err != nil {
			return nil, err
		}
		rr := RefreshRun{Wall: run.Wall, Errors: run.Errors, ExitCode: run.ExitCode,
			Gets:         after.Requests["GET /v1/video/generations/{task_id}"] - before.Requests["GET /v1/video/generations/{task_id}"],
			Responses429: after.Responses["429"] - before.Responses["429"]}
		if rr.ExitCode != 0 && len(rr.Errors) == 0 {
			rr.Errors = []string{fmt.Sprintf("terraform exited %d: %s", rr.ExitCode, tail(run.Stderr, 500))}
		}
		res.Runs = append(res.Runs, rr)
		res.Errors += len(rr.Errors)
		r.logf("refresh %d: provider run %d: %.2fs, %d errors, %d GETs, %d rate-limited (baseline %.2fs)",
			s.RefreshClips, rep, run.Wall.Seconds(), len(rr.Errors), rr.Gets, rr.Responses429, res.BaselineWalls[rep-1].Seconds())
	}
	walls := make([]Duration, len(res.Runs))
	for i, rr := range res.Runs {
		walls[i] = rr.Wall
	}
	res.Provider = medianDuration(walls)
	res.Baseline = medianDuration(res.BaselineWalls)
	res.Target = Duration(RefreshTarget(s.RefreshClips, s.RefreshRPS, time.Duration(res.Baseline)))
	return res, nil
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// StartupResult is how long the plugin takes from exec to its go-plugin
// handshake, and the peer's equivalent: bash starting the script and curl.
type StartupResult struct {
	Runs           int        `json:"runs"`
	Provider       []Duration `json:"provider"`
	Peer           []Duration `json:"peer"`
	ProviderMedian Duration   `json:"provider_median"`
	PeerMedian     Duration   `json:"peer_median"`
}

// pluginMagicCookie is the handshake value Terraform gives every plugin
// (terraform-plugin-go's tf6server); without it the provider refuses to serve.
const pluginMagicCookie = "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2"

// Startup times StartupRuns starts of the provider and of the peer script.
func (r *Runner) Startup(ctx context.Context) (*StartupResult, error) {
	res := &StartupResult{Runs: r.Settings.StartupRuns}
	sockets, err := os.MkdirTemp(r.Env.Work, "plugin-sockets-")
	if err != nil {
		return nil, err
	}
	for i := 0; i < r.Settings.StartupRuns; i++ {
		d, err := r.pluginStartup(ctx, sockets)
		if err != nil {
			return nil, err
		}
		res.Provider = append(res.Provider, d)
		start := time.Now()
		env := append(os.Environ(), "PEER_SELF_CHECK=1")
		if out, err := r.Env.run(ctx, 30*time.Second, r.Env.Work, env, "bash", r.peerScript()); err != nil {
			return nil, fmt.Errorf("peer self-check: %w: %s", err, out)
		}
		res.Peer = append(res.Peer, Duration(time.Since(start)))
	}
	res.ProviderMedian, res.PeerMedian = medianDuration(res.Provider), medianDuration(res.Peer)
	r.logf("start-up: provider %.0f ms, peer %.0f ms (medians of %d)", 1000*res.ProviderMedian.Seconds(),
		1000*res.PeerMedian.Seconds(), res.Runs)
	return res, nil
}

func (r *Runner) pluginStartup(ctx context.Context, sockets string) (Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := r.Env.Procs.Command(ctx, time.Second, r.Env.Provider)
	cmd.Env = []string{
		"TF_PLUGIN_MAGIC_COOKIE=" + pluginMagicCookie, "PLUGIN_PROTOCOL_VERSIONS=6",
		"PLUGIN_UNIX_SOCKET_DIR=" + sockets, "PATH=" + os.Getenv("PATH"),
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	start := time.Now()
	if err := r.Env.Procs.Start(cmd); err != nil {
		return 0, err
	}
	line, readErr := bufio.NewReader(stdout).ReadString('\n')
	elapsed := time.Since(start)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	r.Env.Procs.Done(cmd)
	if readErr != nil {
		return 0, fmt.Errorf("the provider did not complete the plugin handshake: %w", readErr)
	}
	if !strings.HasPrefix(line, "1|6|") {
		return 0, fmt.Errorf("the provider's handshake line is %q, want protocol 6 (1|6|...)", line)
	}
	return Duration(elapsed), nil
}

// ErrSkipped marks a case that could not run in this checkout.
var ErrSkipped = errors.New("skipped")

package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
	"github.com/videogen/terraform-provider-videogen/internal/poll"
)

// The ways a case applies its clips, side by side.
const (
	toolProvider = "provider"
	toolPeer     = "peer"     // peer/peer.sh from terraform_data's local-exec, polling every 5 s
	toolPeer1s   = "peer-1s"  // the same, polling every second: a fixed poller that notices a clip within 1 s
	toolBaseline = "baseline" // terraform_data doing nothing: Terraform's own time
	toolNoop     = "noop"     // videogen_video of the no-op provider: Terraform's own time for the clip's schema
)

// TaskSample is one task as the mock's ledger and the CLI's events saw it.
type TaskSample struct {
	Index      int     `json:"index"`
	Submitted  float64 `json:"submitted_s"`  // since the first submission of the run
	Generation float64 `json:"generation_s"` // final_at - submitted_at
	Observed   float64 `json:"observed_s"`   // final_observed_at - final_at: the GET that first saw the final status
	Returned   float64 `json:"returned_s"`   // the CLI's apply_complete - final_at: the resource reported done
	Gets       int     `json:"gets"`
	// Looks are when the GETs came, counted from the task's submission.
	Looks []float64 `json:"looks,omitempty"`
}

// TaskStats summarises the tasks of one apply.
type TaskStats struct {
	Wall        Duration     `json:"wall"`
	ObservedP95 float64      `json:"observed_p95_s"`
	ReturnedP50 float64      `json:"returned_p50_s"`
	ReturnedAvg float64      `json:"returned_mean_s"`
	ReturnedP95 float64      `json:"returned_p95_s"`
	GetsMean    float64      `json:"gets_mean"`
	GetsMax     float64      `json:"gets_max"`
	Tasks       []TaskSample `json:"tasks"`
}

// taskStats matches the ledger's tasks of a tag with the CLI's apply_complete
// events by clip index; every clip must have exactly one task.
func taskStats(l mockapi.Ledger, run *TFRun, tag string, n int) (*TaskStats, error) {
	done := map[int]time.Time{}
	for addr, at := range run.Completed() {
		if i := clipIndex(addr); i >= 0 {
			done[i] = at
		}
	}
	seen := map[int]bool{}
	var tasks []TaskSample
	var submitted []time.Time
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
			return nil, fmt.Errorf("%s: the CLI reported no apply_complete for clip %d", tag, i)
		}
		submitted = append(submitted, t.SubmittedAt)
		looks := make([]float64, len(t.GetTimes))
		for j, g := range t.GetTimes {
			looks[j] = g.Sub(t.SubmittedAt).Seconds()
		}
		tasks = append(tasks, TaskSample{
			Index: i, Generation: t.FinalAt.Sub(t.SubmittedAt).Seconds(),
			Observed: t.FinalObservedAt.Sub(t.FinalAt).Seconds(), Returned: at.Sub(t.FinalAt).Seconds(), Gets: t.GetCount,
			Looks: looks,
		})
	}
	if len(tasks) != n || n == 0 {
		return nil, fmt.Errorf("%s: the ledger holds %d clips, want %d", tag, len(tasks), n)
	}
	first := slices.MinFunc(submitted, time.Time.Compare)
	for i := range tasks {
		tasks[i].Submitted = submitted[i].Sub(first).Seconds()
	}
	slices.SortFunc(tasks, func(a, b TaskSample) int { return a.Index - b.Index })
	st := summarize(tasks)
	st.Wall = run.Wall
	return st, nil
}

// summarize computes the figures of a set of tasks.
func summarize(tasks []TaskSample) *TaskStats {
	var observed, returned, gets []float64
	for _, t := range tasks {
		observed, returned, gets = append(observed, t.Observed), append(returned, t.Returned), append(gets, float64(t.Gets))
	}
	return &TaskStats{
		ObservedP95: Percentile(observed, 95),
		ReturnedP50: Median(returned), ReturnedAvg: Mean(returned), ReturnedP95: Percentile(returned, 95),
		GetsMean: Mean(gets), GetsMax: Max(gets), Tasks: tasks,
	}
}

// Runner runs the cases.
type Runner struct {
	Env      *Env
	Settings Settings
	Log      io.Writer
	// Out is the results' directory, where the cases that profile the
	// provider keep its profiles.
	Out string
}

func (r *Runner) logf(format string, args ...any) {
	fmt.Fprintf(r.Log, "%s  %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// applyClips applies one clip per generation time with tool, from empty state,
// against m; settings go into the provider block.
func (r *Runner) applyClips(ctx context.Context, m *acctest.Mock, tool, tag string, gens []time.Duration,
	o ApplyOptions, settings ...string,
) (*TFRun, *acctest.Workdir, error) {
	prompts := Prompts(tag, gens)
	hcl := BaselineConfig(prompts)
	switch tool {
	case toolProvider:
		hcl = ProviderConfig(prompts, settings...)
	case toolNoop:
		hcl = NoopConfig(prompts)
	case toolPeer:
		hcl = PeerConfig(prompts, r.Env.PeerScript, 5)
	case toolPeer1s:
		hcl = PeerConfig(prompts, r.Env.PeerScript, 1)
	}
	w, err := r.Env.Workdir(ctx, tag, hcl, m)
	if err != nil {
		return nil, nil, err
	}
	run, err := r.Env.Apply(ctx, w, o)
	return run, w, err
}

// clipsWithStats is applyClips followed by taskStats on m's ledger.
func (r *Runner) clipsWithStats(ctx context.Context, m *acctest.Mock, tool, tag string, gens []time.Duration,
	o ApplyOptions,
) (*TaskStats, *TFRun, error) {
	run, _, err := r.applyClips(ctx, m, tool, tag, gens, o)
	if err != nil {
		return nil, run, err
	}
	st, err := taskStats(m.Ledger(), run, tag, len(gens))
	return st, run, err
}

// LatencyResult is clips of one generation time: the provider, the peer
// polling every 5 s and every second, on the canonical mock, whose tasks
// report no progress; and, for ProgressGenerations, the provider again on the
// mock's new-api dialect, whose running tasks report progress.
type LatencyResult struct {
	Generation Duration   `json:"generation"`
	Tasks      int        `json:"tasks"`
	Spread     float64    `json:"spread"`
	Provider   *TaskStats `json:"provider"`
	Peer       *TaskStats `json:"peer"`
	Peer1s     *TaskStats `json:"peer_1s,omitempty"`
	Progress   *TaskStats `json:"provider_with_progress,omitempty"`
}

// Latency applies LatencyTasks clips of about gen, all in parallel, with the
// provider and both peers, then with progress reported when gen is one of
// ProgressGenerations.
func (r *Runner) Latency(ctx context.Context, gen time.Duration) (*LatencyResult, error) {
	res := &LatencyResult{Generation: Duration(gen), Tasks: r.Settings.LatencyTasks, Spread: r.Settings.Spread}
	tag := "latency-" + strconv.FormatFloat(gen.Seconds(), 'f', -1, 64) + "s"
	gens := poll.Spread(gen, r.Settings.Spread, res.Tasks)
	st, err := r.parallelClips(ctx, tag, gens, nil, toolProvider, toolPeer, toolPeer1s)
	if err != nil {
		return res, err
	}
	res.Provider, res.Peer, res.Peer1s = st[toolProvider], st[toolPeer], st[toolPeer1s]
	if slices.Contains(r.Settings.ProgressGenerations, Duration(gen)) {
		st, err := r.parallelClips(ctx, tag+"-progress", gens, mockapi.WithDialect(mockapi.DialectNewAPI), toolProvider)
		if err != nil {
			return res, err
		}
		res.Progress = st[toolProvider]
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
// SweepFrom to SweepTo: how each tool does at every generation time, not only
// at those of the latency cases.
func (r *Runner) Sweep(ctx context.Context) (*SweepResult, error) {
	s := r.Settings
	gens := make([]time.Duration, s.SweepTasks)
	for i := range gens {
		f := 0.0
		if len(gens) > 1 {
			f = float64(i) / float64(len(gens)-1)
		}
		gens[i] = (time.Duration(s.SweepFrom) + time.Duration(f*float64(s.SweepTo-s.SweepFrom))).Round(time.Millisecond)
	}
	res := &SweepResult{From: s.SweepFrom, To: s.SweepTo, Tasks: len(gens)}
	st, err := r.parallelClips(ctx, "sweep", gens, nil, toolProvider, toolPeer)
	res.Provider, res.Peer = st[toolProvider], st[toolPeer]
	return res, err
}

// parallelClips applies one clip per generation time, all in parallel, with
// each of tools in turn, on one mock (configured by dialect when it is not
// nil).
func (r *Runner) parallelClips(ctx context.Context, label string, gens []time.Duration, dialect func(*mockapi.Config),
	tools ...string,
) (map[string]*TaskStats, error) {
	var opts []func(*mockapi.Config)
	if dialect != nil {
		opts = append(opts, dialect)
	}
	m, err := StartMock(0, 0, opts...)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	out := map[string]*TaskStats{}
	for _, tool := range tools {
		r.logf("%s: %s applies %d clips of %s to %s in parallel (load %.2f)", label, tool, len(gens), slices.Min(gens),
			slices.Max(gens), LoadAvg())
		st, _, err := r.clipsWithStats(ctx, m, tool, label+"-"+tool, gens, ApplyOptions{Parallelism: len(gens)})
		if err != nil {
			return nil, err
		}
		r.logf("  %s: detection p50 %.2fs p95 %.2fs, GETs/clip %.1f, wall %.1fs", tool, st.ReturnedP50, st.ReturnedP95,
			st.GetsMean, st.Wall.Seconds())
		out[tool] = st
	}
	return out, nil
}

// ApplyResult is the apply of ApplyClips clips at ApplyParallelism.
type ApplyResult struct {
	Clips          int          `json:"clips"`
	Parallelism    int          `json:"parallelism"`
	Generation     Duration     `json:"generation"`
	BaselineWalls  []Duration   `json:"baseline_walls"`
	BaselineBefore []Duration   `json:"baseline_before_first_apply"` // from the start to the first apply_start
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
// interleaved, then one of the peer, on one mock, sampling memory.
func (r *Runner) Apply(ctx context.Context) (*ApplyResult, error) {
	s := r.Settings
	gen := time.Duration(s.ApplyGeneration)
	m, err := StartMock(0, 0)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	res := &ApplyResult{Clips: s.ApplyClips, Parallelism: s.ApplyParallelism, Generation: s.ApplyGeneration}
	gens := poll.Spread(gen, 0, s.ApplyClips)
	o := ApplyOptions{Parallelism: s.ApplyParallelism}
	for rep := 1; rep <= s.ApplyRepeats; rep++ {
		run, _, err := r.applyClips(ctx, m, toolBaseline, "apply-baseline", gens, o)
		if err != nil {
			return nil, err
		}
		res.BaselineWalls = append(res.BaselineWalls, run.Wall)
		res.BaselineBefore = append(res.BaselineBefore, Duration(run.FirstApplyStart()))

		tag := fmt.Sprintf("apply-provider-%d", rep)
		o.SampleMem = true
		st, run, err := r.clipsWithStats(ctx, m, toolProvider, tag, gens, o)
		o.SampleMem = false
		if err != nil {
			return nil, err
		}
		res.ProviderWalls = append(res.ProviderWalls, run.Wall)
		res.ProviderBefore = append(res.ProviderBefore, Duration(run.FirstApplyStart()))
		if run.Mem != nil && run.Mem.ProviderPeakHWM > res.ProviderMemory.ProviderPeakHWM {
			res.ProviderMemory = *run.Mem
		}
		st.Tasks = nil // the latency cases keep per-task samples
		res.ProviderTasks = append(res.ProviderTasks, st)
		r.logf("apply %d: baseline %.2fs, provider run %d %.2fs", s.ApplyClips, res.BaselineWalls[rep-1].Seconds(), rep, run.Wall.Seconds())
	}
	st, run, err := r.clipsWithStats(ctx, m, toolPeer, "apply-peer", gens, ApplyOptions{Parallelism: s.ApplyParallelism, SampleMem: true})
	if err != nil {
		return nil, err
	}
	res.PeerWall, res.PeerTasks = run.Wall, st
	res.PeerTasks.Tasks = nil
	if run.Mem != nil {
		res.PeerMemory = *run.Mem
	}
	r.logf("apply %d: peer %.2fs", s.ApplyClips, run.Wall.Seconds())
	res.Baseline = medianDuration(res.BaselineWalls)
	res.Provider = medianDuration(res.ProviderWalls)
	res.Ideal = Duration(ApplyIdeal(s.ApplyClips, s.ApplyParallelism, gen, time.Duration(res.Baseline)))
	res.Target = Duration(time.Duration(1.10 * float64(res.Ideal)))
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
	Requests     int      `json:"requests"`      // API requests the mock received, retries included
	Responses429 int      `json:"responses_429"` // of which answered 429
}

// RefreshResult is the refresh of existing clips under a rate limit.
type RefreshResult struct {
	Clips         int          `json:"clips"`
	RateLimit     float64      `json:"rate_limit_rps"`
	Limiter       float64      `json:"limiter_rps"` // the provider's max_requests_per_second; 0 = unset
	Parallelism   int          `json:"parallelism"`
	SetupWall     Duration     `json:"setup_wall"` // applying the clips, under the same rate limit
	Setup429      int          `json:"setup_responses_429"`
	BaselineWalls []Duration   `json:"baseline_walls"`
	Baseline      Duration     `json:"baseline"`
	Runs          []RefreshRun `json:"runs"`
	Provider      Duration     `json:"provider"` // median
	Errors        int          `json:"errors"`   // over all runs
}

// Refresh applies clips that finish at once against a mock limited to rps
// requests per second, then times `apply -refresh-only` of them `repeats`
// times, and of as many terraform_data resources (the baseline). limiter is
// the provider's max_requests_per_second (0: unset).
func (r *Runner) Refresh(ctx context.Context, clips int, rps, limiter float64, repeats int) (*RefreshResult, error) {
	s := r.Settings
	m, err := StartMock(rps, 0)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	res := &RefreshResult{Clips: clips, RateLimit: rps, Limiter: limiter, Parallelism: s.RefreshParallelism}
	gens := poll.Spread(0, 0, clips)
	var settings []string
	if limiter > 0 {
		settings = append(settings, fmt.Sprintf("max_requests_per_second = %g", limiter))
	}
	tag := fmt.Sprintf("refresh-%d", clips)
	r.logf("refresh %d: creating the clips under a rate limit of %g requests/s (limiter %g)", clips, rps, limiter)
	o := ApplyOptions{Parallelism: s.RefreshParallelism}
	run, w, err := r.applyClips(ctx, m, toolProvider, tag, gens, o, settings...)
	if err != nil {
		return nil, fmt.Errorf("creating the clips to refresh: %w", err)
	}
	res.SetupWall, res.Setup429 = run.Wall, m.Ledger().Responses["429"]
	r.logf("  created in %.1fs with %d answered 429", run.Wall.Seconds(), res.Setup429)
	_, base, err := r.applyClips(ctx, nil, toolBaseline, tag+"-baseline", gens, o)
	if err != nil {
		return nil, err
	}
	o.RefreshOnly, o.AllowErrors = true, true
	for rep := 1; rep <= repeats; rep++ {
		brun, err := r.Env.Apply(ctx, base, ApplyOptions{Parallelism: s.RefreshParallelism, RefreshOnly: true})
		if err != nil {
			return nil, err
		}
		res.BaselineWalls = append(res.BaselineWalls, brun.Wall)
		// The mock's bucket holds one second of requests: two seconds of rest
		// give every run a full bucket.
		if err := sleep(ctx, 2*time.Second); err != nil {
			return nil, err
		}
		before := m.Ledger()
		run, err := r.Env.Apply(ctx, w, o)
		if err != nil {
			return nil, err
		}
		after := m.Ledger()
		rr := RefreshRun{Wall: run.Wall, Errors: run.Errors,
			Requests:     after.RequestCount() - before.RequestCount(),
			Responses429: after.Responses["429"] - before.Responses["429"]}
		res.Runs = append(res.Runs, rr)
		res.Errors += len(rr.Errors)
		r.logf("refresh %d: provider run %d: %.2fs, %d errors, %d requests, %d answered 429 (baseline %.2fs)",
			clips, rep, run.Wall.Seconds(), len(rr.Errors), rr.Requests, rr.Responses429, brun.Wall.Seconds())
	}
	walls := make([]Duration, len(res.Runs))
	for i, rr := range res.Runs {
		walls[i] = rr.Wall
	}
	res.Provider, res.Baseline = medianDuration(walls), medianDuration(res.BaselineWalls)
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

// pluginMagicCookie is the handshake value the CLI gives every plugin
// (terraform-plugin-go's tf6server); without it the provider refuses to serve.
const pluginMagicCookie = "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2"

// Startup times StartupRuns starts of the provider and of the peer script.
func (r *Runner) Startup(ctx context.Context) (*StartupResult, error) {
	res := &StartupResult{Runs: r.Settings.StartupRuns}
	sockets, err := os.MkdirTemp(r.Env.Work, "plugin-sockets-")
	if err != nil {
		return nil, err
	}
	for range res.Runs {
		d, err := r.pluginStartup(ctx, sockets)
		if err != nil {
			return nil, err
		}
		res.Provider = append(res.Provider, d)
		peer := exec.CommandContext(ctx, "bash", r.Env.PeerScript) //nolint:gosec // G204: the bench's own script
		peer.Env = append(os.Environ(), "PEER_SELF_CHECK=1")
		start := time.Now()
		if out, err := peer.CombinedOutput(); err != nil {
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
	cmd := exec.CommandContext(ctx, r.Env.Provider) //nolint:gosec // G204: the provider binary the harness built
	cmd.Env = []string{
		"TF_PLUGIN_MAGIC_COOKIE=" + pluginMagicCookie, "PLUGIN_PROTOCOL_VERSIONS=6",
		"PLUGIN_UNIX_SOCKET_DIR=" + sockets, "PATH=" + os.Getenv("PATH"),
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	line, readErr := bufio.NewReader(stdout).ReadString('\n')
	elapsed := time.Since(start)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if readErr != nil {
		return 0, fmt.Errorf("the provider did not complete the plugin handshake: %w", readErr)
	}
	if !strings.HasPrefix(line, "1|6|") {
		return 0, fmt.Errorf("the provider's handshake line is %q, want protocol 6 (1|6|...)", line)
	}
	return Duration(elapsed), nil
}

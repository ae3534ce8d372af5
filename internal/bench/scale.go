package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
	"github.com/videogen/terraform-provider-videogen/internal/poll"
)

// WavesResult is WavesClips clips at WavesParallelism: Terraform keeps that
// many in flight, so the clips go in waves, and every wave after the first can
// use what the earlier ones taught the waiter.
type WavesResult struct {
	Clips       int      `json:"clips"`
	Parallelism int      `json:"parallelism"`
	Generation  Duration `json:"generation"`
	Spread      float64  `json:"spread"`
	Baseline    Duration `json:"baseline"` // as many terraform_data
	Ideal       Duration `json:"ideal"`
	// DefaultFirstWaveGets is what the default schedule (poll.DefaultPolicy,
	// unshifted) spends on the first wave's clips: the first wave cannot learn,
	// and must do no worse.
	DefaultFirstWaveGets float64    `json:"default_first_wave_gets"`
	Provider             *TaskStats `json:"provider"`
	ProviderFirst        *TaskStats `json:"provider_first_wave"`
	ProviderLater        *TaskStats `json:"provider_later_waves"`
	Peer                 *TaskStats `json:"peer"`
	PeerFirst            *TaskStats `json:"peer_first_wave"`
	PeerLater            *TaskStats `json:"peer_later_waves"`
}

// Waves applies the clips with the baseline, the provider and the peer.
func (r *Runner) Waves(ctx context.Context) (*WavesResult, error) {
	s := r.Settings
	gen := time.Duration(s.WavesGeneration)
	res := &WavesResult{Clips: s.WavesClips, Parallelism: s.WavesParallelism, Generation: s.WavesGeneration, Spread: s.WavesSpread}
	gens := poll.Shuffled(poll.Spread(gen, s.WavesSpread, s.WavesClips), 1)
	m, err := StartMock(0, 0)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	o := ApplyOptions{Parallelism: s.WavesParallelism}
	run, _, err := r.applyClips(ctx, m, toolBaseline, "waves-baseline", gens, o)
	if err != nil {
		return nil, err
	}
	res.Baseline = run.Wall
	res.Ideal = Duration(ApplyIdeal(s.WavesClips, s.WavesParallelism, gen, time.Duration(res.Baseline)))
	for _, tool := range []string{toolProvider, toolPeer} {
		st, _, err := r.clipsWithStats(ctx, m, tool, "waves-"+tool, gens, o)
		if err != nil {
			return nil, err
		}
		first, later := splitWaves(st.Tasks, s.WavesParallelism)
		r.logf("waves: %s %.1fs (ideal %.1fs), GETs/clip first wave %.1f, later %.1f", tool, st.Wall.Seconds(),
			res.Ideal.Seconds(), first.GetsMean, later.GetsMean)
		if tool == toolProvider {
			res.Provider, res.ProviderFirst, res.ProviderLater = st, first, later
		} else {
			res.Peer, res.PeerFirst, res.PeerLater = st, first, later
		}
	}
	looks := poll.DefaultPolicy().Looks(1000)
	var gets []float64
	for _, t := range res.ProviderFirst.Tasks {
		gets = append(gets, float64(defaultGets(looks, t.Generation)))
	}
	res.DefaultFirstWaveGets = Mean(gets)
	return res, nil
}

// splitWaves separates the first `parallelism` clips submitted from the rest.
func splitWaves(tasks []TaskSample, parallelism int) (first, later *TaskStats) {
	byTime := slices.Clone(tasks)
	slices.SortFunc(byTime, func(a, b TaskSample) int { return cmpFloat(a.Submitted, b.Submitted) })
	n := min(parallelism, len(byTime))
	return summarize(byTime[:n]), summarize(byTime[n:])
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// defaultGets is how many GETs a schedule with these looks makes for a clip
// that takes generation seconds: the looks before it, and the one that sees it.
func defaultGets(looks []time.Duration, generation float64) int {
	for i, at := range looks {
		if at.Seconds() >= generation {
			return i + 1
		}
	}
	return len(looks)
}

// LongResult is LongClips long clips, all in parallel.
type LongResult struct {
	Clips      int        `json:"clips"`
	Generation Duration   `json:"generation"`
	Spread     float64    `json:"spread"`
	Provider   *TaskStats `json:"provider"`
	// ProviderLate is the half of the clips that finish last: by then the
	// waiter has seen the first half finish.
	ProviderLate *TaskStats `json:"provider_second_half"`
	Peer         *TaskStats `json:"peer"`
	PeerLate     *TaskStats `json:"peer_second_half"`
	// ProgressLate is the second half of the same clips applied by the
	// provider against the mock's new-api dialect, whose tasks report progress.
	Progress     *TaskStats `json:"provider_with_progress,omitempty"`
	ProgressLate *TaskStats `json:"provider_with_progress_second_half,omitempty"`
}

// Long applies the clips with the provider and the peer, then with the
// provider against a mock whose tasks report progress.
func (r *Runner) Long(ctx context.Context) (*LongResult, error) {
	s := r.Settings
	res := &LongResult{Clips: s.LongClips, Generation: s.LongGeneration, Spread: s.LongSpread}
	gens := poll.Shuffled(poll.Spread(time.Duration(s.LongGeneration), s.LongSpread, s.LongClips), 2)
	m, err := StartMock(0, 0)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	for _, tool := range []string{toolProvider, toolPeer} {
		st, _, err := r.clipsWithStats(ctx, m, tool, "long-"+tool, gens, ApplyOptions{Parallelism: s.LongClips})
		if err != nil {
			return nil, err
		}
		late := secondHalf(st.Tasks)
		r.logf("long: %s detection p95 %.2fs (second half %.2fs), GETs/clip %.1f (second half %.1f)", tool,
			st.ReturnedP95, late.ReturnedP95, st.GetsMean, late.GetsMean)
		if tool == toolProvider {
			res.Provider, res.ProviderLate = st, late
		} else {
			res.Peer, res.PeerLate = st, late
		}
	}
	st, err := r.parallelClips(ctx, "long-progress", gens, mockapi.WithDialect(mockapi.DialectNewAPI), toolProvider)
	if err != nil {
		return nil, err
	}
	res.Progress, res.ProgressLate = st[toolProvider], secondHalf(st[toolProvider].Tasks)
	return res, nil
}

// secondHalf is the half of the tasks that finished last.
func secondHalf(tasks []TaskSample) *TaskStats {
	byEnd := slices.Clone(tasks)
	slices.SortFunc(byEnd, func(a, b TaskSample) int { return cmpFloat(a.Submitted+a.Generation, b.Submitted+b.Generation) })
	return summarize(byEnd[len(byEnd)/2:])
}

// FanOutRun is one apply of the fan-out case.
type FanOutRun struct {
	Tool    string   `json:"tool"`
	Limiter float64  `json:"limiter_rps"` // the provider's max_requests_per_second; 0 = unset
	Wall    Duration `json:"wall"`
	Failed  bool     `json:"failed"`
	Errors  []string `json:"errors,omitempty"`
	// Tasks is how many tasks the mock created; Clips how many distinct clips
	// they were for. One task per clip is the only right answer.
	Tasks        int `json:"tasks"`
	Clips        int `json:"clips"`
	Requests     int `json:"requests"`      // every API request the mock received
	Responses429 int `json:"responses_429"` // of which answered 429
	// Floor is the time the key's rate limit needs for the requests it let
	// through: (requests - 429s) / rate.
	Floor Duration `json:"floor"`
	// FirstSubmission and LastSubmission are counted from the start of the
	// apply: before the first, the CLI starts up and plans; after the last, the
	// last clips generate.
	FirstSubmission Duration   `json:"first_submission"`
	LastSubmission  Duration   `json:"last_submission"`
	Stats           *TaskStats `json:"stats,omitempty"` // when every clip completed
}

// FanOutResult is FanOutClips clips at FanOutParallelism under a key limited to
// FanOutRPS: with the provider's limiter set to the key's limit, with it unset,
// and with the peer; each on a fresh mock.
type FanOutResult struct {
	Clips       int         `json:"clips"`
	RateLimit   float64     `json:"rate_limit_rps"`
	Parallelism int         `json:"parallelism"`
	Generation  Duration    `json:"generation"`
	Baseline    Duration    `json:"baseline"` // as many terraform_data: the CLI's own time
	Runs        []FanOutRun `json:"runs"`
}

// FanOut runs the three applies.
func (r *Runner) FanOut(ctx context.Context) (*FanOutResult, error) {
	s := r.Settings
	res := &FanOutResult{Clips: s.FanOutClips, RateLimit: s.FanOutRPS, Parallelism: s.FanOutParallelism, Generation: s.FanOutGeneration}
	gens := poll.Shuffled(poll.Spread(time.Duration(s.FanOutGeneration), 0.1, s.FanOutClips), 3)
	run, _, err := r.applyClips(ctx, nil, toolBaseline, "fanout-baseline", gens, ApplyOptions{Parallelism: s.FanOutParallelism})
	if err != nil {
		return nil, err
	}
	res.Baseline = run.Wall
	variants := []struct {
		tool    string
		limiter float64
	}{{toolProvider, s.FanOutRPS}, {toolProvider, 0}, {toolPeer, 0}}
	for _, v := range variants {
		run, err := r.fanOut(ctx, v.tool, v.limiter, gens)
		if err != nil {
			return nil, err
		}
		res.Runs = append(res.Runs, *run)
	}
	return res, nil
}

func (r *Runner) fanOut(ctx context.Context, tool string, limiter float64, gens []time.Duration) (*FanOutRun, error) {
	s := r.Settings
	m, err := StartMock(s.FanOutRPS, 0)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	var settings []string
	if limiter > 0 {
		settings = append(settings, fmt.Sprintf("max_requests_per_second = %g", limiter))
	}
	tag := fmt.Sprintf("fanout-%s-%g", tool, limiter)
	run, _, err := r.applyClips(ctx, m, tool, tag, gens, ApplyOptions{Parallelism: s.FanOutParallelism, AllowErrors: true}, settings...)
	if err != nil {
		return nil, err
	}
	l := m.Ledger()
	out := &FanOutRun{Tool: tool, Limiter: limiter, Wall: run.Wall, Failed: run.Failed, Errors: run.Errors,
		Requests: l.RequestCount(), Responses429: l.Responses["429"]}
	clips := map[int]bool{}
	for _, t := range l.Tasks {
		if i := promptIndex(t.Prompt, tag); i >= 0 {
			at := Duration(t.SubmittedAt.Sub(run.Start))
			if out.Tasks == 0 || at < out.FirstSubmission {
				out.FirstSubmission = at
			}
			out.LastSubmission = max(out.LastSubmission, at)
			out.Tasks++
			clips[i] = true
		}
	}
	out.Clips = len(clips)
	out.Floor = Duration(time.Duration(float64(out.Requests-out.Responses429) / s.FanOutRPS * float64(time.Second)))
	if !run.Failed {
		if out.Stats, err = taskStats(l, run, tag, len(gens)); err != nil {
			return nil, err
		}
	}
	r.logf("fan-out: %s (limiter %g): %.1fs against a floor of %.1fs (submissions from %.1fs to %.1fs), %d tasks for %d clips, "+
		"%d errors, %d of %d requests answered 429", tool, limiter, run.Wall.Seconds(), out.Floor.Seconds(),
		out.FirstSubmission.Seconds(), out.LastSubmission.Seconds(), out.Tasks, out.Clips, len(out.Errors), out.Responses429, out.Requests)
	return out, nil
}

// BigApplyResult is BigApplyClips clips of one generation time in one apply at
// BigApplyParallelism: so many resources that Terraform's own time weighs as
// much as the generation's, and the provider must add little to either.
type BigApplyResult struct {
	Clips       int      `json:"clips"`
	Parallelism int      `json:"parallelism"`
	Generation  Duration `json:"generation"`
	// Baseline is as many terraform_data at the same parallelism: Terraform's
	// floor; Ideal adds the waves of generation to it.
	Baseline       Duration    `json:"baseline"`
	BaselineBefore Duration    `json:"baseline_before_first_apply"`
	Ideal          Duration    `json:"ideal"`
	Target         Duration    `json:"target"`
	Provider       *TaskStats  `json:"provider"` // without per-task samples
	ProviderBefore Duration    `json:"provider_before_first_apply"`
	Profile        *CPUProfile `json:"provider_cpu_profile,omitempty"`
	// BaselineCPU and ProviderCLICPU are the CPU time of the CLI with its
	// providers in each apply: less the provider's profile, what Terraform
	// itself spent.
	BaselineCPU    Duration `json:"baseline_cli_cpu,omitempty"`
	ProviderCLICPU Duration `json:"provider_cli_cpu,omitempty"`
	// NoopFloor and NoopFloorCPU are the same number of videogen_video of the
	// no-op provider (internal/bench/noop): Terraform's own time and CPU for
	// resources of the clip's schema, for information beside Baseline, which
	// the target stays measured against.
	NoopFloor    Duration `json:"noop_floor,omitempty"`
	NoopFloorCPU Duration `json:"noop_floor_cli_cpu,omitempty"`
}

// bigApplyFactor bounds the provider's apply as a multiple of Ideal.
const bigApplyFactor = 1.2

// BigApply applies the baseline, then as many resources of the clip's schema
// with the no-op provider, then the clips with the provider profiling its CPU
// into the results' profiles directory.
func (r *Runner) BigApply(ctx context.Context) (*BigApplyResult, error) {
	s := r.Settings
	gen := time.Duration(s.BigApplyGeneration)
	res := &BigApplyResult{Clips: s.BigApplyClips, Parallelism: s.BigApplyParallelism, Generation: s.BigApplyGeneration}
	gens := poll.Spread(gen, 0, s.BigApplyClips)
	m, err := StartMock(0, 0)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	o := ApplyOptions{Parallelism: s.BigApplyParallelism}
	run, _, err := r.applyClips(ctx, m, toolBaseline, "bigapply-baseline", gens, o)
	if err != nil {
		return nil, err
	}
	res.Baseline, res.BaselineBefore, res.BaselineCPU = run.Wall, Duration(run.FirstApplyStart()), run.CPU
	res.Ideal = Duration(ApplyIdeal(s.BigApplyClips, s.BigApplyParallelism, gen, time.Duration(res.Baseline)))
	res.Target = Duration(time.Duration(bigApplyFactor * float64(res.Ideal)))
	r.logf("big apply: %d terraform_data %.1fs, CPU of the CLI %.1fs (load %.2f)", s.BigApplyClips, res.Baseline.Seconds(),
		res.BaselineCPU.Seconds(), LoadAvg())
	if err := r.Env.InstallNoop(ctx); err != nil {
		return nil, err
	}
	if run, _, err = r.applyClips(ctx, m, toolNoop, "bigapply-noop", gens, o); err != nil {
		return nil, err
	}
	for _, t := range m.Ledger().Tasks {
		if promptIndex(t.Prompt, "bigapply-noop") >= 0 {
			return nil, fmt.Errorf("bigapply-noop: the service got task %s: the real provider ran instead of the no-op one", t.TaskID)
		}
	}
	res.NoopFloor, res.NoopFloorCPU = run.Wall, run.CPU
	r.logf("big apply: %d videogen_video of the no-op provider %.1fs, CPU of the CLI %.1fs (load %.2f)", s.BigApplyClips,
		res.NoopFloor.Seconds(), res.NoopFloorCPU.Seconds(), LoadAvg())
	o, prefix, err := ProfileApply(o, filepath.Join(r.Out, "profiles"), "bigapply-provider.cpu")
	if err != nil {
		return nil, err
	}
	st, run, err := r.clipsWithStats(ctx, m, toolProvider, "bigapply-provider", gens, o)
	if err != nil {
		return nil, err
	}
	st.Tasks = nil
	res.Provider, res.ProviderBefore, res.ProviderCLICPU = st, Duration(run.FirstApplyStart()), run.CPU
	r.logf("big apply: provider %.1fs against ideal %.1fs (target %.1fs), first apply_start at %.1fs (baseline %.1fs), "+
		"GETs/clip %.1f (load %.2f)", run.Wall.Seconds(), res.Ideal.Seconds(), res.Target.Seconds(),
		res.ProviderBefore.Seconds(), res.BaselineBefore.Seconds(), st.GetsMean, LoadAvg())
	if res.Profile, err = ReadProfiles(ctx, r.Env.Provider, prefix); err != nil {
		return nil, err
	}
	r.logf("big apply: the provider's CPU profile (%d processes, %.1fs of CPU, in %s):\n%s", len(res.Profile.Files),
		res.Profile.CPU.Seconds(), res.Profile.Dir, strings.Join(res.Profile.Top, "\n"))
	r.logf("big apply: CPU of the CLI with its providers %.1fs (baseline %.1fs), of which the provider's profile %.1fs",
		res.ProviderCLICPU.Seconds(), res.BaselineCPU.Seconds(), res.Profile.CPU.Seconds())
	return res, nil
}

package bench

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"strings"
	"time"
)

// Results is everything one `make bench` run measured; it is written as JSON
// beside the table and the plot.
type Results struct {
	GeneratedAt time.Time         `json:"generated_at"`
	Elapsed     Duration          `json:"elapsed"`
	Machine     Machine           `json:"machine"`
	Settings    Settings          `json:"settings"`
	Rows        []Row             `json:"rows"`
	Latency     []*LatencyResult  `json:"latency,omitempty"`
	Sweep       *SweepResult      `json:"sweep,omitempty"`
	Apply       *ApplyResult      `json:"apply,omitempty"`
	Refresh     *RefreshResult    `json:"refresh,omitempty"`
	Startup     *StartupResult    `json:"startup,omitempty"`
	Download    *DownloadResult   `json:"download,omitempty"`
	Store       *StoreResult      `json:"store,omitempty"`
	Waves       *WavesResult      `json:"waves,omitempty"`
	Long        *LongResult       `json:"long,omitempty"`
	FanOut      *FanOutResult     `json:"fanout,omitempty"`
	BigRefresh  *RefreshResult    `json:"big_refresh,omitempty"`
	BigApply    *BigApplyResult   `json:"big_apply,omitempty"`
	Journal     *JournalResult    `json:"journal,omitempty"`
	CaseErrors  map[string]string `json:"case_errors,omitempty"`
}

// Machine is what a reader needs to weigh the times: the machine is shared,
// so its load is part of every figure.
type Machine struct {
	Cores        int     `json:"cores"`
	Platform     string  `json:"platform"`
	GoVersion    string  `json:"go_version"`
	CLI          string  `json:"cli"`
	LoadAvgStart float64 `json:"load_avg_1m_start"`
	LoadAvgEnd   float64 `json:"load_avg_1m_end"`
}

// NewMachine describes this machine and cli.
func NewMachine(cli string) Machine {
	return Machine{Cores: runtime.NumCPU(), Platform: runtime.GOOS + "/" + runtime.GOARCH, GoVersion: runtime.Version(),
		CLI: cli, LoadAvgStart: LoadAvg()}
}

// LoadAvg is the one-minute load average, or 0 where /proc/loadavg is missing.
func LoadAvg() float64 {
	var l float64
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		_, _ = fmt.Sscanf(string(b), "%f", &l)
	}
	return l
}

// Row is one line of the table: the provider's figure beside the peer's, their
// ratio, and the target when there is one.
type Row struct {
	Case     string   `json:"case"`
	Figure   string   `json:"figure"`
	Unit     string   `json:"unit"`
	Target   string   `json:"target"`
	Provider float64  `json:"provider"`
	Peer     *float64 `json:"peer"`  // nil when the peer has no such figure
	Ratio    *float64 `json:"ratio"` // provider ÷ peer
	Met      *bool    `json:"met"`   // nil when there is no target
	Note     string   `json:"note,omitempty"`
}

func ptr[T any](v T) *T { return &v }

func ratioPtr(a, b float64) *float64 {
	r := Ratio(a, b)
	if math.IsNaN(r) {
		return nil
	}
	return &r
}

// sideBySide is a row of a figure both tools have.
func sideBySide(c, figure, unit string, provider, peer float64) Row {
	return Row{Case: c, Figure: figure, Unit: unit, Target: "—", Provider: provider, Peer: ptr(peer), Ratio: ratioPtr(provider, peer)}
}

// withTarget sets a row's target and whether the provider's figure met it.
func (r Row) withTarget(target string, met bool) Row {
	r.Target, r.Met = target, ptr(met)
	return r
}

func (r Row) withNote(format string, args ...any) Row {
	r.Note = fmt.Sprintf(format, args...)
	return r
}

// BuildRows turns the results into the table.
func BuildRows(res *Results) []Row {
	var rows []Row
	for _, l := range res.Latency {
		rows = append(rows, latencyRows(l)...)
	}
	if sw := res.Sweep; sw != nil {
		rows = append(rows, sweepRows(sw)...)
	}
	if a := res.Apply; a != nil {
		rows = append(rows, applyRows(a)...)
	}
	if r := res.Refresh; r != nil {
		rows = append(rows, refreshRows(r, 1.3, 0)...)
	}
	if s := res.Startup; s != nil {
		rows = append(rows, sideBySide("Start-up", "Plugin start-up to handshake, median (peer: bash + curl start)", "ms",
			1000*s.ProviderMedian.Seconds(), 1000*s.PeerMedian.Seconds()))
	}
	if d := res.Download; d != nil {
		rows = append(rows, d.rows()...)
	}
	if s := res.Store; s != nil {
		rows = append(rows, s.rows()...)
	}
	if w := res.Waves; w != nil {
		rows = append(rows, wavesRows(w)...)
	}
	if l := res.Long; l != nil {
		rows = append(rows, longRows(l)...)
	}
	if f := res.FanOut; f != nil {
		rows = append(rows, fanOutRows(f)...)
	}
	if r := res.BigRefresh; r != nil {
		rows = append(rows, refreshRows(r, 1.1, 0.01)...)
	}
	if a := res.BigApply; a != nil {
		rows = append(rows, bigApplyRows(a)...)
	}
	if j := res.Journal; j != nil {
		rows = append(rows, journalRows(j)...)
	}
	return rows
}

func latencyRows(l *LatencyResult) []Row {
	if l.Provider == nil || l.Peer == nil {
		return nil
	}
	gen := time.Duration(l.Generation)
	c := fmt.Sprintf("%s generation (%d clips, ±%.0f%%)", secondsLabel(gen), l.Tasks, 100*l.Spread)
	lt, gt := LatencyTarget(gen).Seconds(), GetsTarget(gen)
	p, q := l.Provider, l.Peer
	rows := []Row{
		sideBySide(c, "Detection latency p95: mock final → provider returns", "s", p.ReturnedP95, q.ReturnedP95).
			withTarget(fmt.Sprintf("≤ %.2f", lt), p.ReturnedP95 <= lt),
		sideBySide(c, "Detection latency, mean", "s", p.ReturnedAvg, q.ReturnedAvg),
		sideBySide(c, "Detection latency p50", "s", p.ReturnedP50, q.ReturnedP50),
		sideBySide(c, "Detection latency p95: mock final → first GET that saw it (ledger)", "s", p.ObservedP95, q.ObservedP95),
		sideBySide(c, "GETs per clip, mean (ledger)", "GETs", p.GetsMean, q.GetsMean).
			withTarget(fmt.Sprintf("≤ %.2f", gt), p.GetsMean <= gt).withNote("max %.0f vs %.0f", p.GetsMax, q.GetsMax),
	}
	if f := l.Peer1s; f != nil {
		p50 := sideBySide(c, "Detection latency p50 (peer: curl every 1 s)", "s", p.ReturnedP50, f.ReturnedP50)
		if gen == BatchGeneration {
			p50 = p50.withTarget("< peer's", p.ReturnedP50 < f.ReturnedP50)
		}
		rows = append(rows, p50,
			sideBySide(c, "Detection latency p95 (peer: curl every 1 s)", "s", p.ReturnedP95, f.ReturnedP95),
			sideBySide(c, "GETs per clip, mean (peer: curl every 1 s)", "GETs", p.GetsMean, f.GetsMean))
	}
	if gen == BatchGeneration {
		rows = append(rows, Row{Case: c, Figure: "GETs per clip, mean (ledger): the batch's target", Unit: "GETs",
			Provider: p.GetsMean}.withTarget(fmt.Sprintf("≤ %g", BatchGets), p.GetsMean <= BatchGets))
	}
	if g := l.Progress; g != nil {
		c := fmt.Sprintf("%s generation, progress reported (new-api dialect, %d clips, ±%.0f%%)", secondsLabel(gen), l.Tasks, 100*l.Spread)
		rows = append(rows,
			Row{Case: c, Figure: "Detection latency p95: mock final → provider returns", Unit: "s", Provider: g.ReturnedP95}.
				withTarget(fmt.Sprintf("≤ %.2f", ProgressP95.Seconds()), g.ReturnedP95 <= ProgressP95.Seconds()),
			Row{Case: c, Figure: "Detection latency p50", Unit: "s", Target: "—", Provider: g.ReturnedP50},
			Row{Case: c, Figure: "GETs per clip, mean (ledger)", Unit: "GETs", Provider: g.GetsMean}.
				withTarget(fmt.Sprintf("≤ %g", ProgressGets), g.GetsMean <= ProgressGets).withNote("max %.0f", g.GetsMax))
	}
	return rows
}

func sweepRows(sw *SweepResult) []Row {
	if sw.Provider == nil || sw.Peer == nil {
		return nil
	}
	c := fmt.Sprintf("Generation times from %s to %s (%d clips, evenly spread)",
		secondsLabel(time.Duration(sw.From)), secondsLabel(time.Duration(sw.To)), sw.Tasks)
	pl, pg, pm := sweepShares(sw.Provider)
	ql, qg, qm := sweepShares(sw.Peer)
	return []Row{
		sideBySide(c, "Share of clips noticed within max(0.5 s, 10% of their own generation time)", "%", pl, ql),
		sideBySide(c, "Share of clips within 1.25 × T/5 s + 6 GETs for their own time T", "%", pg, qg),
		sideBySide(c, "Detection latency, mean", "s", pm, qm),
	}
}

// sweepShares returns the percentages of tasks within their own latency target
// and their own GET budget, and the mean detection latency.
func sweepShares(st *TaskStats) (latency, gets, mean float64) {
	var returned []float64
	for _, t := range st.Tasks {
		gen := time.Duration(t.Generation * float64(time.Second))
		if t.Returned <= LatencyTarget(gen).Seconds() {
			latency++
		}
		if float64(t.Gets) <= GetsTarget(gen) {
			gets++
		}
		returned = append(returned, t.Returned)
	}
	n := float64(len(st.Tasks))
	return 100 * latency / n, 100 * gets / n, Mean(returned)
}

func applyRows(a *ApplyResult) []Row {
	c := fmt.Sprintf("Apply %d clips × %s, -parallelism=%d", a.Clips, secondsLabel(time.Duration(a.Generation)), a.Parallelism)
	p, peer := a.Provider.Seconds(), a.PeerWall.Seconds()
	return []Row{
		sideBySide(c, "Wall time (median of the provider's runs)", "s", p, peer).
			withTarget(fmt.Sprintf("≤ 1.10 × ideal = %.2f", a.Target.Seconds()), p <= a.Target.Seconds()).
			withNote("ideal %.2f s = %d waves × %s + %.2f s for %d terraform_data", a.Ideal.Seconds(),
				(a.Clips+a.Parallelism-1)/a.Parallelism, secondsLabel(time.Duration(a.Generation)), a.Baseline.Seconds(), a.Clips),
		{Case: c, Figure: "Wall time ÷ peer's", Unit: "×", Target: "≤ 0.50", Provider: Ratio(p, peer), Met: ptr(Ratio(p, peer) <= 0.5)},
		sideBySide(c, "Peak RSS: provider process (peer: its bash, curl and sleep processes together)", "MiB",
			mib(a.ProviderMemory.ProviderPeakHWM), mib(a.PeerMemory.PeerPeakRSS)),
	}
}

// refreshRows: factor is the wall-time target as a multiple of the limit's
// floor, share429 the most 429s allowed as a share of requests (0: none set).
func refreshRows(r *RefreshResult, factor, share429 float64) []Row {
	limiter := "limiter unset"
	if r.Limiter > 0 {
		limiter = fmt.Sprintf("max_requests_per_second = %g", r.Limiter)
	}
	c := fmt.Sprintf("Refresh %d existing clips, key limited to %g requests/s, %s", r.Clips, r.RateLimit, limiter)
	p, b := r.Provider.Seconds(), r.Baseline.Seconds()
	target := RefreshTarget(r.Clips, r.RateLimit, factor, time.Duration(r.Baseline)).Seconds()
	requests, limited := 0, 0
	for _, run := range r.Runs {
		requests += run.Requests
		limited += run.Responses429
	}
	share := 100 * Ratio(float64(limited), float64(requests))
	rows := []Row{
		sideBySide(c, "Wall time (peer: terraform_data, which reads nothing)", "s", p, b).
			withTarget(fmt.Sprintf("≤ %g × %g + %.2f = %.2f", factor, float64(r.Clips)/r.RateLimit, b, target), p <= target),
		{Case: c, Figure: "Errors", Target: "0", Provider: float64(r.Errors), Met: ptr(r.Errors == 0)},
		Row{Case: c, Figure: "Requests answered 429", Unit: "%", Target: "—", Provider: share}.
			withNote("%d runs: %d of %d requests; creating the clips took %.1f s, with %d answered 429",
				len(r.Runs), limited, requests, r.SetupWall.Seconds(), r.Setup429),
	}
	if share429 > 0 {
		rows[2] = rows[2].withTarget(fmt.Sprintf("≤ %g", 100*share429), share <= 100*share429)
	}
	return rows
}

func wavesRows(w *WavesResult) []Row {
	c := fmt.Sprintf("Waves: %d clips × %s ±%.0f%%, -parallelism=%d", w.Clips, secondsLabel(time.Duration(w.Generation)),
		100*w.Spread, w.Parallelism)
	target := 1.1 * w.Ideal.Seconds()
	p, q := w.Provider.Wall.Seconds(), w.Peer.Wall.Seconds()
	return []Row{
		sideBySide(c, "Wall time", "s", p, q).withTarget(fmt.Sprintf("≤ 1.10 × ideal = %.2f", target), p <= target).
			withNote("ideal %.2f s = %d waves × %s + %.2f s for %d terraform_data", w.Ideal.Seconds(),
				(w.Clips+w.Parallelism-1)/w.Parallelism, secondsLabel(time.Duration(w.Generation)), w.Baseline.Seconds(), w.Clips),
		sideBySide(c, "GETs per clip, first wave", "GETs", w.ProviderFirst.GetsMean, w.PeerFirst.GetsMean).
			withTarget(fmt.Sprintf("≤ default schedule's %.2f", w.DefaultFirstWaveGets), w.ProviderFirst.GetsMean <= w.DefaultFirstWaveGets),
		sideBySide(c, "GETs per clip, later waves", "GETs", w.ProviderLater.GetsMean, w.PeerLater.GetsMean).
			withTarget("≤ 3", w.ProviderLater.GetsMean <= 3),
		sideBySide(c, "Detection latency p50, later waves", "s", w.ProviderLater.ReturnedP50, w.PeerLater.ReturnedP50),
		sideBySide(c, "Detection latency p95, later waves", "s", w.ProviderLater.ReturnedP95, w.PeerLater.ReturnedP95),
	}
}

func longRows(l *LongResult) []Row {
	c := fmt.Sprintf("Long clips: %d × %s ±%.0f%%, all in parallel", l.Clips, secondsLabel(time.Duration(l.Generation)), 100*l.Spread)
	p, q := l.ProviderLate, l.PeerLate
	rows := []Row{
		sideBySide(c, "Detection latency p50, all clips", "s", l.Provider.ReturnedP50, l.Peer.ReturnedP50),
		sideBySide(c, "Detection latency p95, all clips", "s", l.Provider.ReturnedP95, l.Peer.ReturnedP95),
		sideBySide(c, "GETs per clip, all clips", "GETs", l.Provider.GetsMean, l.Peer.GetsMean),
		sideBySide(c, "Detection latency p50, second half", "s", p.ReturnedP50, q.ReturnedP50),
		sideBySide(c, "Detection latency p95, second half", "s", p.ReturnedP95, q.ReturnedP95).
			withTarget("≤ 1.00", p.ReturnedP95 <= 1),
		sideBySide(c, "GETs per clip, second half", "GETs", p.GetsMean, q.GetsMean).withTarget("≤ 6", p.GetsMean <= 6),
	}
	if g := l.ProgressLate; g != nil {
		c := fmt.Sprintf("Long clips, progress reported (new-api dialect): %d × %s ±%.0f%%", l.Clips,
			secondsLabel(time.Duration(l.Generation)), 100*l.Spread)
		rows = append(rows,
			Row{Case: c, Figure: "Detection latency p95, second half", Unit: "s", Provider: g.ReturnedP95}.
				withTarget("≤ 1.00", g.ReturnedP95 <= 1),
			Row{Case: c, Figure: "GETs per clip, second half", Unit: "GETs", Provider: g.GetsMean}.withTarget("≤ 6", g.GetsMean <= 6))
	}
	return rows
}

func fanOutRows(f *FanOutResult) []Row {
	var peer *FanOutRun
	for i := range f.Runs {
		if f.Runs[i].Tool == toolPeer {
			peer = &f.Runs[i]
		}
	}
	var rows []Row
	for _, run := range f.Runs {
		if run.Tool != toolProvider {
			continue
		}
		limiter := "limiter unset"
		if run.Limiter > 0 {
			limiter = fmt.Sprintf("max_requests_per_second = %g", run.Limiter)
		}
		c := fmt.Sprintf("Fan-out: %d clips × %s ±10%%, key limited to %g requests/s, -parallelism=%d, %s",
			f.Clips, secondsLabel(time.Duration(f.Generation)), f.RateLimit, f.Parallelism, limiter)
		row := func(figure, unit string, provider, peerValue float64) Row {
			if peer == nil {
				return Row{Case: c, Figure: figure, Unit: unit, Target: "—", Provider: provider}
			}
			return sideBySide(c, figure, unit, provider, peerValue)
		}
		share := func(r *FanOutRun) float64 { return 100 * Ratio(float64(r.Responses429), float64(r.Requests)) }
		rows = append(rows,
			row("Tasks created", "", float64(run.Tasks), float64(peerOr(peer).Tasks)).
				withTarget(fmt.Sprintf("= %d", f.Clips), run.Tasks == f.Clips && run.Clips == f.Clips),
			row("Errors", "", float64(len(run.Errors)), float64(len(peerOr(peer).Errors))).withTarget("0", len(run.Errors) == 0),
			row("Requests answered 429", "%", share(&run), share(peerOr(peer))).
				withNote("%d of %d requests", run.Responses429, run.Requests),
		)
		wall := row("Wall time", "s", run.Wall.Seconds(), peerOr(peer).Wall.Seconds()).
			withNote("the limit's floor: %.2f s = %d requests let through ÷ %g/s; submissions from %.2f s to %.2f s; "+
				"%d terraform_data take %.2f s", run.Floor.Seconds(), run.Requests-run.Responses429, f.RateLimit,
				run.FirstSubmission.Seconds(), run.LastSubmission.Seconds(), f.Clips, f.Baseline.Seconds())
		if run.Limiter > 0 {
			rows[len(rows)-1] = rows[len(rows)-1].withTarget("≤ 2", share(&run) <= 2)
			limit := 1.15 * run.Floor.Seconds()
			wall = wall.withTarget(fmt.Sprintf("≤ 1.15 × floor = %.2f", limit), run.Wall.Seconds() <= limit)
		}
		rows = append(rows, wall)
		if run.Stats != nil && peer != nil && peer.Stats != nil {
			rows = append(rows, row("GETs per clip", "GETs", run.Stats.GetsMean, peer.Stats.GetsMean))
		}
	}
	return rows
}

func bigApplyRows(a *BigApplyResult) []Row {
	c := fmt.Sprintf("Apply %d clips × %s in one apply, -parallelism=%d", a.Clips, secondsLabel(time.Duration(a.Generation)),
		a.Parallelism)
	p, ideal := a.Provider.Wall.Seconds(), a.Ideal.Seconds()
	waves := (a.Clips + a.Parallelism - 1) / a.Parallelism
	rows := []Row{
		Row{Case: c, Figure: "Wall time", Unit: "s", Provider: p}.
			withTarget(fmt.Sprintf("≤ %g × (floor + waves) = %.2f", bigApplyFactor, a.Target.Seconds()), p <= a.Target.Seconds()).
			withNote("floor %.2f s for %d terraform_data + %d waves × %s", a.Baseline.Seconds(), a.Clips, waves,
				secondsLabel(time.Duration(a.Generation))),
		Row{Case: c, Figure: "Wall time ÷ (floor + waves)", Unit: "×", Provider: Ratio(p, ideal)}.
			withTarget(fmt.Sprintf("≤ %g", bigApplyFactor), Ratio(p, ideal) <= bigApplyFactor),
		{Case: c, Figure: "Start to the first apply_start (the baseline's beside it)", Unit: "s", Target: "—",
			Provider: a.ProviderBefore.Seconds(), Peer: ptr(a.BaselineBefore.Seconds()),
			Ratio: ratioPtr(a.ProviderBefore.Seconds(), a.BaselineBefore.Seconds())},
		{Case: c, Figure: "GETs per clip, mean (ledger)", Unit: "GETs", Target: "—", Provider: a.Provider.GetsMean},
	}
	if pr := a.Profile; pr != nil {
		rows = append(rows, Row{Case: c, Figure: "Provider CPU, all its processes (pprof samples)", Unit: "s", Target: "—",
			Provider: pr.CPU.Seconds()}.withNote("%d processes; top functions in %s/*.top.txt", len(pr.Files), "profiles"))
	}
	if a.ProviderCLICPU > 0 && a.BaselineCPU > 0 {
		cli := Row{Case: c, Figure: "CPU of Terraform with its providers (the baseline's beside it)", Unit: "s", Target: "—",
			Provider: a.ProviderCLICPU.Seconds(), Peer: ptr(a.BaselineCPU.Seconds()),
			Ratio: ratioPtr(a.ProviderCLICPU.Seconds(), a.BaselineCPU.Seconds())}
		if pr := a.Profile; pr != nil {
			cli = cli.withNote("Terraform's own: %.2f s, the rest is the provider's profile", a.ProviderCLICPU.Seconds()-pr.CPU.Seconds())
		}
		rows = append(rows, cli)
	}
	if a.NoopFloor > 0 {
		rows = append(rows, noopFloorRows(c, a)...)
	}
	return rows
}

// noopFloorRows give the floor of resources of the clip's schema beside the
// terraform_data floor: information, not a target.
func noopFloorRows(c string, a *BigApplyResult) []Row {
	what := fmt.Sprintf("%d videogen_video, the clip's schema and identity, of a provider that does no work; the "+
		"terraform_data floor beside it", a.Clips)
	rows := []Row{Row{Case: c, Figure: "Floor with the clip's schema (no-op provider): wall time", Unit: "s", Target: "—",
		Provider: a.NoopFloor.Seconds(), Peer: ptr(a.Baseline.Seconds()),
		Ratio: ratioPtr(a.NoopFloor.Seconds(), a.Baseline.Seconds())}.withNote("%s", what)}
	if a.NoopFloorCPU > 0 && a.BaselineCPU > 0 {
		rows = append(rows, Row{Case: c, Figure: "Floor with the clip's schema (no-op provider): CPU of Terraform with its providers",
			Unit: "s", Target: "—", Provider: a.NoopFloorCPU.Seconds(), Peer: ptr(a.BaselineCPU.Seconds()),
			Ratio: ratioPtr(a.NoopFloorCPU.Seconds(), a.BaselineCPU.Seconds())}.
			withNote("%s; the no-op provider's processes included", what))
	}
	return rows
}

func peerOr(r *FanOutRun) *FanOutRun {
	if r == nil {
		return &FanOutRun{}
	}
	return r
}

func secondsLabel(d time.Duration) string {
	return fmt.Sprintf("%g s", d.Seconds())
}

func formatValue(v float64, unit string) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "n/a"
	}
	switch unit {
	case "GETs", "MiB", "MiB/s", "%":
		return fmt.Sprintf("%.1f", v)
	case "ms", "":
		return fmt.Sprintf("%.0f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

// Markdown renders the table: one line per figure, provider beside peer.
func Markdown(rows []Row) string {
	var b strings.Builder
	b.WriteString("| Case | Figure | Unit | Target | Provider | Peer | Provider ÷ peer | Met |\n")
	b.WriteString("|---|---|---|---|---:|---:|---:|---|\n")
	for _, r := range rows {
		peer, ratio, met := "n/a", "n/a", "—"
		if r.Peer != nil {
			peer = formatValue(*r.Peer, r.Unit)
		}
		if r.Ratio != nil {
			ratio = fmt.Sprintf("%.2f", *r.Ratio)
		}
		if r.Met != nil {
			met = "yes"
			if !*r.Met {
				met = "**no**"
			}
		}
		figure := r.Figure
		if r.Note != "" {
			figure += " (" + r.Note + ")"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Case, figure, r.Unit, r.Target,
			formatValue(r.Provider, r.Unit), peer, ratio, met)
	}
	return b.String()
}

// Header is the line above the table: when, how long, on what.
func Header(res *Results) string {
	m := res.Machine
	return fmt.Sprintf("Run %s, %.1f minutes; %d cores (%s), %s, %s; load average %.2f at the start, %.2f at the end.",
		res.GeneratedAt.UTC().Format("2006-01-02 15:04 MST"), res.Elapsed.Seconds()/60, m.Cores, m.Platform, m.GoVersion,
		m.CLI, m.LoadAvgStart, m.LoadAvgEnd)
}

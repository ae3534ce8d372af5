package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// Results is everything one `make bench` run measured; it is written as JSON
// next to the Markdown report.
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
	CaseErrors  map[string]string `json:"case_errors,omitempty"`
}

// Machine is what readers need to judge the figures.
type Machine struct {
	Cores            int     `json:"cores"`
	CPU              string  `json:"cpu"`
	MemoryMiB        int64   `json:"memory_mib"`
	OS               string  `json:"os"`
	Kernel           string  `json:"kernel"`
	GoVersion        string  `json:"go_version"`
	TerraformVersion string  `json:"terraform_version"`
	CurlVersion      string  `json:"curl_version"`
	LoadAvgStart     float64 `json:"load_avg_1m_start"`
	LoadAvgEnd       float64 `json:"load_avg_1m_end"`
}

// DescribeMachine collects the machine's facts; missing ones are left empty.
func DescribeMachine(ctx context.Context, goBin, terraformBin string) Machine {
	m := Machine{Cores: runtime.NumCPU(), OS: runtime.GOOS + "/" + runtime.GOARCH, LoadAvgStart: LoadAvg()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int64
		if _, err := fmt.Sscanf(string(b), "MemTotal: %d kB", &kb); err == nil {
			m.MemoryMiB = kb >> 10
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	output := func(name string, args ...string) string {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, name, args...).Output()
		if err != nil {
			return ""
		}
		return strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
	}
	m.GoVersion = strings.TrimPrefix(output(goBin, "env", "GOVERSION"), "go")
	var tf struct {
		Version string `json:"terraform_version"`
	}
	ctxTF, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctxTF, terraformBin, "version", "-json")
	cmd.Env = append(os.Environ(), "CHECKPOINT_DISABLE=1")
	if out, err := cmd.Output(); err == nil && json.Unmarshal(out, &tf) == nil {
		m.TerraformVersion = tf.Version
	}
	if fields := strings.Fields(output("curl", "--version")); len(fields) > 1 {
		m.CurlVersion = fields[1]
	}
	return m
}

// LoadAvg is the one-minute load average, or 0 when unknown.
func LoadAvg() float64 {
	var l float64
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		_, _ = fmt.Sscanf(string(b), "%f", &l)
	}
	return l
}

// Row is one line of the report: the provider's figure beside the peer's, their
// ratio, and the target when issue 6 sets one.
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

// BuildRows turns the results into the report's table.
func BuildRows(res *Results) []Row {
	var rows []Row
	for _, l := range res.Latency {
		if l.Provider == nil || l.Peer == nil {
			continue
		}
		gen := time.Duration(l.Generation)
		name := fmt.Sprintf("%s generation (%d clips, ±%.0f%%)", secondsLabel(gen), l.Tasks, 100*l.Spread)
		lt := LatencyTarget(gen).Seconds()
		gt := GetsTarget(gen)
		rows = append(rows,
			Row{Case: name, Figure: "Detection latency p95: mock final → provider returns", Unit: "s",
				Target: fmt.Sprintf("≤ %.2f", lt), Provider: l.Provider.ReturnedP95, Peer: ptr(l.Peer.ReturnedP95),
				Ratio: ratioPtr(l.Provider.ReturnedP95, l.Peer.ReturnedP95), Met: ptr(l.Provider.ReturnedP95 <= lt)},
			Row{Case: name, Figure: "Detection latency, mean: mock final → provider returns", Unit: "s", Target: "—",
				Provider: l.Provider.ReturnedAvg, Peer: ptr(l.Peer.ReturnedAvg), Ratio: ratioPtr(l.Provider.ReturnedAvg, l.Peer.ReturnedAvg)},
			Row{Case: name, Figure: "Detection latency p50: mock final → provider returns", Unit: "s", Target: "—",
				Provider: l.Provider.ReturnedP50, Peer: ptr(l.Peer.ReturnedP50), Ratio: ratioPtr(l.Provider.ReturnedP50, l.Peer.ReturnedP50)},
			Row{Case: name, Figure: "Detection latency p95: mock final → first GET that saw it (ledger)", Unit: "s", Target: "—",
				Provider: l.Provider.ObservedP95, Peer: ptr(l.Peer.ObservedP95), Ratio: ratioPtr(l.Provider.ObservedP95, l.Peer.ObservedP95)},
			Row{Case: name, Figure: "GETs per task, mean (ledger)", Unit: "GETs", Target: fmt.Sprintf("≤ %.2f", gt),
				Provider: l.Provider.GetsMean, Peer: ptr(l.Peer.GetsMean), Ratio: ratioPtr(l.Provider.GetsMean, l.Peer.GetsMean),
				Met: ptr(l.Provider.GetsMean <= gt), Note: fmt.Sprintf("max %.0f vs %.0f", l.Provider.GetsMax, l.Peer.GetsMax)},
		)
	}
	if sw := res.Sweep; sw != nil && sw.Provider != nil && sw.Peer != nil {
		name := fmt.Sprintf("Generation times from %s to %s (%d clips, evenly spread)",
			secondsLabel(time.Duration(sw.From)), secondsLabel(time.Duration(sw.To)), sw.Tasks)
		pl, pg, pm := sweepShares(sw.Provider)
		ql, qg, qm := sweepShares(sw.Peer)
		rows = append(rows,
			Row{Case: name, Figure: "Share of clips noticed within max(0.5 s, 10% of their own generation time)", Unit: "%",
				Target: "—", Provider: pl, Peer: ptr(ql), Ratio: ratioPtr(pl, ql)},
			Row{Case: name, Figure: "Share of clips within 1.25 × T/5 s + 6 GETs for their own time T", Unit: "%",
				Target: "—", Provider: pg, Peer: ptr(qg), Ratio: ratioPtr(pg, qg)},
			Row{Case: name, Figure: "Detection latency, mean: mock final → provider returns", Unit: "s", Target: "—",
				Provider: pm, Peer: ptr(qm), Ratio: ratioPtr(pm, qm)},
		)
	}
	if a := res.Apply; a != nil {
		name := fmt.Sprintf("Apply %d clips × %s, -parallelism=%d", a.Clips, secondsLabel(time.Duration(a.Generation)), a.Parallelism)
		p, peer := a.Provider.Seconds(), a.PeerWall.Seconds()
		rows = append(rows,
			Row{Case: name, Figure: "Wall time (median of the provider's runs)", Unit: "s",
				Target: fmt.Sprintf("≤ 1.15 × ideal = %.2f", a.Target.Seconds()), Provider: p, Peer: ptr(peer),
				Ratio: ratioPtr(p, peer), Met: ptr(p <= a.Target.Seconds()),
				Note: fmt.Sprintf("ideal %.2f s = %d waves × %s + Terraform's own %.2f s (%d terraform_data)",
					a.Ideal.Seconds(), (a.Clips+a.Parallelism-1)/a.Parallelism, secondsLabel(time.Duration(a.Generation)),
					a.Baseline.Seconds(), a.Clips)},
			Row{Case: name, Figure: "Wall time ÷ peer's", Unit: "×", Target: "≤ 0.50", Provider: Ratio(p, peer),
				Met: ptr(Ratio(p, peer) <= 0.5)},
			Row{Case: name, Figure: "Peak RSS: provider process (peer: its bash, curl and sleep processes together)", Unit: "MiB",
				Target: "—", Provider: mib(a.ProviderMemory.ExePeakHWM), Peer: ptr(mib(a.PeerMemory.TreePeakRSS)),
				Ratio: ratioPtr(mib(a.ProviderMemory.ExePeakHWM), mib(a.PeerMemory.TreePeakRSS))},
		)
	}
	if r := res.Refresh; r != nil {
		name := fmt.Sprintf("Refresh %d existing clips, rate limit %g requests/s", r.Clips, r.RateLimit)
		p, b := r.Provider.Seconds(), r.Baseline.Seconds()
		rows = append(rows,
			Row{Case: name, Figure: "Wall time (peer: terraform_data, which reads nothing)", Unit: "s",
				Target:   fmt.Sprintf("≤ 1.3 × %g + %.2f = %.2f", float64(r.Clips)/r.RateLimit, b, r.Target.Seconds()),
				Provider: p, Peer: ptr(b), Ratio: ratioPtr(p, b), Met: ptr(p <= r.Target.Seconds())},
			Row{Case: name, Figure: "Errors", Unit: "", Target: "0", Provider: float64(r.Errors), Met: ptr(r.Errors == 0),
				Note: refreshNote(r)},
		)
	}
	if s := res.Startup; s != nil {
		rows = append(rows, Row{Case: "Start-up", Figure: "Plugin start-up to handshake, median (peer: bash + curl start)",
			Unit: "ms", Target: "—", Provider: 1000 * s.ProviderMedian.Seconds(), Peer: ptr(1000 * s.PeerMedian.Seconds()),
			Ratio: ratioPtr(s.ProviderMedian.Seconds(), s.PeerMedian.Seconds())})
	}
	if d := res.Download; d != nil {
		rows = append(rows, d.rows()...)
	}
	return rows
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

func refreshNote(r *RefreshResult) string {
	gets, limited := 0, 0
	for _, run := range r.Runs {
		gets += run.Gets
		limited += run.Responses429
	}
	return fmt.Sprintf("%d runs: %d GETs, %d answered 429 and retried; creating the clips under the same limit took %.1f s, "+
		"with %d answered 429", len(r.Runs), gets, limited, r.SetupWall.Seconds(), r.Setup429)
}

func formatValue(v float64, unit string) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "n/a"
	}
	switch unit {
	case "GETs", "MiB", "MiB/s":
		return fmt.Sprintf("%.1f", v)
	case "ms", "", "%":
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

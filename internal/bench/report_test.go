package bench

import (
	"encoding/json"
	"encoding/xml"
	"math"
	"strings"
	"testing"
	"time"
)

func TestPromptAndAddressIndex(t *testing.T) {
	t.Parallel()
	p := Prompt("latency-10s-peer", 17, 9750*time.Millisecond)
	if p != "bench latency-10s-peer clip 17 [mock:duration=9750ms]" {
		t.Errorf("Prompt = %q", p)
	}
	if got := promptIndex(p, "latency-10s-peer"); got != 17 {
		t.Errorf("promptIndex = %d, want 17", got)
	}
	for _, other := range []string{"latency-10s", "latency-10s-provider", ""} {
		if got := promptIndex(p, other); got != -1 {
			t.Errorf("promptIndex(%q) = %d, want -1", other, got)
		}
	}
	addrs := map[string]int{
		"videogen_video.clip[12]": 12, "terraform_data.clip[0]": 0, "videogen_video.clip": -1,
		"module.m.videogen_video.clip[1]": -1, "videogen_video.other[1]": -1, "videogen_video.clip[x]": -1,
	}
	for addr, want := range addrs {
		if got := clipIndex(addr); got != want {
			t.Errorf("clipIndex(%q) = %d, want %d", addr, got, want)
		}
	}
}

func TestRows(t *testing.T) {
	t.Parallel()
	gen := 10 * time.Second
	res := &Results{
		Settings: DefaultSettings(),
		Latency: []*LatencyResult{{
			Generation: Duration(gen), Tasks: 40, Spread: 0.1,
			Provider: &TaskStats{ReturnedP95: 3, ReturnedP50: 2, ObservedP95: 2.9, GetsMean: 8, GetsMax: 8},
			Peer:     &TaskStats{ReturnedP95: 4.8, ReturnedP50: 2.5, ObservedP95: 4.7, GetsMean: 3.5, GetsMax: 4},
		}},
		Refresh: &RefreshResult{Clips: 500, RateLimit: 50, Provider: Duration(11 * time.Second), Baseline: Duration(time.Second),
			Runs: []RefreshRun{{Requests: 1000, Responses429: 30}}},
		BigRefresh: &RefreshResult{Clips: 1000, RateLimit: 50, Limiter: 50, Provider: Duration(24 * time.Second),
			Baseline: Duration(time.Second), Runs: []RefreshRun{{Requests: 1000, Responses429: 5}}},
		FanOut: &FanOutResult{Clips: 300, RateLimit: 20, Parallelism: 100, Generation: Duration(5 * time.Second), Runs: []FanOutRun{
			{Tool: toolProvider, Limiter: 20, Wall: Duration(50 * time.Second), Tasks: 300, Clips: 300, Requests: 900,
				Responses429: 9, Floor: Duration(44550 * time.Millisecond)},
			{Tool: toolProvider, Wall: Duration(80 * time.Second), Tasks: 300, Clips: 300, Requests: 1200, Responses429: 200},
			{Tool: toolPeer, Wall: Duration(90 * time.Second), Tasks: 298, Clips: 298, Errors: []string{"x", "y"}},
		}},
	}
	res.Rows = BuildRows(res)
	byFigure := map[string]Row{}
	for _, r := range res.Rows {
		byFigure[r.Case+"/"+r.Figure] = r
	}
	check := func(key string, met bool, target string) Row {
		t.Helper()
		r, ok := byFigure[key]
		if !ok {
			t.Fatalf("no row %q", key)
		}
		if r.Met == nil || *r.Met != met || r.Target != target {
			t.Errorf("row %q = %+v, want met %v against %q", key, r, met, target)
		}
		return r
	}
	latency := check("10 s generation (40 clips, ±10%)/Detection latency p95: mock final → provider returns", false, "≤ 1.00")
	if latency.Ratio == nil || math.Abs(*latency.Ratio-0.625) > 1e-9 {
		t.Errorf("latency ratio = %v, want 0.625", latency.Ratio)
	}
	check("10 s generation (40 clips, ±10%)/GETs per clip, mean (ledger)", true, "≤ 8.50")
	check("Refresh 500 existing clips, key limited to 50 requests/s, limiter unset/Wall time (peer: terraform_data, which reads nothing)",
		true, "≤ 1.3 × 10 + 1.00 = 14.00")
	big := "Refresh 1000 existing clips, key limited to 50 requests/s, max_requests_per_second = 50/"
	check(big+"Wall time (peer: terraform_data, which reads nothing)", false, "≤ 1.1 × 20 + 1.00 = 23.00")
	check(big+"Requests answered 429", true, "≤ 1")
	on := "Fan-out: 300 clips × 5 s ±10%, key limited to 20 requests/s, -parallelism=100, max_requests_per_second = 20/"
	check(on+"Tasks created", true, "= 300")
	check(on+"Requests answered 429", true, "≤ 2")
	check(on+"Wall time", true, "≤ 1.15 × floor = 51.23")
	off := "Fan-out: 300 clips × 5 s ±10%, key limited to 20 requests/s, -parallelism=100, limiter unset/"
	if r := byFigure[off+"Errors"]; r.Peer == nil || *r.Peer != 2 || r.Met == nil || !*r.Met {
		t.Errorf("errors row without the limiter = %+v, want met with the peer's 2 errors beside it", r)
	}
	if r := byFigure[off+"Wall time"]; r.Met != nil {
		t.Errorf("the fan-out without the limiter has no wall-time target, got %+v", r)
	}

	table := Markdown(res.Rows)
	if !strings.Contains(table, "| 3.00 | 4.80 | 0.62 | **no** |") {
		t.Errorf("table lacks the latency line:\n%s", table)
	}
}

func TestWavesAndHalves(t *testing.T) {
	t.Parallel()
	tasks := []TaskSample{
		{Index: 0, Submitted: 4.2, Generation: 4, Gets: 2}, {Index: 1, Submitted: 0, Generation: 4.1, Gets: 6},
		{Index: 2, Submitted: 0.1, Generation: 3.9, Gets: 6}, {Index: 3, Submitted: 4.3, Generation: 3.8, Gets: 3},
	}
	first, later := splitWaves(tasks, 2)
	if first.GetsMean != 6 || later.GetsMean != 2.5 {
		t.Errorf("first wave %v GETs, later %v; want 6 and 2.5", first.GetsMean, later.GetsMean)
	}
	// Finishing last: clip 0 (8.2 s) and clip 3 (8.1 s).
	if late := secondHalf(tasks); late.GetsMean != 2.5 || len(late.Tasks) != 2 {
		t.Errorf("second half = %+v", late)
	}
	looks := []time.Duration{450 * time.Millisecond, 900 * time.Millisecond, 4 * time.Second}
	for gen, want := range map[float64]int{0.1: 1, 0.9: 2, 1: 3, 4: 3} {
		if got := defaultGets(looks, gen); got != want {
			t.Errorf("defaultGets(%v) = %d, want %d", gen, got, want)
		}
	}
}

func TestSVG(t *testing.T) {
	t.Parallel()
	res := &Results{
		Latency: []*LatencyResult{{Generation: Duration(2 * time.Second),
			Provider: &TaskStats{GetsMean: 5, ReturnedAvg: 0.27}, Peer: &TaskStats{GetsMean: 2, ReturnedAvg: 3.1}}},
		Waves: &WavesResult{ProviderLater: &TaskStats{GetsMean: 2.8, ReturnedAvg: 0.15}, PeerLater: &TaskStats{GetsMean: 1, ReturnedAvg: 2}},
	}
	points := Points(res)
	if len(points) != 4 {
		t.Fatalf("points = %+v, want one per tool and case", points)
	}
	svg := SVG(points)
	if err := xml.Unmarshal([]byte(svg), new(struct{})); err != nil {
		t.Fatalf("the plot is not well-formed XML: %v", err)
	}
	if n := strings.Count(svg, "<circle"); n != 3 { // two provider points and the legend's
		t.Errorf("%d circles, want 3", n)
	}
	if !strings.Contains(svg, ">waves</text>") || !strings.Contains(svg, ">2 s</text>") {
		t.Error("points are not labelled with their case")
	}
}

// -render rebuilds the table from the JSON file, so the file must carry every
// figure the rows are built from.
func TestResultsRoundTrip(t *testing.T) {
	t.Parallel()
	res := &Results{
		Settings: DefaultSettings(),
		Latency: []*LatencyResult{{Generation: Duration(2 * time.Second), Tasks: 2, Spread: 0.1,
			Provider: &TaskStats{ReturnedP95: 0.4, GetsMean: 5, Tasks: []TaskSample{{Index: 0, Generation: 1.9, Returned: 0.3, Gets: 5}}},
			Peer:     &TaskStats{ReturnedP95: 3, GetsMean: 2}}},
		Apply: &ApplyResult{Clips: 50, Parallelism: 10, Generation: Duration(2 * time.Second), Provider: Duration(12345 * time.Millisecond),
			PeerWall: Duration(25 * time.Second), Ideal: Duration(10200 * time.Millisecond), Target: Duration(11730 * time.Millisecond)},
		Waves: &WavesResult{Clips: 100, Parallelism: 10, Generation: Duration(4 * time.Second), Ideal: Duration(41 * time.Second),
			Provider: &TaskStats{Wall: Duration(44 * time.Second)}, Peer: &TaskStats{Wall: Duration(60 * time.Second)},
			ProviderFirst: &TaskStats{GetsMean: 6}, ProviderLater: &TaskStats{GetsMean: 2.8}, PeerFirst: &TaskStats{GetsMean: 1},
			PeerLater: &TaskStats{GetsMean: 1}, DefaultFirstWaveGets: 6.5},
	}
	want := Markdown(BuildRows(res))
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var back Results
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if got := Markdown(BuildRows(&back)); got != want {
		t.Errorf("rows after a JSON round trip differ:\n%s\nwant:\n%s", got, want)
	}
}

// A batch of 10 s clips is held to the batch's targets beside the 1 s peer,
// the same clips with progress to the progress targets, and the plot of its
// looks has a dot per GET and a bar per clip.
func TestBatchAndProgressRows(t *testing.T) {
	t.Parallel()
	tasks := []TaskSample{{Index: 0, Generation: 9.5, Returned: 0.4, Gets: 2, Looks: []float64{1, 9.9}},
		{Index: 1, Submitted: 0.1, Generation: 10.5, Returned: 0.6, Gets: 3, Looks: []float64{2, 10, 11.1}}}
	res := &Results{Latency: []*LatencyResult{{
		Generation: Duration(BatchGeneration), Tasks: 40, Spread: 0.1,
		Provider: &TaskStats{ReturnedP95: 0.9, ReturnedP50: 0.4, GetsMean: 5.5, Tasks: tasks},
		Peer:     &TaskStats{ReturnedP95: 4.8, ReturnedP50: 2.5, GetsMean: 3.5},
		Peer1s:   &TaskStats{ReturnedP95: 1.1, ReturnedP50: 0.6, GetsMean: 10.5},
		Progress: &TaskStats{ReturnedP95: 0.45, ReturnedP50: 0.2, GetsMean: 4.2, Tasks: tasks},
	}}}
	met := map[string]bool{}
	for _, r := range BuildRows(res) {
		if r.Met != nil && !strings.Contains(r.Case, "progress reported") {
			met[r.Figure+" / "+r.Case[:4]] = *r.Met
		}
	}
	want := map[string]bool{
		"Detection latency p95: mock final → provider returns / 10 s": true,
		"Detection latency p50 (peer: curl every 1 s) / 10 s":         true,
		"GETs per clip, mean (ledger): the batch's target / 10 s":     false,
		"GETs per clip, mean (ledger) / 10 s":                         true,
	}
	for figure, ok := range want {
		if got, found := met[figure]; !found || got != ok {
			t.Errorf("%s: met %v (found %v), want %v; rows %v", figure, got, found, ok, met)
		}
	}
	var progressRows int
	for _, r := range BuildRows(res) {
		if strings.Contains(r.Case, "progress reported") && r.Met != nil {
			progressRows++
			if strings.HasPrefix(r.Figure, "GETs") == *r.Met {
				t.Errorf("progress row %q met = %v: p95 0.45 s meets ≤ 0.5, 4.2 GETs misses ≤ 4", r.Figure, *r.Met)
			}
		}
	}
	if progressRows != 2 {
		t.Errorf("%d progress rows with a target, want 2", progressRows)
	}
	plots := LooksPlots(res)
	svg := plots["looks-batch.svg"]
	if strings.Count(svg, "<circle") != 5+1 || strings.Count(svg, `stroke="#d62728"`) != 2+1 || plots["looks-batch-progress.svg"] == "" {
		t.Errorf("looks plot: %d dots (want 5 and the legend's), %d bars (want 2 and the legend's); plots %d",
			strings.Count(svg, "<circle"), strings.Count(svg, `stroke="#d62728"`), len(plots))
	}
	if err := xml.Unmarshal([]byte(svg), new(struct{})); err != nil {
		t.Errorf("looks plot is not XML: %v", err)
	}
}

// Long clips with progress reported are held to the long case's targets.
func TestLongProgressRows(t *testing.T) {
	t.Parallel()
	st := &TaskStats{ReturnedP95: 2.6, GetsMean: 12.9}
	res := &Results{Long: &LongResult{Clips: 20, Generation: Duration(30 * time.Second), Spread: 0.3,
		Provider: st, ProviderLate: st, Peer: st, PeerLate: st, ProgressLate: &TaskStats{ReturnedP95: 0.4, GetsMean: 6.5}}}
	var got []bool
	for _, r := range BuildRows(res) {
		if strings.Contains(r.Case, "progress reported") {
			got = append(got, *r.Met)
		}
	}
	if len(got) != 2 || !got[0] || got[1] {
		t.Errorf("long progress rows met %v, want [true false] (p95 0.4 s ≤ 1, 6.5 GETs > 6)", got)
	}
}

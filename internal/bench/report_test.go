package bench

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

func TestSpread(t *testing.T) {
	t.Parallel()
	got := Spread(10*time.Second, 0.1, 4)
	want := []time.Duration{9250 * time.Millisecond, 9750 * time.Millisecond, 10250 * time.Millisecond, 10750 * time.Millisecond}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Spread(10s, 0.1, 4) = %v, want %v", got, want)
		}
	}
	if got := Spread(2*time.Second, 0, 3); got[0] != 2*time.Second || got[2] != 2*time.Second {
		t.Errorf("Spread without spread = %v, want all 2s", got)
	}
}

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

func TestRowsAndDocument(t *testing.T) {
	t.Parallel()
	gen := 10 * time.Second
	res := &Results{
		Settings: DefaultSettings(),
		Latency: []*LatencyResult{{
			Generation: Duration(gen), Tasks: 40, Spread: 0.1,
			Provider: &TaskStats{ReturnedP95: 3, ReturnedP50: 2, ObservedP95: 2.9, GetsMean: 8, GetsMax: 8},
			Peer:     &TaskStats{ReturnedP95: 4.8, ReturnedP50: 2.5, ObservedP95: 4.7, GetsMean: 3.5, GetsMax: 4},
		}},
		Refresh: &RefreshResult{Clips: 500, RateLimit: 50, Provider: Duration(11 * time.Second),
			Baseline: Duration(time.Second), Target: Duration(RefreshTarget(500, 50, time.Second))},
	}
	res.Rows = BuildRows(res)
	byFigure := map[string]Row{}
	for _, r := range res.Rows {
		byFigure[r.Case+"/"+r.Figure] = r
	}
	latency := byFigure["10 s generation (40 clips, ±10%)/Detection latency p95: mock final → provider returns"]
	if latency.Met == nil || *latency.Met || latency.Ratio == nil || math.Abs(*latency.Ratio-0.625) > 1e-9 {
		t.Errorf("latency row = %+v, want not met with ratio 0.625", latency)
	}
	gets := byFigure["10 s generation (40 clips, ±10%)/GETs per task, mean (ledger)"]
	if gets.Met == nil || !*gets.Met || gets.Target != "≤ 8.50" {
		t.Errorf("GETs row = %+v, want met against ≤ 8.50", gets)
	}
	refresh := byFigure["Refresh 500 existing clips, rate limit 50 requests/s/Wall time (peer: terraform_data, which reads nothing)"]
	if refresh.Met == nil || !*refresh.Met || refresh.Target != "≤ 1.3 × 10 + 1.00 = 14.00" {
		t.Errorf("refresh row = %+v", refresh)
	}

	table := Markdown(res.Rows)
	if !strings.Contains(table, "| 3.00 | 4.80 | 0.62 | **no** |") {
		t.Errorf("table lacks the latency line:\n%s", table)
	}
	doc := Document(res, "internal/bench/results.json")
	for _, want := range []string{
		"## Targets not met", "Not met, by design", "10 looks plus the one that finds it, against the 8.50 GETs",
		"the p95 of 40 tasks is the 38th smallest", "[`internal/bench/results.json`](internal/bench/results.json)",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("document lacks %q", want)
		}
	}
	res.Latency = nil
	res.Rows = BuildRows(res)
	if doc := Document(res, "r.json"); !strings.Contains(doc, "None: every target was met in this run.") {
		t.Error("a run meeting every target must say so")
	}
}

func TestOrdinal(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th", 21: "21st", 38: "38th", 102: "102nd"} {
		if got := ordinal(n); got != want {
			t.Errorf("ordinal(%d) = %q, want %q", n, got, want)
		}
	}
}

// -render rebuilds the report from the JSON file, so the file must carry every
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

package bench

import (
	"fmt"
	"html"
	"math"
	"slices"
	"strings"
	"time"
)

// Point is one tool in one case on the plot.
type Point struct {
	Case    string  `json:"case"`
	Tool    string  `json:"tool"`
	Gets    float64 `json:"gets_per_clip"`       // mean
	Latency float64 `json:"detection_latency_s"` // mean, mock final → the CLI's apply_complete
}

// Points are the plot's points: every case that has per-clip detection
// latencies and GET counts, once per tool.
func Points(res *Results) []Point {
	var out []Point
	add := func(c string, provider, peer *TaskStats) {
		if provider != nil {
			out = append(out, Point{Case: c, Tool: toolProvider, Gets: provider.GetsMean, Latency: provider.ReturnedAvg})
		}
		if peer != nil {
			out = append(out, Point{Case: c, Tool: toolPeer, Gets: peer.GetsMean, Latency: peer.ReturnedAvg})
		}
	}
	for _, l := range res.Latency {
		c := secondsLabel(time.Duration(l.Generation))
		add(c, l.Provider, l.Peer)
		if f := l.Peer1s; f != nil {
			out = append(out, Point{Case: c, Tool: toolPeer1s, Gets: f.GetsMean, Latency: f.ReturnedAvg})
		}
		if g := l.Progress; g != nil {
			add(c+", progress", g, nil)
		}
	}
	if s := res.Sweep; s != nil {
		add("sweep", s.Provider, s.Peer)
	}
	if a := res.Apply; a != nil && len(a.ProviderTasks) > 0 {
		add("apply", a.ProviderTasks[len(a.ProviderTasks)-1], a.PeerTasks)
	}
	if w := res.Waves; w != nil {
		add("waves", w.ProviderLater, w.PeerLater)
	}
	if l := res.Long; l != nil {
		add("long", l.Provider, l.Peer)
	}
	if f := res.FanOut; f != nil {
		for _, run := range f.Runs {
			if run.Stats == nil {
				continue
			}
			c := "fan-out"
			if run.Tool == toolProvider && run.Limiter == 0 {
				c = "fan-out, no limiter"
			}
			if run.Tool == toolPeer {
				add(c, nil, run.Stats)
			} else {
				add(c, run.Stats, nil)
			}
		}
	}
	return out
}

// SVG plots mean detection latency against mean GETs per clip, both on
// logarithmic axes, one labelled point per tool and case.
func SVG(points []Point) string {
	const w, h, left, right, top, bottom = 760.0, 520.0, 70.0, 30.0, 40.0, 60.0
	xlo, xhi, ylo, yhi := 1.0, 100.0, 0.01, 10.0
	for _, p := range points {
		xhi = math.Max(xhi, p.Gets*1.2)
		yhi = math.Max(yhi, p.Latency*1.2)
		ylo = math.Min(ylo, math.Max(p.Latency, 0.001)/1.2)
	}
	x := func(v float64) float64 {
		return left + (w-left-right)*(math.Log10(math.Max(v, xlo))-math.Log10(xlo))/(math.Log10(xhi)-math.Log10(xlo))
	}
	y := func(v float64) float64 {
		return h - bottom - (h-top-bottom)*(math.Log10(math.Max(v, ylo))-math.Log10(ylo))/(math.Log10(yhi)-math.Log10(ylo))
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="11">`+"\n", w, h)
	fmt.Fprintf(&b, `<rect width="%.0f" height="%.0f" fill="white"/>`+"\n", w, h)
	fmt.Fprintf(&b, `<text x="%.0f" y="20" font-size="14">Detection latency against GETs per clip (means; logarithmic axes)</text>`+"\n", left)
	for _, t := range logTicks(xlo, xhi) {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="#ddd"/><text x="%.1f" y="%.0f" text-anchor="middle">%g</text>`+"\n",
			x(t), top, x(t), h-bottom, x(t), h-bottom+15, t)
	}
	for _, t := range logTicks(ylo, yhi) {
		fmt.Fprintf(&b, `<line x1="%.0f" y1="%.1f" x2="%.0f" y2="%.1f" stroke="#ddd"/><text x="%.0f" y="%.1f" text-anchor="end">%g</text>`+"\n",
			left, y(t), w-right, y(t), left-5, y(t)+4, t)
	}
	fmt.Fprintf(&b, `<rect x="%.0f" y="%.0f" width="%.0f" height="%.0f" fill="none" stroke="black"/>`+"\n", left, top, w-left-right, h-top-bottom)
	fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" text-anchor="middle">GETs per clip</text>`+"\n", (left+w-right)/2, h-20)
	fmt.Fprintf(&b, `<text transform="translate(18 %.0f) rotate(-90)" text-anchor="middle">detection latency (s)</text>`+"\n", (top+h-bottom)/2)
	colors := map[string]string{toolProvider: "#1f77b4", toolPeer: "#d62728", toolPeer1s: "#2ca02c"}
	for _, p := range points {
		px, py := x(p.Gets), y(p.Latency)
		switch p.Tool {
		case toolPeer:
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="8" height="8" fill="%s"/>`, px-4, py-4, colors[p.Tool])
		case toolPeer1s:
			fmt.Fprintf(&b, `<path d="M%.1f %.1f l5 9 h-10 z" fill="%s"/>`, px, py-5, colors[p.Tool])
		default:
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="4.5" fill="%s"/>`, px, py, colors[p.Tool])
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" fill="%s">%s</text>`+"\n", px+7, py+4, colors[p.Tool], html.EscapeString(p.Case))
	}
	fmt.Fprintf(&b, `<circle cx="%.0f" cy="52" r="4.5" fill="%s"/><text x="%.0f" y="56">provider</text>`, w-right-150, colors[toolProvider], w-right-140)
	fmt.Fprintf(&b, `<rect x="%.0f" y="64" width="8" height="8" fill="%s"/><text x="%.0f" y="72">curl + sleep 5 peer</text>`+"\n",
		w-right-154, colors[toolPeer], w-right-140)
	fmt.Fprintf(&b, `<path d="M%.0f 78 l5 9 h-10 z" fill="%s"/><text x="%.0f" y="88">curl + sleep 1 peer</text>`+"\n",
		w-right-150, colors[toolPeer1s], w-right-140)
	b.WriteString("</svg>\n")
	return b.String()
}

// logTicks are 1, 2 and 5 times the powers of ten within [lo, hi].
func logTicks(lo, hi float64) []float64 {
	var out []float64
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		for _, m := range []float64{1, 2, 5} {
			if v := m * math.Pow(10, e); v >= lo && v <= hi {
				out = append(out, v)
			}
		}
	}
	return out
}

// LooksSVG plots when a batch's GETs came: one row per clip, in the order
// the clips finished, a dot per GET and a bar where the mock made the clip
// final, on the time since the batch's first submission.
func LooksSVG(title string, tasks []TaskSample) string {
	const w, left, right, top, bottom, row = 760.0, 50.0, 20.0, 40.0, 45.0, 9.0
	byEnd := slices.Clone(tasks)
	slices.SortFunc(byEnd, func(a, b TaskSample) int { return cmpFloat(a.Submitted+a.Generation, b.Submitted+b.Generation) })
	end := 1.0
	for _, t := range byEnd {
		end = math.Max(end, t.Submitted+t.Generation+t.Observed)
		for _, l := range t.Looks {
			end = math.Max(end, t.Submitted+l)
		}
	}
	end = math.Ceil(end*1.05) + 1
	h := top + bottom + row*float64(len(byEnd))
	x := func(v float64) float64 { return left + (w-left-right)*v/end }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="11">`+"\n", w, h)
	fmt.Fprintf(&b, `<rect width="%.0f" height="%.0f" fill="white"/>`+"\n", w, h)
	fmt.Fprintf(&b, `<text x="%.0f" y="20" font-size="14">%s</text>`+"\n", left, html.EscapeString(title))
	step := math.Max(1, math.Round(end/10))
	for t := 0.0; t <= end; t += step {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="#ddd"/><text x="%.1f" y="%.0f" text-anchor="middle">%g</text>`+"\n",
			x(t), top, x(t), h-bottom, x(t), h-bottom+15, t)
	}
	fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" text-anchor="middle">seconds since the batch's first submission</text>`+"\n", (left+w-right)/2, h-12)
	fmt.Fprintf(&b, `<text transform="translate(18 %.0f) rotate(-90)" text-anchor="middle">clips, in the order they finished</text>`+"\n", (top+h-bottom)/2)
	for i, t := range byEnd {
		y := top + row*(float64(i)+0.5)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#eee"/>`, x(t.Submitted), y, x(end), y)
		fin := x(t.Submitted + t.Generation)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#d62728" stroke-width="2"/>`, fin, y-4, fin, y+4)
		for _, l := range t.Looks {
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="2.2" fill="#1f77b4"/>`, x(t.Submitted+l), y)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, `<circle cx="%.0f" cy="30" r="3" fill="#1f77b4"/><text x="%.0f" y="34">a GET</text>`, w-right-200, w-right-192)
	fmt.Fprintf(&b, `<line x1="%.0f" y1="26" x2="%.0f" y2="34" stroke="#d62728" stroke-width="2"/><text x="%.0f" y="34">clip final</text>`+"\n",
		w-right-130, w-right-130, w-right-122)
	b.WriteString("</svg>\n")
	return b.String()
}

// LooksPlots are the looks of the provider in the latency cases of
// BatchGeneration, without and with progress, by file name.
func LooksPlots(res *Results) map[string]string {
	out := map[string]string{}
	for _, l := range res.Latency {
		if time.Duration(l.Generation) != BatchGeneration {
			continue
		}
		label := secondsLabel(BatchGeneration)
		if p := l.Provider; p != nil && len(p.Tasks) > 0 {
			out["looks-batch.svg"] = LooksSVG(fmt.Sprintf("The provider's GETs: %d clips of %s ±%.0f%%, started together (%.1f GETs a clip)",
				len(p.Tasks), label, 100*l.Spread, p.GetsMean), p.Tasks)
		}
		if p := l.Progress; p != nil && len(p.Tasks) > 0 {
			out["looks-batch-progress.svg"] = LooksSVG(fmt.Sprintf("The same with progress reported (new-api dialect, %.1f GETs a clip)",
				p.GetsMean), p.Tasks)
		}
	}
	return out
}

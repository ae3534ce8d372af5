package bench

import (
	"os/exec"
	"strings"
	"testing"
	"time"
)

// A child that ended and was waited for counts in childrenCPU: the CLI's CPU,
// and its providers', across an apply.
func TestChildrenCPUCountsAChildThatEnded(t *testing.T) {
	before := childrenCPU()
	if out, err := exec.CommandContext(t.Context(), "sh", "-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done").CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got := childrenCPU() - before; got <= 0 {
		t.Errorf("a child that counted to 300000 used %v of CPU, want more than none", got)
	}
}

// The big apply's rows give the CLI's CPU beside the baseline's, and
// Terraform's own once the provider's profile is taken out.
func TestBigApplyCPURow(t *testing.T) {
	t.Parallel()
	a := &BigApplyResult{Clips: 2000, Parallelism: 200, Generation: Duration(2 * time.Second), Provider: &TaskStats{},
		Baseline: Duration(40 * time.Second), Ideal: Duration(60 * time.Second), Target: Duration(72 * time.Second),
		Profile: &CPUProfile{CPU: Duration(30 * time.Second)}, BaselineCPU: Duration(50 * time.Second),
		ProviderCLICPU: Duration(130 * time.Second)}
	for _, r := range bigApplyRows(a) {
		if strings.HasPrefix(r.Figure, "CPU of Terraform") {
			if r.Provider != 130 || r.Peer == nil || *r.Peer != 50 || !strings.Contains(r.Note, "Terraform's own: 100.00 s") {
				t.Errorf("CPU row %+v, want 130 s beside 50 s and Terraform's own 100 s", r)
			}
			return
		}
	}
	t.Error("no CPU row for the CLI")
}

// The floor of the clip's schema comes after the target's rows, as
// information: its wall time and CPU beside the terraform_data floor's, and
// no target of its own.
func TestBigApplyNoopFloorRows(t *testing.T) {
	t.Parallel()
	a := &BigApplyResult{Clips: 2000, Parallelism: 200, Generation: Duration(2 * time.Second), Provider: &TaskStats{},
		Baseline: Duration(30 * time.Second), Ideal: Duration(50 * time.Second), Target: Duration(60 * time.Second),
		BaselineCPU: Duration(36 * time.Second), ProviderCLICPU: Duration(117 * time.Second),
		NoopFloor: Duration(60 * time.Second), NoopFloorCPU: Duration(90 * time.Second)}
	want := map[string][2]float64{
		"Floor with the clip's schema (no-op provider): wall time":                           {60, 30},
		"Floor with the clip's schema (no-op provider): CPU of Terraform with its providers": {90, 36},
	}
	for _, r := range bigApplyRows(a) {
		w, ok := want[r.Figure]
		if !ok {
			continue
		}
		delete(want, r.Figure)
		if r.Provider != w[0] || r.Peer == nil || *r.Peer != w[1] || r.Met != nil || !strings.Contains(r.Note, "2000 videogen_video") {
			t.Errorf("row %+v, want %g s beside the terraform_data floor's %g s, no target, a note naming the resources",
				r, w[0], w[1])
		}
	}
	if len(want) > 0 {
		t.Errorf("missing rows %v", want)
	}
	a.NoopFloor, a.NoopFloorCPU = 0, 0
	for _, r := range bigApplyRows(a) {
		if strings.HasPrefix(r.Figure, "Floor with the clip's schema") {
			t.Errorf("row %q in a result without the no-op floor", r.Figure)
		}
	}
}

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

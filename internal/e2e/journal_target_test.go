//go:build linux

package e2e

import (
	"strconv"
	"strings"
	"testing"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
)

// TestJournalURL_targetedApplyOnAPgBackendGetsItsOwnTask: one clip applied on
// the pg backend with journal_url, then a second identical clip (count = 2)
// applied with -target on it alone. A targeted plan tells the provider
// nothing about the clip it does not target, so the first clip's task is
// still in the journal; the provider reads the state the pg backend saved,
// finds the task held there, and removes it instead of offering it: 2
// distinct tasks, 2 billed, no adoption warning, and the next plan is empty
// with no task held twice. Before, the second clip adopted the first one's
// task (1 billed for 2 clips) with "Clip May Adopt a Task of a Killed Run".
func TestJournalURL_targetedApplyOnAPgBackendGetsItsOwnTask(t *testing.T) {
	requireE2E(t)
	ctx := t.Context()
	mock := acctest.NewMock(t)
	pgConn := startPostgres(t)
	config := func(count int) string {
		return `terraform {
  required_providers {
    videogen = {
      source = "videogen/videogen"
    }
  }
  backend "pg" {}
}
` + mock.ProviderBlock("journal_path = null", "journal_url = "+strconv.Quote(pgConn)) + `
resource "videogen_video" "clip" {
  count  = ` + strconv.Itoa(count) + `
  model  = "videogen-1"
  prompt = "a targeted twin"
}
`
	}
	wd := acctest.NewWorkdir(t)
	must(t, wd.Setenv("PG_CONN_STR", pgConn))
	must(t, wd.Write(config(1)))
	must(t, wd.Init(ctx))
	if out, err := wd.Start(ctx, "apply", "-auto-approve", "-input=false", "-no-color").Wait(); err != nil {
		t.Fatalf("the first apply: %v\n%s", err, out)
	}
	expectSubmissions(t, mock, 1, "after the first apply")

	must(t, wd.Write(config(2)))
	out, err := wd.Start(ctx, "apply", "-auto-approve", "-input=false", "-no-color", "-target=videogen_video.clip[1]").Wait()
	if err != nil {
		t.Fatalf("the targeted apply: %v\n%s", err, out)
	}
	if strings.Contains(out, "Clip May Adopt") || strings.Contains(out, "Killed Run") {
		t.Errorf("the targeted apply offers the first clip's task to the new one:\n%s", out)
	}
	distinctTasks(t, wd, mock, 2)
	plan, err := wd.Start(ctx, "plan", "-input=false", "-no-color", "-detailed-exitcode").Wait()
	if err != nil || strings.Contains(plan, "Task Held by Two Resources") {
		t.Fatalf("the plan after: %v; want an empty plan with no task held twice:\n%s", err, plan)
	}
	expectSubmissions(t, mock, 2, "at the end")
}

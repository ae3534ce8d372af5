package provider

import (
	"fmt"
	"strings"
	"testing"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
)

// TestAccJournal_lostAnswerCostsNothingWhereTheServerDeduplicates: every
// submission carries an Idempotency-Key derived from its journal note, and
// the re-apply of a submission whose answer was lost sends it again under the
// same key. One apply makes a clip whose answer comes back, then (the mock
// set to lose every answer once that clip is submitted) a second clip whose
// answer is lost. Against the mock, which deduplicates and echoes the key,
// the journal remembers the server from the first answer: the plan says it
// is known to deduplicate, and the re-apply gets the first task, 1 billed for
// the lost clip (2 in all). Against a server that ignores the key, nothing
// echoed: the plan says it is not known to, and 2 billed for it (3 in all).
// Before, the re-apply sent no key (2 billed in both), and later the plan
// said "not known to deduplicate" even against the mock.
func TestAccJournal_lostAnswerCostsNothingWhereTheServerDeduplicates(t *testing.T) {
	requireAcc(t)
	for _, ignore := range []bool{false, true} {
		t.Run(fmt.Sprintf("server ignores keys=%v", ignore), func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			mock := acctest.NewMock(t, func(cfg *mockapi.Config) { cfg.IgnoreIdempotencyKeys = ignore })
			wd := cliWorkdir(t, mock, `
resource "videogen_video" "answered" {
  model  = "videogen-1"
  prompt = "an answer that came back [mock:hold]"
}

resource "videogen_video" "clip" {
  model      = "videogen-1"
  prompt     = "an answer lost, its key kept"
  depends_on = [videogen_video.answered]
}
`, "submit_gateway_retries = 0")
			run := wd.Start(ctx, "apply", "-auto-approve", "-input=false", "-no-color")
			if err := mock.AwaitTasks(ctx, 1); err != nil {
				out, _ := run.Wait()
				t.Fatalf("%v\n%s", err, out)
			}
			// The first answer is on its way (the mock decides at
			// submission); the next is lost.
			mock.SetGatewayFailuresAfterSubmit(-1)
			mock.FinishTask(ledgerTask(t, mock, 0).TaskID)
			if out, err := run.Wait(); err == nil {
				t.Fatalf("the apply whose second answer was lost succeeded:\n%s", out)
			}
			mock.SetGatewayFailuresAfterSubmit(0)
			var plan strings.Builder
			wd.TF.SetStdout(&plan)
			_, err := wd.Plan(ctx)
			wd.TF.SetStdout(nil)
			said := "this service is known to deduplicate"
			if ignore {
				said = "this service is not known to deduplicate"
			}
			if err != nil || !wrapped("Clip May Be Billed Twice", "Idempotency-Key of the earlier request", said).MatchString(plan.String()) {
				t.Fatalf("the plan after the lost answer: %v; want it to say the doubt, the key and %q:\n%s", err, said, plan.String())
			}
			out := applyOutput(t, wd)
			want := 2
			if ignore {
				want = 3
			}
			if n := mock.Submissions(); n != want {
				t.Fatalf("the ledger shows %d submissions after the re-apply, want %d:\n%s", n, want, out)
			}
			lost := ledgerTask(t, mock, 1)
			if !ignore && (lost.Replays != 1 || stateTasks(t, wd)["videogen_video.clip"] != lost.TaskID) {
				t.Fatalf("the re-apply got %v with %d replays; want the lost answer's task %s, sent again under its key",
					stateTasks(t, wd), lost.Replays, lost.TaskID)
			}
		})
	}
}

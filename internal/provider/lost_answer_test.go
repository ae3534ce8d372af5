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
// same key. Against the mock, which deduplicates, the re-apply gets the first
// task: 1 billed for 1 clip. Against a server that ignores the key, 2 billed,
// and the plan said so before, as it always did, and that the key goes again
// to a server not known to deduplicate. Before, the re-apply sent no key: 2
// billed in both.
func TestAccJournal_lostAnswerCostsNothingWhereTheServerDeduplicates(t *testing.T) {
	requireAcc(t)
	for _, ignore := range []bool{false, true} {
		t.Run(fmt.Sprintf("server ignores keys=%v", ignore), func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			mock := acctest.NewMock(t, func(cfg *mockapi.Config) {
				cfg.GatewayFailuresAfterSubmit = -1
				cfg.IgnoreIdempotencyKeys = ignore
			})
			wd := cliWorkdir(t, mock, cliVideo("an answer lost, its key kept"), "submit_gateway_retries = 0")
			if err := wd.Apply(ctx); err == nil {
				t.Fatal("the apply whose answer was lost succeeded")
			}
			mock.SetGatewayFailuresAfterSubmit(0)
			var plan strings.Builder
			wd.TF.SetStdout(&plan)
			_, err := wd.Plan(ctx)
			wd.TF.SetStdout(nil)
			// The provider cannot tell a server that deduplicates before it
			// sends: the plan says the key goes again, and that this one is
			// not known to honour it.
			if err != nil || !wrapped("Clip May Be Billed Twice", "Idempotency-Key of the earlier request",
				"not known to deduplicate").MatchString(plan.String()) {
				t.Fatalf("the plan after the lost answer: %v; want it to say the doubt and the key:\n%s", err, plan.String())
			}
			out := applyOutput(t, wd)
			want := 1
			if ignore {
				want = 2
			}
			if n := mock.Submissions(); n != want {
				t.Fatalf("the ledger shows %d submissions after the re-apply, want %d:\n%s", n, want, out)
			}
			first := ledgerTask(t, mock, 0)
			if !ignore && (first.Replays != 1 || stateTasks(t, wd)["videogen_video.clip"] != first.TaskID) {
				t.Fatalf("the re-apply got %v with %d replays; want the first task %s, sent again under its key",
					stateTasks(t, wd), first.Replays, first.TaskID)
			}
		})
	}
}

package provider

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
)

// TestAccBilling_unconfirmedSubmissionIsSaidBeforeSubmittingAgain: a gateway
// times out after forwarding the submission, so the apply cannot know whether a
// task exists. The next apply of the same request says so, with the time and
// how to keep that task, before it submits again; the apply after that says
// nothing more. The real CLI runs, because the test framework hides warnings.
func TestAccBilling_unconfirmedSubmissionIsSaidBeforeSubmittingAgain(t *testing.T) {
	requireAcc(t)
	t.Parallel()
	// A server that ignores Idempotency-Key, the worst case: the re-sent request is a
	// second task, which the words must have warned of.
	mock := acctest.NewMock(t, func(cfg *mockapi.Config) { cfg.GatewayFailuresAfterSubmit = -1; cfg.IgnoreIdempotencyKeys = true })
	wd := cliWorkdir(t, mock, cliVideo("behind a gateway that times out"), "submit_gateway_retries = 0")
	err := wd.Apply(t.Context())
	if err == nil || !wrapped("A task may exist", "attempt 1 was answered HTTP 504").MatchString(err.Error()) {
		t.Fatalf("the first apply: %v; want the ambiguous-submission error", err)
	}
	if n := mock.Submissions(); n != 1 {
		t.Fatalf("the ledger shows %d submissions after the first apply, want 1", n)
	}

	mock.SetGatewayFailuresAfterSubmit(0)
	out := applyOutput(t, wd)
	if !wrapped("Warning: Earlier Submission May Have Created This Clip", "this same request at 20", " UTC",
		"terraform state rm", "terraform import", "pending-tasks.json").MatchString(out) {
		t.Fatalf("the second apply does not say that the earlier submission may have created the clip:\n%s", out)
	}
	if n := mock.Submissions(); n != 2 {
		t.Fatalf("the ledger shows %d submissions after the second apply, want 2", n)
	}

	if changes, err := wd.Plan(t.Context()); err != nil || changes {
		t.Fatalf("the plan after: changes %v, error %v; want an empty plan", changes, err)
	}
	// The same request in a new resource: the note was said once, and is not said again.
	if err := wd.Write(cliClip(mock, cliVideo("behind a gateway that times out")+strings.Replace(
		cliVideo("behind a gateway that times out"), `"clip"`, `"again"`, 1), "submit_gateway_retries = 0")); err != nil {
		t.Fatal(err)
	}
	if out := applyOutput(t, wd); strings.Contains(out, "Earlier Submission") {
		t.Fatalf("the note was said a second time:\n%s", out)
	}
	if n := mock.Submissions(); n != 3 {
		t.Fatalf("the ledger shows %d submissions after the third apply, want 3", n)
	}
}

// TestAccBilling_interruptedWhileSubmittingIsSaidNextTime: the run is
// interrupted (SIGINT) or killed outright (SIGKILL) while its submission is in
// flight, after the service created the task and before its answer arrived. No
// state records the task, so the next apply submits again; the journal's note,
// written before the request was sent, makes it say so.
func TestAccBilling_interruptedWhileSubmittingIsSaidNextTime(t *testing.T) {
	t.Parallel()
	requireAcc(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			// A server that ignores Idempotency-Key bills the submission sent again.
			mock := acctest.NewMock(t, func(cfg *mockapi.Config) { cfg.IgnoreIdempotencyKeys = true })
			// In front of the mock, a submission reaches it and its answer is held back.
			var hold atomic.Bool
			hold.Store(true)
			forwarded := make(chan struct{}, 1)
			front := inFront(t, mock, func(_ http.ResponseWriter, r *http.Request) bool {
				if r.Method != http.MethodPost || !hold.Load() {
					return false
				}
				mock.ServeHTTP(httptest.NewRecorder(), r)
				forwarded <- struct{}{}
				<-r.Context().Done()
				return true
			})
			wd := cliWorkdir(t, mock, cliVideo("stopped while it was being submitted"), `base_url = "`+front+`"`)
			run := wd.Start(t.Context(), "apply", "-auto-approve", "-input=false", "-no-color")
			ctx, cancel := context.WithCancel(t.Context())
			go func() {
				_, _ = run.Wait()
				cancel()
			}()
			select {
			case <-forwarded:
			case <-ctx.Done():
				out, _ := run.Wait()
				t.Fatalf("the apply ended before its submission was sent:\n%s", out)
			}
			if err := run.Signal(sig); err != nil {
				t.Fatal(err)
			}
			out, err := run.Wait()
			if err == nil {
				t.Fatalf("the stopped apply succeeded:\n%s", out)
			}
			// An interrupted provider still answers, with the doubt in words.
			if sig == syscall.SIGINT && !wrapped("A task may exist").MatchString(out) {
				t.Fatalf("the interrupted apply does not say that a task may exist:\n%s", out)
			}
			if n := mock.Submissions(); n != 1 {
				t.Fatalf("the ledger shows %d submissions after the stopped apply, want 1", n)
			}

			hold.Store(false)
			out = applyOutput(t, wd)
			if !wrapped("Warning: Earlier Submission May Have Created This Clip", "this same request at 20",
				"terraform import").MatchString(out) {
				t.Fatalf("the apply after %v does not say that the stopped one may have created the clip:\n%s", sig, out)
			}
			if n := mock.Submissions(); n != 2 {
				t.Fatalf("the ledger shows %d submissions after the second apply, want 2", n)
			}
			if changes, err := wd.Plan(t.Context()); err != nil || changes {
				t.Fatalf("the plan after: changes %v, error %v; want an empty plan", changes, err)
			}
		})
	}
}

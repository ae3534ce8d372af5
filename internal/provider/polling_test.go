package provider

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
)

// The waiter's own schedules through Terraform: the provider block leaves
// poll_interval unset (the harness's fixed interval would replace them and
// drop the task kind), every task is held, and the test releases each one
// after the looks it wants the schedule to have made. Nothing here measures
// time: a schedule that stops looking, never notices a released task or
// submits twice fails the run.

// clipsConfig is n clips of one kind, waited for on the provider's own
// schedules.
func clipsConfig(mock *acctest.Mock, n int) string {
	return mock.ProviderBlock("poll_interval = null") + fmt.Sprintf(`
resource "videogen_video" "clip" {
  count   = %d
  model   = "videogen-1"
  prompt  = "clip ${count.index} of one kind"
  seconds = "4"
}
`, n)
}

// driveTasks runs drive beside a step's apply and returns the step's
// PreConfig, which starts it, and a check that reports its error. It starts
// in PreConfig because by then the test runs: started before
// resource.ParallelTest, it would count the time the test waits for a
// parallel slot on a loaded machine. Should drive fail, every held task
// fails, including those submitted later, so that the apply ends instead of
// waiting for a release that never comes.
func driveTasks(t *testing.T, mock *acctest.Mock, drive func(ctx context.Context) error) (func(), resource.TestCheckFunc) {
	t.Helper()
	done := make(chan error, 1)
	start := func() {
		go func() {
			// A liveness bound, not a timing assertion: the schedules look
			// every few seconds at most.
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
			defer cancel()
			err := drive(ctx)
			if err != nil {
				t.Logf("driving the tasks: %v", err)
				go failHeldTasks(t.Context(), mock)
			}
			done <- err
		}()
	}
	return start, func(*terraform.State) error { return <-done }
}

// failHeldTasks fails every task the mock holds and every task submitted
// after, until ctx ends.
func failHeldTasks(ctx context.Context, mock *acctest.Mock) {
	for {
		tasks := mock.Ledger().Tasks
		for _, task := range tasks {
			mock.FailTask(task.TaskID, "the test stopped driving the tasks")
		}
		if mock.AwaitTasks(ctx, len(tasks)+1) != nil {
			return
		}
	}
}

// getsOf is how many times the task has been read, and whether a read has
// returned its final status.
func getsOf(mock *acctest.Mock, id string) (int, bool) {
	for _, task := range mock.Ledger().Tasks {
		if task.TaskID == id {
			return task.GetCount, task.FinalObservedAt != nil
		}
	}
	return 0, false
}

// awaitNoticed waits until a read of the released task has returned it done.
func awaitNoticed(ctx context.Context, mock *acctest.Mock, id string) error {
	for {
		gets, noticed := getsOf(mock, id)
		if noticed {
			return nil
		}
		if err := mock.AwaitGets(ctx, id, gets+1); err != nil {
			return err
		}
	}
}

// finishAfterGets releases the task once it has been read n times.
func finishAfterGets(ctx context.Context, mock *acctest.Mock, id string, n int) error {
	if err := mock.AwaitGets(ctx, id, n); err != nil {
		return err
	}
	if !mock.FinishTask(id) {
		return fmt.Errorf("task %s was not held when the test released it", id)
	}
	return nil
}

func clipsSucceeded(n int) []statecheck.StateCheck {
	var checks []statecheck.StateCheck
	for i := range n {
		checks = append(checks, statecheck.ExpectKnownValue(fmt.Sprintf("videogen_video.clip[%d]", i),
			tfjsonpath.New("status"), knownvalue.StringExact("succeeded")))
	}
	return checks
}

// The default schedule: a clip held through the fast start and into the
// looks on the multiples of Max is noticed once released.
func TestAccPolling_defaultSchedule(t *testing.T) {
	mock := acctest.NewMock(t, func(c *mockapi.Config) { c.HoldTasks = true })
	// Five looks of the fast start and one on the first multiple of Max.
	const looks = 6
	start, drive := driveTasks(t, mock, func(ctx context.Context) error {
		if err := mock.AwaitTasks(ctx, 1); err != nil {
			return err
		}
		return finishAfterGets(ctx, mock, mock.Ledger().Tasks[0].TaskID, looks)
	})
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				PreConfig:         start,
				Config:            clipsConfig(mock, 1),
				ConfigStateChecks: clipsSucceeded(1),
				Check: resource.ComposeTestCheckFunc(drive, mock.ExpectSubmissions(1), func(*terraform.State) error {
					if n, _ := getsOf(mock, ledgerTask(t, mock, 0).TaskID); n <= looks {
						return fmt.Errorf("the task was read %d times, want more than the %d before its release", n, looks)
					}
					return nil
				}),
			},
			mock.NothingNewStep(clipsConfig(mock, 1), 1),
		},
	})
}

// The learned schedule: six clips of one kind start together; the first three
// are released together after two looks each, which gives the waiter three
// observations that agree, and the other three then wait on looks learned
// from them (moved sooner by the news of each finish) until each is released
// after one more look.
func TestAccPolling_learnedSchedule(t *testing.T) {
	mock := acctest.NewMock(t, func(c *mockapi.Config) { c.HoldTasks = true })
	const clips = 6
	start, drive := driveTasks(t, mock, func(ctx context.Context) error {
		if err := mock.AwaitTasks(ctx, clips); err != nil {
			return err
		}
		tasks := mock.Ledger().Tasks
		teachers, learners := tasks[:3], tasks[3:]
		for _, task := range teachers {
			if err := mock.AwaitGets(ctx, task.TaskID, 2); err != nil {
				return err
			}
		}
		for _, task := range teachers {
			if !mock.FinishTask(task.TaskID) {
				return fmt.Errorf("task %s was not held when the test released it", task.TaskID)
			}
		}
		for _, task := range teachers {
			// Each teacher is noticed, so that the waiter has learned from all three.
			if err := awaitNoticed(ctx, mock, task.TaskID); err != nil {
				return err
			}
		}
		for _, task := range learners {
			gets, _ := getsOf(mock, task.TaskID)
			if err := finishAfterGets(ctx, mock, task.TaskID, gets+1); err != nil {
				return err
			}
		}
		return nil
	})
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				PreConfig:         start,
				Config:            clipsConfig(mock, clips),
				ConfigStateChecks: clipsSucceeded(clips),
				Check:             resource.ComposeTestCheckFunc(drive, mock.ExpectSubmissions(clips)),
			},
			mock.NothingNewStep(clipsConfig(mock, clips), clips),
		},
	})
}

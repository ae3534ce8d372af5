package provider

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
)

func TestUnconfirmedParams(t *testing.T) {
	yes, no := true, false
	image := client.NewContentEntry(client.ContentImage, "https://cdn.example.com/a.png")
	asked := client.VideoRequest{Model: "m", Prompt: "p", Seconds: "4", Metadata: &client.Metadata{
		Ratio: "9:16", Resolution: "720p", GenerateAudio: &yes, CallbackURL: "https://hooks.example.com/x",
		Content: []client.ContentEntry{image},
	}}
	cases := []struct {
		name string
		req  client.VideoRequest
		v    client.Video
		want []string
	}{
		{
			// The API as described never echoes seconds: without an upstream record it is not doubted.
			name: "complete canonical echo",
			req:  asked,
			v:    client.Video{Metadata: asked.Metadata},
			want: nil,
		},
		{
			name: "echo in another spelling",
			req:  asked,
			v: client.Video{Metadata: &client.Metadata{Ratio: "9:16", Resolution: "720P", GenerateAudio: &yes,
				CallbackURL: "HTTPS://hooks.example.com/x", Content: []client.ContentEntry{image}}},
			want: nil,
		},
		{
			name: "no echo and no record",
			req:  asked,
			v:    client.Video{},
			want: []string{"ratio: not confirmed", "resolution: not confirmed", "generate_audio: not confirmed",
				"callback_url: not confirmed", "reference_images: not confirmed"},
		},
		{
			// Veo's operations echo no parameter: its silence doubts none.
			name: "an API that never echoes",
			req:  asked,
			v:    client.Video{NoEcho: true},
			want: nil,
		},
		{
			name: "a gateway's upstream record",
			req:  asked,
			v:    client.Video{Made: &client.MadeParams{Ratio: "16:9", Resolution: "1080p", Seconds: "5"}},
			want: []string{"seconds: asked 4, the service reports 5", "ratio: asked 9:16, the service reports 16:9",
				"resolution: asked 720p, the service reports 1080p", "generate_audio: not confirmed",
				"callback_url: not confirmed", "reference_images: not confirmed"},
		},
		{
			name: "the record wins over an echo of the request",
			req:  client.VideoRequest{Seconds: "5", Metadata: &client.Metadata{Resolution: "720p", GenerateAudio: &yes}},
			v: client.Video{
				Metadata: &client.Metadata{Resolution: "720p", GenerateAudio: &yes},
				Made:     &client.MadeParams{Resolution: "1080p", GenerateAudio: &no},
			},
			want: []string{"seconds: not confirmed", "resolution: asked 720p, the service reports 1080p",
				"generate_audio: asked true, the service reports false"},
		},
		{
			name: "nothing asked",
			req:  client.VideoRequest{Model: "m", Prompt: "p"},
			v:    client.Video{Made: &client.MadeParams{Ratio: "16:9", Resolution: "1080p", Seconds: "5"}},
			want: nil,
		},
		{
			name: "other reference media",
			req:  client.VideoRequest{Metadata: &client.Metadata{Content: []client.ContentEntry{image}}},
			v: client.Video{Metadata: &client.Metadata{Content: []client.ContentEntry{
				client.NewContentEntry(client.ContentImage, "https://cdn.example.com/b.png"),
			}}},
			want: []string{"reference_images: asked 1 URL(s), the service reports 1 other(s)"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := unconfirmedParams(tc.req, &tc.v); !slices.Equal(got, tc.want) {
				t.Errorf("unconfirmedParams =\n  %q\nwant\n  %q", got, tc.want)
			}
		})
	}
}

// TestAccDialect_unconfirmedParameters: behind a gateway that drops the
// parameters, a batch of clips made at the model's defaults gives one warning
// that names each parameter and counts the clips, and state keeps the
// configuration, so the next plan is empty and nothing is generated again. The
// canonical service echoes what it made, and nothing is said; nor on Veo,
// whose operations echo no parameter at all.
func TestAccDialect_unconfirmedParameters(t *testing.T) {
	t.Parallel()
	requireAcc(t)
	const clips = 3
	body := fmt.Sprintf(`
resource "videogen_video" "clip" {
  count      = %d
  model      = "videogen-2"
  prompt     = "a tram at night ${count.index} [mock:hold]"
  seconds    = 4
  ratio      = "9:16"
  resolution = "720p"
}
`, clips)
	for _, dialect := range everyDialect {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			mock := acctest.NewMock(t, mockapi.WithDialect(dialect))
			wd := cliWorkdir(t, mock, body)
			// The tasks are held until all three are submitted, so that the creates overlap.
			run := wd.Start(t.Context(), "apply", "-auto-approve", "-input=false", "-no-color")
			ctx, cancel := context.WithCancel(t.Context())
			go func() {
				_, _ = run.Wait()
				cancel()
			}()
			if err := mock.AwaitTasks(ctx, clips); err != nil {
				out, _ := run.Wait()
				t.Fatalf("%v\n%s", err, out)
			}
			for _, task := range mock.Ledger().Tasks {
				mock.FinishTask(task.TaskID)
			}
			out, err := run.Wait()
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			warnings := strings.Count(out, "Warning: Clip Parameters Not Confirmed")
			switch dialect {
			case mockapi.DialectNewAPI:
				// Terraform shows warnings of one summary as one: a second would add "(and one
				// more similar warning elsewhere)".
				if warnings != 1 || strings.Contains(out, "similar warning") || !wrapped("for 3 clips first seen finished in this run",
					"seconds: asked 4, the service reports 5 (3 clips)",
					"ratio: asked 9:16, the service reports 16:9 (3 clips)",
					"resolution: asked 720p, the service reports 1080p (3 clips)",
					"State keeps the configured values").MatchString(out) {
					t.Fatalf("want one warning naming every parameter for 3 clips, got %d:\n%s", warnings, out)
				}
			default:
				if warnings != 0 {
					t.Fatalf("the canonical service confirmed every parameter, yet:\n%s", out)
				}
			}
			if n := mock.Submissions(); n != clips {
				t.Fatalf("the ledger shows %d submissions, want %d", n, clips)
			}
			if changes, err := wd.Plan(t.Context()); err != nil || changes {
				t.Fatalf("the plan after: changes %v, error %v; want an empty plan", changes, err)
			}
			if n := mock.Submissions(); n != clips {
				t.Fatalf("the ledger shows %d submissions after the plan, want %d", n, clips)
			}
		})
	}
}

// TestAccDialect_unconfirmedParametersOfAClipSeenFinishedLater: a clip created
// without waiting gets the same warning as one Create waited for, from the later
// apply that first sees it finished, whether that apply's update waits for it or
// its refresh finds it done; a clip whose create wait was cut short gets it once,
// from the replacement that resumes its task, not from the refresh before too.
// Once state records the clip, nothing more is said, and nothing more is
// submitted.
func TestAccDialect_unconfirmedParametersOfAClipSeenFinishedLater(t *testing.T) {
	t.Parallel()
	requireAcc(t)
	body := func(wait bool) string {
		return fmt.Sprintf(`
resource "videogen_video" "clip" {
  model               = "videogen-2"
  prompt              = "a tram at dawn [mock:hold]"
  ratio               = "9:16"
  resolution          = "720p"
  wait_for_completion = %t
}
`, wait)
	}
	for _, dialect := range everyDialect {
		for _, seenBy := range []string{"update", "refresh", "resume"} {
			if seenBy == "update" && slices.Contains(mockapi.GoogleDialects, dialect) {
				// An update's wait reads the operation as Create's wait does,
				// which TestAccDialect_unconfirmedParameters shows through
				// Google's APIs; a refresh and a resumed task are other reads.
				continue
			}
			t.Run(dialect+"/"+seenBy, func(t *testing.T) {
				t.Parallel()
				mock := acctest.NewMock(t, mockapi.WithDialect(dialect))
				wd := cliWorkdir(t, mock, body(seenBy == "resume"))
				if seenBy == "resume" {
					// An interrupt cuts the first apply's wait short.
					run, _ := startHeldApply(t, mock, wd, 1)
					if err := run.Signal(syscall.SIGINT); err != nil {
						t.Fatal(err)
					}
					if out, err := run.Wait(); err == nil {
						t.Fatalf("the interrupted apply succeeded:\n%s", out)
					}
				} else if err := wd.Apply(t.Context()); err != nil {
					t.Fatal(err)
				}
				tasks := mock.Ledger().Tasks
				if len(tasks) != 1 {
					t.Fatalf("the ledger shows %d submissions after the first apply, want 1", len(tasks))
				}
				apply := []string{"apply", "-auto-approve", "-input=false", "-no-color"}
				switch seenBy {
				case "update":
					if err := wd.Write(cliClip(mock, body(true))); err != nil {
						t.Fatal(err)
					}
					// Without a refresh the plan still sees the task submitted, so the
					// apply's update is the first to read it, and the mock finishes it then.
					finishAllAfterNextGet(t, mock)
					apply = append(apply, "-refresh=false")
				case "refresh", "resume":
					finishAll(t, mock)
				}
				out, err := wd.Start(t.Context(), apply...).Wait()
				if err != nil {
					t.Fatalf("%v\n%s", err, out)
				}
				if seenBy == "update" && !strings.Contains(out, "1 changed") {
					t.Fatalf("want the clip updated in place:\n%s", out)
				}
				warnings := strings.Count(out, "Warning: Clip Parameters Not Confirmed")
				switch dialect {
				case mockapi.DialectNewAPI:
					if warnings != 1 || strings.Contains(out, "similar warning") || !wrapped("for 1 clip first seen finished in this run",
						"ratio: asked 9:16, the service reports 16:9", "Tasks: "+tasks[0].TaskID).MatchString(out) {
						t.Fatalf("want one warning naming the ratio and the task, got %d:\n%s", warnings, out)
					}
				default:
					if warnings != 0 {
						t.Fatalf("the canonical service confirmed every parameter, yet:\n%s", out)
					}
				}
				out, err = wd.Start(t.Context(), "plan", "-input=false", "-no-color").Wait()
				if err != nil || strings.Contains(out, "Clip Parameters Not Confirmed") {
					t.Fatalf("the plan after the clip was recorded: error %v, want no warning:\n%s", err, out)
				}
				if n := mock.Submissions(); n != 1 {
					t.Fatalf("the ledger shows %d submissions, want 1", n)
				}
			})
		}
	}
}

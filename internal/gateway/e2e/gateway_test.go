package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	tfjson "github.com/hashicorp/terraform-json"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
	"github.com/videogen/terraform-provider-videogen/internal/gateway/arkstub"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if err := acctest.Teardown(); err != nil {
		fmt.Fprintln(os.Stderr, "gateway e2e:", err)
	}
	os.Exit(code)
}

// runTimeout bounds one CLI run: a clip waits for new-api's next 15-second
// update round, so a run takes well under a minute; only a hang gets near
// this.
const runTimeout = 4 * time.Minute

// gateway is new-api in front of the stand-in upstream, shared by the
// scenarios of TestNewAPI.
type gateway struct {
	upstream *arkstub.Server
	api      *newAPI
}

// providerBlock requires the provider and configures it against new-api
// with its key, then each extra line as acctest's builder takes them. It
// polls every second: new-api only learns a task's state every 15 seconds,
// so polling faster only adds requests.
func (g *gateway) providerBlock(extra ...string) string {
	mock := acctest.Mock{URL: g.api.URL}
	return `terraform {
  required_providers {
    videogen = {
      source = "videogen/videogen"
    }
  }
}
` + mock.ProviderBlock(append([]string{"api_key = " + strconv.Quote(g.api.Key), `poll_interval = "1s"`}, extra...)...)
}

// workdir is a fresh working directory holding config, initialised.
func (g *gateway) workdir(t *testing.T, config string) *acctest.Workdir {
	t.Helper()
	w := acctest.NewWorkdir(t)
	if err := w.Write(config); err != nil {
		t.Fatal(err)
	}
	if err := w.Init(t.Context()); err != nil {
		t.Fatal(err)
	}
	return w
}

// apply runs `apply` in w and hands each of the next n submissions the
// upstream receives to finish, which ends its task as the scenario needs:
// the test drives every task's lifecycle. It returns the CLI's output and
// error; a run that submits fewer than n fails the test.
func (g *gateway) apply(t *testing.T, w *acctest.Workdir, n int, finish func(arkstub.Submission) error) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), runTimeout)
	defer cancel()
	before := len(g.upstream.Submissions())
	run := w.Start(ctx, "apply", "-auto-approve", "-input=false", "-no-color")
	awaitCtx, stopAwait := context.WithCancel(ctx)
	type result struct {
		out string
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := run.Wait()
		stopAwait()
		done <- result{out, err}
	}()
	for i := 1; i <= n; i++ {
		subs, err := g.upstream.AwaitSubmissions(awaitCtx, before+i)
		if err != nil {
			res := <-done
			t.Fatalf("%v\napply's output (error %v):\n%s", err, res.err, res.out)
		}
		if err := finish(subs[before+i-1]); err != nil {
			t.Error(err)
		}
	}
	res := <-done
	return res.out, res.err
}

// expectUpstream checks the upstream's counts: every submission new-api
// forwarded, and the tasks created (each a clip billed).
func (g *gateway) expectUpstream(t *testing.T, submissions, tasks int) {
	t.Helper()
	if got, gotTasks := len(g.upstream.Submissions()), g.upstream.Tasks(); got != submissions || gotTasks != tasks {
		t.Errorf("the upstream received %d submission(s) and created %d task(s); want %d and %d", got, gotTasks, submissions, tasks)
	}
}

// expectNothingNew checks that w plans nothing and that the upstream's
// counts are still submissions and tasks: no clip is generated again.
func (g *gateway) expectNothingNew(t *testing.T, w *acctest.Workdir, submissions, tasks int) {
	t.Helper()
	changes, err := w.Plan(t.Context())
	if err != nil || changes {
		t.Errorf("plan after apply: changes %v, error %v; want an empty plan", changes, err)
	}
	g.expectUpstream(t, submissions, tasks)
}

func resourceValues(t *testing.T, st *tfjson.State, address string) map[string]any {
	t.Helper()
	if st != nil && st.Values != nil && st.Values.RootModule != nil {
		for _, r := range st.Values.RootModule.Resources {
			if r.Address == address {
				return r.AttributeValues
			}
		}
	}
	t.Fatalf("%s is not in state", address)
	return nil
}

func state(t *testing.T, w *acctest.Workdir) *tfjson.State {
	t.Helper()
	st, err := w.State(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// attributeSnippet matches the source line Terraform prints under a
// diagnostic that names an attribute, such as `  4:   model  = "x"`.
func attributeSnippet(name string) *regexp.Regexp {
	return regexp.MustCompile(`(?m)^\s*\d+:\s+` + regexp.QuoteMeta(name) + `\s+=`)
}

// showError logs what the user sees for a scenario that must fail, so that
// a -v run shows each error the gateway guide describes.
func showError(t *testing.T, err error, out string) {
	t.Helper()
	show(t, "Error:", out+"\n"+fmt.Sprint(err))
}

// show logs out from its first line that starts with kind ("Error:",
// "Warning:").
func show(t *testing.T, kind, out string) {
	t.Helper()
	var diags []string
	for _, part := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(part), kind) || len(diags) > 0 {
			diags = append(diags, part)
		}
	}
	t.Logf("what the user sees:\n%s", strings.Join(diags, "\n"))
}

// flat joins the lines Terraform wraps a diagnostic into, so that a phrase
// matches wherever the CLI broke it.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }

const clipPrompt = "A paper boat drifting down a rain-soaked city street at dusk"

// TestNewAPI applies clips through new-api v0.10.0 in front of the stand-in
// upstream and checks every answer a user meets: the model list, a clip
// created and waited for, an empty plan after it, its file, the parameters
// the gateway drops, import, the data source, a failed task, an unknown
// task, a wrong key, an unknown model, a prompt the upstream refuses, and a
// clip not waited for whose file waits instead. The upstream counts each
// submission: exactly one per declared clip.
func TestNewAPI(t *testing.T) {
	if os.Getenv("VIDEOGEN_GATEWAY_E2E") == "" {
		t.Skip("end-to-end gateway test against new-api: set VIDEOGEN_GATEWAY_E2E=1 (make gateway-e2e does)")
	}
	upstream := arkstub.New()
	t.Cleanup(upstream.Close)
	g := &gateway{upstream: upstream, api: startNewAPI(t, upstream)}
	var clipID string

	t.Run("models", func(t *testing.T) {
		w := g.workdir(t, g.providerBlock()+`
data "videogen_models" "all" {}

output "model_ids" {
  value = data.videogen_models.all.ids
}
`)
		out, err := g.apply(t, w, 0, nil)
		if err != nil {
			t.Fatalf("apply: %v\n%s", err, out)
		}
		ids, _ := state(t, w).Values.Outputs["model_ids"].Value.([]any)
		if !slices.Equal(ids, []any{seedanceModel}) {
			t.Errorf("videogen_models lists %v, want [%s]: the one model of the gateway's one channel", ids, seedanceModel)
		}
		g.expectUpstream(t, 0, 0)
	})

	t.Run("create and wait, plan, file", func(t *testing.T) {
		w := g.workdir(t, g.providerBlock()+fmt.Sprintf(`
resource "videogen_video" "clip" {
  model  = %q
  prompt = %q
  timeouts {
    create = "3m"
  }
}

resource "videogen_video_file" "clip" {
  task_id = videogen_video.clip.task_id
  path    = "${path.module}/out/clip.mp4"
}
`, seedanceModel, clipPrompt))
		out, err := g.apply(t, w, 1, func(s arkstub.Submission) error { return upstream.Succeed(s.TaskID) })
		if err != nil {
			t.Fatalf("apply: %v\n%s", err, out)
		}
		g.expectUpstream(t, 1, 1)
		sub := upstream.Submissions()[0]
		clipID = sub.TaskID
		// new-api learns of the finished clip only from its update loop.
		if upstream.Fetches(clipID) == 0 {
			t.Errorf("new-api never asked the upstream about %s, yet the provider saw it finish", clipID)
		}
		// new-api v0.10.0 forwards model and prompt only, which the guide
		// says.
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(sub.Body, &fields); err != nil || len(fields) != 2 || fields["model"] == nil || fields["content"] == nil {
			t.Errorf("new-api forwarded %s; want model and content only", sub.Body)
		}
		if sub.Model != seedanceModel || sub.Prompt != clipPrompt {
			t.Errorf("the upstream got model %q, prompt %q", sub.Model, sub.Prompt)
		}

		st := state(t, w)
		video := resourceValues(t, st, "videogen_video.clip")
		if video["task_id"] != clipID || video["status"] != "succeeded" || video["url"] != upstream.ClipURL(clipID) {
			t.Errorf("videogen_video.clip: task_id %v, status %v, url %v; want %s, succeeded, %s",
				video["task_id"], video["status"], video["url"], clipID, upstream.ClipURL(clipID))
		}
		sum := sha256.Sum256(arkstub.Clip(clipID))
		file := resourceValues(t, st, "videogen_video_file.clip")
		if file["sha256"] != hex.EncodeToString(sum[:]) {
			t.Errorf("videogen_video_file.clip: sha256 %v, want %x (the upstream's clip of %s)", file["sha256"], sum, clipID)
		}
		onDisk, err := os.ReadFile(filepath.Join(w.Dir, "out", "clip.mp4"))
		if err != nil || sha256.Sum256(onDisk) != sum {
			t.Errorf("out/clip.mp4 (%d bytes, %v) is not the upstream's clip", len(onDisk), err)
		}

		g.expectNothingNew(t, w, 1, 1)
	})

	t.Run("parameters the gateway drops", func(t *testing.T) {
		w := g.workdir(t, g.providerBlock()+fmt.Sprintf(`
resource "videogen_video" "asked" {
  model          = %q
  prompt         = "A kite over a beach, seen from below"
  seconds        = "8"
  resolution     = "720p"
  ratio          = "9:16"
  generate_audio = true
  timeouts {
    create = "3m"
  }
}
`, seedanceModel))
		out, err := g.apply(t, w, 1, func(s arkstub.Submission) error { return upstream.Succeed(s.TaskID) })
		if err != nil {
			t.Fatalf("apply: %v\n%s", err, out)
		}
		g.expectUpstream(t, 2, 2)
		// The upstream made its defaults (1080p, 16:9, 5 s): the apply must
		// say which arguments the service did not confirm or contradicted.
		show(t, "Warning:", out)
		_, warning, _ := strings.Cut(flat(out), "Warning:")
		for _, made := range []struct{ arg, value string }{
			{"seconds", strconv.Itoa(arkstub.DefaultDuration)}, {"ratio", arkstub.DefaultRatio},
			{"resolution", arkstub.DefaultResolution}, {"generate_audio", ""},
		} {
			if !strings.Contains(warning, made.arg) || !strings.Contains(warning, made.value) {
				t.Errorf("the apply does not warn that %s was not confirmed (the upstream made %q):\n%s", made.arg, made.value, out)
			}
		}
		// Saying so must not turn into a new clip at every apply.
		g.expectNothingNew(t, w, 2, 2)
	})

	t.Run("import and data source", func(t *testing.T) {
		if clipID == "" {
			t.Skip("no clip to read: the create scenario failed")
		}
		w := g.workdir(t, g.providerBlock()+fmt.Sprintf(`
resource "videogen_video" "imported" {
  model  = %q
  prompt = %q
}

data "videogen_video" "clip" {
  task_id = %q
}

output "status" {
  value = data.videogen_video.clip.status
}

output "url" {
  value = data.videogen_video.clip.url
}
`, seedanceModel, clipPrompt, clipID))
		if err := w.TF.Import(t.Context(), "videogen_video.imported", clipID); err != nil {
			t.Fatalf("import: %v", err)
		}
		out, err := g.apply(t, w, 0, nil)
		if err != nil {
			t.Fatalf("apply: %v\n%s", err, out)
		}
		st := state(t, w)
		video := resourceValues(t, st, "videogen_video.imported")
		if video["task_id"] != clipID || video["status"] != "succeeded" || video["url"] != upstream.ClipURL(clipID) {
			t.Errorf("imported: task_id %v, status %v, url %v", video["task_id"], video["status"], video["url"])
		}
		if got := st.Values.Outputs["status"].Value; got != "succeeded" {
			t.Errorf("data source status %v, want succeeded", got)
		}
		if got := st.Values.Outputs["url"].Value; got != upstream.ClipURL(clipID) {
			t.Errorf("data source url %v, want %s", got, upstream.ClipURL(clipID))
		}
		g.expectUpstream(t, 2, 2)
	})

	t.Run("failed task", func(t *testing.T) {
		const reason = "The output video may contain sensitive information."
		w := g.workdir(t, g.providerBlock()+fmt.Sprintf(`
resource "videogen_video" "failing" {
  model  = %q
  prompt = "A storm over a harbour, seen from a lighthouse"
  timeouts {
    create = "3m"
  }
}
`, seedanceModel))
		var failedID string
		out, err := g.apply(t, w, 1, func(s arkstub.Submission) error {
			failedID = s.TaskID
			return upstream.Fail(s.TaskID, reason)
		})
		if err == nil {
			t.Fatalf("apply of a task that fails succeeded:\n%s", out)
		}
		showError(t, err, out)
		if msg := flat(err.Error() + out); !strings.Contains(msg, reason) || !strings.Contains(msg, failedID) {
			t.Errorf("the error does not give the upstream's reason %q and the task ID %s:\n%v\n%s", reason, failedID, err, out)
		}
		video := resourceValues(t, state(t, w), "videogen_video.failing")
		if video["task_id"] != failedID || video["status"] != "failed" {
			t.Errorf("videogen_video.failing: task_id %v, status %v; want %s kept, failed", video["task_id"], video["status"], failedID)
		}
		g.expectUpstream(t, 3, 3)
	})

	t.Run("unknown task", func(t *testing.T) {
		const unknown = "cgt-20250101000000-00000"
		w := g.workdir(t, g.providerBlock()+fmt.Sprintf(`
data "videogen_video" "missing" {
  task_id = %q
}
`, unknown))
		_, err := w.Plan(t.Context())
		showError(t, err, "")
		if err == nil || !strings.Contains(flat(err.Error()), "does not know this task ID") {
			t.Errorf("plan reading an unknown task: %v; want the provider's task-not-found error", err)
		}
		g.expectUpstream(t, 3, 3)
	})

	t.Run("wrong key", func(t *testing.T) {
		w := g.workdir(t, g.providerBlock(`api_key = "sk-`+strings.Repeat("0", 48)+`"`)+fmt.Sprintf(`
data "videogen_models" "all" {}

resource "videogen_video" "clip" {
  model  = %q
  prompt = "Never submitted"
}
`, seedanceModel))
		_, err := w.Plan(t.Context())
		showError(t, err, "")
		if err == nil || !strings.Contains(flat(err.Error()), "rejected the API key") || !strings.Contains(err.Error(), "api_key") {
			t.Errorf("plan with a wrong key: %v; want the provider's error naming api_key", err)
		}
		g.expectUpstream(t, 3, 3)
	})

	t.Run("unknown model", func(t *testing.T) {
		w := g.workdir(t, g.providerBlock()+`
resource "videogen_video" "clip" {
  model  = "doubao-seedance-9-9-unknown"
  prompt = "Never submitted"
}
`)
		out, err := g.apply(t, w, 0, nil)
		if err == nil {
			t.Fatalf("apply with an unknown model succeeded:\n%s", out)
		}
		showError(t, err, out)
		if !attributeSnippet("model").MatchString(err.Error() + out) {
			t.Errorf("the error does not name the model argument:\n%v\n%s", err, out)
		}
		g.expectUpstream(t, 3, 3)
	})

	t.Run("prompt the upstream refuses", func(t *testing.T) {
		w := g.workdir(t, g.providerBlock()+fmt.Sprintf(`
resource "videogen_video" "refused" {
  model  = %q
  prompt = "A crowd scene %s"
}
`, seedanceModel, arkstub.RejectMarker))
		out, err := g.apply(t, w, 1, func(arkstub.Submission) error { return nil })
		if err == nil {
			t.Fatalf("apply of a refused prompt succeeded:\n%s", out)
		}
		showError(t, err, out)
		if msg := flat(err.Error() + out); !strings.Contains(msg, "sensitive information") {
			t.Errorf("the error does not give the upstream's reason:\n%v\n%s", err, out)
		}
		// A refusal creates no task: nothing billed, nothing to keep.
		g.expectUpstream(t, 4, 3)
	})

	t.Run("no wait, then the file waits", func(t *testing.T) {
		const video = `
resource "videogen_video" "later" {
  model               = "` + seedanceModel + `"
  prompt              = "A lighthouse beam sweeping across a stormy sea"
  wait_for_completion = false
}
`
		w := g.workdir(t, g.providerBlock()+video)
		// The upstream holds the task queued: the apply must not wait for it.
		var id string
		out, err := g.apply(t, w, 1, func(s arkstub.Submission) error { id = s.TaskID; return nil })
		if err != nil {
			t.Fatalf("apply: %v\n%s", err, out)
		}
		g.expectUpstream(t, 5, 4)
		if v := resourceValues(t, state(t, w), "videogen_video.later"); v["task_id"] != id || v["status"] == "succeeded" {
			t.Fatalf("videogen_video.later: task_id %v, status %v; want %s, not finished", v["task_id"], v["status"], id)
		}

		// The file waits until new-api's update loop has seen the clip.
		if err := upstream.Succeed(id); err != nil {
			t.Fatal(err)
		}
		if err := w.Write(g.providerBlock() + video + `
resource "videogen_video_file" "later" {
  task_id = videogen_video.later.task_id
  path    = "${path.module}/out/later.mp4"
  timeouts {
    create = "3m"
  }
}
`); err != nil {
			t.Fatal(err)
		}
		if out, err := g.apply(t, w, 0, nil); err != nil {
			t.Fatalf("apply: %v\n%s", err, out)
		}
		sum := sha256.Sum256(arkstub.Clip(id))
		if file := resourceValues(t, state(t, w), "videogen_video_file.later"); file["sha256"] != hex.EncodeToString(sum[:]) {
			t.Errorf("videogen_video_file.later: sha256 %v, want %x (the upstream's clip of %s)", file["sha256"], sum, id)
		}
		g.expectNothingNew(t, w, 5, 4)
	})
}

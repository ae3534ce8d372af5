package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"
	tfjson "github.com/hashicorp/terraform-json"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
	"github.com/videogen/terraform-provider-videogen/internal/gateway/upstream"
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

// gateway is new-api in front of the stand-ins of its channels' upstreams,
// shared by the scenarios of TestNewAPI.
type gateway struct {
	api *newAPI
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

// channelBlock is providerBlock with the API ch is spoken through.
func (g *gateway) channelBlock(ch *channel) string {
	if ch.api != "" {
		return g.providerBlock("api = " + strconv.Quote(ch.api))
	}
	return g.providerBlock()
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

// apply runs `apply` in w and hands each of the next n submissions ch's
// upstream receives to finish, which ends its task as the scenario needs:
// the test drives every task's lifecycle. It returns the CLI's output and
// error; a run that submits fewer than n fails the test.
func (g *gateway) apply(t *testing.T, w *acctest.Workdir, ch *channel, n int, finish func(upstream.Submission) error) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), runTimeout)
	defer cancel()
	var before int
	if ch != nil {
		before = len(ch.upstream.Submissions())
	}
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
		subs, err := ch.upstream.AwaitSubmissions(awaitCtx, before+i)
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

// expectUpstream checks the counts of ch's upstream: every submission
// new-api forwarded, and the tasks created (each a clip billed).
func expectUpstream(t *testing.T, ch *channel, submissions, tasks int) {
	t.Helper()
	if got, gotTasks := len(ch.upstream.Submissions()), ch.upstream.Tasks(); got != submissions || gotTasks != tasks {
		t.Errorf("%s: the upstream received %d submission(s) and created %d task(s); want %d and %d",
			ch.name, got, gotTasks, submissions, tasks)
	}
}

// expectNothingNew checks that w plans nothing and that the counts of ch's
// upstream are still submissions and tasks: no clip is generated again.
func expectNothingNew(t *testing.T, w *acctest.Workdir, ch *channel, submissions, tasks int) {
	t.Helper()
	changes, err := w.Plan(t.Context())
	if err != nil || changes {
		t.Errorf("plan after apply: changes %v, error %v; want an empty plan", changes, err)
	}
	expectUpstream(t, ch, submissions, tasks)
}

// expectNoUpstream checks that no upstream received anything more than
// before.
func expectNoUpstream(t *testing.T, chans []*channel, before map[string]int) {
	t.Helper()
	for _, ch := range chans {
		if got := len(ch.upstream.Submissions()); got != before[ch.name] {
			t.Errorf("%s: the upstream received %d submission(s), want %d", ch.name, got, before[ch.name])
		}
	}
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

// The prompts of the create and the parameters scenarios.
const (
	clipPrompt  = "A paper boat drifting down a rain-soaked city street at dusk"
	askedPrompt = "A kite over a beach, seen from below"
)

// TestNewAPI applies clips through new-api v0.10.0 with four video
// channels, each in front of a stand-in of its upstream (Doubao, Kling,
// Sora, Veo), on the default API, and through new-api's /v1/videos with
// api = "openai-videos" in front of a second Sora channel; it checks every
// answer a user meets: the model list, a wrong key and an unknown model,
// then on each channel a clip created and waited for, an empty plan after
// it, its file, the parameters the channel drops, import, the data source,
// destroy, a failed task, an unknown task, a prompt the upstream refuses,
// and a clip not waited for whose file waits instead. Each upstream counts its submissions: exactly one per declared
// clip. The channels run in parallel in one new-api, so the test waits for
// new-api's 15-second update rounds once per scenario, not once per
// channel.
func TestNewAPI(t *testing.T) {
	if os.Getenv("VIDEOGEN_GATEWAY_E2E") == "" {
		t.Skip("end-to-end gateway test against new-api: set VIDEOGEN_GATEWAY_E2E=1 (make gateway-e2e does)")
	}
	chans := newChannels(t)
	g := &gateway{api: startNewAPI(t, chans)}
	none := map[string]int{}

	t.Run("models", func(t *testing.T) {
		w := g.workdir(t, g.providerBlock()+`
data "videogen_models" "all" {}

output "model_ids" {
  value = data.videogen_models.all.ids
}
`)
		out, err := g.apply(t, w, nil, 0, nil)
		if err != nil {
			t.Fatalf("apply: %v\n%s", err, out)
		}
		ids, _ := state(t, w).Values.Outputs["model_ids"].Value.([]any)
		var want []any
		for _, ch := range chans {
			want = append(want, ch.model)
		}
		if !sameElements(ids, want) {
			t.Errorf("videogen_models lists %v, want %v: the model of each channel", ids, want)
		}
		expectNoUpstream(t, chans, none)
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
		expectNoUpstream(t, chans, none)
	})

	t.Run("unknown model", func(t *testing.T) {
		w := g.workdir(t, g.providerBlock()+`
resource "videogen_video" "clip" {
  model  = "doubao-seedance-9-9-unknown"
  prompt = "Never submitted"
}
`)
		out, err := g.apply(t, w, nil, 0, nil)
		if err == nil {
			t.Fatalf("apply with an unknown model succeeded:\n%s", out)
		}
		showError(t, err, out)
		if !attributeSnippet("model").MatchString(err.Error() + out) {
			t.Errorf("the error does not name the model argument:\n%v\n%s", err, out)
		}
		expectNoUpstream(t, chans, none)
	})

	t.Run("priced plan and cap", func(t *testing.T) {
		g.pricedPlanAndCap(t, chans)
		expectNoUpstream(t, chans, none)
	})

	t.Run("a repeated Idempotency-Key", func(t *testing.T) {
		g.repeatedIdempotencyKey(t, chans[0])
	})

	for _, ch := range chans {
		t.Run(ch.name, func(t *testing.T) {
			t.Parallel()
			g.channelLifecycle(t, ch)
		})
	}
}

// sameElements reports whether a and b hold the same values in any order.
func sameElements(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	left := slices.Clone(b)
	for _, v := range a {
		i := slices.Index(left, v)
		if i < 0 {
			return false
		}
		left = slices.Delete(left, i, i+1)
	}
	return true
}

// channelLifecycle runs the scenarios of one channel in order; the counts
// of its upstream carry from one to the next.
func (g *gateway) channelLifecycle(t *testing.T, ch *channel) {
	var clip upstream.Submission
	subs, tasks := len(ch.upstream.Submissions()), ch.upstream.Tasks()

	t.Run("create and wait, plan, file", func(t *testing.T) {
		w := g.workdir(t, g.channelBlock(ch)+fmt.Sprintf(`
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
`, ch.model, clipPrompt))
		out, err := g.apply(t, w, ch, 1, func(s upstream.Submission) error { return ch.upstream.Succeed(s.TaskID) })
		subs, tasks = subs+1, tasks+1
		if err != nil {
			t.Fatalf("apply: %v\n%s", err, out)
		}
		expectUpstream(t, ch, subs, tasks)
		clip = ch.upstream.Submissions()[subs-1]
		if ch.upstream.Fetches(clip.TaskID) == 0 {
			t.Errorf("new-api never asked the upstream about %s, yet the provider saw it finish", clip.TaskID)
		}
		ch.forwarded(t, clip)
		// The provider sent its Idempotency-Key (see repeatedIdempotencyKey
		// for what new-api makes of it); new-api builds the upstream's
		// request afresh and forwards none of the client's headers.
		if clip.IdempotencyKey != "" {
			t.Errorf("the upstream received the Idempotency-Key %q: new-api v0.10.0 forwards none", clip.IdempotencyKey)
		}
		if clip.Model != ch.model || clip.Prompt != clipPrompt {
			t.Errorf("the upstream got model %q, prompt %q", clip.Model, clip.Prompt)
		}

		st := state(t, w)
		video := resourceValues(t, st, "videogen_video.clip")
		if video["task_id"] != clip.GatewayID || video["status"] != "succeeded" || video["url"] != ch.clipURL(g.api, clip) {
			t.Errorf("videogen_video.clip: task_id %v, status %v, url %v; want %s, succeeded, %s",
				video["task_id"], video["status"], video["url"], clip.GatewayID, ch.clipURL(g.api, clip))
		}
		sum := sha256.Sum256(upstream.Clip(clip.TaskID))
		file := resourceValues(t, st, "videogen_video_file.clip")
		if file["sha256"] != hex.EncodeToString(sum[:]) {
			t.Errorf("videogen_video_file.clip: sha256 %v, want %x (the upstream's clip of %s)", file["sha256"], sum, clip.TaskID)
		}
		onDisk, err := os.ReadFile(filepath.Join(w.Dir, "out", "clip.mp4"))
		if err != nil || sha256.Sum256(onDisk) != sum {
			t.Errorf("out/clip.mp4 (%d bytes, %v) is not the upstream's clip", len(onDisk), err)
		}
		expectNothingNew(t, w, ch, subs, tasks)
	})

	for _, a := range ch.asked {
		t.Run("parameters "+a.name, func(t *testing.T) {
			w := g.workdir(t, g.channelBlock(ch)+fmt.Sprintf(`
resource "videogen_video" "asked" {
  model  = %q
  prompt = %q
  %s
  timeouts {
    create = "3m"
  }
}
`, ch.model, askedPrompt, a.args))
			out, err := g.apply(t, w, ch, 1, func(s upstream.Submission) error { return ch.upstream.Succeed(s.TaskID) })
			subs, tasks = subs+1, tasks+1
			if err != nil {
				t.Fatalf("apply: %v\n%s", err, out)
			}
			expectUpstream(t, ch, subs, tasks)
			a.received(t, ch.upstream.Submissions()[subs-1])
			show(t, "Warning:", out)
			_, warning, warned := strings.Cut(flat(out), "Warning: Clip Parameters Not Confirmed")
			if len(a.said) == 0 && warned {
				t.Errorf("the apply warns although the upstream's record confirms every argument:\n%s", out)
			}
			for arg, made := range a.said {
				if !strings.Contains(warning, "- "+arg+":") || !strings.Contains(warning, made) {
					t.Errorf("the apply does not say that %s was not confirmed (the upstream reports %q):\n%s", arg, made, out)
				}
			}
			// Saying so must not turn into a new clip at every apply.
			expectNothingNew(t, w, ch, subs, tasks)
		})
	}

	t.Run("import and data source", func(t *testing.T) {
		if clip.TaskID == "" {
			t.Skip("no clip to read: the create scenario failed")
		}
		w := g.workdir(t, g.channelBlock(ch)+fmt.Sprintf(`
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
`, ch.model, clipPrompt, clip.GatewayID))
		if err := w.TF.Import(t.Context(), "videogen_video.imported", clip.GatewayID); err != nil {
			t.Fatalf("import: %v", err)
		}
		out, err := g.apply(t, w, ch, 0, nil)
		if err != nil {
			t.Fatalf("apply: %v\n%s", err, out)
		}
		st := state(t, w)
		video := resourceValues(t, st, "videogen_video.imported")
		if video["task_id"] != clip.GatewayID || video["status"] != "succeeded" || video["url"] != ch.clipURL(g.api, clip) {
			t.Errorf("imported: task_id %v, status %v, url %v", video["task_id"], video["status"], video["url"])
		}
		if got := st.Values.Outputs["status"].Value; got != "succeeded" {
			t.Errorf("data source status %v, want succeeded", got)
		}
		if got := st.Values.Outputs["url"].Value; got != ch.clipURL(g.api, clip) {
			t.Errorf("data source url %v, want %s", got, ch.clipURL(g.api, clip))
		}
		expectUpstream(t, ch, subs, tasks)

		// Destroying forgets the clip, says so, and never fails: neither API
		// has a delete through new-api.
		ctx, cancel := context.WithTimeout(t.Context(), runTimeout)
		defer cancel()
		out, err = w.Start(ctx, "destroy", "-auto-approve", "-input=false", "-no-color").Wait()
		if err != nil || !strings.Contains(flat(out), "Warning: "+ch.destroyed) {
			t.Errorf("destroy: %v; want it to warn %q:\n%s", err, ch.destroyed, out)
		}
		show(t, "Warning:", out)
		expectUpstream(t, ch, subs, tasks)
	})

	t.Run("failed task", func(t *testing.T) {
		w := g.workdir(t, g.channelBlock(ch)+fmt.Sprintf(`
resource "videogen_video" "failing" {
  model  = %q
  prompt = "A storm over a harbour, seen from a lighthouse"
  timeouts {
    create = "3m"
  }
}
`, ch.model))
		var failed upstream.Submission
		out, err := g.apply(t, w, ch, 1, func(s upstream.Submission) error {
			failed = s
			return ch.upstream.Fail(s.TaskID, ch.reason)
		})
		subs, tasks = subs+1, tasks+1
		if err == nil {
			t.Fatalf("apply of a task that fails succeeded:\n%s", out)
		}
		showError(t, err, out)
		msg := flat(err.Error() + out)
		if !strings.Contains(msg, failed.GatewayID) {
			t.Errorf("the error does not name the task %s:\n%v\n%s", failed.GatewayID, err, out)
		}
		switch {
		case strings.Contains(msg, "SUCCEED") || strings.Contains(msg, "task failed"):
			t.Errorf("the error gives a status word as the reason:\n%v\n%s", err, out)
		case ch.reasonShown && !strings.Contains(msg, ch.reason):
			t.Errorf("the error does not give the upstream's reason %q:\n%v\n%s", ch.reason, err, out)
		case !ch.reasonShown && !strings.Contains(msg, "gave no reason") && !strings.Contains(msg, ch.reason):
			// new-api's answer carries the reason only when its update
			// round saw the failure before the provider's read did.
			t.Errorf("the error neither says that no reason was given nor gives the upstream's:\n%v\n%s", err, out)
		}
		video := resourceValues(t, state(t, w), "videogen_video.failing")
		if video["task_id"] != failed.GatewayID || video["status"] != "failed" || (video["url"] != nil && video["url"] != "") {
			t.Errorf("videogen_video.failing: task_id %v, status %v, url %v; want %s kept, failed, no url",
				video["task_id"], video["status"], video["url"], failed.GatewayID)
		}
		expectUpstream(t, ch, subs, tasks)
	})

	t.Run("unknown task", func(t *testing.T) {
		unknown := "cgt-20250101000000-00000"
		if ch.keyedClips {
			unknown = "video_" + strings.Repeat("0", 32)
		}
		w := g.workdir(t, g.channelBlock(ch)+fmt.Sprintf(`
data "videogen_video" "missing" {
  task_id = %q
}
`, unknown))
		_, err := w.Plan(t.Context())
		showError(t, err, "")
		if err == nil || !strings.Contains(flat(err.Error()), "does not know this task ID") {
			t.Errorf("plan reading an unknown task: %v; want the provider's task-not-found error", err)
		}
		expectUpstream(t, ch, subs, tasks)
	})

	for _, r := range ch.refused {
		t.Run(r.name, func(t *testing.T) {
			w := g.workdir(t, g.channelBlock(ch)+fmt.Sprintf(`
resource "videogen_video" "refused" {
  model  = %q
  %s
}
`, ch.model, r.args))
			n := 1
			if r.atPlan {
				n = 0
			}
			out, err := g.apply(t, w, ch, n, func(upstream.Submission) error { return nil })
			subs += n
			if err == nil {
				t.Fatalf("apply of a refused clip succeeded:\n%s", out)
			}
			showError(t, err, out)
			if msg := flat(err.Error() + out); !strings.Contains(msg, r.message) {
				t.Errorf("the error does not give the reason %q:\n%v\n%s", r.message, err, out)
			}
			// A refusal creates no task: nothing billed, nothing to keep.
			expectUpstream(t, ch, subs, tasks)
		})
	}

	t.Run("no wait, then the file waits", func(t *testing.T) {
		video := fmt.Sprintf(`
resource "videogen_video" "later" {
  model               = %q
  prompt              = "A lighthouse beam sweeping across a stormy sea"
  wait_for_completion = false
}
`, ch.model)
		w := g.workdir(t, g.channelBlock(ch)+video)
		// The upstream holds the task queued: the apply must not wait for it.
		var later upstream.Submission
		out, err := g.apply(t, w, ch, 1, func(s upstream.Submission) error { later = s; return nil })
		subs, tasks = subs+1, tasks+1
		if err != nil {
			t.Fatalf("apply: %v\n%s", err, out)
		}
		expectUpstream(t, ch, subs, tasks)
		if v := resourceValues(t, state(t, w), "videogen_video.later"); v["task_id"] != later.GatewayID || v["status"] == "succeeded" {
			t.Fatalf("videogen_video.later: task_id %v, status %v; want %s, not finished", v["task_id"], v["status"], later.GatewayID)
		}

		// The file waits until new-api has seen the clip.
		if err := ch.upstream.Succeed(later.TaskID); err != nil {
			t.Fatal(err)
		}
		if err := w.Write(g.channelBlock(ch) + video + `
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
		if out, err := g.apply(t, w, ch, 0, nil); err != nil {
			t.Fatalf("apply: %v\n%s", err, out)
		}
		sum := sha256.Sum256(upstream.Clip(later.TaskID))
		if file := resourceValues(t, state(t, w), "videogen_video_file.later"); file["sha256"] != hex.EncodeToString(sum[:]) {
			t.Errorf("videogen_video_file.later: sha256 %v, want %x (the upstream's clip of %s)", file["sha256"], sum, later.TaskID)
		}
		expectNothingNew(t, w, ch, subs, tasks)
	})
}

// pricedPlanAndCap plans new clips of the channels' models, which new-api
// prices per request (modelPrice): the plan's billing says what each costs
// where new-api bills that price as it is, and max_cost below the plan's
// total fails the plan. A Sora model, which new-api bills by the clip's
// seconds and size as well, has no cost, and max_cost then fails the plan
// too. Nothing is submitted.
func (g *gateway) pricedPlanAndCap(t *testing.T, chans []*channel) {
	perClip := strconv.FormatFloat(modelPrice, 'f', -1, 64) + " USD"
	clips := func(maxCost string, models ...string) string {
		var extra []string
		if maxCost != "" {
			extra = append(extra, "max_cost = "+strconv.Quote(maxCost))
		}
		config := g.providerBlock(extra...)
		for i, model := range models {
			config += fmt.Sprintf(`
resource "videogen_video" "priced_%d" {
  model  = %q
  prompt = "A priced clip, never submitted"
}
`, i, model)
		}
		return config
	}
	perRequest := []string{veoModel, klingModel, seedanceModel}

	w := g.workdir(t, clips("", append(perRequest, soraModel)...))
	if _, err := w.Plan(t.Context(), tfexec.Out("priced.tfplan")); err != nil {
		t.Fatalf("plan: %v", err)
	}
	plan, err := w.TF.ShowPlanFile(t.Context(), "priced.tfplan")
	if err != nil {
		t.Fatal(err)
	}
	billing := map[string]any{}
	for _, rc := range plan.ResourceChanges {
		if after, ok := rc.Change.After.(map[string]any); ok {
			billing[rc.Address] = after["billing"]
		}
	}
	for i, model := range append(perRequest, soraModel) {
		want := "new clip (" + perClip + ")"
		if model == soraModel {
			want = "new clip"
		}
		if got := billing[fmt.Sprintf("videogen_video.priced_%d", i)]; got != want {
			t.Errorf("%s: plan billing %v; want %q", model, got, want)
		}
	}

	amount := func(r *big.Rat, unit string) string {
		return strings.TrimSpace(strings.TrimRight(strings.TrimRight(r.FloatString(6), "0"), ".") + " " + unit)
	}
	price, _ := new(big.Rat).SetString(strconv.FormatFloat(modelPrice, 'f', -1, 64))
	total := new(big.Rat).Mul(price, big.NewRat(int64(len(perRequest)), 1))
	below := new(big.Rat).Sub(total, big.NewRat(1, 100))
	for _, tc := range []struct {
		name, maxCost string
		models        []string
		fails         []string
	}{
		{"cap below the total", amount(below, ""), perRequest, []string{"Error: Plan Costs More Than max_cost",
			"This plan's new clips cost at least " + amount(total, "USD"),
			"max_cost allows " + amount(below, "USD"), "Nothing has been submitted"}},
		{"cap at the total", amount(total, ""), perRequest, nil},
		{"cap and a clip new-api bills by its seconds", "100", []string{veoModel, soraModel}, []string{"Error: Clip Cost Unknown",
			"bills model \"" + soraModel + "\" its price per request times the clip's seconds and a factor of its size",
			"Nothing has been submitted"}},
	} {
		if err := w.Write(clips(tc.maxCost, tc.models...)); err != nil {
			t.Fatal(err)
		}
		_, err := w.Plan(t.Context())
		if len(tc.fails) == 0 {
			if err != nil {
				t.Errorf("%s: plan: %v", tc.name, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: the plan succeeded; want it to fail with %q", tc.name, tc.fails)
			continue
		}
		showError(t, err, "")
		for _, phrase := range tc.fails {
			if !strings.Contains(flat(err.Error()), phrase) {
				t.Errorf("%s: plan: %v; want it to say %q", tc.name, err, phrase)
			}
		}
	}
	expectNoUpstream(t, chans, map[string]int{})
}

// repeatedIdempotencyKey sends one submission twice under one
// Idempotency-Key, as the provider does when it sends again a request whose
// answer was lost, straight to new-api on ch (a channel of the default API),
// without the CLI: new-api accepts the header and each submission creates,
// and bills, one upstream task, the repeated one a second. new-api does not
// deduplicate by the key, and says nothing of it in its answer, so the
// provider never takes it for a server that does (and its plan says a
// doubt costs a second clip there).
func (g *gateway) repeatedIdempotencyKey(t *testing.T, ch *channel) {
	const key = "videogen-gateway-e2e-repeated"
	body := fmt.Sprintf(`{"model":%q,"prompt":"A lighthouse beam sweeping fog, sent twice"}`, ch.model)
	before, beforeTasks := len(ch.upstream.Submissions()), ch.upstream.Tasks()
	var ids []string
	for i := 1; i <= 2; i++ {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, g.api.URL+"/v1/video/generations", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+g.api.Key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
		_ = res.Body.Close()
		var out struct {
			TaskID string `json:"task_id"`
		}
		if err != nil || res.StatusCode != http.StatusOK || json.Unmarshal(raw, &out) != nil || out.TaskID == "" {
			t.Fatalf("submission %d under the key: %d %s (%v); want new-api to accept it with a task", i, res.StatusCode, raw, err)
		}
		if echoed := res.Header.Get("Idempotency-Key"); echoed != "" {
			t.Errorf("new-api's answer %d echoes the Idempotency-Key %q, the sign of a server that deduplicates", i, echoed)
		}
		ids = append(ids, out.TaskID)
		expectUpstream(t, ch, before+i, beforeTasks+i)
	}
	if ids[0] == ids[1] {
		t.Errorf("new-api answered the repeated key with the first task %s; want a second (it does not deduplicate)", ids[0])
	}
	for _, sub := range ch.upstream.Submissions()[before:] {
		if sub.IdempotencyKey != "" {
			t.Errorf("the upstream received the Idempotency-Key %q: new-api v0.10.0 forwards none", sub.IdempotencyKey)
		}
	}
}

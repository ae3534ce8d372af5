package e2e

import (
	"context"
	"fmt"
	"os"
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

// flat joins the lines Terraform wraps a diagnostic into, so that a phrase
// matches wherever the CLI broke it.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestNewAPI runs the provider against new-api v0.10.0 in front of the
// stand-in upstream and checks the answers a user meets: the model list, a
// wrong key and an unknown model. The upstream counts each submission: none
// for a configuration that cannot succeed.
func TestNewAPI(t *testing.T) {
	if os.Getenv("VIDEOGEN_GATEWAY_E2E") == "" {
		t.Skip("end-to-end gateway test against new-api: set VIDEOGEN_GATEWAY_E2E=1 (make gateway-e2e does)")
	}
	upstream := arkstub.New()
	t.Cleanup(upstream.Close)
	g := &gateway{upstream: upstream, api: startNewAPI(t, upstream)}

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

	t.Run("wrong key", func(t *testing.T) {
		w := g.workdir(t, g.providerBlock(`api_key = "sk-`+strings.Repeat("0", 48)+`"`)+fmt.Sprintf(`
data "videogen_models" "all" {}

resource "videogen_video" "clip" {
  model  = %q
  prompt = "Never submitted"
}
`, seedanceModel))
		_, err := w.Plan(t.Context())
		if err == nil || !strings.Contains(flat(err.Error()), "rejected the API key") || !strings.Contains(err.Error(), "api_key") {
			t.Errorf("plan with a wrong key: %v; want the provider's error naming api_key", err)
		}
		g.expectUpstream(t, 0, 0)
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
		if !attributeSnippet("model").MatchString(err.Error() + out) {
			t.Errorf("the error does not name the model argument:\n%v\n%s", err, out)
		}
		g.expectUpstream(t, 0, 0)
	})

}

package provider

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/go-version"
	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
)

// TestAccAPIKeyNeverLeaks runs the real provider binary under Terraform with
// TF_LOG=TRACE and a distinctive key, through a successful apply, a download and
// a destroy, and through failures, and searches everything Terraform wrote for the
// key, raw or encoded, on every dialect: on OpenAI's video API the key also goes
// with the clip's download and with the destroy's DELETE, on the Gemini API with
// the clip's download. Vertex AI takes no key: there the secrets are the access
// token and the Application Default Credentials file's private key, and the
// failure is the token revoked.
func TestAccAPIKeyNeverLeaks(t *testing.T) {
	t.Parallel()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1 (make test does)")
	}
	for _, dialect := range everyDialect {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			apiKeyNeverLeaks(t, dialect)
		})
	}
}

func apiKeyNeverLeaks(t *testing.T, dialect string) {
	const key = "vgk-TRACE-canary-5d8e1f0a7b"
	mock := acctest.NewMock(t, mockapi.WithDialect(dialect), func(cfg *mockapi.Config) { cfg.Keys = []mockapi.Key{{Key: key}} })
	wd := acctest.NewWorkdir(t)
	ctx := t.Context()
	// terraform-exec sends logs only to a file, never into the command's stderr.
	logPath := filepath.Join(t.TempDir(), "terraform.log")
	if err := wd.TF.SetLog("TRACE"); err != nil {
		t.Fatal(err)
	}
	if err := wd.TF.SetLogPath(logPath); err != nil {
		t.Fatal(err)
	}
	var transcript bytes.Buffer
	wd.TF.SetStdout(&transcript)
	wd.TF.SetStderr(&transcript)
	setenv := func(k, v string) {
		t.Helper()
		if err := wd.Setenv(k, v); err != nil {
			t.Fatal(err)
		}
	}
	write := func(name, content string) {
		t.Helper()
		if err := wd.WriteFile(name, content); err != nil {
			t.Fatal(err)
		}
	}
	// run records each command in the transcript and checks its outcome.
	run := func(wantOK bool, name string, cmd func() error) {
		t.Helper()
		fmt.Fprintf(&transcript, "\n$ terraform %s\n", name)
		if err := cmd(); (err == nil) != wantOK {
			t.Fatalf("terraform %s: error %v, want success %v\n%s", name, err, wantOK, transcript.String())
		}
	}
	setenv("VIDEOGEN_BASE_URL", mock.URL)
	if dialect == mockapi.DialectOpenAIVideos || slices.Contains(mockapi.GoogleDialects, dialect) {
		setenv("VIDEOGEN_API", dialect)
	}
	secrets := map[string]string{"the API key": key}
	vertex := dialect == mockapi.DialectVertex
	if vertex {
		secrets = vertexCredentials(t)
		setenv("GOOGLE_CLOUD_PROJECT", acctest.VertexProject)
		setenv("GOOGLE_CLOUD_LOCATION", acctest.VertexLocation)
	}

	// The recommended set-up: the key only in the environment (Vertex AI's
	// credentials are only ever there).
	if !vertex {
		setenv("VIDEOGEN_API_KEY", key)
	}
	main := `
terraform {
  required_providers {
    videogen = { source = "videogen/videogen" }
  }
}
provider "videogen" {}
data "videogen_models" "all" {}
resource "videogen_video" "clip" {
  model  = data.videogen_models.all.ids[0]
  prompt = "a canary in a coal mine"
}
resource "videogen_video_file" "clip" {
  task_id = videogen_video.clip.task_id
  path    = "${path.module}/clip.mp4"
}
output "url" { value = videogen_video.clip.url }
`
	write("main.tf", main)
	run(true, "init", func() error { return wd.Init(ctx) })
	run(true, "plan -out=tfplan", func() error { _, err := wd.TF.Plan(ctx, tfexec.Out("tfplan")); return err })
	run(true, "show -json tfplan", func() error { _, err := wd.TF.ShowPlanFile(ctx, "tfplan"); return err })
	run(true, "apply tfplan", func() error { return wd.TF.Apply(ctx, tfexec.DirOrPlan("tfplan")) })
	run(true, "show -json", func() error { _, err := wd.State(ctx); return err })
	run(true, "output -json", func() error { _, err := wd.TF.Output(ctx); return err })

	// Failures render diagnostics: an unknown model at plan time, and a revoked key.
	write("bad.tf", `
resource "videogen_video" "bad" {
  model  = "no-such-model"
  prompt = "fails"
}
`)
	run(false, "plan (unknown model)", func() error { _, err := wd.Plan(ctx); return err })
	write("bad.tf", "")
	if vertex {
		mock.SetKeyRevoked(acctest.VertexAccessToken, true)
		run(false, "plan (revoked token)", func() error { _, err := wd.Plan(ctx); return err })
		mock.SetKeyRevoked(acctest.VertexAccessToken, false)
	} else {
		setenv("VIDEOGEN_API_KEY", key+"-revoked")
		run(false, "plan (revoked key)", func() error { _, err := wd.Plan(ctx); return err })

		// The key written in the provider block itself must not leak from there either.
		setenv("VIDEOGEN_API_KEY", "")
		write("main.tf", strings.Replace(main, `provider "videogen" {}`, fmt.Sprintf(`provider "videogen" {
  api_key = %q
}`, key), 1))
		run(true, "plan -out=tfplan2", func() error { _, err := wd.TF.Plan(ctx, tfexec.Out("tfplan2")); return err })
		// Terraform core renders a plan's configuration snapshot, literals included, in
		// `show -json`; a key written into the .tf file is visible there by Terraform's
		// design, as it is in the file itself. That is why the docs say to use the
		// environment variable. Allow it there and nowhere else. Shown before the
		// apply: Terraform 1.0 refuses to show a plan whose state has changed since.
		var planJSON bytes.Buffer
		wd.TF.SetStdout(&planJSON)
		run(true, "show -json tfplan2 (stdout checked separately)", func() error {
			_, err := wd.TF.ShowPlanFile(ctx, "tfplan2")
			return err
		})
		wd.TF.SetStdout(&transcript)
		run(true, "apply", func() error { return wd.Apply(ctx) })
		if rest := onlyInProviderConfig(t, planJSON.String()); strings.Contains(rest, key) {
			t.Errorf("the API key appears in the JSON plan outside configuration.provider_config")
		}
	}

	// One clip: the second apply changed only where the key is written.
	if err := mock.ExpectSubmissions(1)(nil); err != nil {
		t.Error(err)
	}

	state, err := os.ReadFile(filepath.Join(wd.Dir, "terraform.tfstate"))
	if err != nil || !bytes.Contains(state, []byte("videogen_video")) {
		t.Fatalf("no state was written (%v); the test would prove nothing", err)
	}
	run(true, "destroy", func() error { return wd.TF.Destroy(ctx) })
	if task := mock.Ledger().Tasks[0]; task.Deleted != (dialect == mockapi.DialectOpenAIVideos) {
		t.Errorf("the destroy deleted the clip: %v, want it only on OpenAI's video API", task.Deleted)
	}

	logs, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	transcript.WriteString("\n--- TF_LOG=TRACE log of every command ---\n")
	transcript.Write(logs)
	if !strings.Contains(transcript.String(), "videogen API request") {
		t.Fatal("the TRACE transcript has no provider request logs; the test would prove nothing")
	}
	for name, form := range encodings(secrets) {
		if i := strings.Index(transcript.String(), form); i >= 0 {
			t.Errorf("%s appears in Terraform's output or logs, e.g. ...%s...", name,
				transcript.String()[max(0, i-200):min(transcript.Len(), i+100)])
		}
		for _, f := range []string{"terraform.tfstate", "terraform.tfstate.backup", "tfplan", "tfplan2"} {
			if data, err := os.ReadFile(filepath.Join(wd.Dir, f)); err == nil && bytes.Contains(data, []byte(form)) {
				t.Errorf("%s appears in %s", name, f)
			}
		}
	}
	if t.Failed() {
		t.Logf("transcript written to %s", dumpTranscript(transcript.String()))
	}
}

// vertexCredentials are the secrets of the tests' Application Default
// Credentials: the access token its token server hands out, and a stretch of
// the credentials file's private key.
func vertexCredentials(t *testing.T) map[string]string {
	t.Helper()
	var adc struct {
		PrivateKey string `json:"private_key"`
	}
	data, err := os.ReadFile(os.Getenv("GOOGLE_APPLICATION_CREDENTIALS")) //nolint:gosec // G703: the tests' own credentials file
	if err != nil || json.Unmarshal(data, &adc) != nil || len(adc.PrivateKey) < 200 {
		t.Fatalf("reading the tests' credentials file: %v", err)
	}
	return map[string]string{"the access token": acctest.VertexAccessToken, "the credentials file's private key": adc.PrivateKey[100:160]}
}

// encodings are the named secrets as a leak might spell them: raw, base64
// (standard and URL-safe) and hex, each named for a failure message that does
// not repeat it.
func encodings(secrets map[string]string) map[string]string {
	forms := map[string]string{}
	for name, s := range secrets {
		forms[name] = s
		forms[name+" in base64"] = base64.StdEncoding.EncodeToString([]byte(s))
		forms[name+" in base64url"] = base64.RawURLEncoding.EncodeToString([]byte(s))
		forms[name+" in hex"] = hex.EncodeToString([]byte(s))
	}
	return forms
}

// onlyInProviderConfig removes the provider block's configuration expressions from a
// JSON plan and returns the rest.
func onlyInProviderConfig(t *testing.T, planJSON string) string {
	t.Helper()
	var plan map[string]any
	if err := json.Unmarshal([]byte(planJSON), &plan); err != nil {
		t.Fatalf("decoding the JSON plan: %v", err)
	}
	if configuration, ok := plan["configuration"].(map[string]any); ok {
		delete(configuration, "provider_config")
	}
	rest, _ := json.Marshal(plan)
	return string(rest)
}

// dumpTranscript writes the transcript of a failed run where it outlives the
// test (unlike t.TempDir), so that it can be read afterwards.
func dumpTranscript(s string) string {
	f, err := os.CreateTemp("", "videogen-secrets-transcript-*.log")
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	_, _ = f.WriteString(s)
	return f.Name()
}

// TestAccSignedReferenceURLsNeverStored passes a presigned reference URL, a bearer
// credential while it lives, the recommended way: an ephemeral variable into
// write-only reference media, and a new signature on the next run plans nothing.
// Then the clip is adopted by the other doors: terraform import and an import block
// in other working directories, and the videogen_video data source; last, a clip
// fails because the service cannot fetch the reference, quoting it. No state, state
// backup, plan, plan file, terminal output or TF_LOG=TRACE log may hold the
// signature or the URL's security token, raw, base64 or hex, nor the signed URL in
// any of those forms (an import may record the object's address without them).
func TestAccSignedReferenceURLsNeverStored(t *testing.T) {
	t.Parallel()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1 (make test does)")
	}
	const (
		host   = "canary-bucket.s3.eu-west-1.amazonaws.com"
		secret = "SIGcanary0c7e5a91"
		token  = "TOKcanary4be2d08f"
	)
	signed := func(sig string) string {
		return "https://" + host + "/refs/mug.png?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDEXAMPLE%2F20260101" +
			"%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Date=20260101T000000Z&X-Amz-Expires=900&X-Amz-Security-Token=" + token +
			"&X-Amz-SignedHeaders=host&X-Amz-Signature=" + sig
	}
	mock := acctest.NewMock(t)
	ctx := t.Context()
	// Each working directory gets the reference from terraform.tfvars (Terraform logs
	// its command line) and writes a TRACE log and a transcript.
	var transcript bytes.Buffer
	var logPaths []string
	workdir := func(config string) *acctest.Workdir {
		t.Helper()
		wd := acctest.NewWorkdir(t)
		if v, _, err := wd.TF.Version(ctx, true); err != nil || v.LessThan(version.Must(version.NewVersion("1.11.0"))) {
			t.Skipf("write-only arguments need Terraform or OpenTofu 1.11 or later (CLI %v, %v)", v, err)
		}
		for k, v := range map[string]string{
			"VIDEOGEN_BASE_URL": mock.URL, "VIDEOGEN_API_KEY": mockapi.DefaultAPIKey,
		} {
			if err := wd.Setenv(k, v); err != nil {
				t.Fatal(err)
			}
		}
		logPath := filepath.Join(t.TempDir(), "terraform.log")
		logPaths = append(logPaths, logPath)
		if err := wd.TF.SetLog("TRACE"); err != nil {
			t.Fatal(err)
		}
		if err := wd.TF.SetLogPath(logPath); err != nil {
			t.Fatal(err)
		}
		wd.TF.SetStdout(&transcript)
		wd.TF.SetStderr(&transcript)
		if err := wd.WriteFile("terraform.tfvars", fmt.Sprintf("reference = %q\n", signed(secret))); err != nil {
			t.Fatal(err)
		}
		if err := wd.WriteFile("main.tf", `
terraform {
  required_providers {
    videogen = { source = "videogen/videogen" }
  }
}
provider "videogen" {}
variable "reference" {
  type      = string
  ephemeral = true
}
resource "videogen_video" "clip" {
  model                      = "videogen-1"
  prompt                     = "@image1 on a windowsill"
  reference_images_wo        = [var.reference]
  reference_media_wo_version = 1
}
`+config); err != nil {
			t.Fatal(err)
		}
		if err := wd.Init(ctx); err != nil {
			t.Fatal(err)
		}
		return wd
	}
	check := func(step string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v\n%s", step, err, transcript.String())
		}
	}
	seen := map[string]string{} // where -> what it holds

	wd := workdir("")
	check("plan -out", func() error { _, err := wd.TF.Plan(ctx, tfexec.Out("tfplan")); return err }())
	planJSON, err := wd.TF.ShowPlanFileRaw(ctx, "tfplan")
	check("show -json tfplan", err)
	seen["show -json tfplan"] = planJSON
	// An ephemeral variable is given again to apply a saved plan: here by terraform.tfvars.
	check("apply tfplan", wd.TF.Apply(ctx, tfexec.DirOrPlan("tfplan")))
	if err := mock.ExpectSubmissions(1)(nil); err != nil {
		t.Fatal(err)
	}
	if sent, err := submittedMedia(mock, 0); err != nil || len(sent) != 1 || sent[0] != signed(secret) {
		t.Fatalf("the service received %q (%v), want the signed URL", sent, err)
	}
	// The next run brings a new signature: nothing to do.
	check("rotate", wd.WriteFile("terraform.tfvars", fmt.Sprintf("reference = %q\n", signed("SIGrotated"))))
	if changes, err := wd.Plan(ctx); err != nil || changes {
		t.Fatalf("a new signature planned changes (%v, %v); want none", changes, err)
	}
	st, err := wd.State(ctx)
	check("show -json", err)
	stateJSON, _ := json.Marshal(st)
	seen["show -json (state)"] = string(stateJSON)
	taskID, _ := st.Values.RootModule.Resources[0].AttributeValues["task_id"].(string)
	if taskID == "" {
		t.Fatalf("no task_id in state: %s", stateJSON)
	}
	read := fmt.Sprintf(`
data "videogen_video" "read" {
  task_id = %q
}
output "echoed" { value = data.videogen_video.read.reference_images }
`, taskID)

	// terraform import, then the apply that takes the clip over; the data source reads it.
	imported := workdir(read)
	check("import", imported.TF.Import(ctx, "videogen_video.clip", taskID))
	check("plan after import", func() error { _, err := imported.Plan(ctx); return err }())
	check("apply after import", imported.Apply(ctx))
	importedState, err := imported.State(ctx)
	check("show -json after import", err)
	importedJSON, _ := json.Marshal(importedState)
	seen["show -json after import"] = string(importedJSON)
	if !strings.Contains(string(importedJSON), "https://"+host+"/refs/mug.png") {
		t.Errorf("the data source does not record the echoed object's address: %s", importedJSON)
	}

	// An import block, planned into a plan file first.
	block := workdir(fmt.Sprintf(`
import {
  to = videogen_video.clip
  id = %q
}
`, taskID))
	check("plan -out (import block)", func() error { _, err := block.TF.Plan(ctx, tfexec.Out("tfplan")); return err }())
	blockPlan, err := block.TF.ShowPlanFileRaw(ctx, "tfplan")
	check("show -json tfplan (import block)", err)
	seen["show -json tfplan (import block)"] = blockPlan
	check("apply tfplan (import block)", block.TF.Apply(ctx, tfexec.DirOrPlan("tfplan")))

	// Nothing was generated again by any door.
	if err := mock.ExpectSubmissions(1)(nil); err != nil {
		t.Error(err)
	}

	// A service that cannot fetch the reference quotes it in the task's failure:
	// the error shows the URL's address, not its signature.
	refused := workdir("")
	mainTF, err := os.ReadFile(filepath.Join(refused.Dir, "main.tf"))
	check("reading main.tf", err)
	check("holding the refused clip", refused.WriteFile("main.tf",
		strings.Replace(string(mainTF), `"@image1 on a windowsill"`, `"[mock:hold] @image1 on a windowsill"`, 1)))
	failed := make(chan error, 1)
	go func() {
		if err := mock.AwaitTasks(ctx, 2); err != nil {
			failed <- err
			return
		}
		if id := mock.Ledger().Tasks[1].TaskID; !mock.FailTask(id, "cannot fetch "+signed(secret)+": 403 Forbidden") {
			failed <- fmt.Errorf("task %s was not pending when the test failed it", id)
			return
		}
		failed <- nil
	}()
	before := transcript.Len()
	if err := refused.Apply(ctx); err == nil {
		t.Fatal("the apply of a clip whose task failed succeeded")
	}
	if err := <-failed; err != nil {
		t.Fatal(err)
	}
	if refusal := transcript.String()[before:]; !strings.Contains(refusal, host+"/refs/mug.png?") {
		t.Errorf("the failed apply does not quote the reference's address:\n%s", refusal)
	}
	if err := mock.ExpectSubmissions(2)(nil); err != nil {
		t.Error(err)
	}
	for name, w := range map[string]*acctest.Workdir{"": wd, "import/": imported, "import block/": block, "refused/": refused} {
		for _, f := range []string{"terraform.tfstate", "terraform.tfstate.backup", "tfplan"} {
			if data, err := os.ReadFile(filepath.Join(w.Dir, f)); err == nil {
				seen[name+f] = string(data)
			}
		}
	}
	if !strings.Contains(seen["terraform.tfstate"], "videogen_video") || !strings.Contains(seen["import/terraform.tfstate"], "videogen_video") {
		t.Fatal("no state was written; the test would prove nothing")
	}
	var logs strings.Builder
	for _, p := range logPaths {
		data, err := os.ReadFile(p)
		check("reading a log", err)
		logs.Write(data)
	}
	if !strings.Contains(logs.String(), "videogen API request") || !strings.Contains(logs.String(), "metadata") {
		t.Fatal("the TRACE logs have no provider request logs; the test would prove nothing")
	}
	seen["TF_LOG=TRACE logs"] = logs.String()
	seen["terminal output"] = transcript.String()

	forms := encodings(map[string]string{"signature": secret, "security token": token, "signed URL": signed(secret)})
	// The clip's own directory records nothing of the URL at all.
	for _, where := range []string{"terraform.tfstate", "show -json (state)", "show -json tfplan", "tfplan"} {
		if strings.Contains(seen[where], host) {
			t.Errorf("%s holds the reference URL's bucket host", where)
		}
	}
	for where, data := range seen {
		for form, s := range forms {
			if strings.Contains(data, s) || strings.Contains(strings.ToLower(data), strings.ToLower(url.QueryEscape(s))) {
				t.Errorf("%s holds the reference URL's %s", where, form)
			}
		}
	}
	if t.Failed() {
		t.Logf("transcript and logs written to %s", dumpTranscript(transcript.String()+"\n--- logs ---\n"+logs.String()))
	}
}

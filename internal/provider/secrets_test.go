package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
)

// TestAccAPIKeyNeverLeaks runs the real provider binary under Terraform with
// TF_LOG=TRACE and a distinctive key, through a successful apply and through
// failures, and searches everything Terraform wrote for the key.
func TestAccAPIKeyNeverLeaks(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1 (make test does)")
	}
	const key = "vgk-TRACE-canary-5d8e1f0a7b"
	cfg := mockapi.DefaultConfig()
	cfg.TaskDuration = mockapi.Duration(0)
	cfg.Keys = []mockapi.Key{{Key: key}}
	srv, err := mockapi.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(func() { ts.Close(); srv.Close() })

	bin := t.TempDir()
	build := exec.CommandContext(t.Context(), "go", "build", "-o", filepath.Join(bin, "terraform-provider-videogen"), "../..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the provider: %v\n%s", err, out)
	}
	cliConfig := filepath.Join(bin, "terraformrc")
	writeFile(t, cliConfig, fmt.Sprintf(`provider_installation {
  dev_overrides {
    "videogen/videogen" = %q
  }
  direct {}
}
`, bin))

	work := t.TempDir()
	terraform := func(env []string, args ...string) (stdout, stderr string, err error) {
		cmd := exec.CommandContext(t.Context(), terraformBinary(), args...)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+cliConfig, "CHECKPOINT_DISABLE=1", "TF_LOG=TRACE",
			"TF_IN_AUTOMATION=1", "VIDEOGEN_BASE_URL="+ts.URL)
		cmd.Env = append(cmd.Env, env...)
		var outBuf, errBuf bytes.Buffer
		cmd.Stdout, cmd.Stderr = &outBuf, &errBuf
		err = cmd.Run()
		return outBuf.String(), errBuf.String(), err
	}
	var transcript strings.Builder
	run := func(wantOK bool, env []string, args ...string) {
		t.Helper()
		stdout, stderr, err := terraform(env, args...)
		out := stdout + stderr
		fmt.Fprintf(&transcript, "\n$ terraform %s\n%s", strings.Join(args, " "), out)
		if (err == nil) != wantOK {
			t.Fatalf("terraform %v: error %v, want success %v\n%s", args, err, wantOK, out)
		}
	}
	viaEnv := []string{"VIDEOGEN_API_KEY=" + key}

	// The recommended set-up: the key only in the environment.
	writeFile(t, filepath.Join(work, "main.tf"), `
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
output "url" { value = videogen_video.clip.url }
`)
	run(true, viaEnv, "plan", "-out=tfplan", "-input=false")
	run(true, viaEnv, "show", "-json", "tfplan")
	run(true, viaEnv, "apply", "-input=false", "tfplan")
	run(true, viaEnv, "show", "-json")
	run(true, viaEnv, "output", "-json")

	// Failures render diagnostics: an unknown model at plan time, and a revoked key.
	writeFile(t, filepath.Join(work, "bad.tf"), `
resource "videogen_video" "bad" {
  model  = "no-such-model"
  prompt = "fails"
}
`)
	run(false, viaEnv, "plan", "-input=false")
	_ = os.Remove(filepath.Join(work, "bad.tf"))
	run(false, []string{"VIDEOGEN_API_KEY=" + key + "-revoked"}, "plan", "-input=false")

	// The key written in the provider block itself must not leak from there either.
	writeFile(t, filepath.Join(work, "main.tf"), strings.Replace(readFile(t, filepath.Join(work, "main.tf")),
		`provider "videogen" {}`, fmt.Sprintf(`provider "videogen" {
  api_key = %q
}`, key), 1))
	run(true, nil, "plan", "-out=tfplan2", "-input=false")
	run(true, nil, "apply", "-input=false", "-auto-approve")
	// Terraform core renders a plan's configuration snapshot, literals included, in
	// `show -json`; a key written into the .tf file is visible there by Terraform's
	// design, as it is in the file itself. That is why the docs say to use the
	// environment variable. Allow it there and nowhere else.
	planJSON, logs, err := terraform(nil, "show", "-json", "tfplan2")
	if err != nil {
		t.Fatalf("terraform show -json tfplan2: %v\n%s", err, logs)
	}
	fmt.Fprintf(&transcript, "\n$ terraform show -json tfplan2 (stdout checked separately)\n%s", logs)
	if rest := onlyInProviderConfig(t, planJSON); strings.Contains(rest, key) {
		t.Errorf("the API key appears in the JSON plan outside configuration.provider_config")
	}

	if !strings.Contains(transcript.String(), "videogen API request") {
		t.Fatal("the TRACE transcript has no provider request logs; the test would prove nothing")
	}
	if strings.Contains(transcript.String(), key) {
		i := strings.Index(transcript.String(), key)
		t.Errorf("the API key appears in Terraform's output or logs, e.g. ...%s...",
			transcript.String()[max(0, i-200):min(len(transcript.String()), i+100)])
	}
	state := readFile(t, filepath.Join(work, "terraform.tfstate"))
	if !strings.Contains(state, "videogen_video") {
		t.Fatal("no state was written; the test would prove nothing")
	}
	for _, f := range []string{"terraform.tfstate", "tfplan", "tfplan2"} {
		if data, err := os.ReadFile(filepath.Join(work, f)); err == nil && bytes.Contains(data, []byte(key)) {
			t.Errorf("the API key appears in %s", f)
		}
	}
	if t.Failed() {
		t.Logf("transcript written to %s", dumpTranscript(transcript.String()))
	}
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

func terraformBinary() string {
	if p := os.Getenv("TF_ACC_TERRAFORM_PATH"); p != "" {
		return p
	}
	return "terraform"
}

func writeFile(t *testing.T, name, content string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
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

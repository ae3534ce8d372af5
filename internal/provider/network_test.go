package provider

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
)

// TestAccNetwork_internalCAAndGatewayHeader runs the real CLI against a
// self-hosted server as teams run one: TLS with a certificate that a CA the
// test made signed (unknown to the system), behind a gateway that refuses a
// request without its header. Without ca_file the plan fails with an error
// that names the setting; without the header the gateway's refusal names the
// header; with both, ca_file, ca_pem and VIDEOGEN_CA_FILE each reach it and
// an apply makes the clip. Under TF_LOG=TRACE the header's value is in no log,
// output, state or plan file.
func TestAccNetwork_internalCAAndGatewayHeader(t *testing.T) {
	t.Parallel()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1 (make test does)")
	}
	const token = "gw-token-TRACE-canary-9c41e0d2"
	ca := acctest.NewTestCA(t)
	mock := acctest.NewMock(t, func(cfg *mockapi.Config) {
		cfg.TLS = ca.ServerTLS
		cfg.RequiredHeaders = map[string]string{"X-Gateway-Token": token}
	})
	if !strings.HasPrefix(mock.URL, "https://") {
		t.Fatalf("the mock is not serving TLS: %s", mock.URL)
	}
	caFile := filepath.Join(t.TempDir(), "internal-ca.pem")
	if err := os.WriteFile(caFile, ca.PEM, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	wd := acctest.NewWorkdir(t)
	logPath := filepath.Join(t.TempDir(), "terraform.log")
	if err := wd.TF.SetLog("TRACE"); err != nil {
		t.Fatal(err)
	}
	if err := wd.TF.SetLogPath(logPath); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	wd.TF.SetStdout(&out)
	wd.TF.SetStderr(&out)
	header := fmt.Sprintf(`headers = { "X-Gateway-Token" = %q }`, token)
	caFileLine := "ca_file = " + strconv.Quote(caFile)
	body := `
data "videogen_models" "all" {}
` + cliVideo("a lighthouse behind a firewall")
	write := func(lines ...string) {
		t.Helper()
		if err := wd.Write(cliClip(mock, body, lines...)); err != nil {
			t.Fatal(err)
		}
	}
	plan := func(wantOK bool, what string) string {
		t.Helper()
		out.Reset()
		_, err := wd.Plan(ctx)
		text := out.String()
		if err != nil {
			text += "\n" + err.Error()
		}
		if (err == nil) != wantOK {
			t.Fatalf("plan %s: error %v, want success %v\n%s", what, err, wantOK, text)
		}
		return text
	}

	write(header)
	if err := wd.Init(ctx); err != nil {
		t.Fatal(err)
	}
	text := plan(false, "without the CA")
	for _, want := range []string{"Certificate Not Trusted", "ca_file", "ca_pem", "VIDEOGEN_CA_FILE"} {
		if !strings.Contains(text, want) {
			t.Errorf("the plan without the CA does not say %q:\n%s", want, text)
		}
	}
	write(caFileLine)
	text = plan(false, "without the header")
	if !strings.Contains(text, "X-Gateway-Token") || !strings.Contains(text, "403") {
		t.Errorf("the plan without the header does not name the header the gateway wants:\n%s", text)
	}
	write(header, "ca_pem = "+strconv.Quote(string(ca.PEM)))
	plan(true, "with ca_pem")
	write(header)
	if err := wd.Setenv("VIDEOGEN_CA_FILE", caFile); err != nil {
		t.Fatal(err)
	}
	plan(true, "with VIDEOGEN_CA_FILE")
	if err := wd.Setenv("VIDEOGEN_CA_FILE", ""); err != nil {
		t.Fatal(err)
	}
	write(header, caFileLine)
	out.Reset()
	if _, err := wd.TF.Plan(ctx, tfexec.Out("tfplan")); err != nil {
		t.Fatalf("plan -out: %v\n%s", err, out.String())
	}
	if err := wd.TF.Apply(ctx, tfexec.DirOrPlan("tfplan")); err != nil {
		t.Fatalf("apply: %v\n%s", err, out.String())
	}
	if n := mock.Submissions(); n != 1 {
		t.Errorf("the mock received %d submissions, want 1", n)
	}

	logs, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(logs, []byte("videogen API request")) {
		t.Fatal("the TRACE log has no provider request lines; the test would prove nothing")
	}
	if bytes.Contains(logs, []byte(token)) {
		i := bytes.Index(logs, []byte(token))
		t.Errorf("the header's value is in the TRACE log: ...%s...", logs[max(0, i-200):min(len(logs), i+50)])
	}
	if strings.Contains(out.String(), token) {
		t.Error("the header's value is in Terraform's output")
	}
	state, err := os.ReadFile(filepath.Join(wd.Dir, "terraform.tfstate"))
	if err != nil || !bytes.Contains(state, []byte("videogen_video")) {
		t.Fatalf("no state was written (%v)", err)
	}
	if bytes.Contains(state, []byte(token)) {
		t.Error("the header's value is in the state")
	}
}

package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
)

// upgradeBaseline is the oldest build whose state users may hold. The
// repository has no release tag yet, so it is the commit that added the
// release tooling (the goreleaser configuration and CHANGELOG's 0.1.0
// section), the first from which 0.1.0 could have been built and published;
// both resources and every argument of the configuration below existed then.
// Once a release is tagged, name its tag here.
const upgradeBaseline = "018b3c09972914707c75c88e1c12990e15beea9f"

// upgradeBaselineVersion labels the baseline in the test's mirror. It only has
// to be older than the current build's version, so that no other test's
// configuration selects it.
const upgradeBaselineVersion = "0.0.1"

func upgradeConfig(mock *acctest.Mock, version, dir string) string {
	return fmt.Sprintf(`terraform {
  required_providers {
    videogen = {
      source  = "videogen/videogen"
      version = %q
    }
  }
}

# Written out rather than taken from ProviderBlock, which also sets
# journal_path: the baseline predates it, and an argument its schema lacks
# fails its plan. The current build keeps its journal in the working
# directory, a temporary one here.
provider "videogen" {
  base_url      = %q
  api_key       = %q
  poll_interval = %q
}

resource "videogen_video" "clip" {
  model            = "videogen-1"
  prompt           = "a lighthouse at dusk, slow dolly in, @image1 as the style"
  seconds          = 4
  ratio            = "16:9"
  resolution       = "720p"
  generate_audio   = false
  callback_url     = "https://hooks.example.com/videogen"
  reference_images = ["https://assets.example.com/lighthouse.png"]
  triggers_replace = { revision = "1" }

  timeouts {
    create = "10m"
  }
}

resource "videogen_video_file" "clip" {
  task_id         = videogen_video.clip.task_id
  path            = %q
  file_permission = "0640"
}
`, version, mock.URL, mockapi.DefaultAPIKey, acctest.MockPollInterval, filepath.Join(dir, "out", "clip.mp4"))
}

// TestAccUpgrade_baselineStatePlansNothing applies a clip and its file with
// the provider built from upgradeBaseline, then switches the same working
// directory to the current build (init -upgrade, as a user who raises the
// version constraint does): the plan is empty and nothing is submitted again,
// so the current build reads the baseline's state, private state and echoes
// as its own.
func TestAccUpgrade_baselineStatePlansNothing(t *testing.T) {
	requireAcc(t)
	t.Parallel()
	ctx := t.Context()
	h, err := acctest.Setup(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.InstallRevision(ctx, upgradeBaseline, upgradeBaselineVersion); err != nil {
		t.Fatal(err)
	}
	mock := acctest.NewMock(t)
	wd := acctest.NewWorkdir(t)

	if err := wd.Write(upgradeConfig(mock, upgradeBaselineVersion, wd.Dir)); err != nil {
		t.Fatal(err)
	}
	if err := wd.Init(ctx); err != nil {
		t.Fatal(err)
	}
	if err := wd.Apply(ctx); err != nil {
		t.Fatalf("apply with the baseline build: %v", err)
	}
	if n := mock.Submissions(); n != 1 {
		t.Fatalf("the baseline's apply left %d submissions in the ledger, want 1", n)
	}
	before, err := os.ReadFile(filepath.Join(wd.Dir, "out", "clip.mp4"))
	if err != nil {
		t.Fatal(err)
	}

	if err := wd.Write(upgradeConfig(mock, h.Version, wd.Dir)); err != nil {
		t.Fatal(err)
	}
	if err := wd.Init(ctx, tfexec.Upgrade(true)); err != nil {
		t.Fatal(err)
	}
	if changes, err := wd.Plan(ctx); err != nil || changes {
		out, _ := wd.Start(ctx, "plan", "-no-color", "-input=false").Wait()
		t.Fatalf("the current build's plan of the baseline's state: changes %v, error %v; want an empty plan\n%s", changes, err, out)
	}
	// An apply refreshes and writes state with the current build: still
	// nothing to do, and the next plan is empty too.
	if err := wd.Apply(ctx); err != nil {
		t.Fatalf("apply with the current build: %v", err)
	}
	if changes, err := wd.Plan(ctx); err != nil || changes {
		t.Fatalf("the plan after the current build wrote state: changes %v, error %v; want an empty plan", changes, err)
	}
	if n := mock.Submissions(); n != 1 {
		t.Fatalf("the ledger shows %d submissions after the upgrade, want still 1", n)
	}
	after, err := os.ReadFile(filepath.Join(wd.Dir, "out", "clip.mp4"))
	if err != nil {
		t.Fatal(err)
	}
	if string(after) != string(before) {
		t.Fatal("the clip file changed across the upgrade; it should have been left alone")
	}
}

package provider

import (
	"fmt"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/clip"
	"github.com/videogen/terraform-provider-videogen/internal/journal"
	"github.com/videogen/terraform-provider-videogen/internal/localfile"
	"github.com/videogen/terraform-provider-videogen/internal/provider/apidiag"
	"github.com/videogen/terraform-provider-videogen/internal/provider/videofile"
)

var _ videofile.Configured = (*providerData)(nil)

// providerData is what resources and data sources receive from Configure.
type providerData struct {
	client *client.Client
	// models reads the model list once per provider instance; modelsReported
	// says once that it could not be read.
	models         *client.ModelCatalog
	modelsReported sync.Once
	// lifecycle and journal exist once per provider process, which is what
	// Terraform starts for one plan or one apply.
	lifecycle *clip.Lifecycle
	journal   *journal.Journal
	// clips and planned are videogen_video_file's part (videofile.Configured).
	clips   localfile.Known
	planned localfile.Claims
	// api is the request shape of the API the client speaks.
	api apiShape
}

// Client, KnownClips and PlannedPaths hand videogen_video_file what it takes
// from the configured provider (videofile.Configured).
func (d *providerData) Client() *client.Client { return d.client }

func (d *providerData) KnownClips() *localfile.Known { return &d.clips }

func (d *providerData) PlannedPaths() *localfile.Claims { return &d.planned }

// TaskModel and ClipLost hand videogen_video_file what this process's
// videogen_video resources learned of a task (clip.Lifecycle.ModelOf, Lost).
func (d *providerData) TaskModel(taskID string) string { return d.lifecycle.ModelOf(taskID) }

func (d *providerData) ClipLost(taskID string) bool { return d.lifecycle.Lost(taskID) }

// requireConfigured reports whether the provider handed over a client (see
// apidiag.RequireConfigured).
func requireConfigured(data *providerData, diags *diag.Diagnostics, summary string) bool {
	return apidiag.RequireConfigured(data != nil, diags, summary)
}

// configuredData extracts the provider data handed to a resource or data source.
// It is nil while the provider configuration is still unknown during plan.
func configuredData(data any, diags *diag.Diagnostics) *providerData {
	pd, ok := data.(*providerData)
	if !ok && data != nil {
		diags.AddError("Unexpected Provider Data",
			fmt.Sprintf("expected *providerData, got %T; this is a bug in the provider, please report it", data))
	}
	return pd
}

// lifecycleOrNil is the lifecycle of this provider process; nil for a
// provider not configured yet, which the lifecycle's words of removal allow.
func (d *providerData) lifecycleOrNil() *clip.Lifecycle {
	if d == nil {
		return nil
	}
	return d.lifecycle
}

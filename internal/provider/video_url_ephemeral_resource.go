package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/provider/apidiag"
)

var _ ephemeral.EphemeralResourceWithConfigure = (*videoURLEphemeralResource)(nil)

// videoURLEphemeralResource hands out a fresh download URL of a finished clip
// without storing it: a signed URL grants access to the clip while it lives, and
// the one in videogen_video's state has long expired.
type videoURLEphemeralResource struct {
	data *providerData
}

// NewVideoURLEphemeralResource returns the videogen_video_url ephemeral resource.
func NewVideoURLEphemeralResource() ephemeral.EphemeralResource { return &videoURLEphemeralResource{} }

type videoURLModel struct {
	TaskID types.String `tfsdk:"task_id"`
	URL    types.String `tfsdk:"url"`
	Format types.String `tfsdk:"format"`
}

func (e *videoURLEphemeralResource) Metadata(_ context.Context, req ephemeral.MetadataRequest, resp *ephemeral.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_video_url"
}

func (e *videoURLEphemeralResource) Schema(_ context.Context, _ ephemeral.SchemaRequest, resp *ephemeral.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A fresh download URL for the clip of a succeeded task, read from the service whenever " +
			"Terraform needs it and never stored in state or plan (Terraform 1.10 or later, OpenTofu 1.11 or later). Use it " +
			"where Terraform accepts ephemeral values: a write-only argument such as `reference_videos_wo`, a provider " +
			"block, or a module output marked `ephemeral = true`. It submits nothing and bills nothing.",
		Attributes: map[string]schema.Attribute{
			"task_id": schema.StringAttribute{
				MarkdownDescription: "Task whose clip to link, such as `videogen_video.example.task_id`. The task must have " +
					"succeeded.",
				Required: true,
			},
			"url": schema.StringAttribute{
				MarkdownDescription: "Download URL of the clip as the service hands it out now; a signed URL expires when " +
					"the service says.",
				Computed: true,
			},
			"format": schema.StringAttribute{
				MarkdownDescription: "Output container reported by the service: `mp4`.",
				Computed:            true,
			},
		},
	}
}

func (e *videoURLEphemeralResource) Configure(_ context.Context, req ephemeral.ConfigureRequest, resp *ephemeral.ConfigureResponse) {
	e.data = configuredData(req.ProviderData, &resp.Diagnostics)
}

func (e *videoURLEphemeralResource) Open(ctx context.Context, req ephemeral.OpenRequest, resp *ephemeral.OpenResponse) {
	const summary = "Unable to Read Video URL"
	var m videoURLModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() || !requireConfigured(e.data, &resp.Diagnostics, summary) {
		return
	}
	taskID := m.TaskID.ValueString()
	video, err := e.data.client.GetVideo(ctx, taskID)
	if err != nil {
		apidiag.Add(&resp.Diagnostics, summary, apidiag.Get, err, nil) // no clip arguments of its own
		return
	}
	// A clip held in the task itself (InlineClip) has no URL to link.
	if video.HasClip() && video.URL == "" {
		resp.Diagnostics.AddAttributeError(path.Root("task_id"), "Video Not Available as a URL",
			fmt.Sprintf("Task %s succeeded, but Vertex AI holds its clip in the operation itself, as bytes, so there is "+
				"no URL to link. Set storage_uri on its videogen_video so that Vertex AI writes the clip to Cloud Storage "+
				"(url is then the gs:// object), or write the clip with videogen_video_file.", taskID))
		return
	}
	if video.Status.Final() && !video.HasClip() {
		resp.Diagnostics.AddAttributeError(path.Root("task_id"), "Video Not Available",
			fmt.Sprintf("Task %s ended as %q and has no clip to link. Point task_id at a task that succeeded.",
				taskID, video.RawStatus))
		return
	}
	if video.Status != client.StatusSucceeded {
		resp.Diagnostics.AddAttributeError(path.Root("task_id"), "Video Not Ready",
			fmt.Sprintf("Task %s is %q, so it has no clip to link yet. Make this ephemeral resource depend on a "+
				"videogen_video that waits for its task (wait_for_completion = true, the default), or run again once the "+
				"task has succeeded.", taskID, video.RawStatus))
		return
	}
	m.URL, m.Format = types.StringValue(video.URL), stringOrNull(video.Format)
	resp.Diagnostics.Append(resp.Result.Set(ctx, &m)...)
}

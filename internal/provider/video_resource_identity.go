package provider

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var (
	_ resource.ResourceWithImportState = (*videoResource)(nil)
	_ resource.ResourceWithIdentity    = (*videoResource)(nil)
)

// IdentitySchema identifies a clip by its task (Terraform and OpenTofu 1.12 or
// later), for `import` blocks with `identity = { task_id = "..." }`.
func (r *videoResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = identityschema.Schema{
		Attributes: map[string]identityschema.Attribute{
			"task_id": identityschema.StringAttribute{
				Description:       "Task identifier assigned by the service at submission.",
				RequiredForImport: true,
			},
		},
	}
}

// setVideoIdentity records the identity of the clip of taskID; identity is nil
// only for a resource type without identity.
func setVideoIdentity(ctx context.Context, identity *tfsdk.ResourceIdentity, taskID types.String) diag.Diagnostics {
	if identity == nil {
		return nil
	}
	return identity.SetAttribute(ctx, path.Root("task_id"), taskID)
}

// ImportState takes a task ID, from `terraform import`, an `import` block's `id`
// or its `identity`; Read then fills in the clip.
func (r *videoResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if req.ID = strings.TrimSpace(req.ID); req.ID != "" || req.Identity != nil {
		resource.ImportStatePassthroughWithIdentity(ctx, path.Root("task_id"), path.Root("task_id"), req, resp)
	}
	var id types.String
	resp.Diagnostics.Append(resp.State.GetAttribute(ctx, path.Root("task_id"), &id)...)
	id = types.StringValue(strings.TrimSpace(id.ValueString()))
	if id.ValueString() == "" {
		resp.Diagnostics.AddError("Invalid Import ID", "Import a videogen_video by its task ID, for example: terraform import "+
			"videogen_video.example task_abc123, or with an import block whose identity is { task_id = \"task_abc123\" }.")
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("task_id"), id)...)
	resp.Diagnostics.Append(setVideoIdentity(ctx, resp.Identity, id)...)
	if r.data != nil {
		// The task is imported from the server the provider speaks to now.
		resp.Diagnostics.Append(r.data.recordClipAPI(ctx, resp.Private)...)
	}
}

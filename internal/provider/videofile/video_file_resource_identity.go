package videofile

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/videogen/terraform-provider-videogen/internal/framework/fwtypes"
)

var (
	_ resource.ResourceWithIdentity    = (*videoFileResource)(nil)
	_ resource.ResourceWithImportState = (*videoFileResource)(nil)
)

// IdentitySchema identifies a downloaded clip by its task and its path (Terraform
// and OpenTofu 1.12 or later), for `import` blocks with
// `identity = { task_id = "...", path = "..." }`.
func (r *videoFileResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = identityschema.Schema{
		Attributes: map[string]identityschema.Attribute{
			"task_id": identityschema.StringAttribute{
				Description:       "Task whose clip the file holds.",
				RequiredForImport: true,
			},
			"path": identityschema.StringAttribute{
				Description:       "Path of the file, relative to the directory Terraform runs in or absolute.",
				RequiredForImport: true,
			},
		},
	}
}

type videoFileIdentityModel struct {
	TaskID types.String `tfsdk:"task_id"`
	Path   types.String `tfsdk:"path"`
}

// setIdentity records the identity of the file m describes, in the path spelling
// of state.
func (r *videoFileResource) setIdentity(ctx context.Context, identity *tfsdk.ResourceIdentity, m videoFileResourceModel) diag.Diagnostics {
	if identity == nil {
		return nil
	}
	return identity.Set(ctx, videoFileIdentityModel{TaskID: m.TaskID, Path: m.Path.StringValue})
}

// ImportState takes "<task_id>,<path>", with the path in any spelling, or an
// import block's identity, read as the same pair; the first Read then adopts the
// file. A task ID never holds a comma, while a path may.
func (r *videoFileResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	id := req.ID
	if id == "" && req.Identity != nil {
		var identity videoFileIdentityModel
		resp.Diagnostics.Append(req.Identity.Get(ctx, &identity)...)
		id = identity.TaskID.ValueString() + "," + identity.Path.ValueString()
	}
	taskID, p, ok := strings.Cut(id, ",")
	taskID = strings.TrimSpace(taskID)
	if !ok || taskID == "" || p == "" {
		resp.Diagnostics.AddError("Invalid Import ID", fmt.Sprintf("Import a videogen_video_file as <task_id>,<path>, "+
			"for example: terraform import videogen_video_file.teaser task_abc123,out/teaser.mp4. The path may be "+
			"relative to the directory Terraform runs in or absolute. Got %q.", id))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), p)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("path"), fwtypes.FilePathValue(p))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("task_id"), taskID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("directory_permission"), defaultDirectoryPermission)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("overwrite"), false)...)
	resp.Diagnostics.Append(r.setIdentity(ctx, resp.Identity,
		videoFileResourceModel{TaskID: types.StringValue(taskID), Path: fwtypes.FilePathValue(p)})...)
}

package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var _ resource.ResourceWithIdentity = (*videoFileResource)(nil)

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

// importID is the "<task_id>,<path>" that ImportState parses: the import ID as
// given, or one made from an import block's identity.
func (r *videoFileResource) importID(ctx context.Context, req resource.ImportStateRequest) (string, diag.Diagnostics) {
	if req.ID != "" || req.Identity == nil {
		return req.ID, nil
	}
	var identity videoFileIdentityModel
	diags := req.Identity.Get(ctx, &identity)
	return identity.TaskID.ValueString() + "," + identity.Path.ValueString(), diags
}

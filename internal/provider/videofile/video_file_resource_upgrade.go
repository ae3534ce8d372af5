package videofile

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/videogen/terraform-provider-videogen/internal/framework/fwtypes"
)

var _ resource.ResourceWithUpgradeState = (*videoFileResource)(nil)

// videoFileSchemaVersion is the version of videogen_video_file's state.
const videoFileSchemaVersion = 1

// UpgradeState upgrades each prior version of the state from that version's own
// schema, kept below as it was, so that an attribute the current schema drops
// or retypes never breaks the reading of an old state.
func (r *videoFileResource) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	return map[int64]resource.StateUpgrader{
		0: {PriorSchema: videoFileSchemaV0(), StateUpgrader: upgradeVideoFileFromV0},
	}
}

// videoFileStateV0 is the state of version 0, which had no overwrite,
// max_size_bytes, copies or timeouts.
type videoFileStateV0 struct {
	ID                  types.String `tfsdk:"id"`
	TaskID              types.String `tfsdk:"task_id"`
	Path                types.String `tfsdk:"path"`
	FilePermission      types.String `tfsdk:"file_permission"`
	DirectoryPermission types.String `tfsdk:"directory_permission"`
	SHA256              types.String `tfsdk:"sha256"`
	SizeBytes           types.Int64  `tfsdk:"size_bytes"`
	SourceURL           types.String `tfsdk:"source_url"`
}

// videoFileSchemaV0 is the schema of version 0, as far as reading its state
// needs: the attributes, their types and which were computed.
func videoFileSchemaV0() *schema.Schema {
	return &schema.Schema{
		Attributes: map[string]schema.Attribute{
			"id":                   schema.StringAttribute{Computed: true},
			"task_id":              schema.StringAttribute{Required: true},
			"path":                 schema.StringAttribute{Required: true},
			"file_permission":      schema.StringAttribute{Optional: true, Computed: true},
			"directory_permission": schema.StringAttribute{Optional: true, Computed: true},
			"sha256":               schema.StringAttribute{Computed: true},
			"size_bytes":           schema.Int64Attribute{Computed: true},
			"source_url":           schema.StringAttribute{Computed: true},
		},
	}
}

// upgradeVideoFileFromV0 carries every attribute of version 0 over, and sets
// overwrite to its default, so that an upgrade plans no change; what version 0
// did not have is null.
func upgradeVideoFileFromV0(ctx context.Context, req resource.UpgradeStateRequest, resp *resource.UpgradeStateResponse) {
	var old videoFileStateV0
	resp.Diagnostics.Append(req.State.Get(ctx, &old)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, videoFileResourceModel{
		ID: old.ID, TaskID: old.TaskID, Path: fwtypes.FilePath{StringValue: old.Path},
		FilePermission: old.FilePermission, DirectoryPermission: old.DirectoryPermission,
		SHA256: old.SHA256, SizeBytes: old.SizeBytes, SourceURL: old.SourceURL,
		Overwrite:    types.BoolValue(false),
		MaxSizeBytes: types.Int64Null(),
		Copies:       types.ListNull(types.StringType),
		Timeouts:     timeouts.Value{Object: types.ObjectNull(map[string]attr.Type{"create": types.StringType})},
	})...)
}

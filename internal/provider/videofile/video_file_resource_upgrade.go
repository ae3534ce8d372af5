package videofile

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var _ resource.ResourceWithUpgradeState = (*videoFileResource)(nil)

// videoFileSchemaVersion is the version of videogen_video_file's state. Version
// 0 had no overwrite (nor max_size_bytes or timeouts, which read as null).
const videoFileSchemaVersion = 1

// UpgradeState reads a version 0 state in the current schema, with overwrite at
// its default, so that an upgrade plans no change.
func (r *videoFileResource) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	return map[int64]resource.StateUpgrader{
		0: {StateUpgrader: func(ctx context.Context, req resource.UpgradeStateRequest, resp *resource.UpgradeStateResponse) {
			// Every attribute of version 0 is in the current schema; the ones it
			// lacks read as null.
			raw, err := req.RawState.Unmarshal(resp.State.Schema.Type().TerraformType(ctx))
			if err != nil {
				resp.Diagnostics.AddError("Unable to Upgrade Video File State", fmt.Sprintf("The state of this "+
					"videogen_video_file, written by an older version of the provider, could not be read. Remove it "+
					"from state (terraform state rm) and import it again as <task_id>,<path>.\n\nOriginal error: %s", err))
				return
			}
			resp.State.Raw = raw
			var overwrite types.Bool
			resp.Diagnostics.Append(resp.State.GetAttribute(ctx, path.Root("overwrite"), &overwrite)...)
			if overwrite.IsNull() {
				resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("overwrite"), false)...)
			}
		}},
	}
}

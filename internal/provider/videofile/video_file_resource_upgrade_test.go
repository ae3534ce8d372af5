package videofile

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// stateV0 is a videogen_video_file state of schema version 0, as the provider
// built from the upgrade test's baseline writes it: exactly the attributes of
// that version, none of the later ones.
const stateV0 = `{"id":"out/heron.mp4","task_id":"task_0a1b","path":"out/heron.mp4","file_permission":"0640",` +
	`"directory_permission":"0750","sha256":"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",` +
	`"size_bytes":5120,"source_url":"https://cdn.example.com/clips/heron.mp4"}`

// TestVideoFileStateUpgradeFromV0 reads a version-0 state through version 0's
// own schema and upgrades it as the framework does (the new state starts
// empty): every attribute carried over, overwrite at its default, the
// attributes version 0 lacked null.
func TestVideoFileStateUpgradeFromV0(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := &videoFileResource{}
	up, ok := r.UpgradeState(ctx)[0]
	if !ok || up.PriorSchema == nil {
		t.Fatal("version 0 has no upgrader with a schema of its own: it would be read through the current schema")
	}
	var current resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &current)
	if current.Schema.Version != 1 {
		t.Fatalf("the schema is at version %d: a new version needs its upgrader and this test's state", current.Schema.Version)
	}
	raw, err := (&tfprotov6.RawState{JSON: []byte(stateV0)}).Unmarshal(up.PriorSchema.Type().TerraformType(ctx))
	if err != nil {
		t.Fatalf("version 0's schema does not read a version-0 state: %v", err)
	}
	req := resource.UpgradeStateRequest{State: &tfsdk.State{Schema: *up.PriorSchema, Raw: raw}}
	resp := resource.UpgradeStateResponse{State: tfsdk.State{Schema: current.Schema}}
	up.StateUpgrader(ctx, req, &resp)
	if resp.Diagnostics.HasError() {
		t.Fatalf("upgrade failed: %v", resp.Diagnostics)
	}
	var got videoFileResourceModel
	if diags := resp.State.Get(ctx, &got); diags.HasError() {
		t.Fatalf("the upgraded state does not fit the current schema: %v", diags)
	}
	for name, c := range map[string][2]string{
		"id": {got.ID.ValueString(), "out/heron.mp4"}, "task_id": {got.TaskID.ValueString(), "task_0a1b"},
		"path": {got.Path.ValueString(), "out/heron.mp4"}, "file_permission": {got.FilePermission.ValueString(), "0640"},
		"directory_permission": {got.DirectoryPermission.ValueString(), "0750"},
		"sha256":               {got.SHA256.ValueString(), "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"},
		"source_url":           {got.SourceURL.ValueString(), "https://cdn.example.com/clips/heron.mp4"},
	} {
		if c[0] != c[1] {
			t.Errorf("%s = %q after the upgrade, want %q", name, c[0], c[1])
		}
	}
	if got.SizeBytes.ValueInt64() != 5120 {
		t.Errorf("size_bytes = %v after the upgrade, want 5120", got.SizeBytes)
	}
	if got.Overwrite.IsNull() || got.Overwrite.ValueBool() {
		t.Errorf("overwrite = %v after the upgrade, want false (its default), or the next plan shows a change", got.Overwrite)
	}
	if !got.MaxSizeBytes.IsNull() || !got.Copies.IsNull() || !got.Timeouts.IsNull() {
		t.Errorf("max_size_bytes, copies and timeouts, which version 0 lacked, are %v, %v, %v after the upgrade, want null",
			got.MaxSizeBytes, got.Copies, got.Timeouts)
	}
}

package main

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// finish makes every unknown value known, keeps the known ones, and records
// the task in id and task_id, as a finished clip.
func TestFinishFillsTheUnknowns(t *testing.T) {
	t.Parallel()
	typ := tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"id": tftypes.String, "task_id": tftypes.String, "status": tftypes.String, "url": tftypes.String,
		"prompt": tftypes.String, "seed": tftypes.Number, "tags": tftypes.List{ElementType: tftypes.String},
	}}
	unknown := func(t tftypes.Type) tftypes.Value { return tftypes.NewValue(t, tftypes.UnknownValue) }
	plan := tfsdk.Plan{Raw: tftypes.NewValue(typ, map[string]tftypes.Value{
		"id": unknown(tftypes.String), "task_id": unknown(tftypes.String), "status": unknown(tftypes.String),
		"url": unknown(tftypes.String), "prompt": tftypes.NewValue(tftypes.String, "a cat"),
		"seed": unknown(tftypes.Number), "tags": unknown(tftypes.List{ElementType: tftypes.String}),
	})}
	var state tfsdk.State
	if diags := finish(plan, &state, "noop_1"); diags.HasError() {
		t.Fatal(diags)
	}
	want := tftypes.NewValue(typ, map[string]tftypes.Value{
		"id": tftypes.NewValue(tftypes.String, "noop_1"), "task_id": tftypes.NewValue(tftypes.String, "noop_1"),
		"status": tftypes.NewValue(tftypes.String, "succeeded"), "url": tftypes.NewValue(tftypes.String, "noop"),
		"prompt": tftypes.NewValue(tftypes.String, "a cat"), "seed": tftypes.NewValue(tftypes.Number, nil),
		"tags": tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, nil),
	})
	if !state.Raw.Equal(want) {
		t.Errorf("state %s, want %s", state.Raw, want)
	}
}

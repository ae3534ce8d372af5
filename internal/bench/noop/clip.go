package main

import (
	"context"
	"crypto/rand"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	videogen "github.com/videogen/terraform-provider-videogen/internal/provider"
)

var _ resource.ResourceWithIdentity = clip{}

// clip is videogen_video without its work: the schema, its validators and
// plan modifiers, and the identity schema are the real resource's (asked of
// it, so that they cannot drift); no plan of its own, no HTTP, no journal.
// Create records the plan with its unknown values made known, an identity and
// one private key, as the real resource records a finished clip.
type clip struct{ real resource.ResourceWithIdentity }

func newClip() resource.Resource {
	r, ok := videogen.NewVideoResource().(resource.ResourceWithIdentity)
	if !ok {
		panic("videogen_video has no identity schema")
	}
	return clip{real: r}
}

func (c clip) Metadata(ctx context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	c.real.Metadata(ctx, req, resp)
}

func (c clip) Schema(ctx context.Context, req resource.SchemaRequest, resp *resource.SchemaResponse) {
	c.real.Schema(ctx, req, resp)
}

func (c clip) IdentitySchema(ctx context.Context, req resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	c.real.IdentitySchema(ctx, req, resp)
}

func (clip) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	id := "noop_" + rand.Text()
	resp.Diagnostics.Append(finish(req.Plan, &resp.State, id)...)
	resp.Diagnostics.Append(resp.Identity.SetAttribute(ctx, path.Root("task_id"), id)...)
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, "noop", []byte(`{"created":true}`))...)
}

// Read keeps the state, identity and private state it was given.
func (clip) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}

func (clip) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var id string
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("task_id"), &id)...)
	resp.Diagnostics.Append(finish(req.Plan, &resp.State, id)...)
}

// Delete has nothing to remove; the framework drops the state.
func (clip) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}

// finish writes plan into state with each unknown value known: id and task_id
// are the task's, status is succeeded, every other string a fixed text, and
// any other type null.
func finish(plan tfsdk.Plan, state *tfsdk.State, id string) diag.Diagnostics {
	v, err := tftypes.Transform(plan.Raw, func(p *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if v.IsKnown() {
			return v, nil
		}
		if !v.Type().Is(tftypes.String) {
			return tftypes.NewValue(v.Type(), nil), nil
		}
		text := "noop"
		if steps := p.Steps(); len(steps) == 1 {
			switch steps[0] {
			case tftypes.AttributeName("id"), tftypes.AttributeName("task_id"):
				text = id
			case tftypes.AttributeName("status"):
				text = "succeeded"
			}
		}
		return tftypes.NewValue(tftypes.String, text), nil
	})
	if err != nil {
		var diags diag.Diagnostics
		diags.AddError("No-Op Create Failed", fmt.Sprintf("The no-op provider could not fill in the plan.\n\nOriginal error: %s", err))
		return diags
	}
	state.Raw = v
	return nil
}

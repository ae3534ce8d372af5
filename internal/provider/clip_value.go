package provider

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/clip"
	"github.com/videogen/terraform-provider-videogen/internal/journal"
)

// requestsBuilt counts the clips whose requests were built, for the test that
// proves one build per clip per operation.
var requestsBuilt atomic.Int64

// clipOf is the lifecycle's value of the clip a plan or a state describes (its
// write-only reference media read from config): its arguments read through
// the table, its request through every API and their fingerprints. It is
// built once per plan or apply of a resource. The diagnostics are those of
// the request through the provider's API, which Create and the plan of a new
// clip report; a clip without them has no fingerprint (clip.Clip.Unsendable).
func (d *providerData) clipOf(ctx context.Context, m *videoResourceModel, config tfsdk.Config) (clip.Clip, diag.Diagnostics) {
	requestsBuilt.Add(1)
	c := argsOf(m)
	writeOnly, woDiags := writeOnlyMedia(ctx, config)
	triggers := map[string]string{}
	if !m.TriggersReplace.IsUnknown() {
		woDiags.Append(m.TriggersReplace.ElementsAs(ctx, &triggers, false)...)
	}
	var own diag.Diagnostics
	for _, name := range client.APIs {
		shape := apiShape(name)
		request, diags := m.toRequest(shape, writeOnly)
		diags = append(slices.Clone(woDiags), diags...)
		if shape == d.api {
			c.Request, own = request, diags
		}
		switch {
		case !diags.HasError() && shape == d.api:
			c.Fingerprint = requestFingerprint(journalService(d.client.BaseURL(), shape), request, triggers)
		case diags.HasError() && shape == d.api:
			c.Unsendable = diagsError(diags)
		case !diags.HasError():
			// An API that cannot carry this clip's request never made it.
			if c.Elsewhere == nil {
				c.Elsewhere = map[client.API]string{}
			}
			c.Elsewhere[name] = requestFingerprint(journalService(d.client.BaseURL(), shape), request, triggers)
		}
	}
	return c, own
}

// argsOf is the clip with the arguments a plan or a state describes, without
// its request: enough to compare it with another.
func argsOf(m *videoResourceModel) clip.Clip {
	c := clip.Clip{TaskID: m.TaskID.ValueString(), Status: client.Status(m.Status.ValueString()),
		Prompt: m.Prompt.ValueString(), Args: make([]clip.Arg, len(clipArguments))}
	for i, a := range clipArguments {
		v := m.arg(a.name)
		c.Args[i] = clip.Arg{Name: a.name, Echoed: a.echoed, Unknown: v.IsUnknown(), Nothing: saysNothing(v), Value: v,
			Same: a.sameValues}
	}
	return c
}

// sameValues is the row's rule of sameness for the lifecycle, which holds
// values it does not know the type of.
func (a clipArgument) sameValues(x, y any) bool {
	xv, ok1 := x.(attr.Value)
	yv, ok2 := y.(attr.Value)
	return ok1 && ok2 && a.same(xv, yv)
}

// saysNothing reports whether a value says nothing of the clip: null, or an
// empty list or map.
func saysNothing(v attr.Value) bool {
	switch c := v.(type) {
	case types.List:
		return !c.IsUnknown() && len(c.Elements()) == 0
	case types.Map:
		return !c.IsUnknown() && len(c.Elements()) == 0
	}
	return v.IsNull()
}

// toRequest builds the submission through one API shape from the plan, and the
// write-only reference media read from config, where alone they exist. Unset arguments, and echoed ones the service
// chooses (unknown until it echoes them), are not sent.
//
// The request is for the API shape of the provider's api setting: an argument
// that shape cannot carry is an error naming it, never dropped, and so is a
// ratio and resolution that make no size of OpenAI's video API.
func (m *videoResourceModel) toRequest(shape apiShape, writeOnly map[string]types.List) (client.VideoRequest, diag.Diagnostics) {
	var diags diag.Diagnostics
	req := client.VideoRequest{Metadata: &client.Metadata{}}
	for _, a := range clipArguments {
		if len(a.request) == 0 {
			continue
		}
		v, at := m.arg(a.name), path.Root(a.name)
		if wo, ok := writeOnly[a.name]; ok && !wo.IsNull() {
			v, at = wo, path.Root(a.writeOnly.name)
		}
		if v.IsNull() || v.IsUnknown() {
			continue
		}
		field, ok := a.request[shape]
		if !ok {
			diags.AddAttributeError(at, "Argument Not Supported by the API", fmt.Sprintf("%s cannot be sent to the %q "+
				"API (the provider's api setting), which carries only %s. Remove %s, or use a server of an API that "+
				"carries it. Nothing was submitted.", at, shape, carriedBy(shape), at))
			continue
		}
		diags.Append(field.set(v, &req, at)...)
	}
	veoRefusals(shape, req, &diags)
	for _, e := range client.API(shape).Inexpressible(req) {
		// The client knows which ratio and resolution make no size: it names the one to change.
		if at := argumentOf(e.Param); at == "ratio" || at == "resolution" {
			diags.AddAttributeError(path.Root(at), "No Size for This Ratio and Resolution", fmt.Sprintf("OpenAI's video "+
				"API (api = %q) takes ratio and resolution as one size in pixels, and ratio %q with resolution %q has "+
				"none: %s. Nothing was submitted.", shape, req.Metadata.Ratio, req.Metadata.Resolution, e.Reason))
		}
	}
	return req, diags
}

// carriedBy lists the arguments an API shape carries, for errors.
func carriedBy(shape apiShape) string {
	var names []string
	for _, a := range clipArguments {
		if _, ok := a.request[shape]; ok {
			names = append(names, a.name)
		}
	}
	return strings.Join(names, ", ")
}

// requestFingerprint is the journal's fingerprint of a request. Reference media
// count without their signing parameters, as in plans: a run killed
// mid-submission is usually retried with freshly signed URLs, and its journal
// note must still be found.
func requestFingerprint(baseURL string, req client.VideoRequest, triggers map[string]string) string {
	req.Metadata = req.Metadata.Unsigned()
	return journal.Fingerprint(baseURL, req, triggers)
}

// journalService is the service a fingerprint names: the base URL, and the API
// that shape's tasks are known through. A task ID names a task only on the API
// that made it, so a task journaled through one API is never adopted through the
// other, where it would be read as gone, dropped and submitted again. The
// default API adds nothing, so that its entries keep their fingerprints.
func journalService(baseURL string, shape apiShape) string {
	if shape == apiVideoGenerations {
		return baseURL
	}
	return baseURL + " api=" + string(shape)
}

// diagsError is the errors of diags as one error, for a message's
// "Original error".
func diagsError(diags diag.Diagnostics) error {
	var parts []string
	for _, d := range diags.Errors() {
		parts = append(parts, d.Summary()+": "+d.Detail())
	}
	return errors.New(strings.Join(parts, "; "))
}

package provider

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/validators"
)

// videoFields is what the service reports of a task, as Terraform values, with
// null wherever the service says nothing. It is the one converter from
// *client.Video: the data source records it as is, and the resource merges it
// into its state with echoInto.
type videoFields struct {
	Status, URL, Format              types.String
	Ratio, Resolution, CallbackURL   types.String
	GenerateAudio                    types.Bool
	ReferenceImages, ReferenceVideos types.List
	ReferenceAudios                  types.List
}

func videoFieldsOf(v *client.Video) videoFields {
	f := videoFields{
		Status: types.StringValue(string(v.Status)),
		URL:    types.StringNull(), Format: stringOrNull(v.Format),
		Ratio: types.StringNull(), Resolution: types.StringNull(), CallbackURL: types.StringNull(),
		GenerateAudio:   types.BoolNull(),
		ReferenceImages: types.ListNull(types.StringType), ReferenceVideos: types.ListNull(types.StringType),
		ReferenceAudios: types.ListNull(types.StringType),
	}
	if v.Status == client.StatusSucceeded {
		f.URL = stringOrNull(v.URL)
	}
	md := v.Metadata
	if md == nil {
		return f
	}
	f.Ratio, f.Resolution, f.CallbackURL = stringOrNull(md.Ratio), stringOrNull(md.Resolution), stringOrNull(md.CallbackURL)
	if md.GenerateAudio != nil {
		f.GenerateAudio = types.BoolValue(*md.GenerateAudio)
	}
	f.ReferenceImages = contentURLs(md.Content, client.ContentImage)
	f.ReferenceVideos = contentURLs(md.Content, client.ContentVideo)
	f.ReferenceAudios = contentURLs(md.Content, client.ContentAudio)
	return f
}

func contentURLs(content []client.ContentEntry, contentType string) types.List {
	var urls []attr.Value
	for _, e := range content {
		if e.Type == contentType {
			urls = append(urls, types.StringValue(e.MediaURL()))
		}
	}
	if len(urls) == 0 {
		return types.ListNull(types.StringType)
	}
	list, _ := types.ListValue(types.StringType, urls)
	return list
}

func stringOrNull(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

// sameMeaning reports whether two known, non-null values of one echoed argument ask
// for the same clip: the service may echo `16:9` for `016:09`, or a URL in another
// spelling. Each echoed argument has one such rule, used alike to plan it
// (echoedArgument), to record the service's echo (echoed) and to match a plan to an
// unfinished task (sameClip).
type sameMeaning func(a, b attr.Value) bool

var (
	meansSameRatio      = sameStrings(validators.SameRatio)
	meansSameResolution = sameStrings(strings.EqualFold)
	meansSameURL        = sameStrings(validators.SameURL)
	meansSameBool       = sameMeaning(func(a, b attr.Value) bool { return a.Equal(b) })
	meansSameURLList    = sameMeaning(sameURLList)
)

func sameStrings(same func(a, b string) bool) sameMeaning {
	return func(a, b attr.Value) bool {
		as, aok := a.(types.String)
		bs, bok := b.(types.String)
		return aok && bok && same(as.ValueString(), bs.ValueString())
	}
}

func sameURLList(a, b attr.Value) bool {
	al, aok := a.(types.List)
	bl, bok := b.(types.List)
	if !aok || !bok {
		return false
	}
	ae, be := al.Elements(), bl.Elements()
	if len(ae) != len(be) {
		return false
	}
	for i := range ae {
		as, aok := ae[i].(types.String)
		bs, bok := be[i].(types.String)
		if !aok || !bok || as.IsNull() || bs.IsNull() || !validators.SameMedia(as.ValueString(), bs.ValueString()) {
			return false
		}
	}
	return true
}

// echoed keeps what configuration or state already holds when the service says
// nothing, or says the same thing in another spelling: an echo that means the same
// never changes state, so it can neither show as drift nor make Terraform reject the
// apply as inconsistent. An unset argument the service says nothing of is null.
func echoed[T attr.Value](current, echo T, same sameMeaning) T {
	switch {
	case echo.IsNull() && current.IsUnknown():
		return echo
	case echo.IsNull():
		return current
	case !current.IsNull() && !current.IsUnknown() && same(current, echo):
		return current
	}
	return echo
}

// echoedArgument plans an optional argument that the service echoes back. Unset in
// configuration, it keeps the value the existing clip has (after an import that is
// the echoed value, which is adopted instead of forcing a new clip). Set, it forces
// a new clip only when it means something other than the clip's value.
type echoedArgument struct {
	same sameMeaning
}

const echoedArgumentDescription = "Changing this forces a new clip. When unset, the value of the existing clip is kept, " +
	"so an imported clip adopts what the service reports."

func (m echoedArgument) Description(context.Context) string         { return echoedArgumentDescription }
func (m echoedArgument) MarkdownDescription(context.Context) string { return echoedArgumentDescription }

// plan decides for any attribute type; keep reports that the prior value stands.
// adopting is true right after an import, when the state has no model yet.
func (m echoedArgument) plan(config, state attr.Value, creating, adopting bool) (keep, replace bool) {
	switch {
	case creating || config.IsUnknown() || state.IsUnknown():
		return false, false
	case config.IsNull():
		return true, false
	case state.IsNull():
		// The service never echoed this: an imported clip adopts the configuration,
		// while a clip made without the argument is a different clip.
		return false, !adopting
	case m.same(config, state):
		return true, false
	}
	return false, true
}

// adopting reports a freshly imported clip, whose state has no model yet.
func adopting(ctx context.Context, state tfsdk.State) bool {
	var model types.String
	state.GetAttribute(ctx, path.Root("model"), &model)
	return model.IsNull()
}

// planEchoed is the body of every PlanModify method: it keeps the prior value or
// forces a new clip as plan decides, for an attribute of any type.
func planEchoed[T attr.Value](ctx context.Context, m echoedArgument, prior tfsdk.State, config, state T, planned *T,
	requiresReplace *bool,
) {
	creating := prior.Raw.IsNull()
	keep, replace := m.plan(config, state, creating, !creating && adopting(ctx, prior))
	if keep {
		*planned = state
	}
	*requiresReplace = replace
}

func (m echoedArgument) PlanModifyString(ctx context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	planEchoed(ctx, m, req.State, req.ConfigValue, req.StateValue, &resp.PlanValue, &resp.RequiresReplace)
}

func (m echoedArgument) PlanModifyBool(ctx context.Context, req planmodifier.BoolRequest, resp *planmodifier.BoolResponse) {
	planEchoed(ctx, m, req.State, req.ConfigValue, req.StateValue, &resp.PlanValue, &resp.RequiresReplace)
}

func (m echoedArgument) PlanModifyList(ctx context.Context, req planmodifier.ListRequest, resp *planmodifier.ListResponse) {
	planEchoed(ctx, m, req.State, req.ConfigValue, req.StateValue, &resp.PlanValue, &resp.RequiresReplace)
}

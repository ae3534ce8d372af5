package provider

import (
	"context"
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/framework/planmodifiers"
	"github.com/videogen/terraform-provider-videogen/internal/validators"
)

// clipArguments declares, once each, the arguments of videogen_video that say
// which clip is made: changing what one means forces a new clip. Everything
// that handles an argument reads its row: the schema, the request (toRequest),
// the record of the service's echo (applyVideo, the data source), the plan's
// "is this another clip?" (replacesClip, the echoed arguments' plan modifier),
// the handover's "is this the clip that task makes?" (sameClip), the warning
// about what a finished clip leaves unconfirmed (unconfirmedParams) and the
// write-only reference media. To add an argument, see CONTRIBUTING.md,
// "Adding a clip argument".
var clipArguments = []clipArgument{
	{
		name: "model",
		attribute: schema.StringAttribute{
			MarkdownDescription: "Video model ID, exactly as listed by `GET /v1/models` (see the `videogen_models` data " +
				"source). Checked against that list at plan time when it can be fetched. Changing this forces a new clip.",
			Required:   true,
			Validators: []validator.String{validators.NotBlank()},
		},
		request:         sent(client.ParamModel, stringMember(func(r *client.VideoRequest) *string { return &r.Model })),
		same:            sameExact,
		adoptedOnImport: true,
	},
	{
		name: "prompt",
		attribute: schema.StringAttribute{
			MarkdownDescription: "Text description of the clip. Cite reference images as `@image1` to `@imageN`, numbered " +
				"in the order of `reference_images`. Must not be blank. Changing this forces a new clip.",
			Required:   true,
			Validators: []validator.String{validators.NotBlank()},
		},
		request:         sent(client.ParamPrompt, stringMember(func(r *client.VideoRequest) *string { return &r.Prompt })),
		same:            sameExact,
		adoptedOnImport: true,
	},
	{
		name: "seconds",
		attribute: schema.StringAttribute{
			MarkdownDescription: "Clip length in whole seconds, 1 or more, as a string of digits without leading zeros " +
				"(`seconds = 8` also works). The maximum depends on the model; at plan time anything above 2147483647 (the " +
				"largest 32-bit integer) is rejected. When unset the service's default applies. Changing this forces a new clip.",
			Validators: []validator.String{validators.Seconds()},
		},
		request:         sent(client.ParamSeconds, stringMember(func(r *client.VideoRequest) *string { return &r.Seconds })),
		made:            func(m *client.MadeParams) attr.Value { return stringOrNull(m.Seconds) },
		same:            sameExact,
		offered:         secondsOffered,
		adoptedOnImport: true,
	},
	{
		name: "ratio",
		attribute: schema.StringAttribute{
			MarkdownDescription: "Aspect ratio as `W:H` with positive integers without leading zeros, such as `16:9`, " +
				"`9:16` or `1:1`.",
			Validators: []validator.String{validators.Ratio()},
		},
		// On OpenAI's video API, with resolution, one size (see toRequest).
		request: sent(client.ParamRatio, stringMember(func(r *client.VideoRequest) *string { return &r.Metadata.Ratio })),
		echoed:  true,
		made:    func(m *client.MadeParams) attr.Value { return stringOrNull(m.Ratio) },
		same:    sameStrings(validators.SameRatio),
		offered: ratioOffered,
	},
	{
		name: "resolution",
		attribute: schema.StringAttribute{
			MarkdownDescription: "Output resolution: one of `480p`, `720p`, `1080p`; which are accepted depends on the " +
				"model.",
			Validators: []validator.String{validators.OneOf("Invalid Resolution", "480p", "720p", "1080p")},
		},
		request: sent(client.ParamResolution, stringMember(func(r *client.VideoRequest) *string { return &r.Metadata.Resolution })),
		echoed:  true,
		made:    func(m *client.MadeParams) attr.Value { return stringOrNull(m.Resolution) },
		same:    sameStrings(strings.EqualFold),
		offered: resolutionOffered,
	},
	{
		name:      "generate_audio",
		attribute: schema.BoolAttribute{MarkdownDescription: "Generate a soundtrack. Applies to some (newer) models."},
		request:   sent(client.ParamGenerateAudio, boolMember(func(r *client.VideoRequest) **bool { return &r.Metadata.GenerateAudio })),
		echoed:    true,
		made:      func(m *client.MadeParams) attr.Value { return types.BoolPointerValue(m.GenerateAudio) },
		same:      sameExact,
		offered:   audioOffered,
	},
	{
		name: "callback_url",
		attribute: schema.StringAttribute{
			MarkdownDescription: "Webhook URL to which the service POSTs the final task state, sent as " +
				"`metadata.callback_url`: an absolute `http`/`https` URL in canonical form, without credentials. A loopback, " +
				"link-local or private address (or `localhost`) gets a warning: the service cannot reach it from its " +
				"network, or reaches its own machines.",
			Validators: []validator.String{validators.CallbackURL()},
		},
		request:       sent(client.ParamCallbackURL, stringMember(func(r *client.VideoRequest) *string { return &r.Metadata.CallbackURL })),
		echoed:        true,
		same:          sameStrings(validators.SameURL),
		nullWhenUnset: true,
	},
	referenceMedia("reference_images", "image", client.ContentImage, 9, "The Nth URL is cited in `prompt` as `@imageN`."),
	referenceMedia("reference_videos", "video", client.ContentVideo, 3, ""),
	referenceMedia("reference_audios", "audio", client.ContentAudio, 3, ""),
	{
		name:      writeOnlyVersionAttr,
		attribute: writeOnlyMediaVersionAttribute(),
		same:      sameExact,
	},
	{
		name: "extra_metadata",
		attribute: schema.StringAttribute{
			MarkdownDescription: "Vendor parameters that this provider does not type, as a JSON object (write it with " +
				"`jsonencode`), merged into the request's `metadata`. For a model's newer options, such as first/last-frame " +
				"mode. The keys that have their own argument (`ratio`, `resolution`, `generate_audio`, `callback_url`, " +
				"`content`) are rejected: use the argument. The service's echo of these parameters is not read back, so it " +
				"never shows as drift. Changing this forces a new clip.",
			Validators: []validator.String{extraMetadata},
		},
		request: sent(client.ParamExtra, func(member string) requestField {
			return requestField{member: member, set: setExtraMetadata}
		}),
		same: sameExact,
	},
	{
		name: "storage_uri",
		attribute: schema.StringAttribute{
			MarkdownDescription: "`api = \"vertex\"` only: a Cloud Storage folder, `gs://bucket/prefix/`, where Vertex AI " +
				"writes the clip itself (its service agent needs to write to the bucket). `url` is then the clip's object, " +
				"`gs://bucket/prefix/<operation>/sample_0.mp4`, and reading the task no longer carries the clip's bytes. A " +
				"`videogen_video_file` whose `path` is that `url` records the object where it is, with its SHA-256 and size, " +
				"without downloading anything. Changing this forces a new clip.",
			Validators: []validator.String{stringvalidator.RegexMatches(regexp.MustCompile(`^gs://[^/?#]+(/[^?#]*)?$`),
				"must be a Cloud Storage URI such as gs://bucket/clips/")},
		},
		request: sent(client.ParamStorageURI, stringMember(func(r *client.VideoRequest) *string { return &r.StorageURI })),
		same:    sameExact,
	},
	{
		// Not sent: it names a clip only to Terraform, and to the journal's fingerprint.
		name: "triggers_replace",
		attribute: schema.MapAttribute{
			MarkdownDescription: "Arbitrary map of strings; any change forces a new clip. Use it to regenerate an asset " +
				"on purpose, as with `terraform_data`.",
			ElementType: types.StringType,
		},
		same: sameExact,
	},
}

// videoResourceModel is videogen_video's plan and state: a field for each row
// above, named by its tfsdk tag (TestClipArgumentsCoverTheSchema finds a missing
// one), and for what the service answers.
type videoResourceModel struct {
	ID              types.String `tfsdk:"id"`
	TaskID          types.String `tfsdk:"task_id"`
	Model           types.String `tfsdk:"model"`
	Prompt          types.String `tfsdk:"prompt"`
	Seconds         types.String `tfsdk:"seconds"`
	Ratio           types.String `tfsdk:"ratio"`
	Resolution      types.String `tfsdk:"resolution"`
	GenerateAudio   types.Bool   `tfsdk:"generate_audio"`
	CallbackURL     types.String `tfsdk:"callback_url"`
	ReferenceImages types.List   `tfsdk:"reference_images"`
	ReferenceVideos types.List   `tfsdk:"reference_videos"`
	ReferenceAudios types.List   `tfsdk:"reference_audios"`
	// Write-only: null in plan and state, read from the configuration at create.
	ReferenceImagesWO       types.List     `tfsdk:"reference_images_wo"`
	ReferenceVideosWO       types.List     `tfsdk:"reference_videos_wo"`
	ReferenceAudiosWO       types.List     `tfsdk:"reference_audios_wo"`
	ReferenceMediaWOVersion types.Int64    `tfsdk:"reference_media_wo_version"`
	ExtraMetadata           types.String   `tfsdk:"extra_metadata"`
	StorageURI              types.String   `tfsdk:"storage_uri"`
	TriggersReplace         types.Map      `tfsdk:"triggers_replace"`
	WaitForCompletion       types.Bool     `tfsdk:"wait_for_completion"`
	Status                  types.String   `tfsdk:"status"`
	URL                     types.String   `tfsdk:"url"`
	Format                  types.String   `tfsdk:"format"`
	Billing                 types.String   `tfsdk:"billing"`
	Timeouts                timeouts.Value `tfsdk:"timeouts"`
}

// clipArgument is one row of clipArguments.
type clipArgument struct {
	name string
	// attribute is the schema attribute without Optional, Computed and plan
	// modifiers, which clipArgument.schemaAttribute derives from the rest of the row.
	attribute schema.Attribute
	// request says how the value reaches the submission of each API shape; a shape
	// without an entry cannot carry the argument. An argument without any entry is
	// never sent. Which shape carries it, and as what, is the client's to say
	// (sent).
	request perAPI
	// echoed: the service echoes the argument in the task's metadata, where the
	// video-generations request carries it. Unset, it records the service's
	// choice (the plan keeps the clip's value); set, it forces a new clip only
	// when it means something else than the clip's; an echo that means the same
	// changes nothing.
	echoed bool
	// made reads what a gateway's upstream record says was made; nil when the
	// record says nothing of this argument.
	made func(*client.MadeParams) attr.Value
	// same reports whether two known, non-null values ask for the same clip.
	same sameMeaning
	// offered checks a value against what its model's record in GET /v1/models
	// publishes (checkModelLimits); nil when the record says nothing of the argument.
	offered offeredBy
	// adoptedOnImport: the service never echoes the argument, so right after an
	// import the configuration's value is adopted in place instead of forcing a
	// new clip.
	adoptedOnImport bool
	// nullWhenUnset plans an echoed argument left out of a new clip's
	// configuration as null instead of unknown: a request without it has nothing
	// of it to echo.
	nullWhenUnset bool
	// writeOnly is the twin that carries the value at create without storing it.
	writeOnly *writeOnlyTwin
}

// apiShape names the shape of an API's submission (the provider's api
// setting). The service's echo is always read in the video-generations shape,
// which the client decodes every answer into.
type apiShape string

const (
	apiVideoGenerations = apiShape(client.APIVideoGenerations)
	// apiOpenAIVideos is OpenAI's video API. Its rows set the same fields of
	// client.VideoRequest, which the client sends as OpenAI's form: ratio and
	// resolution as one size, one reference image as input_reference.
	apiOpenAIVideos = apiShape(client.APIOpenAIVideos)
	// Google's Veo, through the Gemini API and Vertex AI, needs no name here:
	// its rows set the same fields of client.VideoRequest, which the client
	// sends as Veo's predict request.
)

type perAPI map[apiShape]requestField

// sent is the entry of each API shape whose client carries param, a member of
// client.VideoRequest (client.API.Member says which and as what: the carry rules
// are the client's), made by field from the member's name in that shape.
func sent(param string, field func(member string) requestField) perAPI {
	p := perAPI{}
	for _, api := range client.APIs {
		if member, ok := api.Member(param); ok {
			p[apiShape(api)] = field(member)
		}
	}
	return p
}

// requestField is where an argument lives in one API shape's submission.
type requestField struct {
	member string // as the API documents it: "metadata.ratio"
	// set puts a known, non-null value into the request; at names the attribute
	// the value came from, for errors.
	set func(v attr.Value, r *client.VideoRequest, at path.Path) diag.Diagnostics
	// get reads the value back from a request or an echo: null when absent; nil
	// for an argument that is not read back.
	get func(r *client.VideoRequest) attr.Value
}

// sameMeaning reports whether two known, non-null values of one argument ask for
// the same clip: the service may echo `16:9` for `016:09`, or a URL in another
// spelling.
type sameMeaning func(a, b attr.Value) bool

var sameExact = sameMeaning(func(a, b attr.Value) bool { return a.Equal(b) })

func sameStrings(same func(a, b string) bool) sameMeaning {
	return func(a, b attr.Value) bool {
		as, aok := a.(types.String)
		bs, bok := b.(types.String)
		return aok && bok && same(as.ValueString(), bs.ValueString())
	}
}

// writeOnlyTwin describes the write-only form of a reference list.
type writeOnlyTwin struct {
	name, noun, citation string
	limit                int
}

// referenceMedia is the row of one kind of reference media, sent in order as
// metadata.content[] entries of contentType.
func referenceMedia(name, noun, contentType string, limit int, citation string) clipArgument {
	if citation != "" {
		citation = " " + citation
	}
	// Veo takes up to three images, as instances[0].referenceImages: the client
	// fetches each and sends its bytes (a gs:// URI as itself on Vertex AI).
	request := sent(client.ContentParam(contentType), contentMember(contentType))
	if one, ok := request[apiOpenAIVideos]; ok {
		request[apiOpenAIVideos] = inputReference(one)
	}
	return clipArgument{
		name: name,
		attribute: schema.ListAttribute{
			MarkdownDescription: fmt.Sprintf("Up to %d reference %s URLs that guide the generation, sent in order as "+
				"`metadata.content[]` entries: absolute `http`/`https` URLs in canonical form (as Go's URL parser writes "+
				"them), without credentials, no element null. A URL that differs from the applied one only in a store's "+
				"signing parameters names the same media and changes nothing (see \"Reference media\" above); another "+
				"path or parameter is other media. Unset, it records the service's echo without signing parameters, so a "+
				"presigned URL given in `%[4]s` never reaches state. Null while `reference_media_wo_version` is set.%[3]s",
				limit, noun, citation, name+"_wo"),
			ElementType: types.StringType,
			Validators:  validators.ReferenceURLs(limit),
		},
		request:       request,
		echoed:        true,
		same:          validators.SameMediaLists,
		nullWhenUnset: true,
		writeOnly:     &writeOnlyTwin{name: name + "_wo", noun: noun, citation: citation, limit: limit},
	}
}

// stringMember carries a string argument in a string field of the request; the
// empty string is absent.
func stringMember(field func(*client.VideoRequest) *string) func(member string) requestField {
	return func(member string) requestField {
		return requestField{
			member: member,
			set: func(v attr.Value, r *client.VideoRequest, _ path.Path) diag.Diagnostics {
				*field(r) = stringOf(v).ValueString()
				return nil
			},
			get: func(r *client.VideoRequest) attr.Value { return stringOrNull(*field(r)) },
		}
	}
}

func boolMember(field func(*client.VideoRequest) **bool) func(member string) requestField {
	return func(member string) requestField {
		return requestField{
			member: member,
			set: func(v attr.Value, r *client.VideoRequest, _ path.Path) diag.Diagnostics {
				*field(r) = boolOf(v).ValueBoolPointer()
				return nil
			},
			get: func(r *client.VideoRequest) attr.Value { return types.BoolPointerValue(*field(r)) },
		}
	}
}

// contentMember carries a list of reference URLs as metadata.content[] entries of
// one type ({"type": "image_url", "image_url": {"url": ...}}), appended in list order: images come first, so that @imageN is the
// Nth element of reference_images (CONTRIBUTING.md, "Submission body").
func contentMember(contentType string) func(member string) requestField {
	return func(member string) requestField {
		return requestField{
			member: member,
			set: func(v attr.Value, r *client.VideoRequest, at path.Path) diag.Diagnostics {
				var diags diag.Diagnostics
				for i, e := range listOf(v).Elements() {
					u, ok := e.(types.String)
					if !ok || u.IsNull() || u.IsUnknown() {
						// Only a value known at apply gets here: plan-time validation rejects the rest.
						diags.AddAttributeError(at.AtListIndex(i), "Invalid Reference Media",
							fmt.Sprintf("Element %d of %s is null: every element must be a URL. Remove the element or give it "+
								"a value.", i, at))
						continue
					}
					r.Metadata.Content = append(r.Metadata.Content, client.NewContentEntry(contentType, u.ValueString()))
				}
				return diags
			},
			get: func(r *client.VideoRequest) attr.Value { return contentList(r.Metadata.Content, contentType) },
		}
	}
}

// contentList lists the URLs of one content type, null when there are none.
func contentList(content []client.ContentEntry, contentType string) types.List {
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

// inputReference carries one reference image as OpenAI's input_reference (the
// images' field on that API), which takes one: more is an error naming the
// list, not a clip made from the first.
func inputReference(images requestField) requestField {
	return requestField{
		member: images.member,
		set: func(v attr.Value, r *client.VideoRequest, at path.Path) diag.Diagnostics {
			if n := len(listOf(v).Elements()); n > 1 {
				return diag.Diagnostics{diag.NewAttributeErrorDiagnostic(at, "Argument Not Supported by the API",
					fmt.Sprintf("%s has %d images, but OpenAI's video API (api = %q) takes one reference image "+
						"(input_reference). Keep one image, or use a server of the %q API.", at, n, apiOpenAIVideos,
						apiVideoGenerations))}
			}
			return images.set(v, r, at)
		},
		get: images.get,
	}
}

func setExtraMetadata(v attr.Value, r *client.VideoRequest, at path.Path) diag.Diagnostics {
	extra, err := extraMetadata.Parse(stringOf(v))
	if err != nil {
		return diag.Diagnostics{diag.NewAttributeErrorDiagnostic(at, "Invalid Extra Metadata", err.Error())}
	}
	r.Metadata.Extra = extra
	return nil
}

// stringOf, boolOf and listOf read a value of a row's own type; the schema plans
// no other, and anything else reads as empty.
func stringOf(v attr.Value) types.String { s, _ := v.(types.String); return s }
func boolOf(v attr.Value) types.Bool     { b, _ := v.(types.Bool); return b }
func listOf(v attr.Value) types.List     { l, _ := v.(types.List); return l }

func stringOrNull(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

// canonical reads a request in the video-generations shape, the one a task's
// echo has too: metadata that the service left out reads as empty.
func canonical(r client.VideoRequest) *client.VideoRequest {
	if r.Metadata == nil {
		r.Metadata = &client.Metadata{}
	}
	return &r
}

// value is what a canonical request (or a task's echo) says of the argument:
// null when it says nothing, nil for an argument that is never read back.
func (a clipArgument) value(r *client.VideoRequest) attr.Value {
	if field := a.request[apiVideoGenerations]; field.get != nil {
		return field.get(r)
	}
	return nil
}

// arg is the model's value of a clip argument, nil for a name the model has no
// field for. The model's fields carry the same tfsdk names as the table's rows,
// which TestClipArgumentsCoverTheSchema keeps true.
func (m *videoResourceModel) arg(name string) attr.Value {
	i, ok := modelFields[name]
	if !ok {
		return nil
	}
	v, _ := reflect.ValueOf(m).Elem().Field(i).Interface().(attr.Value)
	return v
}

func (m *videoResourceModel) setArg(name string, v attr.Value) {
	if i, ok := modelFields[name]; ok {
		reflect.ValueOf(m).Elem().Field(i).Set(reflect.ValueOf(v))
	}
}

// modelFields indexes videoResourceModel's fields by their tfsdk names, read
// once rather than on every access.
var modelFields = func() map[string]int {
	t := reflect.TypeFor[videoResourceModel]()
	fields := make(map[string]int, t.NumField())
	for i := range t.NumField() {
		fields[t.Field(i).Tag.Get("tfsdk")] = i
	}
	return fields
}()

// schemaAttribute completes the row's attribute: a required argument is
// required, every other optional, an echoed one also computed (it records the
// service's choice), with the plan modifier that forces a new clip as the row says.
func (a clipArgument) schemaAttribute() schema.Attribute {
	note := ""
	if a.echoed {
		note = echoedDescription
	}
	switch s := a.attribute.(type) {
	case schema.StringAttribute:
		s.Optional, s.Computed, s.MarkdownDescription = !s.Required, a.echoed, s.MarkdownDescription+note
		s.PlanModifiers = append(s.PlanModifiers, changeModifier(a, stringplanmodifier.RequiresReplace(),
			planmodifiers.RequiresReplaceUnlessImported(importedWithout)))
		return s
	case schema.BoolAttribute:
		s.Optional, s.Computed, s.MarkdownDescription = true, a.echoed, s.MarkdownDescription+note
		s.PlanModifiers = append(s.PlanModifiers, changeModifier(a, boolplanmodifier.RequiresReplace(), nil))
		return s
	case schema.ListAttribute:
		s.Optional, s.Computed, s.MarkdownDescription = true, a.echoed, s.MarkdownDescription+note
		s.PlanModifiers = append(s.PlanModifiers, changeModifier(a, listplanmodifier.RequiresReplace(), nil))
		if a.writeOnly != nil {
			s.PlanModifiers = append(s.PlanModifiers, planmodifiers.ListNullWhileSet{Other: path.Root(writeOnlyVersionAttr)})
		}
		return s
	case schema.MapAttribute:
		s.Optional = true
		s.PlanModifiers = append(s.PlanModifiers, changeModifier(a, mapplanmodifier.RequiresReplace(), nil))
		return s
	case schema.Int64Attribute:
		// The write-only media's version: its own plan modifier (writeOnlyVersion)
		// plans the replacement. It excludes the stored lists, found here rather than
		// in its row, since the table that names them holds it.
		s.Optional = true
		s.Validators = append(s.Validators, int64validator.ConflictsWith(storedMediaPaths()...))
		return s
	}
	panic(fmt.Sprintf("clip argument %s: no schema for %T", a.name, a.attribute))
}

// changeModifier is the plan modifier that forces a new clip as the row says,
// given the attribute type's own "requires replace" and, for strings, the one
// that adopts after an import.
func changeModifier[M any](a clipArgument, replace, unlessImported M) M {
	switch {
	case a.echoed:
		m, _ := any(planmodifiers.Echoed{Same: a.same, ImportedWithout: importedWithout}).(M)
		return m
	case a.adoptedOnImport:
		return unlessImported
	}
	return replace
}

// importedWithout is the attribute that an import leaves null and every create
// sets: the model, which the service never echoes. While state holds it null, a
// clip was just imported and adopts what the plan modifiers would otherwise replace.
var importedWithout = path.Root("model")

// Write-only reference media (Terraform and OpenTofu 1.11 or later) reach the
// service at create and never state or plan: presigned URLs are bearer credentials
// while they live. The version argument marks a clip made from them; while it is
// set, the stored reference lists stay null, and the service's echo of the media
// is not recorded.
const writeOnlyVersionAttr = "reference_media_wo_version"

// storedMediaPaths are the stored reference lists, which write-only media exclude.
func storedMediaPaths() []path.Expression {
	var p []path.Expression
	for _, a := range clipArguments {
		if a.writeOnly != nil {
			p = append(p, path.MatchRoot(a.name))
		}
	}
	return p
}

func writeOnlyMediaList(stored clipArgument) schema.ListAttribute {
	k := stored.writeOnly
	return schema.ListAttribute{
		MarkdownDescription: fmt.Sprintf("Write-only form of `%s` (Terraform and OpenTofu 1.11 or later; older CLIs "+
			"reject it): up to %d reference %s URLs, sent at create and never stored in state or plan. Same rules as "+
			"`%s`; excludes the stored reference lists and needs `%s`: changing these URLs alone changes nothing, "+
			"changing `%s` generates a new clip from them.%s",
			stored.name, k.limit, k.noun, stored.name, writeOnlyVersionAttr, writeOnlyVersionAttr, k.citation),
		ElementType: types.StringType,
		Optional:    true,
		WriteOnly:   true,
		Validators: append(validators.ReferenceURLs(k.limit),
			listvalidator.ConflictsWith(storedMediaPaths()...),
			listvalidator.AlsoRequires(path.MatchRoot(writeOnlyVersionAttr)),
		),
	}
}

func writeOnlyMediaVersionAttribute() schema.Int64Attribute {
	return schema.Int64Attribute{
		MarkdownDescription: "Version of the write-only reference media (`reference_images_wo`, `reference_videos_wo`, " +
			"`reference_audios_wo`); required with them, and cannot be combined with the stored reference lists, which " +
			"stay null while it is set (the service's echo of the media is not recorded either). Any number: changing it " +
			"forces a new clip, made from the write-only URLs of that apply. Setting it on a clip that had none forces a " +
			"new clip too, unless the write-only URLs name the same media as the stored ones (another signature is the " +
			"same media), which moves the clip to write-only media in place.",
		Optional:      true,
		PlanModifiers: []planmodifier.Int64{writeOnlyVersion},
	}
}

// writeOnlyVersion plans the replacement that write-only media cannot plan
// themselves, and moves an existing clip to write-only media that name the same
// media in place. Its twins are read from the table at init, since the table's own
// version row holds it.
var writeOnlyVersion = &planmodifiers.WriteOnlyVersion{Same: validators.SameMediaLists, ImportedWithout: importedWithout}

func init() {
	for _, a := range clipArguments {
		if a.writeOnly != nil {
			writeOnlyVersion.Twins = append(writeOnlyVersion.Twins, planmodifiers.Twin{WriteOnly: a.writeOnly.name, Stored: a.name})
		}
	}
}

// writeOnlyMedia reads the write-only lists from the configuration, the only place
// they exist: the plan and state hold null.
func writeOnlyMedia(ctx context.Context, config tfsdk.Config) (map[string]types.List, diag.Diagnostics) {
	var diags diag.Diagnostics
	lists := map[string]types.List{}
	if config.Raw.IsNull() {
		return lists, diags
	}
	for _, a := range clipArguments {
		if a.writeOnly != nil {
			var l types.List
			diags.Append(config.GetAttribute(ctx, path.Root(a.writeOnly.name), &l)...)
			lists[a.name] = l
		}
	}
	return lists, diags
}

// extraMetadata reads extra_metadata. Its typed keys, the members of metadata
// that have an argument of their own, are read from the table at init, since the
// table's own extra_metadata row validates with them.
var extraMetadata = validators.ExtraMetadata{Typed: map[string]string{}}

func init() {
	for _, a := range clipArguments {
		if member, ok := strings.CutPrefix(a.request[apiVideoGenerations].member, "metadata."); ok {
			key, _, _ := strings.Cut(member, "[")
			extraMetadata.Typed[key] = strings.TrimPrefix(extraMetadata.Typed[key]+" or "+a.name, " or ")
		}
	}
}

// frameMode rejects reference images, stored or write-only, beside vendor
// parameters that ask for first/last-frame mode.
var frameMode = validators.FrameMode{ExtraMetadata: "extra_metadata", Parse: extraMetadata,
	Images: []string{"reference_images", "reference_images_wo"}}

// echoedDescription ends the description of an argument the service echoes back.
const echoedDescription = " Unset, it records the service's choice (an imported clip adopts it). A value that means " +
	"something else forces a new clip."

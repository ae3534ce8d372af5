package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var _ datasource.DataSourceWithConfigure = (*modelsDataSource)(nil)

type modelsDataSource struct {
	data *providerData
}

// NewModelsDataSource returns the videogen_models data source.
func NewModelsDataSource() datasource.DataSource { return &modelsDataSource{} }

type modelsDataSourceModel struct {
	IDs    types.List `tfsdk:"ids"`
	Models types.List `tfsdk:"models"`
}

var modelObjectType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"id":             types.StringType,
	"owned_by":       types.StringType,
	"created":        types.Int64Type,
	"max_seconds":    types.Int64Type,
	"seconds":        types.ListType{ElemType: types.Int64Type},
	"resolutions":    types.ListType{ElemType: types.StringType},
	"ratios":         types.ListType{ElemType: types.StringType},
	"supports_audio": types.BoolType,
	"raw_json":       types.StringType,
}}

func (d *modelsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_models"
}

func (d *modelsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Lists the video models this API key may use, from `GET /v1/models`. Use it to pick a model " +
			"ID, which must match the list exactly. The service does not publish the fields of a model record: the " +
			"limits a record states under the field names listed below, at its top level or in a nested `limits`, " +
			"`capabilities` or `constraints` object, are read into typed attributes, and `raw_json` holds the whole " +
			"record.",
		Attributes: map[string]schema.Attribute{
			"ids": schema.ListAttribute{
				MarkdownDescription: "Model IDs, in the order the service lists them.",
				ElementType:         types.StringType,
				Computed:            true,
			},
			"models": schema.ListNestedAttribute{
				MarkdownDescription: "Model records, in the order the service lists them.",
				Computed:            true,
				NestedObject: schema.NestedAttributeObject{
					Attributes: map[string]schema.Attribute{
						"id": schema.StringAttribute{
							MarkdownDescription: "Model ID, for the `model` argument of `videogen_video`.",
							Computed:            true,
						},
						"owned_by": schema.StringAttribute{
							MarkdownDescription: "Owner of the model, when the service says; null otherwise.",
							Computed:            true,
						},
						"created": schema.Int64Attribute{
							MarkdownDescription: "Creation time of the model as a Unix timestamp, when the service says; null otherwise.",
							Computed:            true,
						},
						"max_seconds": schema.Int64Attribute{
							MarkdownDescription: "Longest clip the model makes, in seconds, when the record says (`max_seconds`, " +
								"`max_duration` or `max_duration_seconds`, or the largest of `seconds`); null otherwise. A " +
								"`videogen_video` asking for more fails its plan.",
							Computed: true,
						},
						"seconds": schema.ListAttribute{
							MarkdownDescription: "The only clip lengths the model makes, in seconds, when the record lists them " +
								"(`durations`, `supported_durations` or `seconds`); null otherwise. A `videogen_video` asking " +
								"for another length fails its plan.",
							ElementType: types.Int64Type,
							Computed:    true,
						},
						"resolutions": schema.ListAttribute{
							MarkdownDescription: "Resolutions the model makes, lower-cased, when the record lists them " +
								"(`resolutions` or `supported_resolutions`); null otherwise. A `videogen_video` asking for " +
								"another fails its plan.",
							ElementType: types.StringType,
							Computed:    true,
						},
						"ratios": schema.ListAttribute{
							MarkdownDescription: "Aspect ratios the model makes, when the record lists them (`ratios`, " +
								"`aspect_ratios`, `supported_ratios` or `supported_aspect_ratios`); null otherwise. A " +
								"`videogen_video` asking for another fails its plan.",
							ElementType: types.StringType,
							Computed:    true,
						},
						"supports_audio": schema.BoolAttribute{
							MarkdownDescription: "Whether the model generates audio, when the record says (`supports_audio`, " +
								"`generate_audio` or `audio`); null otherwise. When false, a `videogen_video` with " +
								"`generate_audio = true` fails its plan.",
							Computed: true,
						},
						"raw_json": schema.StringAttribute{
							MarkdownDescription: "The whole record exactly as the service sent it, as JSON: every field, " +
								"including those the provider does not read. Read it with `jsondecode`. A list of bare IDs " +
								"gives a JSON string.",
							Computed: true,
						},
					},
				},
			},
		},
	}
}

func (d *modelsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = configuredData(req.ProviderData, &resp.Diagnostics)
}

func (d *modelsDataSource) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	const summary = "Unable to List Models"
	if !requireConfigured(d.data, &resp.Diagnostics, summary) {
		return
	}
	models, err := d.data.client.ListModels(ctx)
	if err != nil {
		addAPIError(&resp.Diagnostics, summary, opListModels, err)
		return
	}
	ids := make([]attr.Value, 0, len(models))
	objects := make([]attr.Value, 0, len(models))
	for _, m := range models {
		ids = append(ids, types.StringValue(m.ID))
		created := types.Int64Null()
		if m.Created != 0 {
			created = types.Int64Value(m.Created)
		}
		maxSeconds := types.Int64Null()
		if m.Limits.MaxSeconds > 0 {
			maxSeconds = types.Int64Value(m.Limits.MaxSeconds)
		}
		obj, diags := types.ObjectValue(modelObjectType.AttrTypes, map[string]attr.Value{
			"id": types.StringValue(m.ID), "owned_by": stringOrNull(m.OwnedBy), "created": created,
			"max_seconds":    maxSeconds,
			"seconds":        listOrNull(types.Int64Type, m.Limits.Seconds, func(n int64) attr.Value { return types.Int64Value(n) }),
			"resolutions":    listOrNull(types.StringType, m.Limits.Resolutions, func(s string) attr.Value { return types.StringValue(s) }),
			"ratios":         listOrNull(types.StringType, m.Limits.Ratios, func(s string) attr.Value { return types.StringValue(s) }),
			"supports_audio": types.BoolPointerValue(m.Limits.Audio),
			"raw_json":       types.StringValue(string(m.Raw)),
		})
		resp.Diagnostics.Append(diags...)
		objects = append(objects, obj)
	}
	state := modelsDataSourceModel{
		IDs:    types.ListValueMust(types.StringType, ids),
		Models: types.ListValueMust(modelObjectType, objects),
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// listOrNull is a list of the values, or null when there are none: a record that
// does not state a limit is not a limit that allows nothing.
func listOrNull[T any](elem attr.Type, values []T, conv func(T) attr.Value) types.List {
	if len(values) == 0 {
		return types.ListNull(elem)
	}
	out := make([]attr.Value, len(values))
	for i, v := range values {
		out[i] = conv(v)
	}
	return types.ListValueMust(elem, out)
}

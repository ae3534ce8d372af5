package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/videogen/terraform-provider-videogen/internal/provider/apidiag"
)

var _ datasource.DataSourceWithConfigure = (*modelsDataSource)(nil)

type modelsDataSource struct {
	data *providerData
}

// NewModelsDataSource returns the videogen_models data source.
func NewModelsDataSource() datasource.DataSource { return &modelsDataSource{} }

type modelsDataSourceModel struct {
	IDs    []string      `tfsdk:"ids"`
	Models []modelRecord `tfsdk:"models"`
}

// modelRecord is one element of models. A nil list or pointer is null: a record
// that does not state a limit is not a limit that allows nothing.
type modelRecord struct {
	ID            string       `tfsdk:"id"`
	OwnedBy       types.String `tfsdk:"owned_by"`
	Created       types.Int64  `tfsdk:"created"`
	MaxSeconds    types.Int64  `tfsdk:"max_seconds"`
	Seconds       []int64      `tfsdk:"seconds"`
	Resolutions   []string     `tfsdk:"resolutions"`
	Ratios        []string     `tfsdk:"ratios"`
	SupportsAudio *bool        `tfsdk:"supports_audio"`
	RawJSON       string       `tfsdk:"raw_json"`
}

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
		apidiag.Add(&resp.Diagnostics, summary, apidiag.ListModels, err, nil) // no clip arguments
		return
	}
	state := modelsDataSourceModel{IDs: make([]string, 0, len(models)), Models: make([]modelRecord, 0, len(models))}
	for _, m := range models {
		record := modelRecord{ID: m.ID, OwnedBy: stringOrNull(m.OwnedBy), Created: types.Int64Null(),
			MaxSeconds: types.Int64Null(), Seconds: nilIfEmpty(m.Limits.Seconds), Resolutions: nilIfEmpty(m.Limits.Resolutions),
			Ratios: nilIfEmpty(m.Limits.Ratios), SupportsAudio: m.Limits.Audio, RawJSON: string(m.Raw)}
		if m.Created != 0 {
			record.Created = types.Int64Value(m.Created)
		}
		if m.Limits.MaxSeconds > 0 {
			record.MaxSeconds = types.Int64Value(m.Limits.MaxSeconds)
		}
		state.IDs, state.Models = append(state.IDs, m.ID), append(state.Models, record)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func nilIfEmpty[T any](values []T) []T {
	if len(values) == 0 {
		return nil
	}
	return values
}

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
	"id":       types.StringType,
	"owned_by": types.StringType,
	"created":  types.Int64Type,
}}

func (d *modelsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_models"
}

func (d *modelsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Lists the video models this API key may use, from `GET /v1/models`. Use it to pick a model " +
			"ID, which must match the list exactly.",
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
					},
				},
			},
		},
	}
}

func (d *modelsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	data, err := configuredData(req.ProviderData)
	if err != nil {
		resp.Diagnostics.AddError("Unexpected Provider Data", err.Error())
		return
	}
	d.data = data
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
		obj, diags := types.ObjectValue(modelObjectType.AttrTypes, map[string]attr.Value{
			"id": types.StringValue(m.ID), "owned_by": stringOrNull(m.OwnedBy), "created": created,
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

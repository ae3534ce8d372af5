package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/videogen/terraform-provider-videogen/internal/provider/apidiag"
)

var _ datasource.DataSourceWithConfigure = (*videoDataSource)(nil)

type videoDataSource struct {
	data *providerData
}

// NewVideoDataSource returns the videogen_video data source.
func NewVideoDataSource() datasource.DataSource { return &videoDataSource{} }

func (d *videoDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_video"
}

func (d *videoDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	computed := func(description string) schema.StringAttribute {
		return schema.StringAttribute{MarkdownDescription: description, Computed: true}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Reads a video task by ID, for clips made outside this configuration (another workspace, a script, " +
			"the console). It never submits anything. Fields the service does not echo are null.",
		Attributes: map[string]schema.Attribute{
			"task_id": schema.StringAttribute{
				MarkdownDescription: "Task identifier returned at submission.",
				Required:            true,
			},
			"id": computed("Same as `task_id`."),
			"status": computed("Task state: `submitted`, `running`, `succeeded` or `failed`, or, for a state outside the " +
				"service's contract, `cancelled`, `expired` or `unknown`."),
			"url": computed("Download URL of the clip when `status` is `succeeded`; null otherwise. Read afresh on every " +
				"refresh, so a signed URL is current: use it to download a clip made elsewhere."),
			"format": computed("Output container reported by the service: `mp4`."),
		},
	}
	for _, a := range clipArguments {
		if a.echoed {
			resp.Schema.Attributes[a.name] = echoedAttribute(a)
		}
	}
}

// echoedAttribute is the data source's record of an argument the service echoes.
func echoedAttribute(a clipArgument) schema.Attribute {
	description := fmt.Sprintf("`%s` as the service echoes it in the task's `%s`; null when it echoes none.",
		a.name, a.request[apiVideoGenerations].member)
	switch a.attribute.(type) {
	case rschema.BoolAttribute:
		return schema.BoolAttribute{MarkdownDescription: description, Computed: true}
	case rschema.ListAttribute:
		description += " A presigned URL is recorded without its store's signing parameters (S3, GCS, Azure SAS, " +
			"CloudFront, Volcengine TOS; on the store's own host, or on any host when the URL carries the store's whole " +
			"set of signing parameters), since it is a credential while it lives; other URLs as echoed."
		return schema.ListAttribute{MarkdownDescription: description, Computed: true, ElementType: types.StringType}
	}
	return schema.StringAttribute{MarkdownDescription: description, Computed: true}
}

func (d *videoDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = configuredData(req.ProviderData, &resp.Diagnostics)
}

// Read records the task's outcome and, one by one from the table of clip
// arguments, what the service echoes.
func (d *videoDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	const summary = "Unable to Read Video"
	var taskID types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("task_id"), &taskID)...)
	if resp.Diagnostics.HasError() || !requireConfigured(d.data, &resp.Diagnostics, summary) {
		return
	}
	video, err := d.data.client.GetVideo(ctx, taskID.ValueString())
	if err != nil {
		apidiag.Add(&resp.Diagnostics, summary, apidiag.Get, err, nil) // no clip arguments of its own
		return
	}
	status, url, format := taskOutcome(video)
	values := map[string]attr.Value{"task_id": taskID, "id": types.StringValue(video.TaskID), "status": status,
		"url": url, "format": format}
	echo := echoOf(video)
	for _, a := range clipArguments {
		if a.echoed {
			values[a.name] = a.value(echo)
		}
	}
	for name, v := range values {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(name), v)...)
	}
}

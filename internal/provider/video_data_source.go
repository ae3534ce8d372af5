package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var _ datasource.DataSourceWithConfigure = (*videoDataSource)(nil)

type videoDataSource struct {
	data *providerData
}

// NewVideoDataSource returns the videogen_video data source.
func NewVideoDataSource() datasource.DataSource { return &videoDataSource{} }

type videoDataSourceModel struct {
	TaskID          types.String `tfsdk:"task_id"`
	ID              types.String `tfsdk:"id"`
	Status          types.String `tfsdk:"status"`
	URL             types.String `tfsdk:"url"`
	Format          types.String `tfsdk:"format"`
	Ratio           types.String `tfsdk:"ratio"`
	Resolution      types.String `tfsdk:"resolution"`
	GenerateAudio   types.Bool   `tfsdk:"generate_audio"`
	CallbackURL     types.String `tfsdk:"callback_url"`
	ReferenceImages types.List   `tfsdk:"reference_images"`
	ReferenceVideos types.List   `tfsdk:"reference_videos"`
	ReferenceAudios types.List   `tfsdk:"reference_audios"`
}

func (d *videoDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_video"
}

func (d *videoDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	computed := func(description string) schema.StringAttribute {
		return schema.StringAttribute{MarkdownDescription: description, Computed: true}
	}
	echoedList := func(kind string) schema.ListAttribute {
		return schema.ListAttribute{
			MarkdownDescription: "Reference " + kind + " URLs echoed by the service in `metadata.content`, in order; null when it echoes none.",
			ElementType:         types.StringType,
			Computed:            true,
		}
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
			"format":           computed("Output container reported by the service: `mp4`."),
			"ratio":            computed("Aspect ratio echoed in the task's metadata."),
			"resolution":       computed("Resolution echoed in the task's metadata."),
			"callback_url":     computed("Webhook URL echoed in the task's metadata."),
			"generate_audio":   schema.BoolAttribute{MarkdownDescription: "Soundtrack setting echoed in the task's metadata.", Computed: true},
			"reference_images": echoedList("image"),
			"reference_videos": echoedList("video"),
			"reference_audios": echoedList("audio"),
		},
	}
}

func (d *videoDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	data, err := configuredData(req.ProviderData)
	if err != nil {
		resp.Diagnostics.AddError("Unexpected Provider Data", err.Error())
		return
	}
	d.data = data
}

func (d *videoDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	const summary = "Unable to Read Video"
	var cfg videoDataSourceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !requireConfigured(d.data, &resp.Diagnostics, summary) {
		return
	}
	video, err := d.data.client.GetVideo(ctx, cfg.TaskID.ValueString())
	if err != nil {
		addAPIError(&resp.Diagnostics, summary, opGet, err)
		return
	}
	f := videoFieldsOf(video)
	state := videoDataSourceModel{
		TaskID: cfg.TaskID, ID: types.StringValue(video.TaskID), Status: f.Status, URL: f.URL, Format: f.Format,
		Ratio: f.Ratio, Resolution: f.Resolution, GenerateAudio: f.GenerateAudio, CallbackURL: f.CallbackURL,
		ReferenceImages: f.ReferenceImages, ReferenceVideos: f.ReferenceVideos, ReferenceAudios: f.ReferenceAudios,
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

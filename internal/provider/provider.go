// Package provider implements the videogen Terraform provider on terraform-plugin-framework.
package provider

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/providervalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/clip"
	"github.com/videogen/terraform-provider-videogen/internal/journal"
	"github.com/videogen/terraform-provider-videogen/internal/provider/videofile"
	"github.com/videogen/terraform-provider-videogen/internal/validators"
)

var (
	_ provider.Provider                       = (*videogenProvider)(nil)
	_ provider.ProviderWithEphemeralResources = (*videogenProvider)(nil)
	_ provider.ProviderWithConfigValidators   = (*videogenProvider)(nil)
)

type videogenProvider struct {
	version string
}

// New returns the provider factory that main.go and the tests serve.
func New(version string) func() provider.Provider {
	return func() provider.Provider { return &videogenProvider{version: version} }
}

type providerModel struct {
	BaseURL        types.String `tfsdk:"base_url"`
	APIKey         types.String `tfsdk:"api_key"`
	MaxRetries     types.Int64  `tfsdk:"max_retries"`
	RequestTimeout types.String `tfsdk:"request_timeout"`
	PollInterval   types.String `tfsdk:"poll_interval"`
	// MaxRequestsPerSecond paces every API call of this provider configuration.
	MaxRequestsPerSecond types.Float64 `tfsdk:"max_requests_per_second"`
	// Billing safety.
	SubmitGatewayRetries types.Int64  `tfsdk:"submit_gateway_retries"`
	MaxNewClips          types.Int64  `tfsdk:"max_new_clips"`
	JournalPath          types.String `tfsdk:"journal_path"`
	// The API the server speaks, and whether destroy deletes on one with a delete.
	API types.String `tfsdk:"api"`
	// Vertex AI's project and location (api = "vertex").
	Project         types.String `tfsdk:"project"`
	Location        types.String `tfsdk:"location"`
	DeleteOnDestroy types.Bool   `tfsdk:"delete_on_destroy"`
	JournalURL      types.String `tfsdk:"journal_url"`
	// The network to the service (networkAttributes).
	CAFile  types.String `tfsdk:"ca_file"`
	CAPEM   types.String `tfsdk:"ca_pem"`
	Headers types.Map    `tfsdk:"headers"`
}

func (p *videogenProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "videogen"
	resp.Version = p.version
}

func (p *videogenProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Generates video clips with an asynchronous, OpenAI-style video generation API and keeps them as Terraform-managed assets.",
		Attributes: map[string]schema.Attribute{
			"base_url": schema.StringAttribute{
				MarkdownDescription: "Base URL of the service, with or without the `/v1` suffix that OpenAI-style tools are given " +
					"(`https://api.example.com` and `https://api.example.com/v1` reach the same endpoints). Must be an absolute " +
					"`http` or `https` URL. Falls back to the `" + envBaseURL + "` environment variable; one of the two is required.",
				Optional:   true,
				Validators: []validator.String{validators.HTTPURL()},
			},
			"api_key": schema.StringAttribute{
				MarkdownDescription: "API key, sent as a bearer token. Falls back to the `" + envAPIKey + "` environment variable, " +
					"which is the recommended place for it: keep keys out of configuration and version control. An explicit value wins.",
				Optional:  true,
				Sensitive: true,
			},
			"api": schema.StringAttribute{
				MarkdownDescription: "The API the server speaks: `\"" + string(client.APIVideoGenerations) + "\"` (the default: " +
					"`POST /v1/video/generations`, the task at `GET /v1/video/generations/{task_id}`) or `\"" +
					string(client.APIOpenAIVideos) + "\"` (the shape of OpenAI's video API, which OpenAI retired on 2026-09-24: " +
					"`POST /v1/videos`, `GET /v1/videos/{id}`, the clip at `GET /v1/videos/{id}/content` with the key, " +
					"`DELETE /v1/videos/{id}`), which new-api, LiteLLM's proxy, vLLM-Omni and SGLang serve. On `\"" +
					string(client.APIOpenAIVideos) + "\"` a clip is `model`, `prompt`, `seconds`, `ratio` with `resolution` " +
					"(one `size`) and at most one reference image; any other argument is an error at plan. Not detected. " +
					"`\"" + string(client.APIGemini) + "\"`: Google's Veo through the Gemini API (the key in `x-goog-api-key`; " +
					"`base_url` defaults to `" + client.GeminiBaseURL + "`), carrying " + apiCarries(apiGemini) + ". `\"" +
					string(client.APIVertex) + "\"`: Veo through Vertex AI (`project`, `location`, Application Default " +
					"Credentials, no `api_key`; `base_url` defaults to the location's endpoint), carrying " +
					apiCarries(apiVertex) + ". On both, at most 3 reference images, sent as their bytes; destroy only " +
					"removes a clip from state. " +
					"Falls back to the `" + envAPI + "` environment variable. Defaults to `\"" +
					string(client.APIVideoGenerations) + "\"`. A clip keeps the API it was made or imported through: after a " +
					"change, refreshing a clip of the other API, or replacing one whose wait was cut short (`-refresh=false` " +
					"skips the refresh), is an error that leaves state alone (use a second, aliased provider block for clips " +
					"of both).",
				Optional:   true,
				Validators: []validator.String{stringvalidator.OneOf(client.APINames()...)},
			},
			"project": schema.StringAttribute{
				MarkdownDescription: "On `api = \"" + string(client.APIVertex) + "\"`, the Google Cloud project whose Vertex AI " +
					"makes the clips. Falls back to `GOOGLE_CLOUD_PROJECT` (or `CLOUDSDK_CORE_PROJECT`), then to the project " +
					"of the Application Default Credentials. Credentials come only from Application Default Credentials " +
					"(`GOOGLE_APPLICATION_CREDENTIALS`, `gcloud auth application-default login`, a workload identity); no " +
					"argument takes one. Ignored by the other APIs. Changing it forces no new clip.",
				Optional: true,
			},
			"location": schema.StringAttribute{
				MarkdownDescription: "On `api = \"" + string(client.APIVertex) + "\"`, the Vertex AI location, such as " +
					"`us-central1` or `global`; `base_url` defaults to its endpoint. Falls back to `GOOGLE_CLOUD_LOCATION` (or " +
					"`GOOGLE_CLOUD_REGION`, `CLOUDSDK_COMPUTE_REGION`); one of them is required. Ignored by the other APIs.",
				Optional: true,
			},
			"delete_on_destroy": schema.BoolAttribute{
				MarkdownDescription: "On `api = \"" + string(client.APIOpenAIVideos) + "\"`, whether destroying (or " +
					"replacing) a finished `videogen_video` deletes it from the server (`DELETE /v1/videos/{id}`), refunding " +
					"nothing; a server without the delete (404) gets a warning, never an error, and an unfinished task only " +
					"leaves state. Ignored on `\"" + string(client.APIVideoGenerations) + "\"`, which has no delete. " +
					"Defaults to `true`.",
				Optional: true,
			},
			"max_retries": schema.Int64Attribute{
				MarkdownDescription: fmt.Sprintf("How many times a request is retried after a rate limit (429), a server error (5xx) "+
					"or, for reads, a connection error, with capped, jittered exponential back-off that honours `Retry-After`. "+
					"Defaults to `%d`.", client.DefaultMaxRetries),
				Optional:   true,
				Validators: []validator.Int64{int64validator.Between(0, 50)},
			},
			"request_timeout": schema.StringAttribute{
				MarkdownDescription: fmt.Sprintf("Time limit of one HTTP attempt, as a duration such as `30s`. Defaults to `%gs`.",
					client.DefaultRequestTimeout.Seconds()),
				Optional:   true,
				Validators: []validator.String{validators.Duration(time.Second)},
			},
			"submit_gateway_retries": schema.Int64Attribute{
				MarkdownDescription: fmt.Sprintf("How many times a submission is sent again after a gateway error (502, 504, "+
					"or a server error that is not the service's JSON) that may have come after the service accepted it; each "+
					"such retry is named in a warning, since it may leave a second, billed task. `0` never sends a submission "+
					"twice. Defaults to `%d`.", client.DefaultSubmitGatewayRetries),
				Optional:   true,
				Validators: []validator.Int64{int64validator.Between(0, 5)},
			},
			"max_new_clips": schema.Int64Attribute{
				MarkdownDescription: "Fails the plan, before anything is submitted, when it would generate more new clips than " +
					"this: a guard for unattended pipelines. It counts the clips whose `billing` is `" + clip.BillingNewClip +
					"`, `" + clip.BillingMayBillTwice + "` or unknown; a clip that resumes its task is not counted. Unset by " +
					"default: no limit.",
				Optional:   true,
				Validators: []validator.Int64{int64validator.AtLeast(0)},
			},
			"journal_path": schema.StringAttribute{
				MarkdownDescription: "File of the task journal: every submitted task until a state is known to hold it, so " +
					"that after Terraform or the provider is killed outright the next apply of the same state on this machine " +
					"adopts the task instead of billing it again. Several processes may share it; each entry belongs to one " +
					"state, and a running apply's task is never adopted. A fresh CI runner has no such file: use " +
					"`journal_url`. Defaults to `.terraform/videogen/pending-tasks.json` in the working directory (under " +
					"`TF_DATA_DIR` when set). Conflicts with `journal_url`.",
				Optional:   true,
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"journal_url": schema.StringAttribute{
				MarkdownDescription: "A PostgreSQL database in which to keep the task journal (see `journal_path`) instead of " +
					"a local file, so that CI runners that start in fresh directories share it: a `postgres://` or " +
					"`postgresql://` URL, the form of the `pg` backend's `conn_str`, such as " +
					"`postgres://user:password@db.example.com/terraform`. The provider creates the schema `videogen_journal` " +
					"and its table on first use. A journal that cannot be reached or written fails the plan, or the apply " +
					"before anything is submitted. The password is kept out of logs and messages; keep it out of the " +
					"configuration too: falls back to the `" + envJournalURL + "` environment variable, the recommended " +
					"place for it. Unset by default: the journal is the local file of `journal_path`. Conflicts with " +
					"`journal_path`.",
				Optional:   true,
				Sensitive:  true,
				Validators: []validator.String{validators.DatabaseURL()},
			},
			"max_requests_per_second": schema.Float64Attribute{
				MarkdownDescription: fmt.Sprintf("The most API requests per second this provider configuration sends, shared by "+
					"all its resources and data sources, submissions first: set it to your key's rate limit. Unset by default: "+
					"requests are not paced until the service answers 429. Either way, a 429 with `Retry-After` holds back "+
					"every request until then and halves the rate, which climbs back; a refused request is sent again for up "+
					"to %g minutes before `max_retries` applies. Clip downloads wait out the pauses but do not count against "+
					"this rate.", client.DefaultRateLimitPatience.Minutes()),
				Optional:   true,
				Validators: []validator.Float64{float64validator.AtLeast(0.1)},
			},
			"poll_interval": schema.StringAttribute{
				MarkdownDescription: "A fixed interval between status checks while waiting for a task, such as `5s`. It also " +
					"overrides a `Retry-After` the service sends with a task's status, but never shortens the wait after a rate " +
					"limit (429). When unset, the provider polls adaptively: five checks 0.45 seconds apart, then one every 4 " +
					"seconds, jittered by up to 10% so that parallel waits spread out, and a `Retry-After` from the service is " +
					"honoured. Once a few clips of the same model, `seconds`, `resolution` and `generate_audio` have finished in " +
					"one run, later clips of that kind are checked around the time those took instead, never with more than one " +
					"check beyond what the default schedule allows for the clip's generation time.",
				Optional:   true,
				Validators: []validator.String{validators.Duration(100 * time.Millisecond)},
			},
		},
	}
	for name, attr := range networkAttributes() {
		resp.Schema.Attributes[name] = attr
	}
}

func (p *videogenProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	// Values from other resources are unknown during plan; the provider is configured
	// again at apply time, when they are known.
	if !req.Config.Raw.IsFullyKnown() {
		tflog.Debug(ctx, "videogen provider configuration has unknown values; deferring client set-up")
		return
	}
	var cfg providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}

	baseURL := stringOrEnv(cfg.BaseURL, envBaseURL)
	apiKey := stringOrEnv(cfg.APIKey, envAPIKey)
	api := client.APIVideoGenerations
	if name := stringOrEnv(cfg.API, envAPI); name != "" {
		// The schema checks api itself: only the environment variable can be wrong here.
		var err error
		if api, err = client.ParseAPI(name); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("api"), "Invalid API",
				fmt.Sprintf("The %s environment variable must name the API the server speaks. Set it to one of %s, or "+
					"unset it for the default.\n\nOriginal error: %s", envAPI, strings.Join(client.APINames(), ", "), err))
			return
		}
	}
	var googleOpts []client.Option
	switch api {
	case client.APIGemini:
		if baseURL == "" {
			baseURL = client.GeminiBaseURL
		}
	case client.APIVertex:
		googleOpts, apiKey = vertexOptions(ctx, cfg, &resp.Diagnostics), ""
		// Vertex AI's address follows from the location.
		baseURL = stringOrEnv(cfg.BaseURL, envBaseURL)
		if resp.Diagnostics.HasError() {
			return
		}
	}
	if baseURL == "" && api != client.APIVertex {
		resp.Diagnostics.AddAttributeError(path.Root("base_url"), "Missing Base URL",
			"The provider needs the service's base URL. Set base_url in the provider block or the "+envBaseURL+
				" environment variable, for example https://api.example.com/v1.")
	}
	if apiKey == "" && api != client.APIVertex {
		resp.Diagnostics.AddAttributeError(path.Root("api_key"), "Missing API Key",
			"The provider needs an API key. Set the "+envAPIKey+" environment variable (recommended, so the key stays "+
				"out of configuration and version control) or api_key in the provider block.")
	}
	if resp.Diagnostics.HasError() {
		return
	}

	opts := []client.Option{
		client.WithUserAgent("terraform-provider-videogen/" + p.version),
		client.WithLogger(clientLogger{}),
		client.WithAPI(api),
	}
	opts = append(opts, googleOpts...)
	if !cfg.MaxRetries.IsNull() {
		opts = append(opts, client.WithMaxRetries(int(cfg.MaxRetries.ValueInt64())))
	}
	if !cfg.SubmitGatewayRetries.IsNull() {
		opts = append(opts, client.WithSubmitGatewayRetries(int(cfg.SubmitGatewayRetries.ValueInt64())))
	}
	if d, ok := parseDurationAttr(cfg.RequestTimeout); ok {
		opts = append(opts, client.WithRequestTimeout(d))
	}
	if !cfg.MaxRequestsPerSecond.IsNull() {
		opts = append(opts, client.WithRateLimit(cfg.MaxRequestsPerSecond.ValueFloat64()))
	}
	if d, ok := parseDurationAttr(cfg.PollInterval); ok {
		policy := client.DefaultPollPolicy()
		policy.Fixed = d
		opts = append(opts, client.WithPollPolicy(policy))
	}
	opts = append(opts, networkOptions(ctx, cfg.CAFile, cfg.CAPEM, cfg.Headers, &resp.Diagnostics)...)
	if resp.Diagnostics.HasError() {
		return
	}

	c, err := client.New(baseURL, apiKey, opts...)
	if hint := validators.SchemeHint(strings.TrimSpace(baseURL)); err != nil && hint != "" {
		// base_url in the provider block is checked at validation; this is the
		// environment variable's turn.
		err = fmt.Errorf("base URL %s", hint)
	}
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("base_url"), "Invalid Provider Configuration",
			fmt.Sprintf("The videogen client could not be set up: %s. Check base_url (or %s).", err, envBaseURL))
		return
	}
	jnl := openJournal(cfg, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	maxNewClips := int64(-1)
	if !cfg.MaxNewClips.IsNull() {
		maxNewClips = cfg.MaxNewClips.ValueInt64()
	}
	models := client.NewModelCatalog(c)
	data := &providerData{
		client: c, models: models, journal: jnl,
		lifecycle: clip.New(clip.Config{Client: c, Models: models, Journal: jnl, API: api,
			MaxNewClips: maxNewClips, Log: clientLogger{},
			DeleteOnDestroy: cfg.DeleteOnDestroy.IsNull() || cfg.DeleteOnDestroy.ValueBool()}),
		api: apiShape(api),
	}
	resp.ResourceData = data
	resp.DataSourceData = data
	resp.EphemeralResourceData = data
}

// ConfigValidators rejects, at plan, a configuration with both journals.
func (p *videogenProvider) ConfigValidators(context.Context) []provider.ConfigValidator {
	return []provider.ConfigValidator{
		providervalidator.Conflicting(path.MatchRoot("journal_path"), path.MatchRoot("journal_url")),
	}
}

// openJournal opens the journal of journal_url (or VIDEOGEN_JOURNAL_URL), else
// of journal_path, for the state this run works on. Nothing is read yet: an
// unreachable database fails the first plan that creates a clip, not a refresh.
func openJournal(cfg providerModel, diags *diag.Diagnostics) *journal.Journal {
	state := journal.CurrentState()
	url := cfg.JournalURL.ValueString()
	fromEnv := cfg.JournalURL.IsNull() && os.Getenv(envJournalURL) != ""
	if fromEnv {
		url = os.Getenv(envJournalURL)
		if err := validators.CheckDatabaseURL(url); err != nil {
			diags.AddAttributeError(path.Root("journal_url"), "Invalid Journal URL",
				fmt.Sprintf("The %s environment variable is not a database URL the provider can use: %s.", envJournalURL, err))
			return nil
		}
	}
	switch {
	case url != "" && !cfg.JournalPath.IsNull():
		diags.AddAttributeError(path.Root("journal_path"), "Conflicting Task Journals",
			fmt.Sprintf("journal_path is set in the provider block and %s is set in the environment: the provider keeps one "+
				"task journal. Remove journal_path to share the journal in the database (the way fresh CI runners are "+
				"protected), or unset %s to keep it in the file.", envJournalURL, envJournalURL))
		return nil
	case url != "":
		return journal.NewPostgres(url, state, journal.DefaultMaxAge)
	case !cfg.JournalPath.IsNull():
		return journal.New(cfg.JournalPath.ValueString(), state, journal.DefaultMaxAge)
	}
	return journal.New(journal.DefaultPath(), state, journal.DefaultMaxAge)
}

func (p *videogenProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		NewVideoResource,
		videofile.NewResource,
	}
}

func (p *videogenProvider) DataSources(context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		NewModelsDataSource,
		NewVideoDataSource,
	}
}

func (p *videogenProvider) EphemeralResources(context.Context) []func() ephemeral.EphemeralResource {
	return []func() ephemeral.EphemeralResource{NewVideoURLEphemeralResource}
}

func stringOrEnv(v types.String, env string) string {
	if !v.IsNull() {
		return v.ValueString()
	}
	return os.Getenv(env)
}

func parseDurationAttr(v types.String) (time.Duration, bool) {
	if v.IsNull() || v.IsUnknown() {
		return 0, false
	}
	d, err := time.ParseDuration(v.ValueString())
	return d, err == nil
}

// clientLogger routes the client's request logs, which the client has already
// freed of the API key, and the clip lifecycle's, to tflog.
type clientLogger struct{}

func (clientLogger) Debug(ctx context.Context, msg string, fields map[string]any) {
	tflog.Debug(ctx, msg, fields)
}

// Info and Warn route the clip lifecycle's logs (clip.Logger).
func (clientLogger) Info(ctx context.Context, msg string, fields map[string]any) {
	tflog.Info(ctx, msg, fields)
}

func (clientLogger) Warn(ctx context.Context, msg string, fields map[string]any) {
	tflog.Warn(ctx, msg, fields)
}

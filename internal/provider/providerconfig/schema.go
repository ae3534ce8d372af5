package providerconfig

import (
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/clip"
	"github.com/videogen/terraform-provider-videogen/internal/validators"
)

// Schema is the provider block's schema.
func Schema() schema.Schema {
	s := schema.Schema{
		MarkdownDescription: "Generates video clips with an asynchronous, OpenAI-style video generation API and keeps them as Terraform-managed assets.",
		Attributes: map[string]schema.Attribute{
			"base_url": schema.StringAttribute{
				MarkdownDescription: "Base URL of the service, with or without the `/v1` suffix that OpenAI-style tools are given " +
					"(`https://api.example.com` and `https://api.example.com/v1` reach the same endpoints). Must be an absolute " +
					"`http` or `https` URL. Falls back to the `" + EnvBaseURL + "` environment variable; one of the two is required.",
				Optional:   true,
				Validators: []validator.String{validators.HTTPURL()},
			},
			"api_key": schema.StringAttribute{
				MarkdownDescription: "API key, sent as a bearer token. Falls back to the `" + EnvAPIKey + "` environment variable, " +
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
					string(client.APIOpenAIVideos) + "\"`, at most one reference image. Not detected. " +
					"`\"" + string(client.APIGemini) + "\"`: Google's Veo through the Gemini API (the key in `x-goog-api-key`; " +
					"`base_url` defaults to `" + client.GeminiBaseURL + "`). `\"" +
					string(client.APIVertex) + "\"`: Veo through Vertex AI (`project`, `location`, Application Default " +
					"Credentials, no `api_key`; `base_url` defaults to the location's endpoint). On both, at most 3 reference " +
					"images, sent as their bytes; destroy only removes a clip from state. " +
					"Falls back to the `" + EnvAPI + "` environment variable. Defaults to `\"" +
					string(client.APIVideoGenerations) + "\"`. A clip keeps the API it was made or imported through: after a " +
					"change, refreshing a clip of the other API, or replacing one whose wait was cut short (`-refresh=false` " +
					"skips the refresh), is an error that leaves state alone (use a second, aliased provider block for clips " +
					"of both).",
				Optional:   true,
				Validators: []validator.String{validators.OneOf("Invalid API", client.APINames()...)},
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
			"max_cost": schema.StringAttribute{
				MarkdownDescription: "Fails the plan, before anything is submitted, when its new clips would cost more than " +
					"this, as the service prices them (its model list's `price_per_second` or `price_per_clip`, with " +
					"`currency`; or new-api's price list, in USD): a decimal number in that unit, such as `\"25\"`. The clips " +
					"`max_new_clips` counts are added up; a clip whose cost the plan cannot tell (an unpriced model, a model " +
					"or `seconds` known only after apply) fails the plan while this is set. A priced clip's `billing` says its " +
					"cost either way. Unset by default: no cap.",
				Optional:   true,
				Validators: []validator.String{validators.Amount()},
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
					"configuration too: falls back to the `" + EnvJournalURL + "` environment variable, the recommended " +
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
		s.Attributes[name] = attr
	}
	return s
}

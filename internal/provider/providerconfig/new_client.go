package providerconfig

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/validators"
)

// NewClient is the client of the service the provider block (and the
// environment it falls back to) describes, and the API it speaks; nil, with
// an error on the setting at fault, when the block cannot make one.
func NewClient(ctx context.Context, cfg Model, userAgent string, diags *diag.Diagnostics) (*client.Client, client.API) {
	baseURL := stringOrEnv(cfg.BaseURL, EnvBaseURL)
	apiKey := stringOrEnv(cfg.APIKey, EnvAPIKey)
	api := client.APIVideoGenerations
	if name := stringOrEnv(cfg.API, EnvAPI); name != "" {
		// The schema checks api itself: only the environment variable can be wrong here.
		var err error
		if api, err = client.ParseAPI(name); err != nil {
			diags.AddAttributeError(path.Root("api"), "Invalid API",
				fmt.Sprintf("The %s environment variable must name the API the server speaks. Set it to one of %s, or "+
					"unset it for the default.\n\nOriginal error: %s", EnvAPI, strings.Join(client.APINames(), ", "), err))
			return nil, api
		}
	}
	var googleOpts []client.Option
	switch api {
	case client.APIGemini:
		if baseURL == "" {
			baseURL = client.GeminiBaseURL
		}
	case client.APIVertex:
		googleOpts, apiKey = vertexOptions(ctx, cfg, diags), ""
		// Vertex AI's address follows from the location.
		baseURL = stringOrEnv(cfg.BaseURL, EnvBaseURL)
		if diags.HasError() {
			return nil, api
		}
	}
	if baseURL == "" && api != client.APIVertex {
		diags.AddAttributeError(path.Root("base_url"), "Missing Base URL",
			"The provider needs the service's base URL. Set base_url in the provider block or the "+EnvBaseURL+
				" environment variable, for example https://api.example.com/v1.")
	}
	if apiKey == "" && api != client.APIVertex {
		diags.AddAttributeError(path.Root("api_key"), "Missing API Key",
			"The provider needs an API key. Set the "+EnvAPIKey+" environment variable (recommended, so the key stays "+
				"out of configuration and version control) or api_key in the provider block.")
	}
	if diags.HasError() {
		return nil, api
	}

	opts := []client.Option{
		client.WithUserAgent(userAgent),
		client.WithLogger(Logger{}),
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
	opts = append(opts, networkOptions(ctx, cfg.CAFile, cfg.CAPEM, cfg.Headers, diags)...)
	if diags.HasError() {
		return nil, api
	}

	c, err := client.New(baseURL, apiKey, opts...)
	if hint := validators.SchemeHint(strings.TrimSpace(baseURL)); err != nil && hint != "" {
		// base_url in the provider block is checked at validation; this is the
		// environment variable's turn.
		err = fmt.Errorf("base URL %s", hint)
	}
	if err != nil {
		diags.AddAttributeError(path.Root("base_url"), "Invalid Provider Configuration",
			fmt.Sprintf("The videogen client could not be set up: %s. Check base_url (or %s).", err, EnvBaseURL))
		return nil, api
	}
	return c, api
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

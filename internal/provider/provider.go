// Package provider implements the videogen Terraform provider on terraform-plugin-framework.
package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/providervalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/clip"
	"github.com/videogen/terraform-provider-videogen/internal/provider/providerconfig"
	"github.com/videogen/terraform-provider-videogen/internal/provider/videofile"
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

func (p *videogenProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "videogen"
	resp.Version = p.version
}

func (p *videogenProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = providerconfig.Schema()
}

func (p *videogenProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	// Values from other resources are unknown during plan; the provider is configured
	// again at apply time, when they are known.
	if !req.Config.Raw.IsFullyKnown() {
		tflog.Debug(ctx, "videogen provider configuration has unknown values; deferring client set-up")
		return
	}
	var cfg providerconfig.Model
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}

	c, api := providerconfig.NewClient(ctx, cfg, "terraform-provider-videogen/"+p.version, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	jnl := providerconfig.OpenJournal(cfg, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	models := client.NewModelCatalog(c)
	data := &providerData{
		client: c, models: models, journal: jnl,
		lifecycle: clip.New(clip.Config{Client: c, Models: models, Journal: jnl, API: api,
			MaxNewClips: cfg.NewClipLimit(), MaxCost: cfg.CostLimit(), Log: providerconfig.Logger{}, DeleteOnDestroy: cfg.DeletesOnDestroy()}),
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

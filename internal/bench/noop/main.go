// Command noop is the bench's no-op provider: it serves videogen_video with
// the real resource's schema and identity schema, and does no work, so that
// the bench can measure what Terraform itself spends on 2,000 resources of
// that schema (decoding, diffing and storing some 25 attributes, a timeouts
// block, an identity and private state) apart from what the provider spends.
// The bench installs it as an old version of videogen/videogen, which only its
// own configuration asks for; it is never released.
package main

import (
	"context"
	"log"
	"os"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

func main() {
	// As the real provider does when nobody reads them (main.go's
	// silenceDroppedLogs): the bench sets no TF_LOG, and a floor that encoded
	// trace lines the real provider does not would be no floor.
	for _, name := range []string{"TF_LOG_PROVIDER", "TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK"} {
		_ = os.Setenv(name, "off")
	}
	err := providerserver.Serve(context.Background(), func() provider.Provider { return noopProvider{} },
		providerserver.ServeOpts{Address: "registry.terraform.io/videogen/videogen"})
	if err != nil {
		log.Fatal(err.Error())
	}
}

var _ provider.Provider = noopProvider{}

// noopProvider has no settings and one resource type.
type noopProvider struct{}

func (noopProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "videogen"
}

func (noopProvider) Schema(context.Context, provider.SchemaRequest, *provider.SchemaResponse) {}

func (noopProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}

func (noopProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{newClip}
}

func (noopProvider) DataSources(context.Context) []func() datasource.DataSource { return nil }

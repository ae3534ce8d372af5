package providerconfig

import (
	"context"
	"fmt"
	"os"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/videogen/terraform-provider-videogen/internal/client"
)

// envCAFile names a file of extra CA certificates, as ca_file does.
const envCAFile = "VIDEOGEN_CA_FILE"

// networkAttributes are the provider settings for a service on a company
// network: an internal certificate authority, a header-based gateway, a proxy.
func networkAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"ca_file": schema.StringAttribute{
			MarkdownDescription: "A file of PEM certificates of certificate authorities to trust besides the system's, for " +
				"a server whose certificate an internal authority signed (a self-hosted vLLM-Omni or SGLang, a gateway). " +
				"Falls back to the `" + envCAFile + "` environment variable. Added to `ca_pem` when both are set. Unset by " +
				"default: only the system's authorities are trusted (on Linux `SSL_CERT_FILE` and `SSL_CERT_DIR` change " +
				"those).",
			Optional:   true,
			Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
		},
		"ca_pem": schema.StringAttribute{
			MarkdownDescription: "PEM certificates of certificate authorities to trust besides the system's, as text (for " +
				"example `file(\"internal-ca.pem\")` or a variable); see `ca_file`. Unset by default.",
			Optional:   true,
			Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
		},
		"headers": schema.MapAttribute{
			MarkdownDescription: "Extra HTTP headers sent with every request to the service, such as the token of a " +
				"gateway in front of a self-hosted server (`{ \"X-Gateway-Token\" = var.gateway_token }`). Their values " +
				"are secrets like the API key: sensitive in plans, kept out of logs (even `TF_LOG=TRACE`) and errors, and " +
				"sent only to the service's own origin (scheme, host and port of `base_url`): never to a clip on another " +
				"host, never past a redirect that leaves it. The headers the provider sets itself (`Authorization`, " +
				"`Content-Type`, `Accept`, `User-Agent`, `Idempotency-Key`, ...) cannot be given. Unset by default: no " +
				"extra header. Proxies come from the standard `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY` environment " +
				"variables.",
			ElementType: types.StringType,
			Optional:    true,
			Sensitive:   true,
		},
	}
}

// networkOptions reads the network settings into client options. Each source
// of CA certificates is checked on its own, so that an error names the one
// that is wrong; nothing of a header's value or a certificate is quoted.
func networkOptions(ctx context.Context, caFile, caPEM types.String, headers types.Map, diags *diag.Diagnostics) []client.Option {
	var opts []client.Option
	file, attr := caFile.ValueString(), "ca_file"
	fromEnv := caFile.IsNull() && os.Getenv(envCAFile) != ""
	if fromEnv {
		file = os.Getenv(envCAFile)
	}
	if file != "" {
		where := "ca_file"
		if fromEnv {
			where = "the " + envCAFile + " environment variable"
		}
		data, err := os.ReadFile(file) //nolint:gosec // G703: the user's own setting names the file to read
		switch {
		case err != nil:
			diags.AddAttributeError(path.Root(attr), "Unreadable CA Certificates",
				fmt.Sprintf("The file of CA certificates that %s names could not be read. Check the path, relative to the "+
					"directory Terraform runs in.\n\nOriginal error: %s", where, err))
		case client.CheckCACertificates(data) != nil:
			diags.AddAttributeError(path.Root(attr), "Invalid CA Certificates",
				fmt.Sprintf("The file %s (%s) holds no usable CA certificate: give the PEM certificate of the authority that "+
					"signed the server's certificate.\n\nOriginal error: %s", file, where, client.CheckCACertificates(data)))
		default:
			opts = append(opts, client.WithCACertificates(data))
		}
	}
	if !caPEM.IsNull() {
		data := []byte(caPEM.ValueString())
		if err := client.CheckCACertificates(data); err != nil {
			diags.AddAttributeError(path.Root("ca_pem"), "Invalid CA Certificates",
				fmt.Sprintf("ca_pem holds no usable CA certificate: give the PEM certificate of the authority that signed "+
					"the server's certificate.\n\nOriginal error: %s", err))
		} else {
			opts = append(opts, client.WithCACertificates(data))
		}
	}
	if !headers.IsNull() {
		values := map[string]string{}
		diags.Append(headers.ElementsAs(ctx, &values, false)...)
		if err := client.CheckHeaders(values); err != nil {
			diags.AddAttributeError(path.Root("headers"), "Invalid Header",
				fmt.Sprintf("A header in headers cannot be sent: %s. Remove or rename it.", err))
		} else if len(values) > 0 {
			opts = append(opts, client.WithHeaders(values))
		}
	}
	return opts
}

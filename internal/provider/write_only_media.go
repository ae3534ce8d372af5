package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/videogen/terraform-provider-videogen/internal/framework/planmodifiers"
	"github.com/videogen/terraform-provider-videogen/internal/validators"
)

// Write-only reference media (Terraform and OpenTofu 1.11 or later) reach the
// service at create and never state or plan: presigned URLs are bearer credentials
// while they live. The version argument marks a clip made from them; while it is
// set, the stored reference lists stay null, and the service's echo of the media
// is not recorded.
const writeOnlyVersionAttr = "reference_media_wo_version"

// storedMediaPaths are the stored reference lists, which write-only media exclude.
func storedMediaPaths() []path.Expression {
	var p []path.Expression
	for _, a := range clipArguments {
		if a.writeOnly != nil {
			p = append(p, path.MatchRoot(a.name))
		}
	}
	return p
}

func writeOnlyMediaList(stored clipArgument) schema.ListAttribute {
	k := stored.writeOnly
	return schema.ListAttribute{
		MarkdownDescription: fmt.Sprintf("Write-only form of `%s` (Terraform and OpenTofu 1.11 or later; older CLIs "+
			"reject it): up to %d reference %s URLs, sent at create and never stored in state or plan. Same rules as "+
			"`%s`; excludes the stored reference lists and needs `%s`: changing these URLs alone changes nothing, "+
			"changing `%s` generates a new clip from them.%s",
			stored.name, k.limit, k.noun, stored.name, writeOnlyVersionAttr, writeOnlyVersionAttr, k.citation),
		ElementType: types.StringType,
		Optional:    true,
		WriteOnly:   true,
		Validators: append(validators.ReferenceURLs(k.limit),
			listvalidator.ConflictsWith(storedMediaPaths()...),
			listvalidator.AlsoRequires(path.MatchRoot(writeOnlyVersionAttr)),
		),
	}
}

func writeOnlyMediaVersionAttribute() schema.Int64Attribute {
	return schema.Int64Attribute{
		MarkdownDescription: "Version of the write-only reference media (`reference_images_wo`, `reference_videos_wo`, " +
			"`reference_audios_wo`); required with them, and cannot be combined with the stored reference lists, which " +
			"stay null while it is set (the service's echo of the media is not recorded either). Any number: changing it " +
			"forces a new clip, made from the write-only URLs of that apply. Setting it on a clip that had none forces a " +
			"new clip too, unless the write-only URLs name the same media as the stored ones (another signature is the " +
			"same media), which moves the clip to write-only media in place.",
		Optional:      true,
		PlanModifiers: []planmodifier.Int64{writeOnlyVersion},
	}
}

// writeOnlyVersion plans the replacement that write-only media cannot plan
// themselves, and moves an existing clip to write-only media that name the same
// media in place. Its twins are read from the table at init, since the table's own
// version row holds it.
var writeOnlyVersion = &planmodifiers.WriteOnlyVersion{Same: validators.SameMediaLists, ImportedWithout: importedWithout}

func init() {
	for _, a := range clipArguments {
		if a.writeOnly != nil {
			writeOnlyVersion.Twins = append(writeOnlyVersion.Twins, planmodifiers.Twin{WriteOnly: a.writeOnly.name, Stored: a.name})
		}
	}
}

// writeOnlyMedia reads the write-only lists from the configuration, the only place
// they exist: the plan and state hold null.
func writeOnlyMedia(ctx context.Context, config tfsdk.Config) (map[string]types.List, diag.Diagnostics) {
	var diags diag.Diagnostics
	lists := map[string]types.List{}
	if config.Raw.IsNull() {
		return lists, diags
	}
	for _, a := range clipArguments {
		if a.writeOnly != nil {
			var l types.List
			diags.Append(config.GetAttribute(ctx, path.Root(a.writeOnly.name), &l)...)
			lists[a.name] = l
		}
	}
	return lists, diags
}

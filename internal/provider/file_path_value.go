package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/videogen/terraform-provider-videogen/internal/localfile"
)

var _ basetypes.StringValuableWithSemanticEquals = filePath{}

// filePath is the value of a filePathType attribute. Semantic equality keeps the
// spelling already in state when the new one names the same file: `out/x.mp4`,
// `./out/x.mp4` (what `${path.module}/out/x.mp4` gives) and the absolute form
// are one file once cleaned and resolved against the directory Terraform runs in.
type filePath struct {
	basetypes.StringValue
}

func filePathValue(s string) filePath { return filePath{StringValue: basetypes.NewStringValue(s)} }

func (v filePath) Type(context.Context) attr.Type { return filePathType{} }

func (v filePath) Equal(o attr.Value) bool {
	other, ok := o.(filePath)
	return ok && v.StringValue.Equal(other.StringValue)
}

func (v filePath) StringSemanticEquals(_ context.Context, newValuable basetypes.StringValuable) (bool, diag.Diagnostics) {
	other, ok := newValuable.(filePath)
	if !ok {
		return false, nil
	}
	return localfile.SamePath(v.ValueString(), other.ValueString()), nil
}

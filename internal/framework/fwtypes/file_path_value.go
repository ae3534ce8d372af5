package fwtypes

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/videogen/terraform-provider-videogen/internal/localfile"
)

var _ basetypes.StringValuableWithSemanticEquals = FilePath{}

// FilePath is the value of a FilePathType attribute. Semantic equality keeps the
// spelling already in state when the new one names the same file: `out/x.mp4`,
// `./out/x.mp4` (what `${path.module}/out/x.mp4` gives) and the absolute form
// are one file once cleaned and resolved against the directory Terraform runs in.
type FilePath struct {
	basetypes.StringValue
}

// FilePathValue is a known FilePath.
func FilePathValue(s string) FilePath { return FilePath{StringValue: basetypes.NewStringValue(s)} }

func (v FilePath) Type(context.Context) attr.Type { return FilePathType{} }

func (v FilePath) Equal(o attr.Value) bool {
	other, ok := o.(FilePath)
	return ok && v.StringValue.Equal(other.StringValue)
}

func (v FilePath) StringSemanticEquals(_ context.Context, newValuable basetypes.StringValuable) (bool, diag.Diagnostics) {
	other, ok := newValuable.(FilePath)
	if !ok {
		return false, nil
	}
	return localfile.SamePath(v.ValueString(), other.ValueString()), nil
}

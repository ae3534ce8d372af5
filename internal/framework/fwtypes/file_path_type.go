// Package fwtypes holds the provider's custom attribute types for
// terraform-plugin-framework: values that compare by what they mean rather
// than by how they are spelled.
package fwtypes

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

var _ basetypes.StringTypable = FilePathType{}

// FilePathType is a string attribute that names a local file. Its values compare
// as paths (see FilePath), so that two spellings of one file never plan a
// replacement.
type FilePathType struct {
	basetypes.StringType
}

func (t FilePathType) String() string { return "fwtypes.FilePathType" }

func (t FilePathType) Equal(o attr.Type) bool {
	other, ok := o.(FilePathType)
	return ok && t.StringType.Equal(other.StringType)
}

func (t FilePathType) ValueType(context.Context) attr.Value { return FilePath{} }

func (t FilePathType) ValueFromString(_ context.Context, in basetypes.StringValue) (basetypes.StringValuable, diag.Diagnostics) {
	return FilePath{StringValue: in}, nil
}

func (t FilePathType) ValueFromTerraform(ctx context.Context, in tftypes.Value) (attr.Value, error) {
	v, err := t.StringType.ValueFromTerraform(ctx, in)
	if err != nil {
		return nil, err
	}
	s, ok := v.(basetypes.StringValue)
	if !ok {
		return nil, fmt.Errorf("unexpected value type %T", v)
	}
	return FilePath{StringValue: s}, nil
}

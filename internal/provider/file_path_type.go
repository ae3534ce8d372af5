package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

var _ basetypes.StringTypable = filePathType{}

// filePathType is a string attribute that names a local file. Its values compare
// as paths (see filePath), so that two spellings of one file never plan a
// replacement.
type filePathType struct {
	basetypes.StringType
}

func (t filePathType) String() string { return "filePathType" }

func (t filePathType) Equal(o attr.Type) bool {
	other, ok := o.(filePathType)
	return ok && t.StringType.Equal(other.StringType)
}

func (t filePathType) ValueType(context.Context) attr.Value { return filePath{} }

func (t filePathType) ValueFromString(_ context.Context, in basetypes.StringValue) (basetypes.StringValuable, diag.Diagnostics) {
	return filePath{StringValue: in}, nil
}

func (t filePathType) ValueFromTerraform(ctx context.Context, in tftypes.Value) (attr.Value, error) {
	v, err := t.StringType.ValueFromTerraform(ctx, in)
	if err != nil {
		return nil, err
	}
	s, ok := v.(basetypes.StringValue)
	if !ok {
		return nil, fmt.Errorf("unexpected value type %T", v)
	}
	return filePath{StringValue: s}, nil
}

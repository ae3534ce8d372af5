package fwtypes

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

func TestFilePathSemanticEquals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"out/x.mp4", "out/x.mp4", true},
		{"out/x.mp4", "./out/x.mp4", true},
		{"out/x.mp4", "out/../out/x.mp4", true},
		{"out/x.mp4", "out/y.mp4", false},
		{"out/x.mp4", "x.mp4", false},
	} {
		same, diags := FilePathValue(tc.a).StringSemanticEquals(context.Background(), FilePathValue(tc.b))
		if diags.HasError() || same != tc.same {
			t.Errorf("%q ~ %q: got %v (%v), want %v", tc.a, tc.b, same, diags, tc.same)
		}
	}
}

func TestFilePathTypeReadsFilePaths(t *testing.T) {
	t.Parallel()
	v, err := FilePathType{}.ValueFromTerraform(context.Background(), tftypes.NewValue(tftypes.String, "out/x.mp4"))
	if err != nil {
		t.Fatal(err)
	}
	if !v.Equal(FilePathValue("out/x.mp4")) || v.Equal(FilePathValue("./out/x.mp4")) {
		t.Errorf("got %#v, want FilePath out/x.mp4 equal only to its own spelling", v)
	}
}

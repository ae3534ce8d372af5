package validators

import (
	"math"
	"reflect"
	"testing"
)

func TestImageCitations(t *testing.T) {
	t.Parallel()
	tests := []struct {
		prompt string
		want   []ImageCitation
	}{
		{"", nil},
		{"@image1", []ImageCitation{{"@image1", 1}}},
		{"@image1 meets @image2", []ImageCitation{{"@image1", 1}, {"@image2", 2}}},
		{"a cat (@image1), a dog (@image2)", []ImageCitation{{"@image1", 1}, {"@image2", 2}}},
		{"see @image1, then @image12.", []ImageCitation{{"@image1", 1}, {"@image12", 12}}},
		{"end with @image3.", []ImageCitation{{"@image3", 3}}},
		{"\"@image1\" and '@image2'; @image3: @image4!", []ImageCitation{{"@image1", 1}, {"@image2", 2}, {"@image3", 3}, {"@image4", 4}}},
		{"@image0 at dawn", []ImageCitation{{"@image0", 0}}},
		{"line\n@image2\n", []ImageCitation{{"@image2", 2}}},
		{"@image1-style light", nil},
		{"@image1 - then", []ImageCitation{{"@image1", 1}}},
		{"@image99999999999999999999", []ImageCitation{{"@image99999999999999999999", math.MaxInt}}},
		// E-mail addresses and longer words are not citations.
		{"contact me@image1.com", nil},
		{"first.last@image2.example.org", nil},
		{"x+tag@image1.io and y_z@image3 and a-b@image4", nil},
		{"@image1x", nil},
		{"@image1_2", nil},
		{"@image1.com", nil},
		{"@image1-cdn.net", nil},
		{"café@image1", nil},
		{"@images1", nil},
		{"@Image1", nil},
	}
	for _, tt := range tests {
		if got := ImageCitations(tt.prompt); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ImageCitations(%q) = %v, want %v", tt.prompt, got, tt.want)
		}
	}
}

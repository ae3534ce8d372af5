package validators

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

var testExtraMetadata = ExtraMetadata{Typed: map[string]string{"ratio": "ratio", "content": "reference_images or reference_videos"}}

func TestExtraMetadata(t *testing.T) {
	t.Parallel()
	checkString(t, testExtraMetadata, "extra_metadata", []stringCase{
		{value: types.StringNull()},
		{value: types.StringUnknown()},
		{value: types.StringValue(`{}`)},
		{value: types.StringValue(`{"first_frame_image":"https://x.example.com/a.png","watermark":false}`)},
		{value: types.StringValue(`[]`), wantErr: "must be a JSON object"},
		{value: types.StringValue(`null`), wantErr: "must be a JSON object"},
		{value: types.StringValue(`{"a":1} {"b":2}`), wantErr: "must be a JSON object"},
		{value: types.StringValue(`{"ratio":"16:9"}`), wantErr: `"ratio" (use the ratio argument)`},
		{value: types.StringValue(`{"content":[],"ratio":"1:1"}`),
			wantErr: `"content" (use the reference_images or reference_videos argument), "ratio"`},
	})
}

func TestExtraMetadataParse(t *testing.T) {
	t.Parallel()
	got, err := testExtraMetadata.Parse(types.StringValue(`{"seed": 7, "camera_fixed": true}`))
	if err != nil || string(got["seed"]) != "7" || string(got["camera_fixed"]) != "true" || len(got) != 2 {
		t.Errorf("Parse = %v, %v; want seed and camera_fixed as written", got, err)
	}
}

func TestFrameModeKeys(t *testing.T) {
	t.Parallel()
	extra := map[string]json.RawMessage{
		"first_frame_image": json.RawMessage(`"https://x.example.com/a.png"`),
		"Last_Frame":        json.RawMessage(`"https://x.example.com/b.png"`),
		"frame_mode":        json.RawMessage(` null `),
		"seed":              json.RawMessage(`7`),
	}
	if got := FrameModeKeys(extra); !slices.Equal(got, []string{"Last_Frame", "first_frame_image"}) {
		t.Errorf("FrameModeKeys = %q, want the two set frame keys, sorted", got)
	}
}

package client

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestListModels(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		body    string
		want    []Model
		wantErr []string
	}{
		{
			name: "openai list",
			body: `{"object":"list","data":[
				{"id":"veo-3","object":"model","owned_by":"google","created":1717000000},
				{"id":"kling-2","object":"model","owned_by":"kuaishou","created":1.7e9},
				{"id":"a-first-alphabetically","object":"model"}]}`,
			want: []Model{
				{ID: "veo-3", OwnedBy: "google", Created: 1717000000},
				{ID: "kling-2", OwnedBy: "kuaishou", Created: 1700000000},
				{ID: "a-first-alphabetically"},
			},
		},
		{name: "empty list", body: `{"object":"list","data":[]}`, want: []Model{}},
		{name: "models wrapper", body: `{"models":[{"id":"z"},{"id":"y"}]}`, want: []Model{{ID: "z"}, {ID: "y"}}},
		{name: "models wrapper of strings", body: `{"models":["z","y"]}`, want: []Model{{ID: "z"}, {ID: "y"}}},
		{name: "bare strings", body: ` ["sora-2", "sora-2-pro"] `, want: []Model{{ID: "sora-2"}, {ID: "sora-2-pro"}}},
		{name: "bare objects", body: `[{"id":"m2","owned_by":"x"},{"id":"m1"}]`, want: []Model{{ID: "m2", OwnedBy: "x"}, {ID: "m1"}}},
		{name: "mixed", body: `["s",{"id":"o"}]`, want: []Model{{ID: "s"}, {ID: "o"}}},
		{name: "missing data", body: `{"object":"list"}`, wantErr: []string{`no "data" array`}},
		{name: "null data", body: `{"object":"list","data":null}`, wantErr: []string{`no "data" array`}},
		{name: "data is an object", body: `{"data":{}}`, wantErr: []string{"not the expected JSON list"}},
		{name: "entry without id", body: `{"data":[{"id":"ok"},{"name":"no id"}]}`, wantErr: []string{"entry 1", `without an "id"`}},
		{name: "blank id", body: `{"data":[{"id":"  "}]}`, wantErr: []string{"entry 0", `without an "id"`}},
		{name: "empty string id", body: `["a",""]`, wantErr: []string{"entry 1", "empty model ID"}},
		{name: "number entry", body: `[1]`, wantErr: []string{"entry 0", "not a model object"}},
		{name: "null body", body: `null`, wantErr: []string{`no "data" array`}},
		{name: "string body", body: `"veo-3"`, wantErr: []string{"not the expected JSON list"}},
		{name: "truncated array", body: `["a",`, wantErr: []string{"not the expected JSON"}},
		{name: "html", body: `<html>login</html>`, wantErr: []string{"not the expected JSON"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, s := newScriptServer(t, okReply(tt.body))
			c := newTestClient(t, srv.URL)
			got, err := c.ListModels(t.Context())
			if p := s.request(0).Path; p != "/v1/models" {
				t.Errorf("server saw path %q, want /v1/models", p)
			}
			if tt.wantErr != nil {
				if err == nil {
					t.Fatalf("ListModels = %+v, want an error", got)
				}
				for _, want := range tt.wantErr {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error = %q, want it to contain %q", err, want)
					}
				}
				if !strings.Contains(err.Error(), "GET /v1/models") {
					t.Errorf("error %q does not name the call", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ListModels: %v", err)
			}
			for i := range got {
				if !json.Valid(got[i].Raw) {
					t.Errorf("model %d: Raw %q is not the record's JSON", i, got[i].Raw)
				}
				got[i].Raw = nil
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("ListModels = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// Limits are read from the field names services use, at the top level or in a
// nested object, and normalized; a record that says nothing has no limits.
func TestListModelsLimits(t *testing.T) {
	t.Parallel()
	yes, no := true, false
	for _, tt := range []struct {
		record string
		want   ModelLimits
	}{
		{`{"id":"m"}`, ModelLimits{}},
		{`{"id":"m","max_seconds":10,"resolutions":["480p"," 720P "],"ratios":["16:9","9:16"],"supports_audio":true}`,
			ModelLimits{MaxSeconds: 10, Resolutions: []string{"480p", "720p"}, Ratios: []string{"16:9", "9:16"}, Audio: &yes}},
		{`{"id":"m","max_duration":"12s","supported_resolutions":["1080p"],"aspect_ratios":["1:1"],"generate_audio":false}`,
			ModelLimits{MaxSeconds: 12, Resolutions: []string{"1080p"}, Ratios: []string{"1:1"}, Audio: &no}},
		{`{"id":"m","durations":[5,"10"]}`, ModelLimits{MaxSeconds: 10, Seconds: []int64{5, 10}}},
		{`{"id":"m","capabilities":{"max_duration_seconds":8,"supported_aspect_ratios":["4:3"]}}`,
			ModelLimits{MaxSeconds: 8, Ratios: []string{"4:3"}}},
		// Unreadable limits are not checked rather than guessed.
		{`{"id":"m","max_seconds":"ten","resolutions":"720p","supports_audio":"yes","durations":[5,"x"]}`, ModelLimits{}},
	} {
		got := decodeLimits(json.RawMessage(tt.record))
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("decodeLimits(%s) = %+v, want %+v", tt.record, got, tt.want)
		}
	}
}

package provider

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/videogen/terraform-provider-videogen/internal/client"
)

// notClipArguments are the attributes of videogen_video that say nothing about
// which clip is made: what the service answers, and how long to wait for it.
var notClipArguments = []string{"id", "task_id", "status", "url", "format", "billing", "wait_for_completion"}

// TestClipArgumentsCoverTheSchema: every attribute of videogen_video is a row
// of clipArguments, a row's write-only twin, or named above; every row has its
// attribute, and a field of videoResourceModel of the attribute's type; the
// data source records every echoed argument.
func TestClipArgumentsCoverTheSchema(t *testing.T) {
	ctx := context.Background()
	var resp resource.SchemaResponse
	NewVideoResource().Schema(ctx, resource.SchemaRequest{}, &resp)
	rows := map[string]bool{}
	for _, a := range clipArguments {
		rows[a.name] = true
		if a.writeOnly != nil {
			rows[a.writeOnly.name] = true
		}
	}
	for name := range resp.Schema.Attributes {
		if !rows[name] && !slices.Contains(notClipArguments, name) {
			t.Errorf("attribute %s of videogen_video has no row in clipArguments (nor is it listed in notClipArguments)", name)
		}
	}
	fields := map[string]reflect.Type{}
	model := reflect.TypeFor[videoResourceModel]()
	for i := range model.NumField() {
		fields[model.Field(i).Tag.Get("tfsdk")] = model.Field(i).Type
	}
	for name := range rows {
		attribute, ok := resp.Schema.Attributes[name]
		if !ok {
			t.Errorf("row %s of clipArguments has no attribute in videogen_video's schema", name)
			continue
		}
		if want := reflect.TypeOf(attribute.GetType().ValueType(ctx)); fields[name] != want {
			t.Errorf("videoResourceModel's field for %s is %v, want %v", name, fields[name], want)
		}
	}
	var ds datasource.SchemaResponse
	NewVideoDataSource().Schema(ctx, datasource.SchemaRequest{}, &ds)
	for _, a := range clipArguments {
		if _, ok := ds.Schema.Attributes[a.name]; ok != a.echoed {
			t.Errorf("data source attribute %s: present = %v, want %v (echoed)", a.name, ok, a.echoed)
		}
	}
}

// TestArgumentOfNamesTheRowOfEachMember: a member of a request that an API
// refuses (client.Inexpressible's names) is attributed to the row that sends
// it, found in the table, not in a second list.
func TestArgumentOfNamesTheRowOfEachMember(t *testing.T) {
	t.Parallel()
	for param, want := range map[string]string{
		client.ParamRatio: "ratio", client.ParamResolution: "resolution", client.ParamGenerateAudio: "generate_audio",
		client.ParamCallbackURL: "callback_url", "seconds": "seconds", "model": "model",
		client.ContentParam(client.ContentImage): "reference_images",
		client.ContentParam(client.ContentVideo): "reference_videos",
		client.ContentParam(client.ContentAudio): "reference_audios",
		"metadata.seed":                          "extra_metadata",
		"storage_uri":                            "storage_uri",
	} {
		if got := argumentOf(param); got != want {
			t.Errorf("argumentOf(%q) = %q, want %q", param, got, want)
		}
	}
}

package provider

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/clip"
)

// clipState is the state of an unfinished clip as Delete sees it.
func clipState(taskID, prompt, ratio string) videoResourceModel {
	m := videoResourceModel{
		TaskID: types.StringValue(taskID), Model: types.StringValue("videogen-1"), Prompt: types.StringValue(prompt),
		Seconds: types.StringNull(), Ratio: stringOrNull(ratio), Resolution: types.StringNull(),
		CallbackURL: types.StringNull(), GenerateAudio: types.BoolNull(), ExtraMetadata: types.StringNull(),
		TriggersReplace: types.MapNull(types.StringType),
		ReferenceImages: types.ListNull(types.StringType), ReferenceVideos: types.ListNull(types.StringType),
		ReferenceAudios: types.ListNull(types.StringType),
	}
	return m
}

// planFor is a create plan: unset echoed arguments are unknown until the service answers.
func planFor(prompt, ratio string) videoResourceModel {
	m := clipState("", prompt, ratio)
	m.TaskID = types.StringUnknown()
	if ratio == "" {
		m.Ratio = types.StringUnknown()
	}
	m.Resolution, m.CallbackURL, m.GenerateAudio = types.StringUnknown(), types.StringUnknown(), types.BoolUnknown()
	m.ReferenceImages, m.ReferenceVideos = types.ListUnknown(types.StringType), types.ListUnknown(types.StringType)
	m.ReferenceAudios = types.ListUnknown(types.StringType)
	m.TriggersReplace = types.MapValueMust(types.StringType, map[string]attr.Value{})
	return m
}

// The lifecycle's clips compare by the table's rules.
func TestClipOfComparesByTheTable(t *testing.T) {
	t.Parallel()
	held := clipState("t1", "a kite", "16:9")
	cases := map[string]struct {
		plan videoResourceModel
		want bool
	}{
		"same arguments":               {planFor("a kite", "16:9"), true},
		"echoed argument left unset":   {planFor("a kite", ""), true},
		"same ratio in other spelling": {planFor("a kite", "16:09"), true},
		"other prompt":                 {planFor("a kite at dusk", "16:9"), false},
		"other ratio":                  {planFor("a kite", "9:16"), false},
	}
	triggered := planFor("a kite", "16:9")
	triggered.TriggersReplace = types.MapValueMust(types.StringType, map[string]attr.Value{"rev": types.StringValue("2")})
	cases["triggers_replace changed"] = struct {
		plan videoResourceModel
		want bool
	}{triggered, false}
	for name, c := range cases {
		if got := clip.Same(argsOf(&c.plan), argsOf(&held)); got != c.want {
			t.Errorf("%s: clip.Same = %v, want %v", name, got, c.want)
		}
	}
}

func TestRequestFingerprint(t *testing.T) {
	t.Parallel()
	req := client.VideoRequest{Model: "m", Prompt: "p", Metadata: &client.Metadata{Ratio: "16:9"}}
	base := requestFingerprint("https://a/v1", req, map[string]string{"rev": "1"})
	if base != requestFingerprint("https://a/v1", req, map[string]string{"rev": "1"}) {
		t.Fatal("the fingerprint of one request is not stable")
	}
	if journalService("https://a/v1", apiVideoGenerations) != "https://a/v1" {
		t.Error("the default API's fingerprints changed: the journal entries of earlier versions would not be found")
	}
	other := req
	other.Prompt = "q"
	for name, fp := range map[string]string{
		"prompt":           requestFingerprint("https://a/v1", other, map[string]string{"rev": "1"}),
		"triggers_replace": requestFingerprint("https://a/v1", req, map[string]string{"rev": "2"}),
		"service":          requestFingerprint("https://b/v1", req, map[string]string{"rev": "1"}),
		"api":              requestFingerprint(journalService("https://a/v1", apiOpenAIVideos), req, map[string]string{"rev": "1"}),
	} {
		if fp == base {
			t.Errorf("a different %s gives the same fingerprint", name)
		}
	}
}

func TestRequestFingerprintSetsSignaturesAside(t *testing.T) {
	t.Parallel()
	withImage := func(u string) client.VideoRequest {
		return client.VideoRequest{Model: "m", Prompt: "p", Metadata: &client.Metadata{
			Content: []client.ContentEntry{client.NewContentEntry("image_url", u)},
		}}
	}
	const obj = "https://bucket.example.com/mug.png"
	signed := withImage(obj + "?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AK%2F20260101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Expires=900&X-Amz-Signature=aaa")
	base := requestFingerprint("https://a/v1", signed, nil)
	if fp := requestFingerprint("https://a/v1", withImage(obj+"?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AK%2F20260101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Expires=900&X-Amz-Signature=bbb"), nil); fp != base {
		t.Error("a rotated signature gives another fingerprint: a killed run's journal note would not be found")
	}
	if signed.Metadata.Content[0].ImageURL.URL != obj+"?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AK%2F20260101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Expires=900&X-Amz-Signature=aaa" {
		t.Error("the fingerprint changed the request it was given")
	}
	for name, u := range map[string]string{
		"object":    "https://bucket.example.com/cup.png?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AK%2F20260101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Signature=aaa",
		"versionId": obj + "?versionId=2&X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AK%2F20260101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Signature=aaa",
	} {
		if requestFingerprint("https://a/v1", withImage(u), nil) == base {
			t.Errorf("another %s gives the same fingerprint", name)
		}
	}
}

// An argument that goes only in the request's metadata reaches the service
// through its row alone: here seconds is carried as metadata.seconds, the
// only member of metadata, and the body sent has it. Not parallel: it swaps
// the table.
func TestMetadataOnlyRowReachesTheRequest(t *testing.T) {
	saved := clipArguments
	t.Cleanup(func() { clipArguments = saved })
	clipArguments = append([]clipArgument(nil), saved...)
	for i, a := range clipArguments {
		if a.name == "seconds" {
			clipArguments[i].request = perAPI{apiVideoGenerations: requestField{member: "metadata.seconds",
				set: func(v attr.Value, r *client.VideoRequest, _ path.Path) diag.Diagnostics {
					r.Metadata.Extra = map[string]json.RawMessage{"seconds": json.RawMessage(stringOf(v).ValueString())}
					return nil
				}}}
		}
	}
	m := clipState("", "a metadata-only argument", "")
	m.Seconds = types.StringValue("7")
	request, diags := m.toRequest(apiVideoGenerations, nil)
	if diags.HasError() {
		t.Fatal(diags)
	}
	var sent map[string]json.RawMessage
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &sent)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"task_id":"task_1","status":"submitted"}`))
	}))
	t.Cleanup(srv.Close)
	c, err := client.New(srv.URL, distinctiveKey, client.WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.SubmitVideo(t.Context(), request); err != nil {
		t.Fatal(err)
	}
	if string(sent["metadata"]) != `{"seconds":7}` || sent["seconds"] != nil {
		t.Fatalf("the request sent %v, want metadata {\"seconds\":7} and no top-level seconds", sent)
	}
}

// TestAccVideoResource_requestBuiltOncePerClipOperation counts the clips whose
// requests were built while two clips are planned, applied, planned again and
// destroyed: each plan of a new clip (at plan, and again at apply), each Create
// and each Delete builds its clip once, whatever the lifecycle asks of it (the
// request, its fingerprint, those of the other APIs), and a plan that changes
// nothing builds none. Not parallel: the counter is the process's.
func TestAccVideoResource_requestBuiltOncePerClipOperation(t *testing.T) {
	mock := acctest.NewMock(t)
	config := mock.ProviderBlock() + `
resource "videogen_video" "a" {
  model  = "videogen-1"
  prompt = "the first of two clips"
}

resource "videogen_video" "b" {
  model  = "videogen-1"
  prompt = "the second of two clips"
}
`
	start := requestsBuilt.Load()
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: config,
			Check: resource.ComposeTestCheckFunc(mock.ExpectSubmissions(2), func(*terraform.State) error {
				// 2 clips x (plan, the apply's plan, Create).
				if n := requestsBuilt.Load() - start; n != 6 {
					return fmt.Errorf("the requests of 2 clips were built %d times in plan and apply, want 6", n)
				}
				return nil
			}),
		}, {
			// Refreshes and plans that change nothing build nothing.
			Config: config,
			Check: func(*terraform.State) error {
				if n := requestsBuilt.Load() - start; n != 6 {
					return fmt.Errorf("after plans that change nothing, the requests were built %d times in all, want 6", n)
				}
				return nil
			},
		}},
	})
	// And the destroy, once per Delete.
	if n := requestsBuilt.Load() - start; n != 8 {
		t.Fatalf("after the destroy, the requests were built %d times in all, want 8", n)
	}
}

package e2e

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/videogen/terraform-provider-videogen/internal/gateway/upstream"
)

// channel is one of new-api's video channels in front of its upstream's
// stand-in, and what the gateway test expects of it: what reaches the
// upstream, what the provider says.
type channel struct {
	name string
	// api is the provider's api argument ("" for the default); destroyed
	// is the warning destroying a clip gives there.
	api       string
	destroyed string
	// channelType is new-api's channel type, model the one model the test
	// offers through it.
	channelType int
	model       string
	upstream    *upstream.Server
	// keyedClips: new-api serves the channel's clips itself, at
	// {server}/v1/videos/{task_id}/content behind the key; otherwise the
	// clip URL is the upstream's storage.
	keyedClips bool
	// forwarded checks the body new-api sent upstream for a clip with model
	// and prompt only.
	forwarded func(t *testing.T, sub upstream.Submission)
	// asked are the clips of the parameters scenarios, in order.
	asked []asked
	// refused are clips that are refused before anything is created: a
	// prompt the upstream refuses (RejectMarker), and arguments the
	// upstream or the provider cannot take.
	refused []refused
	// reason is the failure reason the upstream gives a failed task, and
	// reasonShown whether the provider can show it: new-api's answer for a
	// Gemini channel carries none.
	reason      string
	reasonShown bool
}

// asked is a clip of a parameters scenario: its arguments beside model and
// prompt; received checks what of them reached the upstream, and said what
// the warning after the apply must say, argument by argument: the value the
// upstream's record reports, or "" where it says nothing (not confirmed). An
// empty said expects no warning at all.
type asked struct {
	name     string
	args     string
	received func(t *testing.T, sub upstream.Submission)
	said     map[string]string
}

// refused is a clip refused before anything is created: its arguments
// beside model, a phrase of the message the provider must show, and whether
// the provider refuses it at plan, before any submission.
type refused struct {
	name    string
	args    string
	message string
	atPlan  bool
}

// refusedPrompt is a prompt the upstream refuses, saying message.
func refusedPrompt(message string) refused {
	return refused{name: "prompt the upstream refuses", args: `prompt = "A crowd scene ` + upstream.RejectMarker + `"`, message: message}
}

// new-api v0.10.0's channel types (constant/channel.go) and a model of each.
const (
	doubaoVideoChannel = 54
	klingChannel       = 50
	soraChannel        = 55
	geminiChannel      = 24

	seedanceModel = "doubao-seedance-1-0-pro-250528"
	klingModel    = "kling-v1"
	soraModel     = "sora-2"
	soraProModel  = "sora-2-pro"
	veoModel      = "veo-3.0-generate-001"
)

// The destroy warnings: the default API has no delete, which the destroy's
// plan says; new-api's /v1/videos has none either (404 "Invalid URL"), which
// the apply finds.
const (
	removedFromState = "Destroyed Clip Stays Billed"
	notDeleted       = "Video Not Deleted From the Server"
)

// newChannels starts a stand-in for each channel's upstream, closed when
// the test ends.
func newChannels(t *testing.T) []*channel {
	t.Helper()
	chans := []*channel{
		{
			name: "Doubao", destroyed: removedFromState, channelType: doubaoVideoChannel, model: seedanceModel, upstream: upstream.New(upstream.Ark),
			// new-api v0.10.0 forwards model and prompt only.
			forwarded: expectMembers("model", "content"),
			asked: []asked{{
				name:     "the gateway drops",
				args:     "seconds = \"8\"\n  resolution = \"720p\"\n  ratio = \"9:16\"\n  generate_audio = true",
				received: expectMembers("model", "content"),
				said: map[string]string{
					"seconds": fmt.Sprint(upstream.ArkDuration), "ratio": upstream.ArkRatio,
					"resolution": upstream.ArkResolution, "generate_audio": "",
				},
			}},
			refused: []refused{refusedPrompt("sensitive information")},
			reason:  "The output video may contain sensitive information.", reasonShown: true,
		},
		{
			name: "Kling", destroyed: removedFromState, channelType: klingChannel, model: klingModel, upstream: upstream.New(upstream.Kling),
			// The adaptor builds Kling's request: its defaults, the model
			// named twice, and a duration it never reads from seconds.
			forwarded: expectKling("5", "1:1"),
			asked: []asked{{
				name:     "the gateway drops",
				args:     "seconds = \"10\"\n  resolution = \"720p\"\n  ratio = \"9:16\"",
				received: expectKling("5", "1:1"),
				said:     map[string]string{"seconds": upstream.KlingDuration, "ratio": "", "resolution": ""},
			}, {
				// new-api copies metadata members named as Kling's onto its
				// request: Kling's own duration (a string) and aspect_ratio.
				name:     "vendor parameters",
				args:     "seconds = \"10\"\n  extra_metadata = jsonencode({ duration = \"10\", aspect_ratio = \"9:16\" })",
				received: expectKling("10", "9:16"),
			}},
			refused: []refused{refusedPrompt("Trigger the content security policy")},
			reason:  "Failure to pass the risk control system", reasonShown: true,
		},
		{
			name: "Sora", destroyed: removedFromState, channelType: soraChannel, model: soraModel, upstream: upstream.New(upstream.Sora),
			keyedClips: true,
			// The body goes upstream unchanged.
			forwarded: expectFields(map[string]string{"model": soraModel, "prompt": clipPrompt}),
			asked: []asked{{
				name:     "the gateway passes on",
				args:     `seconds = "8"`,
				received: expectFields(map[string]string{"model": soraModel, "prompt": askedPrompt, "seconds": "8"}),
			}},
			reason: "The video was blocked by our moderation system.", reasonShown: true,
			refused: []refused{refusedPrompt("blocked by our moderation system"), {
				// OpenAI's API knows no metadata, where every other argument goes.
				name: "arguments the upstream refuses", args: "prompt = \"A harbour at night\"\n  ratio = \"16:9\"",
				message: "Unknown parameter: 'metadata'",
			}},
		},
		{
			// The same channel through new-api's /v1/videos, which the
			// provider speaks with api = "openai-videos": OpenAI's own
			// members, as OpenAI's SDK sends them (a form).
			name: "Sora on openai-videos", api: "openai-videos", destroyed: notDeleted,
			channelType: soraChannel, model: soraProModel, upstream: upstream.New(upstream.Sora), keyedClips: true,
			forwarded: expectFields(map[string]string{"model": soraProModel, "prompt": clipPrompt}),
			asked: []asked{{
				name: "the gateway passes on",
				args: "seconds = \"8\"\n  ratio = \"16:9\"\n  resolution = \"720p\"",
				received: expectFields(map[string]string{"model": soraProModel, "prompt": askedPrompt, "seconds": "8",
					"size": "1280x720"}),
			}},
			reason: "The video was blocked by our moderation system.", reasonShown: true,
			refused: []refused{refusedPrompt("blocked by our moderation system"), {
				// What the API cannot carry is refused at plan.
				name: "arguments the API cannot carry", args: "prompt = \"A harbour at night\"\n  generate_audio = true",
				message: "Argument Not Supported by the API", atPlan: true,
			}},
		},
		{
			name: "Veo", destroyed: removedFromState, channelType: geminiChannel, model: veoModel, upstream: upstream.New(upstream.Veo), keyedClips: true,
			forwarded: expectVeo(),
			asked: []asked{{
				// Of the metadata, only resolution has a name Veo's parameters
				// share; the answer carries no record to confirm it.
				name:     "the gateway drops",
				args:     "seconds = \"8\"\n  resolution = \"720p\"\n  ratio = \"9:16\"",
				received: expectVeo("resolution"),
				said:     map[string]string{"ratio": "", "resolution": ""},
			}, {
				// new-api copies metadata members named as Veo's parameters.
				name:     "vendor parameters",
				args:     "seconds = \"8\"\n  extra_metadata = jsonencode({ durationSeconds = 8, aspectRatio = \"9:16\" })",
				received: expectVeo("durationSeconds", "aspectRatio"),
			}},
			refused: []refused{refusedPrompt("usage guidelines")},
			reason:  "Video generation failed due to an internal error.", reasonShown: false,
		},
	}
	for _, ch := range chans {
		t.Cleanup(ch.upstream.Close)
	}
	return chans
}

// clipURL is the url the provider records for the clip of sub.
func (ch *channel) clipURL(api *newAPI, sub upstream.Submission) string {
	if ch.keyedClips {
		return api.URL + "/v1/videos/" + sub.GatewayID + "/content"
	}
	return ch.upstream.ClipURL(sub.TaskID)
}

// expectMembers checks that a JSON body has exactly the members names.
func expectMembers(names ...string) func(*testing.T, upstream.Submission) {
	return func(t *testing.T, sub upstream.Submission) {
		t.Helper()
		body := sub.Body
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(body, &fields); err != nil {
			t.Fatalf("the upstream got %s: %v", body, err)
		}
		got := make([]string, 0, len(fields))
		for k := range fields {
			got = append(got, k)
		}
		slices.Sort(got)
		want := slices.Sorted(slices.Values(names))
		if !slices.Equal(got, want) {
			t.Errorf("new-api forwarded %s; want the members %v", body, want)
		}
	}
}

// expectFields checks the members of a submission to OpenAI's videos API,
// JSON or form: exactly want.
func expectFields(want map[string]string) func(*testing.T, upstream.Submission) {
	return func(t *testing.T, sub upstream.Submission) {
		t.Helper()
		if !maps.Equal(sub.Fields, want) {
			t.Errorf("new-api forwarded %v (%s); want %v", sub.Fields, sub.Body, want)
		}
	}
}

// expectKling checks the duration and aspect ratio of new-api's Kling
// request.
func expectKling(duration, ratio string) func(*testing.T, upstream.Submission) {
	return func(t *testing.T, sub upstream.Submission) {
		t.Helper()
		body := sub.Body
		var req struct {
			Duration    string `json:"duration"`
			AspectRatio string `json:"aspect_ratio"`
			Mode        string `json:"mode"`
		}
		if err := json.Unmarshal(body, &req); err != nil || req.Duration != duration || req.AspectRatio != ratio || req.Mode != "std" {
			t.Errorf("new-api sent Kling %s; want duration %q, aspect_ratio %q, mode std", body, duration, ratio)
		}
	}
}

// expectVeo checks that Veo's parameters hold exactly names.
func expectVeo(names ...string) func(*testing.T, upstream.Submission) {
	return func(t *testing.T, sub upstream.Submission) {
		t.Helper()
		body := sub.Body
		var req struct {
			Parameters map[string]json.RawMessage `json:"parameters"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			t.Fatalf("the upstream got %s: %v", body, err)
		}
		got := make([]string, 0, len(req.Parameters))
		for k := range req.Parameters {
			got = append(got, k)
		}
		slices.Sort(got)
		if !slices.Equal(got, slices.Sorted(slices.Values(names))) {
			t.Errorf("new-api sent Veo %s; want the parameters %v", body, names)
		}
	}
}

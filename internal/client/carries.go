package client

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
)

// More members of a VideoRequest, as the video-generations API names them (see
// ParamRatio).
const (
	ParamModel   = "model"
	ParamPrompt  = "prompt"
	ParamSeconds = "seconds"
	// ParamExtra is the vendor parameters (Metadata.Extra); a refusal names
	// each one as metadata.<key>.
	ParamExtra = "metadata"
)

// carriage is how one API carries the members of a VideoRequest, named as the
// video-generations API names them: the name its own request gives each member
// it sends, and why it cannot carry each of the others. It is the one
// statement of what each API carries: Inexpressible refuses from it, and the
// provider's table of clip arguments takes from it which API carries which
// argument, and as what (API.Member). What depends on a member's value (a size,
// a count, a URI's form) is checked by Inexpressible itself.
type carriage struct {
	sends   map[string]string
	refuses map[string]string
}

const noStorage = " has no Cloud Storage destination (only Vertex AI writes clips to gs://)"

var carriages = map[API]carriage{
	APIVideoGenerations: {
		sends: map[string]string{ParamModel: "model", ParamPrompt: "prompt", ParamSeconds: "seconds",
			ParamRatio: ParamRatio, ParamResolution: ParamResolution, ParamGenerateAudio: ParamGenerateAudio,
			ParamCallbackURL:           ParamCallbackURL,
			ContentParam(ContentImage): "metadata.content[]." + ContentImage,
			ContentParam(ContentVideo): "metadata.content[]." + ContentVideo,
			ContentParam(ContentAudio): "metadata.content[]." + ContentAudio,
			ParamExtra:                 "metadata"},
		refuses: map[string]string{ParamStorageURI: "the " + string(APIVideoGenerations) + " API" + noStorage},
	},
	APIOpenAIVideos: {
		// Ratio and resolution go as one size (OpenAIVideoSize), one reference
		// image as input_reference.
		sends: map[string]string{ParamModel: "model", ParamPrompt: "prompt", ParamSeconds: "seconds",
			ParamRatio: "size", ParamResolution: "size", ContentParam(ContentImage): "input_reference"},
		refuses: map[string]string{
			ParamGenerateAudio: "OpenAI's video API has no audio switch (the model decides)",
			ParamCallbackURL: "OpenAI's video API takes no callback URL (its webhooks are configured per project, " +
				"not per request)",
			ContentParam(ContentVideo): openAIImageOnly,
			ContentParam(ContentAudio): openAIImageOnly,
			ParamExtra:                 "OpenAI's video API has no metadata: it refuses a parameter it does not know",
			ParamStorageURI:            "the " + string(APIOpenAIVideos) + " API" + noStorage,
		},
	},
	APIGemini: {
		sends: veoSends(),
		refuses: map[string]string{
			ParamGenerateAudio: geminiVeo + " has no audio switch (generateAudio is Vertex AI's; on the Gemini API the " +
				"model decides)",
			ParamCallbackURL:           geminiVeo + " takes no callback URL",
			ContentParam(ContentVideo): geminiVeo + veoImagesOnly,
			ContentParam(ContentAudio): geminiVeo + veoImagesOnly,
			ParamStorageURI:            geminiVeo + noStorage,
		},
	},
	APIVertex: {
		sends: veoSends(map[string]string{ParamGenerateAudio: "parameters.generateAudio",
			ParamStorageURI: "parameters.storageUri"}),
		refuses: map[string]string{
			ParamCallbackURL:           vertexVeo + " takes no callback URL",
			ContentParam(ContentVideo): vertexVeo + veoImagesOnly,
			ContentParam(ContentAudio): vertexVeo + veoImagesOnly,
		},
	},
}

const (
	openAIImageOnly = "OpenAI's video API takes a reference image only (input_reference), no reference video or audio"
	geminiVeo       = "the Gemini API's Veo"
	vertexVeo       = "Vertex AI's Veo"
	veoImagesOnly   = " takes reference images only, no reference video or audio"
)

// veoSends is what both of Google's APIs send of a request, and more.
func veoSends(more ...map[string]string) map[string]string {
	sends := map[string]string{ParamModel: "models/{model} in the URL", ParamPrompt: "instances[0].prompt",
		ParamSeconds: "parameters.durationSeconds", ParamRatio: "parameters.aspectRatio",
		ParamResolution: "parameters.resolution", ContentParam(ContentImage): "instances[0].referenceImages",
		// Veo's vendor parameters are members of parameters: negativePrompt,
		// personGeneration, seed, ...
		ParamExtra: "parameters"}
	for _, m := range more {
		maps.Copy(sends, m)
	}
	return sends
}

// Member is the name a's request gives param, a member of a VideoRequest as
// the video-generations API names it (the Param* constants, ContentParam);
// false when a cannot carry it.
func (a API) Member(param string) (string, bool) {
	m, ok := carriages[a].sends[param]
	return m, ok
}

// refusal says why a cannot carry param, a member req sets; false when it can
// (as far as presence goes). A member of metadata that no constant names is a
// vendor parameter.
func (a API) refusal(param string) (string, bool) {
	c := carriages[a]
	if _, declared := c.sends[param]; !declared {
		if _, declared = c.refuses[param]; !declared && strings.HasPrefix(param, ParamExtra+".") {
			param = ParamExtra
		}
	}
	why, ok := c.refuses[param]
	return why, ok
}

// members lists the members req sets, as the video-generations API names them:
// seconds and a Cloud Storage destination, then what its metadata encodes
// (read from the encoding, not from a list of its fields, so that a member
// added to Metadata is refused where an API does not declare it), in order;
// reference media once per content type, each vendor parameter as
// metadata.<key>.
func (r VideoRequest) members() []string {
	var out []string
	if r.Seconds != "" {
		out = append(out, ParamSeconds)
	}
	if r.StorageURI != "" {
		out = append(out, ParamStorageURI)
	}
	var md map[string]json.RawMessage
	if data, err := json.Marshal(r.Metadata); err != nil || json.Unmarshal(data, &md) != nil {
		return out
	}
	for _, k := range slices.Sorted(maps.Keys(md)) {
		if k != "content" {
			out = append(out, ParamExtra+"."+k)
			continue
		}
		for _, e := range r.Metadata.Content {
			if p := ContentParam(e.Type); !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// Model is one entry of GET /v1/models. The service does not publish the record's
// fields (CONTRIBUTING.md, "Model list"); OwnedBy and Created are zero when absent.
type Model struct {
	ID      string
	OwnedBy string
	Created int64
	// Limits are what the record says about the clips the model makes, read
	// from the field names services use (CONTRIBUTING.md, "Model limits").
	Limits ModelLimits
	// Price is what the record says its clips cost (CONTRIBUTING.md, "Model prices").
	Price ModelPrice
	// Raw is the record exactly as the service sent it: a JSON object, or a
	// JSON string for a list of bare IDs.
	Raw json.RawMessage
}

// ModelLimits are a model's published limits. A zero field means the record
// did not say, never "nothing is allowed".
type ModelLimits struct {
	// MaxSeconds is the longest clip in seconds.
	MaxSeconds int64
	// Seconds lists the only clip lengths allowed, when the record lists them.
	Seconds []int64
	// Resolutions and Ratios list the allowed values, lower-cased and trimmed.
	Resolutions []string
	Ratios      []string
	// Audio says whether the model can generate audio.
	Audio *bool
}

// Any reports whether the record published any limit.
func (l ModelLimits) Any() bool {
	return l.MaxSeconds > 0 || len(l.Seconds) > 0 || len(l.Resolutions) > 0 || len(l.Ratios) > 0 || l.Audio != nil
}

// The field names read for each limit, in order of preference; the first
// present wins. CONTRIBUTING.md, "Model limits", lists the same names.
var (
	maxSecondsFields  = []string{"max_seconds", "max_duration", "max_duration_seconds"}
	secondsFields     = []string{"durations", "supported_durations", "seconds"}
	resolutionFields  = []string{"resolutions", "supported_resolutions"}
	ratioFields       = []string{"ratios", "aspect_ratios", "supported_ratios", "supported_aspect_ratios"}
	audioFields       = []string{"supports_audio", "generate_audio", "audio"}
	limitNestedFields = []string{"limits", "capabilities", "constraints"}
)

const modelsPath = "/v1/models"

// ListModels returns the models this key may use, in the service's order. When
// no HTTP answer came, the error is an *UnreachableError that names the last
// failure to reach the host, since the list is how a plan learns that base_url
// is wrong or the service is down.
func (c *Client) ListModels(ctx context.Context) ([]Model, error) {
	var raw json.RawMessage
	ctx, trace := traceReach(ctx)
	switch c.api {
	case APIGemini, APIVertex:
		list := c.listGeminiModels
		path := geminiModelsPath
		if c.api == APIVertex {
			list, path = c.listVertexModels, vertexModelsPath
		}
		models, err := list(ctx)
		if err != nil {
			return nil, c.redactor().Error(trace.explain(http.MethodGet, path, err))
		}
		return models, nil
	}
	if _, err := c.doRequest(ctx, http.MethodGet, modelsPath, c.endpoint("models"), nil, &raw); err != nil {
		return nil, trace.explain(http.MethodGet, modelsPath, err)
	}
	models, err := decodeModels(raw)
	if err != nil {
		// The error quotes the list.
		return nil, c.redactor().Error(fmt.Errorf("GET %s: %w", modelsPath, err))
	}
	return models, nil
}

// decodeModels accepts the OpenAI list {"object":"list","data":[...]}, a {"models":[...]}
// wrapper, or a bare array, whose items are objects with an "id" or plain strings,
// because the list's shape is not published (CONTRIBUTING.md, "Model list").
func decodeModels(raw json.RawMessage) ([]Model, error) {
	raw = bytes.TrimSpace(raw)
	var items []json.RawMessage
	if len(raw) > 0 && raw[0] == '[' {
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, fmt.Errorf("the model list is not valid JSON: %w", err)
		}
	} else {
		var wrapper struct {
			Data   []json.RawMessage `json:"data"`
			Models []json.RawMessage `json:"models"`
		}
		if err := json.Unmarshal(raw, &wrapper); err != nil {
			return nil, fmt.Errorf("the model list is not the expected JSON list (%w): %s", err, snippet(raw))
		}
		items = wrapper.Data
		if items == nil {
			items = wrapper.Models
		}
		if items == nil {
			return nil, fmt.Errorf("the model list has no \"data\" array: %s", snippet(raw))
		}
	}
	models := make([]Model, 0, len(items))
	for i, item := range items {
		m, err := decodeModel(item)
		if err != nil {
			return nil, fmt.Errorf("model list entry %d: %w", i, err)
		}
		models = append(models, m)
	}
	return models, nil
}

func decodeModel(item json.RawMessage) (Model, error) {
	var id string
	if json.Unmarshal(item, &id) == nil {
		if strings.TrimSpace(id) == "" {
			return Model{}, fmt.Errorf("empty model ID")
		}
		return Model{ID: id, Raw: item}, nil
	}
	var obj struct {
		ID      string      `json:"id"`
		OwnedBy string      `json:"owned_by"`
		Created json.Number `json:"created"`
	}
	if err := json.Unmarshal(item, &obj); err != nil {
		return Model{}, fmt.Errorf("not a model object (%w): %s", err, snippet(item))
	}
	if strings.TrimSpace(obj.ID) == "" {
		return Model{}, fmt.Errorf("model object without an \"id\": %s", snippet(item))
	}
	m := Model{ID: obj.ID, OwnedBy: obj.OwnedBy, Raw: item}
	m.Limits = decodeLimits(item)
	m.Price = decodePrice(item)
	if obj.Created != "" {
		if n, err := obj.Created.Int64(); err == nil {
			m.Created = n
		} else if f, err := obj.Created.Float64(); err == nil {
			m.Created = int64(f)
		}
	}
	return m, nil
}

// decodeLimits reads the limits a model record publishes, at its top level or
// in a nested "limits", "capabilities" or "constraints" object. A field of an
// unexpected type is ignored: a limit the provider cannot read is not checked.
func decodeLimits(item json.RawMessage) ModelLimits {
	scopes := recordScopes(item, limitNestedFields)
	if scopes == nil {
		return ModelLimits{}
	}
	first := func(names []string, read func(json.RawMessage) bool) {
		for _, scope := range scopes {
			for _, name := range names {
				if raw, ok := scope[name]; ok && read(raw) {
					return
				}
			}
		}
	}
	var l ModelLimits
	first(maxSecondsFields, func(raw json.RawMessage) bool {
		n, ok := wholeSeconds(raw)
		if ok && n > 0 {
			l.MaxSeconds = n
		}
		return ok
	})
	first(secondsFields, func(raw json.RawMessage) bool {
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil || len(items) == 0 {
			return false
		}
		for _, it := range items {
			n, ok := wholeSeconds(it)
			if !ok || n <= 0 {
				l.Seconds = nil
				return false
			}
			l.Seconds = append(l.Seconds, n)
		}
		return true
	})
	if l.MaxSeconds == 0 {
		for _, n := range l.Seconds {
			l.MaxSeconds = max(l.MaxSeconds, n)
		}
	}
	readWords := func(dst *[]string) func(json.RawMessage) bool {
		return func(raw json.RawMessage) bool {
			var words []string
			if json.Unmarshal(raw, &words) != nil || len(words) == 0 {
				return false
			}
			for _, w := range words {
				if w = strings.ToLower(strings.TrimSpace(w)); w != "" {
					*dst = append(*dst, w)
				}
			}
			return len(*dst) > 0
		}
	}
	first(resolutionFields, readWords(&l.Resolutions))
	first(ratioFields, readWords(&l.Ratios))
	first(audioFields, func(raw json.RawMessage) bool {
		var b bool
		if json.Unmarshal(raw, &b) != nil {
			return false
		}
		l.Audio = &b
		return true
	})
	return l
}

// recordScopes is a model record's members, then those of each nested object
// of the given names, in the order a field is looked for; nil for a record
// that is not an object.
func recordScopes(item json.RawMessage, nested []string) []map[string]json.RawMessage {
	var fields map[string]json.RawMessage
	if json.Unmarshal(item, &fields) != nil {
		return nil
	}
	scopes := []map[string]json.RawMessage{fields}
	for _, name := range nested {
		var inner map[string]json.RawMessage
		if raw, ok := fields[name]; ok && json.Unmarshal(raw, &inner) == nil {
			scopes = append(scopes, inner)
		}
	}
	return scopes
}

// wholeSeconds is the one reader of a length of clip in whole seconds, in a
// model's limits and in a task's upstream record: a JSON number, or a string of
// digits with an optional "s" ("12s"); a fraction or a word is left unsaid
// rather than guessed.
func wholeSeconds(raw json.RawMessage) (int64, bool) {
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		if i, err := n.Int64(); err == nil {
			return i, true
		}
		if f, err := n.Float64(); err == nil && f == float64(int64(f)) {
			return int64(f), true
		}
		return 0, false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return 0, false
	}
	s = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(s)), "s")
	i, err := strconv.ParseInt(s, 10, 64)
	return i, err == nil
}

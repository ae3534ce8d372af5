package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// The Gemini API's Veo routes (CONTRIBUTING.md, "Google's Veo"), relative to a
// base URL without a version.
const (
	geminiPredictPath   = "/v1beta/models/{model}:predictLongRunning"
	geminiOperationPath = "/v1beta/{operation}"
	geminiModelsPath    = "/v1beta/models"
	// geminiMaxModelPages bounds the pages of the model list read: the
	// Gemini API lists a few dozen models.
	geminiMaxModelPages = 20
)

// geminiModelEndpoint is {base}/v1beta/models/{model}:{verb}. A model given as
// models/{id}, as Google writes it, is the same model.
func (c *Client) geminiModelEndpoint(model, verb string) string {
	return c.verbEndpoint(verb, "v1beta", "models", strings.TrimPrefix(model, "models/"))
}

// geminiModel is one entry of the Gemini API's model list.
type geminiModel struct {
	Name                       string   `json:"name"`
	SupportedGenerationMethods []string `json:"supportedGenerationMethods"`
}

// listGeminiModels lists the models the key may use that generate videos:
// those whose supportedGenerationMethods include predictLongRunning, by their
// ID without the models/ prefix.
func (c *Client) listGeminiModels(ctx context.Context) ([]Model, error) {
	var out []Model
	token := ""
	for range geminiMaxModelPages {
		u := c.endpoint("v1beta", "models") + "?pageSize=1000"
		if token != "" {
			u += "&pageToken=" + url.QueryEscape(token)
		}
		var page struct {
			Models        []json.RawMessage `json:"models"`
			NextPageToken string            `json:"nextPageToken"`
		}
		if _, err := c.doRequest(ctx, http.MethodGet, geminiModelsPath, u, nil, &page); err != nil {
			return nil, err
		}
		if page.Models == nil && token == "" {
			return nil, fmt.Errorf("GET %s: the answer has no \"models\" list", geminiModelsPath)
		}
		for i, raw := range page.Models {
			var m geminiModel
			if err := json.Unmarshal(raw, &m); err != nil || strings.TrimSpace(m.Name) == "" {
				return nil, fmt.Errorf("GET %s: model list entry %d has no name: %s", geminiModelsPath, i, snippet(raw))
			}
			if slices.Contains(m.SupportedGenerationMethods, "predictLongRunning") {
				out = append(out, Model{ID: strings.TrimPrefix(m.Name, "models/"), OwnedBy: "google", Raw: raw})
			}
		}
		if token = page.NextPageToken; token == "" {
			return out, nil
		}
	}
	return out, nil
}

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
	err := c.listGoogleModels(ctx, geminiModelsPath, c.endpoint("v1beta", "models"), "models", func(raw json.RawMessage) bool {
		var m geminiModel
		if json.Unmarshal(raw, &m) != nil || strings.TrimSpace(m.Name) == "" {
			return false
		}
		if slices.Contains(m.SupportedGenerationMethods, "predictLongRunning") {
			out = append(out, Model{ID: strings.TrimPrefix(m.Name, "models/"), OwnedBy: "google", Raw: raw})
		}
		return true
	})
	return out, err
}

// googleMaxModelPages bounds the pages of a model list read: Google's lists
// hold a few dozen to a few hundred models.
const googleMaxModelPages = 20

// listGoogleModels reads the pages of a Google model list (pages of 1,000,
// nextPageToken) at rawURL, handing each entry of its member list to keep,
// which reports whether the entry could be read.
func (c *Client) listGoogleModels(ctx context.Context, path, rawURL, member string, keep func(json.RawMessage) bool) error {
	token := ""
	for range googleMaxModelPages {
		u := rawURL + "?pageSize=1000"
		if token != "" {
			u += "&pageToken=" + url.QueryEscape(token)
		}
		var page map[string]json.RawMessage
		if _, err := c.doRequest(ctx, http.MethodGet, path, u, nil, &page); err != nil {
			return err
		}
		var entries []json.RawMessage
		if err := json.Unmarshal(page[member], &entries); err != nil || (entries == nil && token == "") {
			return fmt.Errorf("GET %s: the answer has no %q list", path, member)
		}
		for i, raw := range entries {
			if !keep(raw) {
				return fmt.Errorf("GET %s: model list entry %d has no name: %s", path, i, snippet(raw))
			}
		}
		// A token that is not a string ends the list as no token does.
		token = ""
		_ = json.Unmarshal(page["nextPageToken"], &token)
		if token == "" {
			return nil
		}
	}
	return nil
}

package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Model is one entry of GET /v1/models. The service does not publish the record's
// fields (CONTRIBUTING.md, "Model list"); OwnedBy and Created are zero when absent.
type Model struct {
	ID      string
	OwnedBy string
	Created int64
}

const modelsPath = "/models"

// ListModels returns the models this key may use, in the service's order. When
// no HTTP answer came, the error is an *UnreachableError that names the last
// failure to reach the host, since the list is how a plan learns that base_url
// is wrong or the service is down.
func (c *Client) ListModels(ctx context.Context) ([]Model, error) {
	var raw json.RawMessage
	ctx, trace := traceReach(ctx)
	if _, err := c.doRequest(ctx, http.MethodGet, modelsPath, c.endpoint("models"), nil, &raw); err != nil {
		return nil, trace.explain(http.MethodGet, modelsPath, err)
	}
	models, err := decodeModels(raw)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", modelsPath, err)
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
		return Model{ID: id}, nil
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
	m := Model{ID: obj.ID, OwnedBy: obj.OwnedBy}
	if obj.Created != "" {
		if n, err := obj.Created.Int64(); err == nil {
			m.Created = n
		} else if f, err := obj.Created.Float64(); err == nil {
			m.Created = int64(f)
		}
	}
	return m, nil
}

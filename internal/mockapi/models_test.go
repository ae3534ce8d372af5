package mockapi

import (
	"encoding/json"
	"net/http"
	"testing"
)

func TestModels(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, func(c *Config) {
		c.Keys = append(c.Keys, Key{Key: "v2", AllowedModels: []string{"videogen-2"}})
	})
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
	}
	tests := []struct {
		key  string
		want []string
	}{
		{DefaultAPIKey, []string{"videogen-1", "videogen-1-fast", "videogen-2"}},
		{"v2", []string{"videogen-2"}},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			t.Parallel()
			res := do(t, ts, http.MethodGet, "/v1/models", tt.key, "")
			var list struct {
				Object string  `json:"object"`
				Data   []model `json:"data"`
			}
			mustDecode(t, res.body, &list)
			if res.status != 200 || list.Object != "list" || len(list.Data) != len(tt.want) {
				t.Fatalf("status %d, body %s", res.status, res.body)
			}
			for i, m := range list.Data {
				if m.ID != tt.want[i] || m.Object != "model" || m.OwnedBy != "videogen" || m.Created == 0 {
					t.Errorf("model %d: %+v, want id %s", i, m, tt.want[i])
				}
			}
		})
	}
}

func TestDefaultModels(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(DefaultConfig().Models)
	if err != nil {
		t.Fatal(err)
	}
	// Each record publishes the limits the mock enforces (PublishedLimits).
	const want = `[{"id":"videogen-1","owned_by":"videogen","created":1735689600,"max_seconds":10,"default_seconds":5,"resolutions":["480p","720p"],` +
		`"record":{"max_seconds":10,"resolutions":["480p","720p"]}},` +
		`{"id":"videogen-1-fast","owned_by":"videogen","created":1740787200,"max_seconds":5,"default_seconds":5,"resolutions":["480p","720p"],` +
		`"record":{"max_seconds":5,"resolutions":["480p","720p"]}},` +
		`{"id":"videogen-2","owned_by":"videogen","created":1748736000,"max_seconds":12,"default_seconds":5,"resolutions":["720p","1080p"],` +
		`"record":{"max_seconds":12,"resolutions":["720p","1080p"]}}]`
	if string(b) != want {
		t.Errorf("default models changed:\n%s\nwant\n%s", b, want)
	}
}

// A model's Record adds members to its entry in the list, as given, and cannot
// replace the ones the mock owns.
func TestModelsRecord(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, func(c *Config) {
		c.Models[0].Record = map[string]json.RawMessage{
			"max_duration": json.RawMessage(`10`), "supported_resolutions": json.RawMessage(`["480p"]`),
			"id": json.RawMessage(`"spoofed"`),
		}
	})
	res := do(t, ts, http.MethodGet, "/v1/models", DefaultAPIKey, "")
	var list struct {
		Data []map[string]json.RawMessage `json:"data"`
	}
	mustDecode(t, res.body, &list)
	if len(list.Data) != 3 {
		t.Fatalf("status %d, body %s", res.status, res.body)
	}
	first := list.Data[0]
	if string(first["id"]) != `"videogen-1"` || string(first["max_duration"]) != `10` ||
		string(first["supported_resolutions"]) != `["480p"]` || string(first["object"]) != `"model"` {
		t.Errorf("first entry %s", res.body)
	}
	if _, ok := list.Data[1]["max_duration"]; ok {
		t.Errorf("a model without a record publishes limits: %s", res.body)
	}
}

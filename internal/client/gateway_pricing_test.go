package client

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// newAPIPricing is new-api v0.10.0's GET /api/pricing answer to a caller
// without a session (controller/pricing.go, model.Pricing), with the
// administrator's per-request prices and its default groups.
const newAPIPricing = `{
  "success": true,
  "data": [
    {"model_name": "veo-3.0-generate-001", "quota_type": 1, "model_ratio": 0, "model_price": 0.4, "owner_by": "",
     "completion_ratio": 0, "enable_groups": ["default"], "supported_endpoint_types": ["gemini", "openai"]},
    {"model_name": "kling-v1", "quota_type": 1, "model_ratio": 0, "model_price": 0.35, "owner_by": "",
     "completion_ratio": 0, "enable_groups": ["default", "vip"], "supported_endpoint_types": ["openai"]},
    {"model_name": "sora-2", "quota_type": 1, "model_ratio": 0, "model_price": 0.4, "owner_by": "",
     "completion_ratio": 0, "enable_groups": ["default"], "supported_endpoint_types": ["openai-video"]},
    {"model_name": "wan2.5-t2v-preview", "quota_type": 1, "model_ratio": 0, "model_price": 0.1, "owner_by": "",
     "completion_ratio": 0, "enable_groups": ["default"], "supported_endpoint_types": ["openai"]},
    {"model_name": "doubao-seedance-1-0-pro-250528", "quota_type": 0, "model_ratio": 37.5, "model_price": 0,
     "owner_by": "", "completion_ratio": 1, "enable_groups": ["default"], "supported_endpoint_types": ["openai"]},
    {"model_name": "discounted", "quota_type": 1, "model_price": 2, "enable_groups": ["cheap"]},
    {"model_name": "two-ratios", "quota_type": 1, "model_price": 1, "enable_groups": ["default", "cheap"]},
    {"model_name": "own-group", "quota_type": 1, "model_price": 1, "enable_groups": ["default", "svip"]},
    {"model_name": "no-group", "quota_type": 1, "model_price": 1, "enable_groups": []},
    {"model_name": "free", "quota_type": 1, "model_price": 0, "enable_groups": ["default"]},
    {"model_name": "listed-twice", "quota_type": 1, "model_price": 1, "enable_groups": ["default"]},
    {"model_name": "listed-twice", "quota_type": 1, "model_price": 3, "enable_groups": ["default"]},
    {"model_name": "a-word", "quota_type": 1, "model_price": "cheap", "enable_groups": ["default"]}
  ],
  "vendors": [],
  "group_ratio": {"default": 1, "vip": 1, "cheap": 0.5},
  "usable_group": {"default": "默认分组", "vip": "vip分组"},
  "supported_endpoint": {},
  "auto_groups": ["default"]
}`

func TestDecodeGatewayPricing(t *testing.T) {
	t.Parallel()
	prices, err := decodeGatewayPricing(json.RawMessage(newAPIPricing))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		model, seconds string
		extra          map[string]json.RawMessage
		want, unsaid   string // the cost, or a phrase of why there is none
	}{
		{model: "veo-3.0-generate-001", want: "0.4 USD"},
		{model: "veo-3.0-generate-001", seconds: "8", want: "0.4 USD"},
		{model: "kling-v1", want: "0.35 USD"},
		{model: "discounted", want: "1 USD"},
		{model: "free", want: "0 USD"},
		// A Vertex AI channel bills each of sampleCount clips.
		{model: "veo-3.0-generate-001", extra: map[string]json.RawMessage{"sampleCount": json.RawMessage("2")},
			unsaid: `extra_metadata member "sampleCount"`},
		{model: "sora-2", seconds: "8", unsaid: "times the clip's seconds and a factor of its size"},
		{model: "wan2.5-t2v-preview", unsaid: "times the clip's seconds and a factor of its resolution"},
		{model: "doubao-seedance-1-0-pro-250528", unsaid: "by tokens"},
		{model: "two-ratios", unsaid: "different ratios"},
		{model: "own-group", unsaid: `no ratio for group "svip"`},
		{model: "no-group", unsaid: "names no group"},
		{model: "listed-twice", unsaid: "twice"},
		{model: "a-word", unsaid: "not a number"},
	} {
		req := VideoRequest{Model: tc.model, Seconds: tc.seconds}
		if tc.extra != nil {
			req.Metadata = &Metadata{Extra: tc.extra}
		}
		p, ok := prices[tc.model]
		if !ok {
			t.Fatalf("%s: not decoded", tc.model)
		}
		amount, err := p.Cost(req)
		switch {
		case tc.want != "" && (err != nil || FormatAmount(amount, p.Currency) != tc.want):
			t.Errorf("%s (%+v): cost %v, %v; want %s", tc.model, req, amount, err, tc.want)
		case tc.unsaid != "" && (err == nil || !strings.Contains(err.Error(), tc.unsaid)):
			t.Errorf("%s (%+v): cost %v, %v; want no cost, because %q", tc.model, req, amount, err, tc.unsaid)
		}
	}

	for _, body := range []string{`{"success": false, "message": "no"}`, `<html>`, `{"data": []}`, `[]`} {
		if p, err := decodeGatewayPricing(json.RawMessage(body)); err == nil {
			t.Errorf("%s: decoded %v; want an error", body, p)
		}
	}
}

// A model list from new-api (its records carry supported_endpoint_types)
// without prices sends the catalog to new-api's price list, once; a list
// from another service never does.
func TestModelCatalogReadsTheGatewaysPriceList(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, models string
		want         string
		pricingReads int64
	}{
		{"new-api", `{"object":"list","data":[{"id":"veo-3.0-generate-001","object":"model","created":1626777600,` +
			`"owned_by":"custom","supported_endpoint_types":["gemini","openai"]},{"id":"sora-2","object":"model",` +
			`"created":1626777600,"owned_by":"custom","supported_endpoint_types":["openai-video"]}]}`, "0.4 USD", 1},
		{"another service", `{"object":"list","data":[{"id":"veo-3.0-generate-001"},{"id":"sora-2"}]}`, "", 0},
		{"priced in the model list", `{"data":[{"id":"veo-3.0-generate-001","supported_endpoint_types":["openai"],` +
			`"price_per_clip":2,"currency":"credits"},{"id":"sora-2"}]}`, "2 credits", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var pricingReads atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				switch r.URL.Path {
				case "/gw/v1/models":
					_, _ = w.Write([]byte(tc.models))
				case "/gw/api/pricing":
					pricingReads.Add(1)
					_, _ = w.Write([]byte(newAPIPricing))
				default:
					http.NotFound(w, r)
				}
			}))
			defer srv.Close()
			c, err := New(srv.URL+"/gw/v1", "sk-test")
			if err != nil {
				t.Fatal(err)
			}
			catalog := NewModelCatalog(c)
			for range 2 {
				rec, ok := catalog.Record(t.Context(), "veo-3.0-generate-001")
				if !ok {
					t.Fatal("no record")
				}
				got := ""
				if amount, err := rec.Price.Cost(VideoRequest{Model: rec.ID}); err == nil {
					got = FormatAmount(amount, rec.Price.Currency)
				}
				if got != tc.want {
					t.Errorf("cost %q, want %q", got, tc.want)
				}
			}
			rec, _ := catalog.Record(t.Context(), "sora-2")
			if _, err := rec.Price.Cost(VideoRequest{Model: rec.ID, Seconds: "8"}); err == nil {
				t.Error("sora-2 has a cost; want none")
			}
			if n := pricingReads.Load(); n != tc.pricingReads {
				t.Errorf("GET /api/pricing %d times, want %d", n, tc.pricingReads)
			}
		})
	}
}

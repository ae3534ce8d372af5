package client

import (
	"encoding/json"
	"testing"
)

func TestModelPriceCost(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, record, seconds, want string
	}{
		{"per second, seconds set", `{"id":"m","price_per_second":1,"currency":"credits"}`, "8", "8 credits"},
		{"per second, the default length", `{"id":"m","price_per_second":1,"default_seconds":5,"currency":"credits"}`, "", "5 credits"},
		{"decimal price, exact", `{"id":"m","price_per_second":"0.0125","currency":"USD"}`, "8", "0.1 USD"},
		{"a tenth three times is three tenths", `{"id":"m","price_per_second":0.1}`, "3", "0.3"},
		{"nested pricing object", `{"id":"m","pricing":{"price_per_clip":0.35,"currency":"USD"}}`, "12", "0.35 USD"},
		// new-api's model_price is per request before its factors, and new-api
		// publishes it at /api/pricing, not in a model record.
		{"model_price is not a price per clip", `{"id":"m","model_price":0.5}`, "", ""},
		{"per clip wins over per second", `{"id":"m","price_per_second":1,"price_per_clip":3}`, "8", "3"},
		{"unset seconds without a default length", `{"id":"m","price_per_second":1}`, "", ""},
		{"no price", `{"id":"m","max_seconds":10}`, "8", ""},
		{"a negative price is not read", `{"id":"m","price_per_second":-1}`, "8", ""},
		{"a word is not read", `{"id":"m","price_per_second":"cheap"}`, "8", ""},
	} {
		m, err := decodeModel(json.RawMessage(tc.record))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := ""
		if amount, err := m.Price.Cost(VideoRequest{Model: m.ID, Seconds: tc.seconds}); err == nil {
			got = FormatAmount(amount, m.Price.Currency)
		}
		if got != tc.want {
			t.Errorf("%s: cost %q, want %q", tc.name, got, tc.want)
		}
	}
}

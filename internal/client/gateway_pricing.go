package client

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"slices"
	"strings"
)

// gatewayPricingPath is where new-api publishes its price list: beside its
// OpenAI-style API, not under /v1, and to anyone (it reads no API key).
const gatewayPricingPath = "/api/pricing"

// gatewayPricingMember is the member of a model record that only new-api's
// GET /v1/models sends: a list with it comes from new-api, which publishes
// prices at gatewayPricingPath instead of in the records.
const gatewayPricingMember = "supported_endpoint_types"

// gatewayCurrency is the unit of new-api's prices: its quota is counted in
// US dollars (500,000 quota units to the dollar), whatever currency its
// console shows them in.
const gatewayCurrency = "USD"

// gatewayBilledMembers are the metadata members new-api multiplies a
// per-request price by when a clip sends them: a Vertex AI channel bills
// each of sampleCount clips.
var gatewayBilledMembers = []string{"sampleCount"}

// publishedByGateway reports whether a model list record is new-api's.
func publishedByGateway(raw json.RawMessage) bool {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return false
	}
	_, ok := fields[gatewayPricingMember]
	return ok
}

// GatewayPrices reads new-api's price list (GET /api/pricing beside the /v1
// API): for each model it lists, what one clip costs, or why that cannot be
// told (ModelPrice.Unsaid).
func (c *Client) GatewayPrices(ctx context.Context) (map[string]ModelPrice, error) {
	u := *c.baseURL
	u.Path = strings.TrimSuffix(u.Path, "/v1") + gatewayPricingPath
	u.RawPath = ""
	var raw json.RawMessage
	if _, err := c.doRequest(ctx, http.MethodGet, gatewayPricingPath, u.String(), nil, &raw); err != nil {
		return nil, err
	}
	prices, err := decodeGatewayPricing(raw)
	if err != nil {
		return nil, c.redactor().Error(fmt.Errorf("GET %s: %w", gatewayPricingPath, err))
	}
	return prices, nil
}

// gatewayPricing is new-api's GET /api/pricing answer, as far as the
// provider reads it (new-api v0.10.0, controller/pricing.go).
type gatewayPricing struct {
	Success bool                       `json:"success"`
	Data    []json.RawMessage          `json:"data"`
	Ratios  map[string]json.RawMessage `json:"group_ratio"`
}

// gatewayPricingRecord is one model of the list (model.Pricing).
type gatewayPricingRecord struct {
	Model     string          `json:"model_name"`
	QuotaType *int            `json:"quota_type"`
	Price     json.RawMessage `json:"model_price"`
	Groups    []string        `json:"enable_groups"`
}

// gatewayPerRequest is quota_type's value for a model billed a fixed price
// per request (model_price), rather than by tokens (model_ratio).
const gatewayPerRequest = 1

// decodeGatewayPricing turns new-api's price list into what one clip costs,
// model by model, where the list says it unambiguously: new-api bills a video
// task model_price times the ratio of the group the key uses, times what some
// channels multiply it by. The list does not say the key's group, nor the
// channel, so a price is said only when every group that offers the model has
// the same ratio and the model is not one whose channel multiplies; anything
// else is a ModelPrice with no amount and the reason in Unsaid.
func decodeGatewayPricing(raw json.RawMessage) (map[string]ModelPrice, error) {
	var list gatewayPricing
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("the price list is not the expected JSON (%w): %s", err, snippet(raw))
	}
	if !list.Success || list.Data == nil {
		return nil, fmt.Errorf("the answer is not a price list: %s", snippet(raw))
	}
	ratios := map[string]*big.Rat{}
	for group, r := range list.Ratios {
		if amount := readAmount(r); amount != nil {
			ratios[group] = amount
		}
	}
	prices := make(map[string]ModelPrice, len(list.Data))
	for _, item := range list.Data {
		var rec gatewayPricingRecord
		if json.Unmarshal(item, &rec) != nil || rec.Model == "" {
			continue
		}
		if _, twice := prices[rec.Model]; twice {
			prices[rec.Model] = ModelPrice{Unsaid: fmt.Sprintf("new-api lists model %q twice in its prices", rec.Model)}
			continue
		}
		prices[rec.Model] = gatewayClipPrice(rec, ratios)
	}
	return prices, nil
}

// gatewayClipPrice is what one clip of rec's model costs, as new-api v0.10.0
// bills a video task (relay/relay_task.go): model_price x the group's ratio x
// the channel's own factors, in quota units of 1/500,000 USD rounded down, so
// never more than the amount said here.
func gatewayClipPrice(rec gatewayPricingRecord, ratios map[string]*big.Rat) ModelPrice {
	name := rec.Model
	switch {
	case rec.QuotaType == nil || *rec.QuotaType != gatewayPerRequest:
		return ModelPrice{Unsaid: fmt.Sprintf("new-api prices model %q by tokens (a model ratio), and bills its video tasks a "+
			"price it does not publish; an administrator gives it a fixed price per request", name)}
	case strings.HasPrefix(name, "sora-2"):
		// relay/common/relay_utils.go: seconds (4 when unset) x a size factor.
		return ModelPrice{Unsaid: fmt.Sprintf("new-api bills model %q its price per request times the clip's seconds and a "+
			"factor of its size, which its price list does not say", name)}
	case strings.HasPrefix(name, "wan"):
		// Alibaba's video models: relay/channel/task/ali, seconds x resolution.
		return ModelPrice{Unsaid: fmt.Sprintf("new-api bills Alibaba's model %q its price per request times the clip's "+
			"seconds and a factor of its resolution, which its price list does not say", name)}
	}
	price := readAmount(rec.Price)
	if price == nil {
		return ModelPrice{Unsaid: fmt.Sprintf("new-api's price of model %q is not a number the provider can read", name)}
	}
	ratio, why := gatewayGroupRatio(rec.Groups, ratios)
	if ratio == nil {
		return ModelPrice{Unsaid: fmt.Sprintf("new-api multiplies the price of model %q by the ratio of the API key's "+
			"group, which it does not publish to a key, and %s", name, why)}
	}
	return ModelPrice{
		PerClip:  new(big.Rat).Mul(price, ratio),
		Currency: gatewayCurrency,
		BilledBy: gatewayBilledMembers,
	}
}

// gatewayGroupRatio is the ratio of every group that offers a model, when
// they share one: then it is the key's, whichever group the key uses.
func gatewayGroupRatio(groups []string, ratios map[string]*big.Rat) (*big.Rat, string) {
	if len(groups) == 0 {
		return nil, "the list names no group that offers the model"
	}
	var ratio *big.Rat
	for _, g := range slices.Sorted(slices.Values(groups)) {
		r, ok := ratios[g]
		switch {
		case !ok:
			return nil, fmt.Sprintf("the list gives no ratio for group %q, which offers the model", g)
		case ratio != nil && r.Cmp(ratio) != 0:
			return nil, "the groups that offer the model have different ratios"
		}
		ratio = r
	}
	return ratio, ""
}

package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// ModelPrice is what a model's record in the model list says its clips cost,
// read from the field names services use, at the record's top level or in a
// nested "pricing" object. A nil amount is one the record does not say.
type ModelPrice struct {
	// PerSecond is the price of one second of clip, PerClip the price of one
	// clip whatever its length; a record that gives both bills by the clip.
	PerSecond, PerClip *big.Rat
	// Currency is the unit the record names ("USD", "credits"); "" when none.
	Currency string
	// DefaultSeconds is the length of a clip whose seconds are unset, when the
	// record says: what a per-second price bills for such a clip.
	DefaultSeconds int64
	// BilledBy names metadata members the price is multiplied by when a clip
	// sends them: such a clip's cost cannot be told.
	BilledBy []string
	// Unsaid is why a price the service publishes is not what one clip costs
	// ("" when it is, or when none is published).
	Unsaid string
}

// The field names read for each part of a price, in order of preference.
// CONTRIBUTING.md, "Model prices", lists the same names.
var (
	perSecondPriceFields = []string{"price_per_second"}
	perClipPriceFields   = []string{"price_per_clip", "price_per_video"}
	currencyFields       = []string{"currency"}
	defaultSecondsFields = []string{"default_seconds", "default_duration"}
	priceNestedFields    = []string{"pricing"}
)

// Cost is what the clip req asks for costs, or why the price does not say:
// an error in words a plan's message can quote.
func (p ModelPrice) Cost(req VideoRequest) (*big.Rat, error) {
	if p.Unsaid != "" {
		return nil, errors.New(p.Unsaid)
	}
	if req.Metadata != nil {
		for _, name := range p.BilledBy {
			if _, ok := req.Metadata.Extra[name]; ok {
				return nil, fmt.Errorf("the service multiplies the price of model %q by the clip's extra_metadata member %q",
					req.Model, name)
			}
		}
	}
	if p.PerClip != nil {
		return p.PerClip, nil
	}
	if p.PerSecond == nil {
		return nil, fmt.Errorf("the service publishes no price for model %q", req.Model)
	}
	n := p.DefaultSeconds
	if req.Seconds != "" {
		var err error
		if n, err = strconv.ParseInt(req.Seconds, 10, 64); err != nil {
			return nil, fmt.Errorf("the service prices model %q per second, and seconds %q is not a whole number", req.Model, req.Seconds)
		}
	}
	if n <= 0 {
		return nil, fmt.Errorf("the service prices model %q per second, and publishes no default length for a clip "+
			"without seconds", req.Model)
	}
	return new(big.Rat).Mul(p.PerSecond, new(big.Rat).SetInt64(n)), nil
}

// FormatAmount writes an amount of currency as a user reads it: "8 credits",
// "0.35 USD"; exact, with no trailing zeros, and never in exponent form.
func FormatAmount(amount *big.Rat, currency string) string {
	s := amount.RatString()
	if !amount.IsInt() {
		s = strings.TrimRight(strings.TrimRight(amount.FloatString(12), "0"), ".")
	}
	if currency == "" {
		return s
	}
	return s + " " + currency
}

// decodePrice reads the price a model record publishes. An amount of an
// unexpected type, or below zero, is left unsaid rather than guessed.
func decodePrice(item json.RawMessage) ModelPrice {
	scopes := recordScopes(item, priceNestedFields)
	first := func(names []string) (json.RawMessage, bool) {
		for _, scope := range scopes {
			for _, name := range names {
				if raw, ok := scope[name]; ok {
					return raw, true
				}
			}
		}
		return nil, false
	}
	var p ModelPrice
	if raw, ok := first(perSecondPriceFields); ok {
		p.PerSecond = readAmount(raw)
	}
	if raw, ok := first(perClipPriceFields); ok {
		p.PerClip = readAmount(raw)
	}
	if raw, ok := first(currencyFields); ok {
		var c string
		if json.Unmarshal(raw, &c) == nil {
			p.Currency = strings.TrimSpace(c)
		}
	}
	if raw, ok := first(defaultSecondsFields); ok {
		if n, ok := wholeSeconds(raw); ok && n > 0 {
			p.DefaultSeconds = n
		}
	}
	return p
}

// readAmount reads a JSON number, or a string of one, exactly as written.
func readAmount(raw json.RawMessage) *big.Rat {
	var n json.Number
	if json.Unmarshal(raw, &n) != nil {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil
		}
		n = json.Number(strings.TrimSpace(s))
	}
	r, ok := new(big.Rat).SetString(string(n))
	if !ok || r.Sign() < 0 {
		return nil
	}
	return r
}

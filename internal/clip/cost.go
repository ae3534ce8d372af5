package clip

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"sync"

	"github.com/videogen/terraform-provider-videogen/internal/client"
)

// spending adds up, at plan, what the plan's new clips cost as the service's
// model list prices them, and fails the plan once the provider's max_cost is
// passed: the cost's counterpart of max_new_clips, before anything is sent.
type spending struct {
	max *big.Rat // nil: no cap

	mu       sync.Mutex
	total    *big.Rat
	currency string
}

// price is what one clip costs, or why the plan cannot tell.
type price struct {
	amount   *big.Rat // nil when unknown
	currency string
	unknown  string // why the amount is unknown
}

// String is the price as billing and messages say it: "8 credits".
func (p price) String() string { return client.FormatAmount(p.amount, p.currency) }

// priceOf says what clip c costs, as the service prices its model: its
// record in the model list, or new-api's price list. A model, or a length,
// known only at apply makes it unknown, as does a model without a price.
func (l *Lifecycle) priceOf(ctx context.Context, c Clip) price {
	for _, a := range c.Args {
		if (a.Name == "model" || a.Name == "seconds") && a.Unknown {
			return price{unknown: fmt.Sprintf("its %s is known only after apply", a.Name)}
		}
	}
	if l.models == nil || c.Request.Model == "" {
		return price{unknown: "its model is not known"}
	}
	rec, ok := l.models.Record(ctx, c.Request.Model)
	if !ok {
		return price{unknown: fmt.Sprintf("the service's model list could not be read, or lacks model %q", c.Request.Model)}
	}
	for _, a := range c.Args {
		// Members the price is multiplied by may be among those.
		if a.Name == "extra_metadata" && a.Unknown && len(rec.Price.BilledBy) > 0 {
			return price{unknown: fmt.Sprintf("its extra_metadata is known only after apply, and the service multiplies "+
				"the price of model %q by its member %s", c.Request.Model, strings.Join(rec.Price.BilledBy, ", "))}
		}
	}
	amount, err := rec.Price.Cost(c.Request)
	if err != nil {
		return price{unknown: err.Error()}
	}
	return price{amount: amount, currency: rec.Price.Currency}
}

// spend adds the price of one new clip and fails the plan when max_cost is
// passed, or cannot be checked.
func (s *spending) spend(p price, notes *Notes) {
	if s.max == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	capped := client.FormatAmount(s.max, s.currency)
	switch {
	case p.amount == nil:
		notes.Fail("", "Clip Cost Unknown", fmt.Sprintf("The provider's max_cost (%s) caps what a plan's new clips "+
			"cost, and this plan cannot tell what this new clip costs: %s. Nothing has been submitted. Remove max_cost "+
			"from the provider block to plan without the cap, or give the clip a model and seconds the model list prices.",
			capped, p.unknown))
		return
	case s.total == nil:
		s.total, s.currency = new(big.Rat), p.currency
	case p.currency != s.currency:
		notes.Fail("", "Clip Cost Unknown", fmt.Sprintf("The provider's max_cost caps what a plan's new clips cost, and "+
			"this plan's clips are priced in %q and %q, which it cannot add up. Nothing has been submitted. Remove "+
			"max_cost from the provider block to plan without the cap.", s.currency, p.currency))
		return
	}
	s.total.Add(s.total, p.amount)
	if s.total.Cmp(s.max) > 0 {
		notes.Fail("", "Plan Costs More Than max_cost", fmt.Sprintf("This plan's new clips cost at least %s as the "+
			"service prices them (this one %s), and the provider's max_cost allows %s. Nothing has been "+
			"submitted. If the plan is what you meant, raise max_cost in the provider block (or remove it for no cap) and "+
			"plan again; if not, check for_each and count, seconds, and resources whose arguments changed.",
			client.FormatAmount(s.total, s.currency), p, client.FormatAmount(s.max, s.currency)))
	}
}

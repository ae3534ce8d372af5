package client

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// ModelListTimeout bounds the model look-up of a plan, retries included: a slow
// or unreachable service must not hold up a plan for long, and the plan says it
// could not check. The provider page's "Plan-time checks" states it.
const ModelListTimeout = 15 * time.Second

// ModelCatalog fetches GET /v1/models at most once, so that a configuration with
// hundreds of clips costs one request at plan time. A model list in the expected
// shape is also the proof that the base URL points at the service, which a 404
// on a task or a submission needs before it can be believed.
type ModelCatalog struct {
	client *Client
	once   sync.Once
	ids    []string
	models []Model
	err    error

	// prices is new-api's price list, read at most once, when a record of
	// its model list has no price of its own; nil when it could not be read.
	pricesOnce sync.Once
	prices     map[string]ModelPrice
}

// NewModelCatalog returns a catalog that reads c's model list when first asked.
func NewModelCatalog(c *Client) *ModelCatalog { return &ModelCatalog{client: c} }

// IDs returns the model IDs this key may use, or the error from the one attempt to
// fetch them.
func (m *ModelCatalog) IDs(ctx context.Context) ([]string, error) {
	m.once.Do(func() {
		// Detached from the first caller's cancellation, which would otherwise be
		// remembered as the answer for every later caller.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ModelListTimeout)
		defer cancel()
		models, err := m.client.ListModels(ctx)
		if err != nil {
			m.err = err
			return
		}
		m.models = models
		for _, model := range models {
			m.ids = append(m.ids, model.ID)
		}
	})
	return m.ids, m.err
}

// Record returns the list's record of the model id, if the list could be read
// and has it.
func (m *ModelCatalog) Record(ctx context.Context, id string) (Model, bool) {
	if _, err := m.IDs(ctx); err != nil {
		return Model{}, false
	}
	for _, r := range m.models {
		if r.ID == id {
			if r.Price.PerClip == nil && r.Price.PerSecond == nil && publishedByGateway(r.Raw) {
				r.Price = m.gatewayPrice(ctx, id)
			}
			return r, true
		}
	}
	return Model{}, false
}

// gatewayPrice is the price new-api's price list gives model id; a list
// that cannot be read gives none, and the plan says it cannot tell.
func (m *ModelCatalog) gatewayPrice(ctx context.Context, id string) ModelPrice {
	m.pricesOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ModelListTimeout)
		defer cancel()
		m.prices, _ = m.client.GatewayPrices(ctx)
	})
	if p, ok := m.prices[id]; ok {
		return p
	}
	if m.prices == nil {
		return ModelPrice{Unsaid: "the service's price list (GET " + gatewayPricingPath + ") could not be read"}
	}
	return ModelPrice{Unsaid: "the service's price list (GET " + gatewayPricingPath + ") does not list model " + fmt.Sprintf("%q", id)}
}

// VerifyService returns nil when the base URL answers as the service: its model
// list can be read. Otherwise it says what answered instead.
func (m *ModelCatalog) VerifyService(ctx context.Context) error {
	if _, err := m.IDs(ctx); err != nil {
		return fmt.Errorf("GET %s/models did not answer with a model list either: %w", m.client.BaseURL(), err)
	}
	return nil
}

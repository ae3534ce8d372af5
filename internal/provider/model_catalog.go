package provider

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/videogen/terraform-provider-videogen/internal/client"
)

// modelCatalogTimeout bounds the plan-time model look-up: a slow or unreachable
// service must not hold up a plan for long, and the plan says it could not check.
const modelCatalogTimeout = 15 * time.Second

// modelCatalog fetches GET /v1/models at most once per provider instance, so that a
// configuration with hundreds of clips costs one request at plan time. A model list
// in the expected shape is also the proof that base_url points at the service,
// which a 404 on a task or a submission needs before it can be believed.
type modelCatalog struct {
	client   *client.Client
	once     sync.Once
	ids      []string
	err      error
	reported sync.Once
}

func newModelCatalog(c *client.Client) *modelCatalog { return &modelCatalog{client: c} }

// IDs returns the model IDs this key may use, or the error from the one attempt to
// fetch them.
func (m *modelCatalog) IDs(ctx context.Context) ([]string, error) {
	m.once.Do(func() {
		// Detached from the first caller's cancellation, which would otherwise be
		// remembered as the answer for every later caller.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), modelCatalogTimeout)
		defer cancel()
		models, err := m.client.ListModels(ctx)
		if err != nil {
			m.err = err
			return
		}
		for _, model := range models {
			m.ids = append(m.ids, model.ID)
		}
	})
	return m.ids, m.err
}

// verifyService returns nil when base_url answers as the service: its model list
// can be read. Otherwise it says what answered instead.
func (m *modelCatalog) verifyService(ctx context.Context) error {
	if _, err := m.IDs(ctx); err != nil {
		return fmt.Errorf("GET %s/models did not answer with a model list either: %w", m.client.BaseURL(), err)
	}
	return nil
}

// reportOnce turns a failure to fetch the model list at plan time into one
// diagnostic per provider process. It is an error whenever the apply could not
// work either: a rejected key, a service that cannot be reached, an address that
// answers but is not the service. A service that answers but will not give the
// list (403, rate limits, server errors) may still take the submissions, so the
// plan goes on with a warning. docs/index.md, "Plan-time checks", says the same
// to users; keep the two in step.
func (m *modelCatalog) reportOnce(_ context.Context, err error, diags *diag.Diagnostics) {
	m.reported.Do(func() {
		var apiErr *client.APIError
		var unreachable *client.UnreachableError
		switch {
		case client.IsUnauthorized(err):
			diags.AddError("Invalid API Key", fmt.Sprintf("The service rejected the API key (HTTP 401) when the plan checked "+
				"the model against GET /v1/models, so every request of the apply would fail too. Check api_key in the "+
				"provider block or the %s environment variable; a key deleted or revoked in the console must be replaced "+
				"by a new one. Nothing has been submitted.\n\nOriginal error: %s", envAPIKey, err))
		case errors.As(err, &unreachable):
			diags.AddError("Video Service Unreachable", fmt.Sprintf("The plan could not reach the service at %s to check "+
				"the model against its model list: %s. An apply could not submit anything either, so the plan stops here. "+
				"Check the host and port in base_url (or %s), DNS, proxy settings (HTTPS_PROXY, NO_PROXY) and the "+
				"service's TLS certificate, or whether the service is down. Nothing has been submitted.\n\n"+
				"Original error: %s", m.client.BaseURL(), unreachable.Reason(), envBaseURL, err))
		case client.IsNotFound(err) || !errors.As(err, &apiErr):
			diags.AddError("Wrong Base URL", fmt.Sprintf("The plan checked the model against %s/models: something answered "+
				"there, but not with a model list, so base_url (or %s) most likely does not point at the video generation "+
				"API: check its path (with or without the /v1 suffix, but without any other path the service does not "+
				"have). Nothing has been submitted.\n\nOriginal error: %s", m.client.BaseURL(), envBaseURL, err))
		default:
			diags.AddWarning("Model Not Checked", fmt.Sprintf("The service at %s answered, but not with its model list: %s. "+
				"The plan goes on without checking the models and their limits; if one is wrong, the apply fails without "+
				"billing anything. If this persists, check the key's permissions and the service's status.\n\n"+
				"Original error: %s", m.client.BaseURL(), catalogFailure(err), err))
		}
	})
}

func catalogFailure(err error) string {
	switch {
	case client.IsRateLimited(err):
		return "it kept rate-limiting the request"
	case client.IsServerError(err):
		return "it kept answering with a server error"
	case client.IsForbidden(err):
		return "it refused to list models for this key"
	}
	return "it answered with an error"
}

// closestModels ranks ids by edit distance to want and returns at most n of them.
func closestModels(want string, ids []string, n int) []string {
	type scored struct {
		id   string
		dist int
	}
	ranked := make([]scored, len(ids))
	for i, id := range ids {
		ranked[i] = scored{id, levenshtein(strings.ToLower(want), strings.ToLower(id))}
	}
	sort.SliceStable(ranked, func(i, j int) bool { return ranked[i].dist < ranked[j].dist })
	out := make([]string, 0, n)
	for _, r := range ranked[:min(n, len(ranked))] {
		out = append(out, r.id)
	}
	return out
}

func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

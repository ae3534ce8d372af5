package provider

import (
	"context"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/videogen/terraform-provider-videogen/internal/client"
)

// modelCatalogTimeout bounds the plan-time model look-up: a slow or unreachable
// service must not hold up a plan, since the API itself rejects unknown models too.
const modelCatalogTimeout = 15 * time.Second

// modelCatalog fetches GET /v1/models at most once per provider instance, so that a
// configuration with hundreds of clips costs one request at plan time.
type modelCatalog struct {
	client *client.Client
	once   sync.Once
	ids    []string
	err    error
}

func newModelCatalog(c *client.Client) *modelCatalog { return &modelCatalog{client: c} }

// IDs returns the model IDs this key may use, or the error from the one attempt to
// fetch them.
func (m *modelCatalog) IDs(ctx context.Context) ([]string, error) {
	m.once.Do(func() {
		ctx, cancel := context.WithTimeout(ctx, modelCatalogTimeout)
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

package client

import (
	"slices"
	"sort"
	"strings"
)

// ClosestModels ranks ids by edit distance to want, ignoring case, and returns
// at most n of them: the suggestions for a model ID the list lacks.
func ClosestModels(want string, ids []string, n int) []string {
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

// ModelsOneEditAway returns, in list order, the ids nearest to want when they
// differ from it by case alone or by one letter added, removed or changed: the
// "did you mean" of a model ID the list lacks. An id that differs by case
// alone is the one meant, before any one letter away; nothing further is offered
// as the model meant.
func ModelsOneEditAway(want string, ids []string) []string {
	if slices.Contains(ids, want) {
		return nil
	}
	best, out := 2, []string(nil)
	for _, id := range ids {
		switch d := levenshtein(strings.ToLower(want), strings.ToLower(id)); {
		case d > 1:
		case d < best:
			best, out = d, []string{id}
		case d == best:
			out = append(out, id)
		}
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

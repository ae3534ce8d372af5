package client

import (
	"slices"
	"testing"
)

func TestClosestModels(t *testing.T) {
	t.Parallel()
	ids := []string{"veo-3", "kling-2", "seedance-1-pro", "seedance-1-lite", "sora-2"}
	for _, tc := range []struct {
		want string
		n    int
		out  []string
	}{
		{"Seedance-1-Pro", 2, []string{"seedance-1-pro", "seedance-1-lite"}},
		{"sora2", 1, []string{"sora-2"}},
		{"veo-3", 10, []string{"veo-3", "sora-2", "kling-2", "seedance-1-pro", "seedance-1-lite"}},
		{"anything", 0, []string{}},
	} {
		if got := ClosestModels(tc.want, ids, tc.n); !slices.Equal(got, tc.out) {
			t.Errorf("ClosestModels(%q, %d) = %q, want %q", tc.want, tc.n, got, tc.out)
		}
	}
}

func TestModelsOneEditAway(t *testing.T) {
	t.Parallel()
	ids := []string{"videogen-1", "videogen-1-fast", "videogen-2", "Sora-2"}
	for _, tc := range []struct {
		want string
		out  []string
	}{
		{"videogen-1-fat", []string{"videogen-1-fast"}},
		{"videogen-1-fastt", []string{"videogen-1-fast"}},
		{"VideoGen-2", []string{"videogen-2"}},
		{"sora-2", []string{"Sora-2"}},
		{"videogen-3", []string{"videogen-1", "videogen-2"}},
		{"videogen-1-fsat", nil},
		{"videogen", nil},
		{"videogen-1", nil},
	} {
		if got := ModelsOneEditAway(tc.want, ids); !slices.Equal(got, tc.out) {
			t.Errorf("ModelsOneEditAway(%q) = %q, want %q", tc.want, got, tc.out)
		}
	}
}

func TestLevenshtein(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"abc", "", 3}, {"kitten", "sitting", 3}, {"sora-2", "sora2", 1}, {"größe", "grösse", 2}} {
		if got := levenshtein(tc.a, tc.b); got != tc.d {
			t.Errorf("levenshtein(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.d)
		}
	}
}

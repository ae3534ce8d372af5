package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docsWordBudget is the most words README.md and the pages under docs/ may
// hold together, counted as `wc -w README.md docs/*.md docs/*/*.md` counts
// them. A user reads these; a new section makes room by saying once what is
// said twice, and by leaving to each attribute's description what it says.
const docsWordBudget = 16000

func TestDocsWordBudget(t *testing.T) {
	t.Parallel()
	total := 0
	var counts []string
	for _, f := range userDocs(t) {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n := len(strings.Fields(string(text)))
		total += n
		counts = append(counts, fmt.Sprintf("%6d %s", n, f))
	}
	if total > docsWordBudget {
		t.Errorf("README.md and docs/ hold %d words, over the budget of %d (cut repetition; run make generate):\n%s",
			total, docsWordBudget, strings.Join(counts, "\n"))
	}
}

// userDocs are the files a user reads: README.md and every page under docs/.
func userDocs(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md"}
	for _, pattern := range []string{"docs/*.md", "docs/*/*.md"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) == 1 {
		t.Fatal("docs/ holds no page")
	}
	return files
}

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
	"gopkg.in/yaml.v3"
)

// dependabotConfig is the part of .github/dependabot.yml's documented format
// (version 2) that this repository uses; decoding with KnownFields makes a
// misspelt or misplaced key an error, as GitHub reports it only on the
// repository's Insights page, where nobody looks.
type dependabotConfig struct {
	Version int `yaml:"version"`
	Updates []struct {
		Ecosystem string `yaml:"package-ecosystem"`
		Directory string `yaml:"directory"`
		Schedule  struct {
			Interval string `yaml:"interval"`
		} `yaml:"schedule"`
		Groups map[string]struct {
			Patterns []string `yaml:"patterns"`
		} `yaml:"groups"`
	} `yaml:"updates"`
}

// TestDependabotConfig validates .github/dependabot.yml: the keys of its
// format, an ecosystem for each of the repository's (Go modules and the
// workflows' actions) pointing at a directory that holds them, and a
// terraform-plugin-* group that takes every such module go.mod requires.
func TestDependabotConfig(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join(".github", "dependabot.yml"))
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	var cfg dependabotConfig
	if err := dec.Decode(&cfg); err != nil {
		t.Fatalf(".github/dependabot.yml: %v", err)
	}
	if cfg.Version != 2 {
		t.Errorf("version is %d, want 2", cfg.Version)
	}
	holds := map[string]string{"gomod": "go.mod", "github-actions": filepath.Join(".github", "workflows")}
	seen := map[string]bool{}
	var pluginPatterns []string
	for i, u := range cfg.Updates {
		want, known := holds[u.Ecosystem]
		if !known {
			t.Errorf("updates[%d]: package-ecosystem %q is not one this repository uses", i, u.Ecosystem)
			continue
		}
		seen[u.Ecosystem] = true
		if !strings.HasPrefix(u.Directory, "/") {
			t.Errorf("updates[%d]: directory %q must start with /", i, u.Directory)
		}
		if _, err := os.Stat(filepath.Join("."+u.Directory, want)); err != nil {
			t.Errorf("updates[%d] (%s): %v", i, u.Ecosystem, err)
		}
		switch u.Schedule.Interval {
		case "daily", "weekly", "monthly":
		default:
			t.Errorf("updates[%d]: schedule.interval %q is not daily, weekly or monthly", i, u.Schedule.Interval)
		}
		for name, g := range u.Groups {
			if len(g.Patterns) == 0 {
				t.Errorf("updates[%d]: group %s has no patterns", i, name)
			}
			if u.Ecosystem == "gomod" {
				pluginPatterns = append(pluginPatterns, g.Patterns...)
			}
		}
	}
	for eco := range holds {
		if !seen[eco] {
			t.Errorf("no updates entry for %s", eco)
		}
	}

	data, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	mod, err := modfile.Parse("go.mod", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range mod.Require {
		if !strings.HasPrefix(r.Mod.Path, "github.com/hashicorp/terraform-plugin-") {
			continue
		}
		grouped := false
		for _, p := range pluginPatterns {
			re := regexp.MustCompile("^" + strings.ReplaceAll(regexp.QuoteMeta(p), `\*`, ".*") + "$")
			grouped = grouped || re.MatchString(r.Mod.Path)
		}
		if !grouped {
			t.Errorf("%s is in no gomod group: it would come in a pull request of its own", r.Mod.Path)
		}
	}
}

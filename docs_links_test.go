package main

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The user documentation's relative links. README.md and the other Markdown
// files of the repository are read on GitHub, where a link names a file of
// the repository (`docs/index.md`). docs/ is read on the Terraform Registry,
// which serves each page without its `.md` and resolves a link in the form
// HashiCorp's providers use, a relative path ending in `.html`
// (`guides/ci-pipelines.html`, `../resources/video.html`); a `.md` link there
// leads nowhere. Each link is checked in the form of the place it is read,
// down to its `#fragment`.

// alsoLinked are the Markdown files read on GitHub whose links are checked
// besides the user documentation (userDocs).
var alsoLinked = []string{"CONTRIBUTING.md", "cmd/videogen-mock/README.md"}

func TestDocsLinksResolve(t *testing.T) {
	t.Parallel()
	repo := os.DirFS(".")
	for _, f := range append(userDocs(t), alsoLinked...) {
		for _, problem := range brokenLinks(t, repo, filepath.ToSlash(f)) {
			t.Error(problem)
		}
	}
}

// TestLinkCheckerFindsBrokenLinks: the checker fails each kind of broken link,
// and passes the good ones beside them.
func TestLinkCheckerFindsBrokenLinks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("docs/index.md", "# Provider\n\n## What a `plan` bills\n\n<a id=\"nested--x\"></a>\n")
	write("docs/guides/a.md", strings.Join([]string{
		"# A", "",
		"[good](../index.html#what-a-plan-bills) [good](b.html) [good](#a) [good](../index.html#nested--x)",
		"[bad](b.md) [bad](c.html) [bad](../index.html#no-such-heading) [bad](#nowhere)",
		"`[not a link](x.html)`", "```", "[not a link](y.html)", "```",
		"[good](https://example.com/x.md)", "",
	}, "\n"))
	write("docs/guides/b.md", "# B\n")
	write("README.md", "[good](docs/index.md#what-a-plan-bills) [good](docs/) [bad](docs/guides/a.html) [bad](docs/index.md#none)\n")
	for file, want := range map[string][]string{
		"docs/guides/a.md": {"b.md", "c.html", "../index.html#no-such-heading", "#nowhere"},
		"README.md":        {"docs/guides/a.html", "docs/index.md#none"},
	} {
		got := brokenLinks(t, os.DirFS(dir), file)
		if len(got) != len(want) {
			t.Errorf("%s: %d broken links found, want %d: %q", file, len(got), len(want), got)
			continue
		}
		for i, w := range want {
			if !strings.Contains(got[i], "("+w+")") {
				t.Errorf("%s: problem %d is %q, want one about %s", file, i, got[i], w)
			}
		}
	}
}

var (
	fenceRE      = regexp.MustCompile("(?ms)^\\s*```.*?^\\s*```[^\\n]*$")
	codeSpanRE   = regexp.MustCompile("`[^`\\n]*`")
	linkRE       = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	headingRE    = regexp.MustCompile(`(?m)^#{1,6}\s+(.+?)\s*#*\s*$`)
	anchorRE     = regexp.MustCompile(`<a (?:id|name)="([^"]+)"`)
	slugDropRE   = regexp.MustCompile(`[^\p{L}\p{N}\s_-]`)
	schemeLinkRE = regexp.MustCompile(`^[a-z][a-z0-9+.-]*:`)
)

// brokenLinks says what is wrong with each relative link of file (a slash
// path in repo), one line per broken link, in order.
func brokenLinks(t *testing.T, repo fs.FS, file string) []string {
	t.Helper()
	text, err := fs.ReadFile(repo, file)
	if err != nil {
		t.Fatal(err)
	}
	registry := strings.HasPrefix(file, "docs/")
	prose := codeSpanRE.ReplaceAllString(fenceRE.ReplaceAllString(string(text), ""), "")
	var problems []string
	for _, m := range linkRE.FindAllStringSubmatch(prose, -1) {
		link := m[1]
		if schemeLinkRE.MatchString(link) {
			continue
		}
		target, fragment, _ := strings.Cut(link, "#")
		var err error
		if registry {
			err = checkRegistryLink(repo, file, target, fragment)
		} else {
			err = checkGitHubLink(repo, file, target, fragment)
		}
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: link (%s): %v", file, link, err))
		}
	}
	return problems
}

// checkRegistryLink resolves a link of a page under docs/ as the Registry
// does: `x.html` is the page docs/.../x.md.
func checkRegistryLink(repo fs.FS, page, target, fragment string) error {
	if target != "" {
		if !strings.HasSuffix(target, ".html") {
			return fmt.Errorf("a page under docs/ links to another as a relative path ending in .html (the Registry's form)")
		}
		page = path.Join(path.Dir(page), strings.TrimSuffix(target, ".html")+".md")
		if !strings.HasPrefix(page, "docs/") {
			return fmt.Errorf("leads out of docs/, which the Registry does not serve")
		}
		if _, err := fs.Stat(repo, page); err != nil {
			return fmt.Errorf("no page %s", page)
		}
	}
	return checkFragment(repo, page, fragment)
}

// checkGitHubLink resolves a link of a file read on GitHub: a file or
// directory of the repository, relative to the linking file.
func checkGitHubLink(repo fs.FS, file, target, fragment string) error {
	dest := file
	if target != "" {
		dest = path.Join(path.Dir(file), target)
		if _, err := fs.Stat(repo, dest); err != nil {
			return fmt.Errorf("no file or directory %s in the repository", dest)
		}
	}
	if fragment == "" || !strings.HasSuffix(dest, ".md") {
		return nil
	}
	return checkFragment(repo, dest, fragment)
}

// checkFragment: fragment names a heading of page (as GitHub and the Registry
// derive its id) or an explicit anchor.
func checkFragment(repo fs.FS, page, fragment string) error {
	if fragment == "" {
		return nil
	}
	text, err := fs.ReadFile(repo, page)
	if err != nil {
		return err
	}
	prose := fenceRE.ReplaceAllString(string(text), "")
	seen := map[string]int{}
	for _, m := range headingRE.FindAllStringSubmatch(prose, -1) {
		id := headingID(m[1])
		n := seen[id]
		seen[id]++
		if n > 0 {
			id = fmt.Sprintf("%s-%d", id, n)
		}
		if id == fragment {
			return nil
		}
	}
	for _, m := range anchorRE.FindAllStringSubmatch(prose, -1) {
		if m[1] == fragment {
			return nil
		}
	}
	return fmt.Errorf("%s has no heading or anchor #%s", page, fragment)
}

// headingID is the id GitHub gives a heading: lower case, punctuation other
// than - and _ dropped, each space a hyphen.
func headingID(heading string) string {
	heading = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`).ReplaceAllString(heading, "$1")
	id := slugDropRE.ReplaceAllString(strings.ToLower(heading), "")
	return strings.ReplaceAll(id, " ", "-")
}

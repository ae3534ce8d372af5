package clip

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The lifecycle knows no Terraform: it is tested, and could be used, without
// it. Checked on every package it builds on, not only its own imports. go
// list answers, not go/build: a test binary built with -trimpath, as CI
// builds, knows no GOROOT for go/build to search.
func TestImportsNoTerraform(t *testing.T) {
	t.Parallel()
	out, err := exec.CommandContext(t.Context(), "go", "list", "-deps", "-f", "{{.ImportPath}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	for _, p := range deps {
		if strings.Contains(p, "hashicorp/terraform-plugin-framework") {
			t.Errorf("the clip package depends on %s", p)
		}
	}
	if !slices.Contains(deps, "github.com/videogen/terraform-provider-videogen/internal/client") {
		t.Fatalf("go list -deps named %d packages, without the client the clip package builds on", len(deps))
	}
}

// text is an argument of the clips of these tests, compared as the table's
// rows compare a string; ratio compares as the ratio's row does, in
// miniature: 16:09 is 16:9.
func text(name, v string, echoed bool) Arg {
	same := func(a, b any) bool { return a == b }
	if name == "ratio" {
		same = func(a, b any) bool {
			as, aok := a.(string)
			bs, bok := b.(string)
			return aok && bok && strings.ReplaceAll(as, ":0", ":") == strings.ReplaceAll(bs, ":0", ":")
		}
	}
	switch v {
	case "":
		return Arg{Name: name, Echoed: echoed, Nothing: true, Same: same}
	case "?":
		return Arg{Name: name, Echoed: echoed, Unknown: true, Same: same}
	}
	return Arg{Name: name, Echoed: echoed, Value: v, Same: same}
}

// held is the clip a state of task taskID describes; ratio "" is unset.
func held(taskID, prompt, ratio string) Clip {
	return Clip{TaskID: taskID, Prompt: prompt, Args: []Arg{text("model", "videogen-1", false),
		text("prompt", prompt, false), text("ratio", ratio, true), text("triggers_replace", "", false)}}
}

// planned is a create plan: an unset echoed argument is unknown until the
// service answers.
func planned(prompt, ratio string) Clip {
	if ratio == "" {
		ratio = "?"
	}
	return held("", prompt, ratio)
}

func TestSame(t *testing.T) {
	t.Parallel()
	c := held("t1", "a kite", "16:9")
	triggered := planned("a kite", "16:9")
	triggered.Args[3] = text("triggers_replace", "rev=2", false)
	unsetRatio := planned("a kite", "16:9")
	unsetRatio.Args[2] = text("ratio", "", true)
	for name, tc := range map[string]struct {
		plan Clip
		want bool
	}{
		"same arguments":               {planned("a kite", "16:9"), true},
		"echoed argument left unset":   {planned("a kite", ""), true},
		"same ratio in other spelling": {planned("a kite", "16:09"), true},
		"other prompt":                 {planned("a kite at dusk", "16:9"), false},
		"other ratio":                  {planned("a kite", "9:16"), false},
		"triggers_replace changed":     {triggered, false},
		"says nothing of a ratio held": {unsetRatio, false},
		"other table":                  {Clip{Args: c.Args[:2]}, false},
	} {
		if got := Same(tc.plan, c); got != tc.want {
			t.Errorf("%s: Same = %v, want %v", name, got, tc.want)
		}
	}
}

package journal

import (
	"encoding/json"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

func TestPartialPlanFlagIn(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"terraform", "apply", "-auto-approve"}, ""},
		{[]string{"terraform", "plan", "-target=videogen_video.clip[1]"}, "-target"},
		{[]string{"terraform", "apply", "-target", "videogen_video.clip[1]"}, "-target"},
		{[]string{"terraform", "-chdir=x", "apply", "--target=videogen_video.a"}, "-target"},
		{[]string{"tofu", "plan", "-exclude=videogen_video.a"}, "-exclude"},
		{[]string{"tofu", "plan", "-target-file=targets.txt"}, "-target-file"},
		{[]string{"tofu", "apply", "-exclude-file", "x"}, "-exclude-file"},
		// Other flags, and words that only contain the name, leave nothing out.
		{[]string{"terraform", "apply", "-replace=videogen_video.a", "-var=x=-target", "target"}, ""},
		{[]string{"terraform", "apply", "-targets=x", "-no-target"}, ""},
		{[]string{"terraform", "console", "--", "-target=x"}, ""},
	} {
		if got := partialPlanFlagIn(c.args); got != c.want {
			t.Errorf("partialPlanFlagIn(%q) = %q, want %q", c.args, got, c.want)
		}
	}
	if got := cliArgsWords(` -input=false  '-target=videogen_video.clip["a b"]'`); len(got) < 2 ||
		partialPlanFlagIn(got) != "-target" {
		t.Errorf("cliArgsWords found no -target in a quoted TF_CLI_ARGS: %q", got)
	}
}

// PartialPlanFlag reads what it finds from the process that started the
// provider, as Terraform does (here a shell given -target as an argument),
// and from the TF_CLI_ARGS variables the provider inherits.
func TestPartialPlanFlagReadsTheParentsCommandLine(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the parent's command line is read from /proc")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	say := func(env []string, parentArgs ...string) string {
		t.Helper()
		spec, _ := json.Marshal(childSpec{SayPartialPlan: true})
		// ": " after the child keeps the shell from replacing itself with it.
		args := append([]string{"-c", `"$0" -test.run='^$'; :`, exe}, parentArgs...)
		cmd := exec.CommandContext(t.Context(), "sh", args...)
		cmd.Env = append(os.Environ(), childEnv+"="+string(spec), "TF_CLI_ARGS=", "TF_CLI_ARGS_plan=", "TF_CLI_ARGS_apply=")
		cmd.Env = append(cmd.Env, env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		return strings.TrimSpace(string(out))
	}
	for _, c := range []struct {
		env        []string
		parentArgs []string
		want       string
	}{
		{nil, []string{"apply", "-auto-approve"}, `flag="" known=true`},
		{nil, []string{"apply", "-target=videogen_video.clip[1]"}, `flag="-target" known=true`},
		{nil, []string{"plan", "-exclude", "videogen_video.clip[0]"}, `flag="-exclude" known=true`},
		{[]string{"TF_CLI_ARGS_plan=-target=videogen_video.clip[1]"}, []string{"plan"}, `flag="-target" known=true`},
		// A parent that runs no plan command (terraform test, a debugger)
		// may still narrow its plans: nothing is proven.
		{nil, []string{"test"}, `flag="" known=false`},
		{[]string{"TF_CLI_ARGS=-target=videogen_video.clip[1]"}, []string{"test"}, `flag="-target" known=true`},
	} {
		if got := say(c.env, c.parentArgs...); got != c.want {
			t.Errorf("a provider started by sh %q with %q finds %s, want %s", c.parentArgs, c.env, got, c.want)
		}
	}
}

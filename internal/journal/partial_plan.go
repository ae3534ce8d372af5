package journal

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
)

// partialPlanFlags are the flags with which a Terraform (or OpenTofu) plan or
// apply leaves resources out: it neither reads nor plans them, and sends the
// provider nothing about them, so a task one of them holds is never removed
// from the journal by that plan (see savedState). OpenTofu added -exclude and
// the -file forms.
var partialPlanFlags = []string{"target", "target-file", "exclude", "exclude-file"}

// cliArgsVariables are the environment variables whose words Terraform and
// OpenTofu add to a command's arguments; the provider inherits them.
var cliArgsVariables = []string{"TF_CLI_ARGS", "TF_CLI_ARGS_plan", "TF_CLI_ARGS_apply"}

// planningCommands are the commands whose plans a -target flag narrows; a
// parent with none of them is not the CLI running a plan (a debugger serving
// the provider, `terraform test`, whose run blocks target in the test file).
var planningCommands = []string{"plan", "apply", "destroy", "refresh", "import"}

// PartialPlanFlag names the flag ("-target", "-exclude", ...) with which the
// Terraform process that runs this provider leaves resources out of its plan,
// as that process's command line or its TF_CLI_ARGS variables give it; empty
// when there is none. known is false when the command line cannot be read (a
// system without /proc) or is not a planning command's, and then an empty
// flag proves nothing.
// Terraform starts the provider as its child, so the parent process's
// arguments are the command's own, on Terraform 1.0 too (whose panicwrap
// child repeats its parent's arguments) and for an apply of a saved plan
// (which has no -target of its own: its plan already ran the provider with
// it, and failed there).
func PartialPlanFlag() (flag string, known bool) { return partialPlan() }

var partialPlan = sync.OnceValues(func() (string, bool) {
	args, known := parentArgs()
	known = known && slices.ContainsFunc(args, func(a string) bool { return slices.Contains(planningCommands, a) })
	for _, name := range cliArgsVariables {
		args = append(args, cliArgsWords(os.Getenv(name))...)
	}
	flag := partialPlanFlagIn(args)
	return flag, known || flag != ""
})

// parentArgs is the parent process's command line; false where it cannot be
// read.
func parentArgs() ([]string, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", os.Getppid()))
	if err != nil || len(data) == 0 {
		return nil, false
	}
	return strings.Split(string(bytes.TrimRight(data, "\x00")), "\x00"), true
}

// cliArgsWords splits a TF_CLI_ARGS value into words as a shell would for
// the flags looked for here: quotes around a word do not hide it.
func cliArgsWords(s string) []string {
	words := strings.Fields(s)
	for i, w := range words {
		words[i] = strings.Trim(w, `"'`)
	}
	return words
}

// partialPlanFlagIn is the first of partialPlanFlags that args hold, as Go's
// flag package (which both CLIs parse with) accepts it: one or two dashes,
// its value after "=" or in the next argument. Nothing after "--" is a flag.
func partialPlanFlagIn(args []string) string {
	for _, arg := range args {
		if arg == "--" {
			break
		}
		name, ok := strings.CutPrefix(arg, "-")
		if !ok {
			continue
		}
		name = strings.TrimPrefix(name, "-")
		name, _, _ = strings.Cut(name, "=")
		for _, flag := range partialPlanFlags {
			if name == flag {
				return "-" + flag
			}
		}
	}
	return ""
}

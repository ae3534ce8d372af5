package acctest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-exec/tfexec"
	tfjson "github.com/hashicorp/terraform-json"
)

// Workdir is one working directory of the real CLI, the way a user or a CI
// runner has one: configuration files in Dir, state and .terraform beside
// them. TF runs the CLI there through terraform-exec; the methods below are
// the common commands with the harness's environment. Use TF directly for the
// rest (Output, Import, ShowPlanFile, SetLog, SetStdout, ...), and Setenv, not
// TF.SetEnv, to change the environment.
type Workdir struct {
	Dir string
	TF  *tfexec.Terraform

	h   *Harness
	env map[string]string
}

// NewWorkdir is Workdir for a test: Setup, then a Workdir in a fresh
// t.TempDir(). It stops the test when either fails.
func NewWorkdir(t testing.TB) *Workdir {
	t.Helper()
	h, err := Setup(t.Context())
	if err != nil {
		t.Fatalf("acctest: %v", err)
	}
	w, err := h.Workdir(t.TempDir())
	if err != nil {
		t.Fatalf("acctest: %v", err)
	}
	return w
}

// Workdir opens dir, which must exist, as a working directory of h.CLI.
func (h *Harness) Workdir(dir string) (*Workdir, error) {
	if h == nil {
		return nil, errNoHarness
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	tf, err := tfexec.NewTerraform(abs, h.CLI.Path)
	if err != nil {
		return nil, err
	}
	w := &Workdir{Dir: abs, TF: tf, h: h, env: h.Env()}
	if err := tf.SetEnv(w.env); err != nil {
		return nil, err
	}
	return w, nil
}

// Setenv sets an environment variable for every later command in w, such as
// VIDEOGEN_API_KEY or PG_CONN_STR. An empty value removes it.
func (w *Workdir) Setenv(key, value string) error {
	if value == "" {
		delete(w.env, key)
	} else {
		w.env[key] = value
	}
	return w.TF.SetEnv(w.env)
}

// Write replaces main.tf.
func (w *Workdir) Write(hcl string) error { return w.WriteFile("main.tf", hcl) }

// WriteFile writes a file of the configuration, relative to Dir; an empty
// content removes it.
func (w *Workdir) WriteFile(name, content string) error {
	path := filepath.Join(w.Dir, name)
	if content == "" {
		if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
			return err
		}
		return nil
	}
	return os.WriteFile(path, []byte(content), 0o600)
}

// Init runs `init`: the provider comes from the harness's mirror.
func (w *Workdir) Init(ctx context.Context, opts ...tfexec.InitOption) error {
	return w.wrap("init", w.TF.Init(ctx, opts...))
}

// Apply runs `apply -auto-approve`.
func (w *Workdir) Apply(ctx context.Context, opts ...tfexec.ApplyOption) error {
	return w.wrap("apply", w.TF.Apply(ctx, opts...))
}

// Plan runs `plan -detailed-exitcode` and reports whether it has changes.
func (w *Workdir) Plan(ctx context.Context, opts ...tfexec.PlanOption) (bool, error) {
	changes, err := w.TF.Plan(ctx, opts...)
	return changes, w.wrap("plan", err)
}

// State runs `show -json` and returns the state.
func (w *Workdir) State(ctx context.Context) (*tfjson.State, error) {
	st, err := w.TF.Show(ctx)
	return st, w.wrap("show", err)
}

func (w *Workdir) wrap(cmd string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s %s in %s: %w", filepath.Base(w.h.CLI.Path), cmd, w.Dir, err)
}

// PlanOut runs `plan -out=planFile` and returns the planned values (after the
// change) of the resource at address, read from `show -json planFile`; nil
// when the plan does not change it.
func (w *Workdir) PlanOut(ctx context.Context, planFile, address string, opts ...tfexec.PlanOption) (map[string]any, error) {
	if _, err := w.Plan(ctx, append(opts, tfexec.Out(planFile))...); err != nil {
		return nil, err
	}
	plan, err := w.TF.ShowPlanFile(ctx, planFile)
	if err != nil {
		return nil, w.wrap("show", err)
	}
	for _, rc := range plan.ResourceChanges {
		if rc.Address == address && rc.Change != nil {
			after, _ := rc.Change.After.(map[string]any)
			return after, nil
		}
	}
	return nil, nil
}

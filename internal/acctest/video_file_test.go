package acctest

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// A state without the file resource (a configuration that names it otherwise,
// a step that destroyed it) is an error that says so, not a nil dereference
// that takes the whole test binary down.
func TestExpectFileMatchesClipWithoutTheResource(t *testing.T) {
	t.Parallel()
	m := NewMock(t)
	empty := &terraform.State{Modules: []*terraform.ModuleState{{Path: []string{"root"}}}}
	err := m.ExpectFileMatchesClip(t, filepath.Join(t.TempDir(), "clip.mp4"))(empty)
	if err == nil || !strings.Contains(err.Error(), VideoFileAddr) {
		t.Fatalf("want an error naming %s, got %v", VideoFileAddr, err)
	}
}

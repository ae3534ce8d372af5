package provider

import (
	"strings"
	"testing"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
)

// A clip whose task failed was never billed: replacing it says nothing of a clip
// that stays billed, at plan or at apply.
func TestAccVideoResource_failedClipIsNotSaidToStayBilled(t *testing.T) {
	requireAcc(t)
	mock := acctest.NewMock(t)
	wd := cliWorkdir(t, mock, cliVideo("a storm that never comes [mock:fail]"))
	var out strings.Builder
	wd.TF.SetStdout(&out)
	wd.TF.SetStderr(&out)
	if err := wd.Apply(t.Context()); err == nil {
		t.Fatalf("the apply of a failing clip succeeded:\n%s", out.String())
	}
	wd.TF.SetStdout(nil)
	wd.TF.SetStderr(nil)
	if err := wd.Write(cliClip(mock, cliVideo("a storm that comes"))); err != nil {
		t.Fatal(err)
	}
	replaced := applyOutput(t, wd)
	for _, said := range []string{"Video Removed From State Only", "stays billed", "Replaced Clip Stays Billed"} {
		if strings.Contains(replaced, said) {
			t.Errorf("replacing a failed clip says %q:\n%s", said, replaced)
		}
	}
	if err := mock.ExpectSubmissions(2)(nil); err != nil {
		t.Error(err)
	}
}

package acctest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Main is the TestMain of a package whose acceptance tests serve the provider
// in-process. It refuses to let CI pass with the acceptance tests silently
// skipped, sets up the CLI (SetupCLI), runs the tests, and removes the
// provider build of the tests that run the real CLI (Teardown).
func Main(m *testing.M) {
	if os.Getenv("CI") != "" && os.Getenv("TF_ACC") == "" {
		fmt.Fprintln(os.Stderr, "CI is set but TF_ACC is not: the acceptance tests would be skipped. Run `make test`.")
		os.Exit(1)
	}
	SetupCLI() // TF_ACC_TERRAFORM_PATH, and OpenTofu's registry host when the CLI is OpenTofu
	_, statErr := os.Stat(".terraform")
	hadDataDir := statErr == nil
	code := m.Run()
	_ = Teardown() // the provider build of the tests that run the real CLI
	// The provider served in-process runs here, in the source tree: a test
	// whose provider block lacks a journal_path would leave its journal
	// behind (Mock.ProviderBlock sets one). It is removed, said with what it
	// holds so that the test can be found, and fails the run: the test
	// summary of `make test` shows a passing package's output to no one.
	if _, err := os.Stat(".terraform"); err == nil && !hadDataDir {
		dir, _ := os.Getwd()
		fmt.Fprintf(os.Stderr, "a test left %s behind (removed now): give its provider block a journal_path in t.TempDir()\n",
			filepath.Join(dir, ".terraform"))
		// The journal is its header file and the log of records beside it.
		files, _ := filepath.Glob(filepath.Join(".terraform", "videogen", "pending-tasks.json*"))
		for _, f := range files {
			if left, err := os.ReadFile(f); err == nil {
				fmt.Fprintf(os.Stderr, "its journal file %s holds: %s\n", f, left)
			}
		}
		_ = os.RemoveAll(".terraform")
		code = max(code, 1)
	}
	os.Exit(code)
}

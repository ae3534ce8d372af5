//go:build linux

package provider

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
)

// notOwner runs a command as root without the capabilities that let root
// read and write any file: for it, files of another user are what they are
// for that other user's colleague. Tests run as root, whom permission bits do
// not stop.
var notOwner = []string{"setpriv", "--inh-caps=-dac_override,-dac_read_search,-fowner",
	"--bounding-set=-dac_override,-dac_read_search,-fowner", "--"}

// readOnlyMount runs a command in a mount namespace of its own, where dir is
// mounted read-only; the test's own view of dir stays writable.
func readOnlyMount(dir string) []string {
	return []string{"unshare", "--mount", "--propagation", "private", "sh", "-c",
		`mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"`, dir}
}

// chownTree gives the journal's files to another user, with files at mode
// file and directories at mode dir.
func chownTree(t *testing.T, root string, file, dir fs.FileMode) {
	t.Helper()
	const nobody = 65534
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		mode := file
		if d.IsDir() {
			mode = dir
		}
		if err := os.Chown(p, nobody, nobody); err != nil { //nolint:gosec // G122: the test's own t.TempDir()
			return err
		}
		return os.Chmod(p, mode) //nolint:gosec // G122: the test's own t.TempDir()
	})
	if err != nil {
		t.Fatal(err)
	}
}

// mustRunVia checks that the mechanism a case relies on works on this
// machine (a CI runner must have setpriv and unshare, and may mount): a
// probe run through via that must fail, and one that must succeed. A
// missing mechanism fails the test: a skip would hide the case.
func mustRunVia(t *testing.T, via []string, fails, works string) {
	t.Helper()
	for _, probe := range []struct {
		script string
		ok     bool
	}{{fails, false}, {works, true}} {
		if probe.script == "" {
			continue
		}
		argv := append(append([]string{}, via...), "sh", "-c", probe.script)
		out, err := exec.CommandContext(t.Context(), argv[0], argv[1:]...).CombinedOutput() //nolint:gosec // the test's own probe
		if (err == nil) != probe.ok {
			t.Fatalf("this machine cannot run the case: %q through %q: %v (want success %v)\n%s\n"+
				"(the test needs util-linux's setpriv and unshare, and root allowed to mount in a namespace of its own)",
				probe.script, via, err, probe.ok, out)
		}
	}
}

// TestAccJournal_journalThisUserCannotWrite: a run is killed once the journal
// holds its task; the re-apply runs where the journal is read-only (its
// directory mounted so), or belongs to another user: readable, or not even
// that. A journal that reads fine but cannot be written only warns: the plan
// says the clip adopts the killed run's task, and the apply adopts it. One that
// cannot be opened or locked fails the plan and the apply before anything is
// submitted, naming the journal and what to do. Either way the ledger shows
// the killed run's submission alone. Before, the log was opened to read and
// write even to read, so every one of these took the journal for an empty
// one: a new clip planned, 2 billed for 1.
func TestAccJournal_journalThisUserCannotWrite(t *testing.T) {
	requireAcc(t)
	for _, tc := range []struct {
		name string
		// prepare changes the journal's files; it returns how the re-apply
		// runs, and the probes mustRunVia checks.
		prepare      func(t *testing.T, dir, path string) (via []string, fails, works string)
		unreadable   bool
		wantInOutput []string
	}{
		{
			name: "directory read-only",
			prepare: func(t *testing.T, dir, path string) ([]string, string, string) {
				t.Helper()
				return readOnlyMount(dir), "touch " + strconv.Quote(path+".log"), "cat " + strconv.Quote(path+".log")
			},
			wantInOutput: []string{"Task Not Noted in the Task Journal", "read-only file system"},
		},
		{
			name: "another user's, readable",
			prepare: func(t *testing.T, dir, path string) ([]string, string, string) {
				t.Helper()
				chownTree(t, dir, 0o644, 0o755)
				return notOwner, "touch " + strconv.Quote(path+".log"), "cat " + strconv.Quote(path+".log")
			},
			wantInOutput: []string{"Task Not Noted in the Task Journal", "permission denied"},
		},
		{
			name: "another user's, unreadable",
			prepare: func(t *testing.T, dir, path string) ([]string, string, string) {
				t.Helper()
				chownTree(t, dir, 0o600, 0o755)
				return notOwner, "cat " + strconv.Quote(path+".lock"), "test -e " + strconv.Quote(path)
			},
			unreadable: true,
			wantInOutput: []string{"Task Journal Not Readable", "Nothing was submitted", "permission denied",
				"readable", "by the user that runs Terraform"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			mock := acctest.NewMock(t)
			dir := filepath.Join(t.TempDir(), "journal")
			path := filepath.Join(dir, "pending-tasks.json")
			wd := cliWorkdir(t, mock, cliVideo("a clip whose journal the re-apply cannot write [mock:hold]"),
				"journal_path = "+strconv.Quote(path))
			run := wd.Start(ctx, "apply", "-auto-approve", "-input=false", "-no-color")
			taskID := awaitHeld(t, mock, run, 1)
			killGroup(t, run)
			if !mock.FinishTask(taskID) {
				t.Fatalf("task %s was not pending", taskID)
			}
			via, fails, works := tc.prepare(t, dir, path)
			mustRunVia(t, via, fails, works)

			plan := wd.StartVia(ctx, via, "plan", "-input=false", "-no-color")
			out, err := plan.Wait()
			switch {
			case tc.unreadable && (err == nil || !wrapped(tc.wantInOutput...).MatchString(out) || !strings.Contains(out, path)):
				t.Fatalf("the plan: %v; want it to fail saying the journal %s cannot be read, and what to do:\n%s", err, path, out)
			case !tc.unreadable && (err != nil || !wrapped("Clip May Adopt a Task of a Killed Run", taskID).MatchString(out)):
				t.Fatalf("the plan: %v; want it to say the clip adopts task %s:\n%s", err, taskID, out)
			}

			apply := wd.StartVia(ctx, via, "apply", "-auto-approve", "-input=false", "-no-color")
			out, err = apply.Wait()
			switch {
			case tc.unreadable && (err == nil || !wrapped("Task Journal Not Readable", path).MatchString(out)):
				t.Fatalf("the apply: %v; want it to fail saying the journal %s cannot be read:\n%s", err, path, out)
			case !tc.unreadable && err != nil:
				t.Fatalf("the apply: %v\n%s", err, out)
			case !tc.unreadable && !wrapped(tc.wantInOutput...).MatchString(out):
				t.Fatalf("the apply does not say the journal could not note the task (%q):\n%s", tc.wantInOutput, out)
			case !tc.unreadable && stateTasks(t, wd)["videogen_video.clip"] != taskID:
				t.Fatalf("the state holds %v, want the killed run's task %s", stateTasks(t, wd), taskID)
			}
			if n := mock.Submissions(); n != 1 {
				t.Fatalf("the ledger shows %d submissions, want 1 (the killed run's):\n%s", n, out)
			}
			if tc.unreadable && strings.Contains(out, "Task Journal Not Written") {
				t.Errorf("an unreadable journal is called unwritable:\n%s", out)
			}
		})
	}
}

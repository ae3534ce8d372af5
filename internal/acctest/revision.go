package acctest

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

var revisions struct {
	sync.Mutex
	done map[string]error // by "<rev> <version>", or "package <dir> <version>"
}

// InstallRevision builds the provider as it was at rev, a commit of this
// repository's git history, and installs it into the mirror as version beside
// the current build, so that a configuration requiring exactly that version
// runs the old provider: for tests that hand state written by an earlier
// release to the current build. version must be older than h.Version, so that
// every configuration without that constraint keeps getting the current build.
// Each rev and version is built once per process; a shallow clone that lacks
// rev is an error that says so.
func (h *Harness) InstallRevision(ctx context.Context, rev, version string) error {
	if h == nil {
		return errNoHarness
	}
	return installOnce(ctx, rev+" "+version, func() error { return h.installRevision(ctx, rev, version) })
}

// installOnce runs install once per process for key, and returns its error to
// every later call; an install cut short by its context is tried again.
func installOnce(ctx context.Context, key string, install func() error) error {
	revisions.Lock()
	defer revisions.Unlock()
	if err, ok := revisions.done[key]; ok {
		return err
	}
	err := install()
	if err != nil && ctx.Err() != nil {
		return err
	}
	if revisions.done == nil {
		revisions.done = map[string]error{}
	}
	revisions.done[key] = err
	return err
}

func (h *Harness) installRevision(ctx context.Context, rev, version string) error {
	goBin := GoBinary()
	root, err := moduleRoot(ctx, goBin)
	if err != nil {
		return err
	}
	src, err := os.MkdirTemp(h.dir, "revision-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(src)

	archive := exec.CommandContext(ctx, "git", "-C", root, "archive", "--format=tar", rev) //nolint:gosec // a commit the test names
	out, err := archive.StdoutPipe()
	if err != nil {
		return err
	}
	var stderr strings.Builder
	archive.Stderr = &stderr
	if err := archive.Start(); err != nil {
		return fmt.Errorf("git archive %s: %w", rev, err)
	}
	extractErr := extractTar(out, src)
	if err := archive.Wait(); err != nil {
		return fmt.Errorf("git archive %s (a shallow clone lacks older commits: fetch the whole history, e.g. git fetch --unshallow): %w\n%s",
			rev, err, stderr.String())
	}
	if extractErr != nil {
		return fmt.Errorf("unpacking %s: %w", rev, extractErr)
	}

	// The caller's GOFLAGS stay (CI's -trimpath among them), so that the
	// revision's packages that did not change come from Go's build cache.
	goflags := strings.TrimSpace(os.Getenv("GOFLAGS") + " -mod=readonly")
	return h.buildIntoMirror(ctx, goBin, src, version, "the provider at "+rev, "GOWORK=off", "GOFLAGS="+goflags)
}

// InstallPackage builds the main package in dir, a directory of this module
// relative to its root, and installs it into the mirror as version beside the
// current build, as InstallRevision does: for a stand-in that serves the
// provider's address, such as the bench's no-op provider. version must be
// older than h.Version. Each dir and version is built once per process.
func (h *Harness) InstallPackage(ctx context.Context, dir, version string) error {
	if h == nil {
		return errNoHarness
	}
	return installOnce(ctx, "package "+dir+" "+version, func() error {
		goBin := GoBinary()
		root, err := moduleRoot(ctx, goBin)
		if err != nil {
			return err
		}
		return h.buildIntoMirror(ctx, goBin, filepath.Join(root, filepath.FromSlash(dir)), version, dir)
	})
}

// extractTar unpacks the directories and regular files of a git archive into
// dir; git archive writes nothing else a Go build needs.
func extractTar(r io.Reader, dir string) error {
	tr := tar.NewReader(r)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.Clean(filepath.FromSlash(hdr.Name))
		if !filepath.IsLocal(name) {
			return fmt.Errorf("archive entry %q leaves the directory", hdr.Name)
		}
		target := filepath.Join(dir, name)
		switch hdr.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := writeEntry(target, tr, hdr.FileInfo().Mode().Perm()); err != nil {
				return err
			}
		}
	}
}

func writeEntry(path string, r io.Reader, perm os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, perm|0o600) //nolint:gosec // a path checked to stay inside the directory
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil { //nolint:gosec // the repository's own source, not untrusted input
		f.Close()
		return err
	}
	return f.Close()
}

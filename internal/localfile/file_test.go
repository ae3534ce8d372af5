package localfile

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func entries(t *testing.T, dir string) []string {
	t.Helper()
	list, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range list {
		names = append(names, e.Name())
	}
	return names
}

func hexSHA256(data string) string {
	sum := sha256.Sum256([]byte(data))
	return hex.EncodeToString(sum[:])
}

func TestFileCommit(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.Chmod(root, 0o711); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(root, "a", "b", "clip.mp4")
	f, err := Create(target, 0o640, 0o750)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("a first attempt, cut short")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(target); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the target exists before Commit (stat: %v)", err)
	}
	if err := f.Reset(); err != nil {
		t.Fatal(err)
	}
	for _, part := range []string{"the whole ", "clip"} {
		if _, err := f.Write([]byte(part)); err != nil {
			t.Fatal(err)
		}
	}
	sum, err := f.Commit()
	if err != nil {
		t.Fatal(err)
	}
	if want := hexSHA256("the whole clip"); sum.SHA256 != want || sum.Size != int64(len("the whole clip")) {
		t.Errorf("Commit = %+v, want sha256 %s and 14 bytes", sum, want)
	}
	if data, err := os.ReadFile(target); err != nil || string(data) != "the whole clip" {
		t.Errorf("the file holds %q (%v)", data, err)
	}
	if got, err := SHA256(target); err != nil || got != sum.SHA256 {
		t.Errorf("SHA256 of the file = %s (%v), want %s", got, err, sum.SHA256)
	}
	for p, want := range map[string]os.FileMode{
		target: 0o640, filepath.Dir(target): 0o750, filepath.Join(root, "a"): 0o750, root: 0o711,
	} {
		if info, err := os.Stat(p); err != nil || info.Mode().Perm() != want {
			t.Errorf("%s: mode %v (%v), want %04o", p, info.Mode().Perm(), err, want)
		}
	}
	if got := entries(t, filepath.Dir(target)); strings.Join(got, ",") != "clip.mp4" {
		t.Errorf("the directory holds %q: a temporary file was left", got)
	}
	if err := f.Discard(); err != nil {
		t.Errorf("Discard after Commit: %v", err)
	}
	if _, err := os.Stat(target); err != nil {
		t.Errorf("Discard after Commit removed the file: %v", err)
	}
}

func TestFileCommitReplacesExistingFile(t *testing.T) {
	t.Parallel()
	target := filepath.Join(t.TempDir(), "clip.mp4")
	if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := Create(target, 0o644, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("new")); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(target); string(data) != "old" {
		t.Fatalf("the old file changed before Commit: %q", data)
	}
	if _, err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(target); string(data) != "new" {
		t.Errorf("after Commit the file holds %q", data)
	}
}

func TestFileDiscardLeavesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f, err := Create(filepath.Join(dir, "clip.mp4"), 0o644, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(make([]byte, 1<<20)); err != nil {
		t.Fatal(err)
	}
	if got := entries(t, dir); len(got) != 1 || !strings.HasSuffix(got[0], ".part") {
		t.Fatalf("while writing, the directory holds %q, want one .part file", got)
	}
	if err := f.Discard(); err != nil {
		t.Fatal(err)
	}
	if got := entries(t, dir); len(got) != 0 {
		t.Errorf("after Discard the directory holds %q", got)
	}
	if _, err := f.Commit(); err == nil {
		t.Error("Commit after Discard succeeded")
	}
}

func TestCreateFailsOnTheDisk(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	blocker := filepath.Join(dir, "not-a-dir")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Create(filepath.Join(blocker, "sub", "clip.mp4"), 0o644, 0o755)
	var local *Error
	if !errors.As(err, &local) || !strings.Contains(err.Error(), "not-a-dir") {
		t.Fatalf("want a *Error naming the file in the way, got %v", err)
	}
	if got := entries(t, dir); strings.Join(got, ",") != "not-a-dir" {
		t.Errorf("a failed Create left %q", got)
	}
}

func TestWrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "clip.mp4")
	sum, err := Write(target, 0o600, 0o700, func(f *File) error {
		_, err := f.Write([]byte("content"))
		return err
	})
	if err != nil || sum.SHA256 != hexSHA256("content") || sum.Size != 7 {
		t.Fatalf("Write = %+v, %v", sum, err)
	}
	failure := errors.New("the download broke off")
	_, err = Write(target, 0o600, 0o700, func(f *File) error {
		if _, err := f.Write([]byte("half a new clip")); err != nil {
			return err
		}
		return failure
	})
	if !errors.Is(err, failure) {
		t.Fatalf("want the fill's error, got %v", err)
	}
	if got := entries(t, dir); strings.Join(got, ",") != "clip.mp4" {
		t.Errorf("a failed Write left %q", got)
	}
	if data, _ := os.ReadFile(target); string(data) != "content" {
		t.Errorf("a failed Write changed the target to %q", data)
	}
}

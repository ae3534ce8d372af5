package localfile

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func writeClip(t *testing.T, p string, content []byte) string {
	t.Helper()
	if err := os.WriteFile(p, content, 0o600); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(content)
	return hex.EncodeToString(sum[:])
}

// clipAndEdited writes a clip and a file of its size that is not it.
func clipAndEdited(t *testing.T) (dir, clip, edited, sum string) {
	t.Helper()
	dir = t.TempDir()
	clip, edited = filepath.Join(dir, "clip.mp4"), filepath.Join(dir, "edited.mp4")
	sum = writeClip(t, clip, []byte("the clip"))
	writeClip(t, edited, []byte("the clop"))
	return dir, clip, edited, sum
}

func TestCompare(t *testing.T) {
	t.Parallel()
	dir, clip, edited, sum := clipAndEdited(t)
	cases := []struct {
		path  string
		size  int64
		occ   Occupant
		drift string
	}{
		{clip, 8, RegularFile, ""},
		{clip, -1, RegularFile, ""},
		{clip, 9, RegularFile, "has changed size (8 bytes, the clip has 9)"},
		{edited, 8, RegularFile, "no longer matches the SHA-256 of the clip"},
		{dir, 8, Directory, "was replaced by a directory"},
		{filepath.Join(dir, "missing"), 8, Nothing, ""},
	}
	for _, c := range cases {
		got, err := Compare(c.path, sum, c.size)
		if err != nil || got.Occupant != c.occ || got.Drift != c.drift {
			t.Errorf("Compare(%s, size %d) = %+v, %v; want %v %q", c.path, c.size, got, err, c.occ, c.drift)
		}
	}
	if got, _ := Compare(clip, sum, 8); got.Mode != 0o600 {
		t.Errorf("Mode = %o, want 600", got.Mode)
	}
}

func TestRemoveClip(t *testing.T) {
	t.Parallel()
	dir, clip, edited, sum := clipAndEdited(t)
	if left, err := RemoveClip(edited, sum, 8); err != nil || left != RegularFile {
		t.Errorf("an edited file: left %v, %v; want it left in place", left, err)
	}
	if left, err := RemoveClip(dir, sum, 8); err != nil || left != Directory {
		t.Errorf("a directory: left %v, %v; want it left in place", left, err)
	}
	if left, err := RemoveClip(clip, sum, 8); err != nil || left != Nothing {
		t.Errorf("the clip: left %v, %v; want it removed", left, err)
	}
	if _, err := os.Lstat(clip); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the clip is still there: %v", err)
	}
	if left, err := RemoveClip(clip, sum, 8); err != nil || left != Nothing {
		t.Errorf("a clip already gone: left %v, %v", left, err)
	}
	if left, err := RemoveClip(edited, "", 0); err != nil || left != Nothing {
		t.Errorf("no checksum known: left %v, %v; want any file removed", left, err)
	}
}

func TestReadClip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	content := append(box("ftyp", 24), box("mdat", 40)...)
	clip := filepath.Join(dir, "clip.mp4")
	sum := writeClip(t, clip, content)
	if got, mode, err := ReadClip(clip); err != nil || got.SHA256 != sum || got.Size != int64(len(content)) || mode != 0o600 {
		t.Errorf("ReadClip = %+v, %o, %v", got, mode, err)
	}
	page := filepath.Join(dir, "page.mp4")
	writeClip(t, page, []byte("<html>sign in</html>"))
	if _, _, err := ReadClip(page); !errors.Is(err, ErrNotMP4) {
		t.Errorf("an HTML page: %v, want ErrNotMP4", err)
	}
	for _, p := range []string{dir, filepath.Join(dir, "missing")} {
		if _, _, err := ReadClip(p); err == nil {
			t.Errorf("ReadClip(%s) took it for a clip", p)
		}
	}
}

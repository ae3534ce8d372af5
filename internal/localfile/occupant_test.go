package localfile

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestInspect(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := map[string]Occupant{filepath.Join(dir, "missing"): Nothing, file: RegularFile, dir: Directory}
	if runtime.GOOS != "windows" {
		link := filepath.Join(dir, "link")
		if err := os.Symlink(dir, link); err != nil {
			t.Fatal(err)
		}
		cases[link] = Symlink // not Directory: the link is not followed
	}
	for p, want := range cases {
		got, _, err := Inspect(p)
		if err != nil || got != want {
			t.Errorf("Inspect(%s) = %v, %v; want %v", p, got, err, want)
		}
	}
}

func TestHolds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "clip.mp4")
	if err := os.WriteFile(p, []byte("the clip"), 0o600); err != nil {
		t.Fatal(err)
	}
	sum := hexSHA256("the clip")
	for _, tt := range []struct {
		path string
		sum  string
		size int64
		want bool
	}{
		{p, sum, 8, true},
		{p, sum, 9, false},
		{p, hexSHA256("the clap"), 8, false},
		{filepath.Join(dir, "missing"), sum, 8, false},
		{dir, sum, 8, false},
	} {
		if got, err := Holds(tt.path, tt.sum, tt.size); err != nil || got != tt.want {
			t.Errorf("Holds(%s, %.8s, %d) = %v, %v; want %v", tt.path, tt.sum, tt.size, got, err, tt.want)
		}
	}
	if runtime.GOOS != "windows" {
		link := filepath.Join(dir, "link.mp4")
		if err := os.Symlink(p, link); err != nil {
			t.Fatal(err)
		}
		if ok, err := Holds(link, sum, 8); ok || err != nil {
			t.Errorf("Holds(a link to the clip) = %v, %v; want false: a link is not a file this package wrote", ok, err)
		}
	}
}

// Whatever appears at the path while the clip is being written is left alone,
// and no temporary file stays behind.
func TestWriteNewLeavesWhatAppeared(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "clip.mp4")
	_, err := WriteNew(p, 0o644, 0o755, func(f *File) error {
		if _, err := f.Write([]byte("the clip")); err != nil {
			return err
		}
		return os.WriteFile(p, []byte("a master edited meanwhile"), 0o600)
	})
	if !errors.Is(err, ErrOccupied) {
		t.Fatalf("WriteNew = %v, want ErrOccupied", err)
	}
	if data, _ := os.ReadFile(p); string(data) != "a master edited meanwhile" {
		t.Errorf("the file that appeared now holds %q", data)
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Errorf("the directory holds %q, want only clip.mp4", names)
	}
	if runtime.GOOS == "windows" {
		return
	}
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("kept"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.mp4")
	_, err = WriteNew(link, 0o644, 0o755, func(f *File) error {
		if err := os.Symlink(target, link); err != nil {
			return err
		}
		_, err := f.Write([]byte("the clip"))
		return err
	})
	if !errors.Is(err, ErrOccupied) {
		t.Fatalf("WriteNew over a link that appeared = %v, want ErrOccupied", err)
	}
	if data, _ := os.ReadFile(target); string(data) != "kept" {
		t.Errorf("the link's target now holds %q", data)
	}
}

func TestWriteNewOnEmptyPath(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "sub", "clip.mp4")
	sum, err := WriteNew(p, 0o640, 0o755, func(f *File) error {
		_, err := f.Write([]byte("the clip"))
		return err
	})
	if err != nil || sum.SHA256 != hexSHA256("the clip") {
		t.Fatalf("WriteNew = %+v, %v", sum, err)
	}
	if names := entries(t, filepath.Dir(p)); len(names) != 1 || names[0] != "clip.mp4" {
		t.Errorf("the directory holds %q, want only clip.mp4", names)
	}
	if info, err := os.Stat(p); err != nil || info.Mode().Perm() != 0o640 {
		t.Errorf("stat: %v, %v", info, err)
	}
}

// Write, asked to replace, replaces a link itself and never writes through it.
func TestWriteReplacesLinkNotTarget(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("kept"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "clip.mp4")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := CheckTarget(link); err != nil {
		t.Fatalf("CheckTarget(a link) = %v", err)
	}
	if _, err := Write(link, 0o644, 0o755, func(f *File) error { _, err := f.Write([]byte("clip")); return err }); err != nil {
		t.Fatal(err)
	}
	if occ, _, _ := Inspect(link); occ != RegularFile {
		t.Errorf("the path holds %v, want a regular file", occ)
	}
	if data, _ := os.ReadFile(target); string(data) != "kept" {
		t.Errorf("the link's target now holds %q", data)
	}
}

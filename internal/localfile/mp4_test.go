package localfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// box is an ISO base media box of the given type and total size, zero-filled.
func box(typ string, size int) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(size)) //nolint:gosec // G115: box sizes here are small
	b = append(b, typ...)
	return append(b, make([]byte, max(0, size-8))...)
}

func TestLooksLikeMP4(t *testing.T) {
	t.Parallel()
	large := binary.BigEndian.AppendUint32(nil, 1)
	large = append(large, "wide"...)
	large = binary.BigEndian.AppendUint64(large, 24)
	large = append(large, make([]byte, 8)...)
	tests := []struct {
		name string
		head []byte
		want bool
	}{
		{"ftyp first", append(box("ftyp", 20), box("free", 80)...), true},
		{"free box, then ftyp", append(box("free", 16), box("ftyp", 24)...), true},
		{"64-bit box, then ftyp", append(large, box("ftyp", 24)...), true},
		{"html", []byte("<!DOCTYPE html><html><body>denied</body></html>"), false},
		{"json", []byte(`{"error":{"message":"expired"}}`), false},
		{"empty", nil, false},
		{"truncated header", []byte{0, 0, 0, 24, 'f', 't'}, false},
		{"ftyp too small", box("ftyp", 12), false},
		{"no ftyp", append(box("moov", 16), box("mdat", 16)...), false},
		{"box larger than the sniffed head", append(box("free", 16), []byte{0, 1, 0, 0, 'f', 'r', 'e', 'e'}...), false},
	}
	for _, tt := range tests {
		if got := LooksLikeMP4(tt.head); got != tt.want {
			t.Errorf("%s: LooksLikeMP4 = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestCheckMP4(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if err := CheckMP4(write("clip.mp4", append(box("ftyp", 20), box("free", 3*MP4SniffBytes)...))); err != nil {
		t.Errorf("a clip larger than the sniffed head: %v", err)
	}
	if err := CheckMP4(write("short.mp4", box("ftyp", 20))); err != nil {
		t.Errorf("a clip shorter than the sniffed head: %v", err)
	}
	for name, data := range map[string][]byte{"page.mp4": []byte("<html>expired</html>"), "empty.mp4": nil} {
		if err := CheckMP4(write(name, data)); !errors.Is(err, ErrNotMP4) {
			t.Errorf("%s: want ErrNotMP4, got %v", name, err)
		}
	}
	if err := CheckMP4(filepath.Join(dir, "missing.mp4")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: want ErrNotExist, got %v", err)
	}
}

// FuzzLooksLikeMP4 walks arbitrary bytes: it must never panic, and it accepts
// only input that holds an ftyp box type.
func FuzzLooksLikeMP4(f *testing.F) {
	f.Add(append(box("ftyp", 20), box("free", 40)...))
	f.Add(append(box("free", 16), box("ftyp", 24)...))
	f.Add([]byte{0, 0, 0, 1, 'w', 'i', 'd', 'e', 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Add([]byte("<!DOCTYPE html>"))
	f.Fuzz(func(t *testing.T, head []byte) {
		if LooksLikeMP4(head) && !bytes.Contains(head, []byte("ftyp")) {
			t.Fatalf("accepted %q, which has no ftyp box", head)
		}
	})
}

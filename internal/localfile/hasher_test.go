package localfile

import (
	"bytes"
	"crypto/sha256"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// The digest is the SHA-256 of every byte written, in order, whatever the
// sizes of the writes and however they fall across the hasher's chunks.
func TestHasherDigest(t *testing.T) {
	t.Parallel()
	data := make([]byte, 3*hashChunkBytes+hashChunkBytes/2)
	for i := range data {
		data[i] = byte(rand.N(256)) //nolint:gosec // G404: test data
	}
	want := sha256.Sum256(data)
	for _, size := range []int{1, 1000, hashChunkBytes - 1, hashChunkBytes, hashChunkBytes + 1, len(data)} {
		h := newHasher()
		h.write(nil)
		for p := data; len(p) > 0; {
			n := min(size, len(p))
			h.write(p[:n])
			p = p[n:]
		}
		if got := h.sum(); !bytes.Equal(got, want[:]) {
			t.Errorf("writes of %d bytes: digest %x, want %x", size, got, want)
		}
	}
	empty := sha256.Sum256(nil)
	if got := newHasher().sum(); !bytes.Equal(got, empty[:]) {
		t.Errorf("nothing written: digest %x, want %x", got, empty)
	}
}

// A hasher stopped twice, or stopped and then summed, does not hang or panic:
// Discard and Reset may stop a hasher that Commit then sums.
func TestHasherStopIsIdempotent(t *testing.T) {
	t.Parallel()
	h := newHasher()
	h.write([]byte("abc"))
	h.stop()
	h.stop()
	want := sha256.Sum256([]byte("abc"))
	if got := h.sum(); !bytes.Equal(got, want[:]) {
		t.Errorf("digest after stop = %x, want %x", got, want)
	}
}

// A file larger than writebackBytes, written in uneven pieces and started
// over once, holds exactly the second attempt and reports its digest.
func TestFileLargerThanTheWriteback(t *testing.T) {
	t.Parallel()
	target := filepath.Join(t.TempDir(), "clip.mp4")
	data := make([]byte, 2*writebackBytes+12345)
	for i := range data {
		data[i] = byte(i * 7)
	}
	f, err := Create(target, 0o600, 0o700)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(data[:writebackBytes+1]); err != nil {
		t.Fatal(err)
	}
	if err := f.Reset(); err != nil {
		t.Fatal(err)
	}
	for p := data; len(p) > 0; {
		n := min(1<<20+3, len(p))
		if _, err := f.Write(p[:n]); err != nil {
			t.Fatal(err)
		}
		p = p[n:]
	}
	sum, err := f.Commit()
	if err != nil {
		t.Fatal(err)
	}
	if want := sha256.Sum256(data); sum.SHA256 != hexSHA256(string(data)) || sum.Size != int64(len(data)) {
		t.Errorf("Commit = %+v, want %x and %d bytes", sum, want, len(data))
	}
	if got, err := os.ReadFile(target); err != nil || !bytes.Equal(got, data) {
		t.Errorf("the file holds %d bytes (%v), not the %d written", len(got), err, len(data))
	}
}

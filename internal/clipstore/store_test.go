package clipstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// clipSize spans several S3 parts (8 MiB) and is above the size from which
// S3's transfer manager uses a multipart upload (16 MiB).
const clipSize = 20<<20 + 12345

// backend is what the shared store tests need of one store: a destination URL
// for a key, and the store's own client to look at an object without this
// package.
type backend struct {
	url func(key string) string
	// read returns the object's bytes' SHA-256, Content-Type and metadata as
	// the store's own client reads them; found is false when there is none.
	read func(t *testing.T, key string) (sum, contentType string, md map[string]string, found bool)
	// leftovers lists what an aborted upload may leave behind that is not
	// an object (S3: multipart uploads in progress; a directory: temporary
	// files), to be empty after an interruption; nil where the store keeps
	// nothing the client can list.
	leftovers func(t *testing.T, key string) []string
	// uploading says whether an upload to key is under way at the store, so
	// that the interruption comes only then; nil where it cannot be seen.
	uploading func(t *testing.T, key string) bool
	// secrets must appear in no error message.
	secrets []string
}

// clip returns n pseudo-random bytes made from seed, and their SHA-256.
func clip(seed byte, n int) ([]byte, string) {
	b := make([]byte, n)
	r := rand.NewChaCha8([32]byte{seed})
	_, _ = r.Read(b)
	sum := sha256.Sum256(b)
	return b, hex.EncodeToString(sum[:])
}

func openStore(t *testing.T, raw string) *Store {
	t.Helper()
	s, err := Open(t.Context(), raw)
	if err != nil {
		t.Fatalf("Open(%q): %v", raw, err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// checkShown fails the test when err's message shows one of the secrets.
func (b backend) checkShown(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	for _, s := range b.secrets {
		if s != "" && strings.Contains(err.Error(), s) {
			t.Errorf("the error %q shows a secret", err)
		}
	}
	for _, word := range []string{"X-Amz-Signature=", "Signature=", "sig="} {
		if i := strings.Index(err.Error(), word); i >= 0 && !strings.HasPrefix(err.Error()[i+len(word):], redacted) {
			t.Errorf("the error %q shows a signature", err)
		}
	}
}

// testStore runs the behaviour every store must have, against one store.
func testStore(t *testing.T, b backend) {
	ctx := t.Context()
	meta := Meta{TaskID: "cgt-20260101-intro", Model: "seedance-1-0-pro"}
	data, sum := clip(1, clipSize)

	t.Run("write then read back with the store's own client", func(t *testing.T) {
		s := openStore(t, b.url("clips/intro.mp4"))
		// The size known, as a download's Content-Length makes it: S3 takes
		// one PUT. The writes below without it take a multipart upload.
		w, err := s.Write(ctx, bytes.NewReader(data), meta, WriteOptions{Size: clipSize})
		b.checkShown(t, err)
		if err != nil {
			t.Fatalf("Write: %v", err)
		}
		if w.Size != clipSize || w.SHA256 != sum || w.Unchanged {
			t.Fatalf("Write = %+v; want %d bytes, SHA-256 %s, not unchanged", w, clipSize, sum)
		}
		got, ct, md, found := b.read(t, "clips/intro.mp4")
		if !found || got != w.SHA256 {
			t.Fatalf("read back with the store's client: found %v, SHA-256 %s; Write said %s", found, got, w.SHA256)
		}
		if ct != ContentType || md[MetaTask] != meta.TaskID || md[MetaModel] != meta.Model || md[MetaSHA256] != sum {
			t.Errorf("the store's client reads Content-Type %q, metadata %v; want %s, task %s, model %s, sha256 %s",
				ct, md, ContentType, meta.TaskID, meta.Model, sum)
		}
		o, err := s.Stat(ctx)
		if err != nil {
			t.Fatalf("Stat: %v", err)
		}
		if !o.Holds(clipSize, sum) || o.TaskID != meta.TaskID || o.Model != meta.Model || o.ContentType != ContentType {
			t.Errorf("Stat = %+v; want it to hold %d bytes of SHA-256 %s, task, model, %s", o, clipSize, sum, ContentType)
		}
		r, err := s.NewReader(ctx)
		if err != nil {
			t.Fatalf("NewReader: %v", err)
		}
		h := sha256.New()
		if _, err := io.Copy(h, r); err != nil {
			t.Fatalf("reading back: %v", err)
		}
		_ = r.Close()
		if hex.EncodeToString(h.Sum(nil)) != sum {
			t.Error("NewReader read other bytes than were written")
		}
	})

	t.Run("the same bytes again need no upload", func(t *testing.T) {
		s := openStore(t, b.url("clips/intro.mp4"))
		// What a caller does: Stat, and only upload when the object does
		// not hold the clip. The source is never read.
		src := &countReader{r: bytes.NewReader(data)}
		o, err := s.Stat(ctx)
		if err != nil {
			t.Fatalf("Stat: %v", err)
		}
		if !o.Holds(clipSize, sum) {
			t.Fatalf("Stat = %+v does not hold the clip written before", o)
		}
		if src.n != 0 {
			t.Fatalf("read %d bytes of the source", src.n)
		}
		// A caller that writes anyway is told the object was left as it was.
		w, err := s.Write(ctx, src, meta, WriteOptions{})
		if err != nil {
			t.Fatalf("Write of the same bytes: %v", err)
		}
		if !w.Unchanged || w.SHA256 != sum {
			t.Errorf("Write of the same bytes = %+v; want Unchanged with SHA-256 %s", w, sum)
		}
	})

	t.Run("other content at the key is not overwritten", func(t *testing.T) {
		s := openStore(t, b.url("clips/intro.mp4"))
		other, otherSum := clip(2, 1<<20)
		_, err := s.Write(ctx, bytes.NewReader(other), Meta{TaskID: "cgt-other", Model: "m"}, WriteOptions{})
		b.checkShown(t, err)
		if !errors.Is(err, ErrExists) || KindOf(err) != KindExists {
			t.Fatalf("Write of other bytes = %v; want ErrExists", err)
		}
		for _, says := range []string{sum, otherSum, "left as it is"} {
			if !strings.Contains(err.Error(), says) {
				t.Errorf("the error %q does not say %q", err, says)
			}
		}
		if got, _, _, _ := b.read(t, "clips/intro.mp4"); got != sum {
			t.Fatalf("the object now has SHA-256 %s; want the first clip's %s", got, sum)
		}
		// Only when the caller says so.
		w, err := s.Write(ctx, bytes.NewReader(other), Meta{TaskID: "cgt-other", Model: "m"}, WriteOptions{Overwrite: true})
		if err != nil || w.SHA256 != otherSum {
			t.Fatalf("Write with Overwrite = %+v, %v; want SHA-256 %s", w, err, otherSum)
		}
		if got, _, md, _ := b.read(t, "clips/intro.mp4"); got != otherSum || md[MetaSHA256] != otherSum || md[MetaTask] != "cgt-other" {
			t.Fatalf("after Overwrite the object has SHA-256 %s, metadata %v; want %s", got, md, otherSum)
		}
	})

	t.Run("an interrupted upload leaves nothing", func(t *testing.T) {
		for _, c := range []struct {
			how  string
			size int64
		}{{"context cancelled", 0}, {"source failed", 0}, {"context cancelled", clipSize}, {"source failed", clipSize}} {
			how := c.how
			name := how
			if c.size > 0 {
				name += ", size known"
			}
			t.Run(name, func(t *testing.T) {
				key := "clips/interrupted-" + strings.NewReplacer(" ", "-", ",", "").Replace(name) + ".mp4"
				s := openStore(t, b.url(key))
				wctx, cancel := context.WithCancel(ctx)
				defer cancel()
				src := &interruptingReader{
					r: bytes.NewReader(data), after: 18 << 20,
					interrupt: func() error {
						// Interrupt only once the upload is under way at the
						// store, so that there is something to abort (a
						// single PUT shows nothing until it completes).
						if c.size == 0 {
							waitUploading(t, b, key)
						}
						if how == "context cancelled" {
							cancel()
							return wctx.Err()
						}
						return errors.New("connection reset by the vendor")
					},
				}
				_, err := s.Write(wctx, src, meta, WriteOptions{Size: c.size})
				b.checkShown(t, err)
				if err == nil {
					t.Fatal("Write of an interrupted stream succeeded")
				}
				if how == "context cancelled" && !errors.Is(err, ErrCanceled) {
					t.Errorf("Write = %v; want ErrCanceled", err)
				}
				if how == "source failed" && !strings.Contains(err.Error(), "connection reset by the vendor") {
					t.Errorf("Write = %v; want the source's error", err)
				}
				if _, _, _, found := b.read(t, key); found {
					t.Error("an object is at the key after the interrupted upload")
				}
				if b.leftovers != nil {
					if left := b.leftovers(t, key); len(left) > 0 {
						t.Errorf("the interrupted upload left %v", left)
					}
				}
				if _, err := s.Stat(ctx); !errors.Is(err, ErrNotFound) {
					t.Errorf("Stat after the interrupted upload = %v; want ErrNotFound", err)
				}
				// The next write (a re-apply) completes it.
				w, err := s.Write(ctx, bytes.NewReader(data), meta, WriteOptions{})
				if err != nil || w.SHA256 != sum {
					t.Fatalf("the write after the interruption = %+v, %v", w, err)
				}
			})
		}
	})

	t.Run("a missing object is ErrNotFound", func(t *testing.T) {
		s := openStore(t, b.url("clips/missing.mp4"))
		_, err := s.Stat(ctx)
		b.checkShown(t, err)
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("Stat = %v; want ErrNotFound", err)
		}
		_, err = s.NewReader(ctx)
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("NewReader = %v; want ErrNotFound", err)
		}
	})

	t.Run("delete", func(t *testing.T) {
		s := openStore(t, b.url("clips/intro.mp4"))
		if err := s.Delete(ctx); err != nil {
			t.Fatalf("Delete: %v", err)
		}
		if _, _, _, found := b.read(t, "clips/intro.mp4"); found {
			t.Error("the object is still there after Delete")
		}
	})
}

// waitUploading waits until the store shows an upload in progress at key,
// where it can (S3's multipart uploads, a directory's temporary file).
func waitUploading(t *testing.T, b backend, key string) {
	t.Helper()
	if b.uploading == nil {
		return
	}
	for range 600 {
		if b.uploading(t, key) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Error("no upload under way at the store after 30 s of streaming")
}

// interruptingReader reads r until after bytes, then returns interrupt's
// error.
type interruptingReader struct {
	r         io.Reader
	after     int64
	n         int64
	interrupt func() error
}

func (r *interruptingReader) Read(p []byte) (int, error) {
	if r.n >= r.after {
		return 0, r.interrupt()
	}
	if int64(len(p)) > r.after-r.n {
		p = p[:r.after-r.n]
	}
	n, err := r.r.Read(p)
	r.n += int64(n)
	return n, err
}

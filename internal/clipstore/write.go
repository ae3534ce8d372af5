package clipstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"strconv"
	"time"

	"cloud.google.com/go/storage"
	"gocloud.dev/blob"
)

// The upload's part size and concurrency bound the memory a write holds,
// whatever the clip's size: S3's transfer manager keeps up to
// (concurrency + 1) parts in memory. 5 MiB (S3's smallest part) three at a
// time keep a 1 GiB upload within 20 MiB of parts, under the 64 MiB the
// provider process may use, while several requests stay in flight.
const (
	partSize    = 5 << 20
	concurrency = 3
)

// abortTimeout bounds the abort of an interrupted upload, which runs after
// the caller's context has ended.
const abortTimeout = 30 * time.Second

// Write streams r to the object and returns its size and SHA-256, computed on
// the way. See the package documentation for what a reader of the object can
// see meanwhile and what happens to an object already at the key. When r
// fails or ctx ends before r's end, the upload is aborted and the key keeps
// what it held. On S3 it first aborts the key's incomplete multipart uploads
// (AbortIncompleteUploads), which a killed run leaves.
func (s *Store) Write(ctx context.Context, r io.Reader, meta Meta, opts WriteOptions) (Written, error) {
	if meta.TaskID == "" {
		return Written{}, s.fail("writing", errors.New("no task ID to record with the clip"))
	}
	if _, err := s.AbortIncompleteUploads(ctx); err != nil {
		return Written{}, err
	}
	md := map[string]string{MetaTask: meta.TaskID, MetaModel: meta.Model}
	h := sha256.New()
	src := &sourceReader{r: r, h: h}
	var err error
	if s.loc.scheme == "s3" {
		err = s.uploadS3(ctx, src, md, opts)
	} else {
		err = s.upload(ctx, src, md, opts)
	}
	if err != nil && classify(err) == KindExists && !opts.Overwrite && src.err == nil {
		// The store may refuse before it has read the whole clip; its
		// SHA-256 says whether the object there is the same clip.
		if _, rerr := io.Copy(io.Discard, src); rerr == nil {
			return s.settle(ctx, Written{Size: src.n, SHA256: hex.EncodeToString(h.Sum(nil))}, md, err)
		}
	}
	if src.err != nil {
		err = fmt.Errorf("reading the clip to store: %w", src.err)
	}
	if err != nil {
		return Written{}, s.fail("writing", err)
	}
	written := Written{Size: src.n, SHA256: hex.EncodeToString(h.Sum(nil))}
	md[MetaSHA256] = written.SHA256
	if err := s.recordSHA256(ctx, written.Size, md[MetaTask], "", md); err != nil {
		return Written{}, s.fail("recording the SHA-256 of", err)
	}
	return written, nil
}

// upload streams src to the object through gocloud's writer, for the stores
// other than S3. Cancelling before Close is how gocloud aborts a write: the
// upload is abandoned and nothing appears.
func (s *Store) upload(ctx context.Context, src io.Reader, md map[string]string, opts WriteOptions) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := s.bucket.NewWriter(wctx, s.loc.key, &blob.WriterOptions{
		ContentType:    ContentType,
		Metadata:       md,
		IfNotExist:     !opts.Overwrite,
		BufferSize:     partSize,
		MaxConcurrency: concurrency,
	})
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, src); err != nil || ctx.Err() != nil {
		cancel()
		_ = w.Close()
		if err == nil {
			err = ctx.Err()
		}
		return err
	}
	return w.Close()
}

// cleanUp aborts what a failed multipart upload left at the store: the
// transfer manager aborts its upload with a context that may have ended by
// then, so the key's incomplete uploads are listed and aborted again here
// with a context of their own. It returns err, saying so when the abort
// failed too.
func (s *Store) cleanUp(ctx context.Context, err error) error {
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), abortTimeout)
	defer cancel()
	if _, abortErr := s.AbortIncompleteUploads(actx); abortErr != nil {
		return fmt.Errorf("%w; its incomplete upload could not be aborted either (the next write aborts it): %w", err, abortErr)
	}
	return err
}

// settle decides about an object a conditional write found at the key: the
// same bytes are no change; the same task's object left without its SHA-256
// by an interrupted run is read back and, when it holds the same bytes,
// finished; anything else is ErrExists.
func (s *Store) settle(ctx context.Context, written Written, md map[string]string, cause error) (Written, error) {
	existing, err := s.Stat(ctx)
	if err != nil {
		return Written{}, s.fail("writing", cause)
	}
	if existing.Holds(written.Size, written.SHA256) {
		written.Unchanged = true
		return written, nil
	}
	if existing.SHA256 == "" && existing.TaskID == md[MetaTask] && existing.Size == written.Size {
		sum, version, err := s.hashObject(ctx)
		if err != nil {
			return Written{}, err
		}
		if sum == written.SHA256 {
			md[MetaSHA256] = sum
			if err := s.recordSHA256(ctx, written.Size, md[MetaTask], version, md); err != nil {
				return Written{}, s.fail("recording the SHA-256 of", err)
			}
			written.Unchanged = true
			return written, nil
		}
	}
	what := "an object"
	switch {
	case existing.SHA256 != "":
		what = fmt.Sprintf("an object of %d bytes with SHA-256 %s", existing.Size, existing.SHA256)
	case existing.TaskID != "":
		what = fmt.Sprintf("an object of %d bytes of task %s", existing.Size, existing.TaskID)
	}
	return Written{}, &Error{
		Op: "writing", Location: s.loc.String(), Kind: KindExists,
		err: fmt.Errorf("the key already holds %s, not these %d bytes with SHA-256 %s; it was left as it is: %w",
			what, written.Size, written.SHA256, cause),
	}
}

// hashObject reads the object back and returns its SHA-256, and the version
// of the object it read where the store names one (Cloud Storage's
// generation; "" elsewhere). recordSHA256 records the SHA-256 only on that
// version: an object replaced after it was read is never given the hash of
// the one before.
func (s *Store) hashObject(ctx context.Context) (sum, version string, err error) {
	br, err := s.bucket.NewReader(ctx, s.loc.key, nil)
	if err != nil {
		return "", "", s.fail("reading", err)
	}
	r := &reader{r: br, s: s}
	defer func() { _ = r.Close() }()
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return "", "", err
	}
	var gr *storage.Reader
	if br.As(&gr) && gr.Attrs.Generation != 0 {
		version = strconv.FormatInt(gr.Attrs.Generation, 10)
	}
	return hex.EncodeToString(h.Sum(nil)), version, nil
}

// sourceReader hashes what it reads and keeps the source's own error apart
// from the store's.
type sourceReader struct {
	r   io.Reader
	h   hash.Hash
	n   int64
	err error
}

func (s *sourceReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.h.Write(p[:n])
	s.n += int64(n)
	if err != nil && !errors.Is(err, io.EOF) {
		s.err = err
	}
	return n, err
}

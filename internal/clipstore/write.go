package clipstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"time"

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
		return Written{}, s.fail("writing", err)
	}
	h := sha256.New()
	src := &sourceReader{r: r, h: h}
	n, err := io.Copy(w, src)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		// Cancelling before Close is how gocloud aborts a write: the upload
		// is abandoned (S3's multipart upload aborted) and nothing appears.
		cancel()
		_ = w.Close()
		if src.err != nil {
			err = fmt.Errorf("reading the clip to store: %w", src.err)
		}
		return Written{}, s.fail("writing", s.cleanUp(ctx, err))
	}
	written := Written{Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}
	if err := w.Close(); err != nil {
		if classify(err) == KindExists && !opts.Overwrite {
			return s.settle(ctx, written, md, err)
		}
		return Written{}, s.fail("writing", s.cleanUp(ctx, err))
	}
	md[MetaSHA256] = written.SHA256
	if err := s.recordSHA256(ctx, written.Size, md); err != nil {
		return Written{}, s.fail("recording the SHA-256 of", err)
	}
	return written, nil
}

// cleanUp aborts what a failed write left at the store: S3's transfer
// manager aborts its multipart upload with the write's context, which is
// cancelled by then when the write was interrupted, so the abort is made
// again here with a context of its own. It returns err, saying so when the
// abort failed too.
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
		sum, err := s.hashObject(ctx)
		if err != nil {
			return Written{}, err
		}
		if sum == written.SHA256 {
			md[MetaSHA256] = sum
			if err := s.recordSHA256(ctx, written.Size, md); err != nil {
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

// hashObject reads the object back and returns its SHA-256.
func (s *Store) hashObject(ctx context.Context) (string, error) {
	r, err := s.NewReader(ctx)
	if err != nil {
		return "", err
	}
	defer func() { _ = r.Close() }()
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// sourceReader hashes what it reads and keeps the source's own error apart
// from the store's.
type sourceReader struct {
	r   io.Reader
	h   hash.Hash
	err error
}

func (s *sourceReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.h.Write(p[:n])
	if err != nil && !errors.Is(err, io.EOF) {
		s.err = err
	}
	return n, err
}

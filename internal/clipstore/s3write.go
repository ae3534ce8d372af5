package clipstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/s3/transfermanager"
	tmtypes "github.com/aws/aws-sdk-go-v2/feature/s3/transfermanager/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// maxPart is the largest part S3 takes.
const maxPart = 5 << 30

// partGrace is how long the parts already sent of an interrupted multipart
// upload may take to be answered before they are cut and the upload is
// aborted. A part cut while the server still writes it can land after the
// abort, and would leave an upload behind; one that was answered cannot.
const partGrace = 20 * time.Second

// uploadS3 stores src at the key with the S3 client itself rather than
// through gocloud's writer, for two reasons. With the size known, one
// streamed request carries the whole clip: no part buffers in memory. It is
// a chunked PUT (putS3), or, where the store is configured for no checksums
// it does not require, one part of a multipart upload (uploadOnePart). With
// the size unknown, the transfer manager's
// multipart upload is interrupted by ending its source, not by cancelling
// its requests: it then waits for every part in flight to be answered (for
// up to partGrace) before it aborts the upload, so that no part reaches the
// server after the abort. gocloud's writer aborts by cancelling them, and a
// part the server was still writing could bring the upload back after the
// abort. What is left either way is aborted here, after a failed write and
// after a completed one.
func (s *Store) uploadS3(ctx context.Context, src io.Reader, md map[string]string, opts WriteOptions) error {
	var c *s3.Client
	if !s.bucket.As(&c) {
		return errors.New("the S3 client is not available")
	}
	escaped := make(map[string]string, len(md))
	for k, v := range md {
		escaped[k] = url.PathEscape(v) // as gocloud's s3blob, which Stat reads through
	}
	var ifNoneMatch *string
	if !opts.Overwrite {
		ifNoneMatch = aws.String("*")
	}
	sse, kms := s.loc.query.Get("ssetype"), s.loc.query.Get("kmskeyid")
	var plain []func(*s3.Options)
	if strings.HasPrefix(strings.ToLower(s.loc.query.Get("endpoint")), "http://") {
		plain = append(plain, withoutChecksum)
	}
	uctx, stop := graceContext(ctx, partGrace)
	defer stop()
	if opts.Size > 0 && opts.Size <= maxPart {
		var err error
		if c.Options().RequestChecksumCalculation == aws.RequestChecksumCalculationWhenRequired {
			// A store configured for no checksums it does not require
			// (request_checksum_calculation=when_required) may not take
			// a trailing one either.
			err = s.uploadOnePart(ctx, uctx, c, src, escaped, ifNoneMatch, opts.Size, plain)
		} else {
			err = s.putS3(ctx, c, src, escaped, ifNoneMatch, opts.Size)
		}
		if err != nil {
			return s.cleanUp(ctx, err)
		}
		s.abortStrays(ctx)
		return nil
	}
	tm := transfermanager.New(completeUnlessEnded{S3APIClient: c, ctx: ctx}, func(o *transfermanager.Options) {
		o.PartSizeBytes = partSize
		o.Concurrency = concurrency
		o.RequestChecksumCalculation = c.Options().RequestChecksumCalculation
	})
	in := &transfermanager.UploadObjectInput{
		Bucket: aws.String(s.loc.bucket), Key: aws.String(s.loc.key),
		Body: &endingReader{ctx: ctx, r: src}, ContentType: aws.String(ContentType),
		Metadata: escaped, IfNoneMatch: ifNoneMatch,
	}
	if sse != "" {
		in.ServerSideEncryption = tmtypes.ServerSideEncryption(sse)
	}
	if kms != "" {
		in.SSEKMSKeyID = aws.String(kms)
	}
	if _, err := tm.UploadObject(uctx, in); err != nil {
		return s.cleanUp(ctx, err)
	}
	s.abortStrays(ctx)
	return nil
}

// uploadOnePart stores a stream of known size as a multipart upload of one
// part, streamed: no part is held in memory, and the upload is completed
// only once the whole stream was sent and taken. A single PUT would be
// simpler, but a store may keep the body of a PUT cut short as the object
// (versitygw does), which a reader would then see; an upload never
// completed is never seen. Creating and completing the upload use uctx, so
// that an answer on its way is awaited after ctx ends: an upload created
// then is known, and aborted.
func (s *Store) uploadOnePart(ctx, uctx context.Context, c *s3.Client, src io.Reader, md map[string]string,
	ifNoneMatch *string, size int64, optFns []func(*s3.Options),
) error {
	create := &s3.CreateMultipartUploadInput{
		Bucket: aws.String(s.loc.bucket), Key: aws.String(s.loc.key),
		ContentType: aws.String(ContentType), Metadata: md,
	}
	if v := s.loc.query.Get("ssetype"); v != "" {
		create.ServerSideEncryption = s3types.ServerSideEncryption(v)
	}
	if v := s.loc.query.Get("kmskeyid"); v != "" {
		create.SSEKMSKeyId = aws.String(v)
	}
	mu, err := c.CreateMultipartUpload(uctx, create, optFns...)
	if err != nil {
		return err
	}
	counted := &countReader{r: &endingReader{ctx: ctx, r: src}}
	// The part is cut as soon as ctx ends: its source has ended then, so it
	// can never be whole, and a store never completes it.
	part, err := c.UploadPart(ctx, &s3.UploadPartInput{
		Bucket: aws.String(s.loc.bucket), Key: aws.String(s.loc.key), UploadId: mu.UploadId,
		PartNumber: aws.Int32(1), Body: counted, ContentLength: aws.Int64(size),
	}, optFns...)
	if err == nil && counted.n != size {
		err = fmt.Errorf("the clip ended after %d of its %d bytes", counted.n, size)
	}
	if err == nil {
		err = ctx.Err()
	}
	if err == nil {
		_, err = c.CompleteMultipartUpload(uctx, &s3.CompleteMultipartUploadInput{
			Bucket: aws.String(s.loc.bucket), Key: aws.String(s.loc.key), UploadId: mu.UploadId,
			IfNoneMatch: ifNoneMatch, MpuObjectSize: aws.Int64(size),
			MultipartUpload: &s3types.CompletedMultipartUpload{Parts: []s3types.CompletedPart{
				{PartNumber: aws.Int32(1), ETag: part.ETag},
			}},
		}, optFns...)
	}
	if err != nil {
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), abortTimeout)
		defer cancel()
		_, _ = c.AbortMultipartUpload(actx, &s3.AbortMultipartUploadInput{
			Bucket: aws.String(s.loc.bucket), Key: aws.String(s.loc.key), UploadId: mu.UploadId,
		})
	}
	return err
}

// abortStrays aborts, after a completed write, the key's uploads that
// nothing completes: one the SDK began again when an answer was lost, or
// one that a part of an interrupted run, arriving at the store after its
// abort, brought back. Failing to is no failure of the write: the next write
// of the key aborts them.
func (s *Store) abortStrays(ctx context.Context) {
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), abortTimeout)
	defer cancel()
	_, _ = s.AbortIncompleteUploads(actx)
}

// withoutChecksum lets a streamed PUT over plain HTTP (an S3-compatible store
// on a private network) go without a request checksum: the SDK would have
// to read the stream twice, or send a trailing checksum, which it sends only
// over TLS, and refuses. The SHA-256 Write computes still guards the bytes.
func withoutChecksum(o *s3.Options) {
	o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
}

// graceContext is a context that ends grace after ctx ends (never earlier),
// keeping ctx's values.
func graceContext(ctx context.Context, grace time.Duration) (context.Context, context.CancelFunc) {
	gctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() {
		t := time.AfterFunc(grace, cancel)
		context.AfterFunc(gctx, func() { t.Stop() })
	})
	return gctx, func() {
		stop()
		cancel()
	}
}

// endingReader ends its stream with ctx's error once ctx ends, so that an
// upload reading it stops at its next read.
type endingReader struct {
	ctx context.Context
	r   io.Reader
}

func (e *endingReader) Read(p []byte) (int, error) {
	if err := e.ctx.Err(); err != nil {
		return 0, err
	}
	return e.r.Read(p)
}

// completeUnlessEnded lets the transfer manager complete an upload only
// while ctx lasts: an interrupted write stores nothing, even when the whole
// source had been read before the interruption.
type completeUnlessEnded struct {
	transfermanager.S3APIClient
	ctx context.Context
}

func (c completeUnlessEnded) CompleteMultipartUpload(ctx context.Context, in *s3.CompleteMultipartUploadInput,
	optFns ...func(*s3.Options),
) (*s3.CompleteMultipartUploadOutput, error) {
	if err := c.ctx.Err(); err != nil {
		return nil, err
	}
	return c.S3APIClient.CompleteMultipartUpload(ctx, in, optFns...)
}

func (c completeUnlessEnded) PutObject(ctx context.Context, in *s3.PutObjectInput, optFns ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	if err := c.ctx.Err(); err != nil {
		return nil, err
	}
	return c.S3APIClient.PutObject(ctx, in, optFns...)
}

// countReader counts what was read of r.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

package clipstore

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// The body of a chunked PUT: aws-chunked content encoding with an unsigned
// payload and a trailing checksum, as the AWS SDK itself sends a stream over
// TLS. The SDK refuses to send it over plain HTTP (an S3-compatible store on
// a private network), so the body is made here, the same way for both.
const (
	chunkedPayloadHash = "STREAMING-UNSIGNED-PAYLOAD-TRAILER"
	chunkedTrailer     = "x-amz-checksum-crc32"
)

// putS3 stores a stream of known size with one PUT whose body is the whole
// clip as one aws-chunked chunk followed by a trailing CRC32 of it. A store
// decodes such a body and takes the object only after the final chunk and a
// trailer that matches, so a body cut short (the run interrupted or killed,
// the source failed) is refused, not stored; a plain PUT cut short may be
// kept as the object (versitygw keeps it). The trailer is sent only once the
// whole clip was read and ctx still lasts, so an interrupted write stores
// nothing even when its source had been read in full. One PUT writes the
// bytes once at the store; a multipart upload is written twice by stores that
// assemble its parts on completion, which halves the throughput.
func (s *Store) putS3(ctx context.Context, c *s3.Client, src io.Reader, md map[string]string, ifNoneMatch *string, size int64) error {
	in := &s3.PutObjectInput{
		Bucket: aws.String(s.loc.bucket), Key: aws.String(s.loc.key),
		ContentType: aws.String(ContentType), Metadata: md, IfNoneMatch: ifNoneMatch,
	}
	if v := s.loc.query.Get("ssetype"); v != "" {
		in.ServerSideEncryption = s3types.ServerSideEncryption(v)
	}
	if v := s.loc.query.Get("kmskeyid"); v != "" {
		in.SSEKMSKeyId = aws.String(v)
	}
	body := newChunkedBody(ctx, src, size)
	_, err := c.PutObject(ctx, in, func(o *s3.Options) {
		// The trailer is this body's own; the SDK adds none of its own.
		o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
		// The stream is read once: a request cut short is not sent again.
		o.Retryer = aws.NopRetryer{}
		o.APIOptions = append(o.APIOptions, body.addTo)
	})
	return err
}

// chunkedBody is the aws-chunked body of one PUT of size bytes of src.
type chunkedBody struct {
	ctx  context.Context
	src  io.Reader
	size int64
	sent int64
	crc  hash.Hash32
	used bool
	r    io.Reader
}

func newChunkedBody(ctx context.Context, src io.Reader, size int64) *chunkedBody {
	b := &chunkedBody{ctx: ctx, src: src, size: size, crc: crc32.NewIEEE()}
	b.r = io.MultiReader(
		readerOf(func() ([]byte, error) { return []byte(strconv.FormatInt(size, 16) + "\r\n"), nil }),
		payload{b},
		readerOf(b.trailer),
	)
	return b
}

// encodedLength is the length of the whole body on the wire.
func (b *chunkedBody) encodedLength() int64 {
	head := len(strconv.FormatInt(b.size, 16)) + 2
	tail := len("\r\n0\r\n") + len(chunkedTrailer) + 1 + base64.StdEncoding.EncodedLen(crc32.Size) + len("\r\n\r\n")
	return int64(head) + b.size + int64(tail)
}

// addTo sets the body, its headers and its payload hash on the request,
// before the signer's payload hash is chosen.
func (b *chunkedBody) addTo(stack *middleware.Stack) error {
	return stack.Finalize.Insert(middleware.FinalizeMiddlewareFunc("clipstore.chunkedBody",
		func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
			req, ok := in.Request.(*smithyhttp.Request)
			if !ok {
				return middleware.FinalizeOutput{}, middleware.Metadata{}, fmt.Errorf("unknown request type %T", in.Request)
			}
			if b.used {
				return middleware.FinalizeOutput{}, middleware.Metadata{}, errors.New("the clip's stream cannot be sent twice")
			}
			b.used = true
			req.Header.Set("Content-Encoding", "aws-chunked")
			req.Header.Set("X-Amz-Decoded-Content-Length", strconv.FormatInt(b.size, 10))
			req.Header.Set("X-Amz-Trailer", chunkedTrailer)
			r, err := req.SetStream(b)
			if err != nil {
				return middleware.FinalizeOutput{}, middleware.Metadata{}, err
			}
			r.ContentLength = b.encodedLength()
			in.Request = r
			return next.HandleFinalize(v4.SetPayloadHash(ctx, chunkedPayloadHash), in)
		}), (&v4.ComputePayloadSHA256{}).ID(), middleware.Before)
}

func (b *chunkedBody) Read(p []byte) (int, error) { return b.r.Read(p) }

// readPayload reads at most the rest of the clip's size from src. At the
// declared size it checks that src has ended there; a source that ends
// early or goes on is an error, which cuts the request short.
func (b *chunkedBody) readPayload(p []byte) (int, error) {
	if err := b.ctx.Err(); err != nil {
		return 0, err
	}
	if b.sent == b.size {
		var one [1]byte
		if n, err := io.ReadFull(b.src, one[:]); n > 0 {
			return 0, fmt.Errorf("the clip goes on past its %d bytes", b.size)
		} else if !errors.Is(err, io.EOF) {
			return 0, err
		}
		return 0, io.EOF
	}
	if rest := b.size - b.sent; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := b.src.Read(p)
	b.crc.Write(p[:n])
	b.sent += int64(n)
	if errors.Is(err, io.EOF) {
		if b.sent < b.size {
			return n, fmt.Errorf("the clip ended after %d of its %d bytes: %w", b.sent, b.size, io.ErrUnexpectedEOF)
		}
		err = nil
	}
	return n, err
}

// trailer ends the body: the chunk's end, the final empty chunk and the
// CRC32 of the clip. It is sent only while ctx lasts.
func (b *chunkedBody) trailer() ([]byte, error) {
	if err := b.ctx.Err(); err != nil {
		return nil, err
	}
	sum := binary.BigEndian.AppendUint32(nil, b.crc.Sum32())
	return []byte("\r\n0\r\n" + chunkedTrailer + ":" + base64.StdEncoding.EncodeToString(sum) + "\r\n\r\n"), nil
}

// payload reads a chunkedBody's payload.
type payload struct{ b *chunkedBody }

func (p payload) Read(buf []byte) (int, error) { return p.b.readPayload(buf) }

// lazyReader reads the bytes build returns, built at its first read.
type lazyReader struct {
	build func() ([]byte, error)
	buf   []byte
	made  bool
}

func readerOf(build func() ([]byte, error)) io.Reader { return &lazyReader{build: build} }

func (l *lazyReader) Read(p []byte) (int, error) {
	if !l.made {
		buf, err := l.build()
		if err != nil {
			return 0, err
		}
		l.buf, l.made = buf, true
	}
	if len(l.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, l.buf)
	l.buf = l.buf[n:]
	return n, nil
}

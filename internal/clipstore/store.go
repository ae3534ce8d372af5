package clipstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"

	"gocloud.dev/blob"
	"gocloud.dev/blob/azureblob"
	// The stores whose default openers read their credentials at each open;
	// they register their schemes with blob's default URL mux.
	_ "gocloud.dev/blob/fileblob"
	"gocloud.dev/blob/gcsblob"
	"gocloud.dev/gcp"
)

// Store is one destination: a bucket opened with its cloud's credentials,
// and the key of the clip in it. Close it when done.
type Store struct {
	loc    Location
	bucket *blob.Bucket
}

// Open parses raw and opens its bucket. Opening reads credentials but sends
// no request; the first operation does.
func Open(ctx context.Context, raw string) (*Store, error) {
	loc, err := Parse(raw)
	if err != nil {
		return nil, err
	}
	return OpenLocation(ctx, loc)
}

// OpenLocation opens the bucket of a parsed location.
func OpenLocation(ctx context.Context, loc Location) (*Store, error) {
	s := &Store{loc: loc}
	b, err := openBucket(ctx, loc)
	if err != nil {
		return nil, s.fail("opening", err)
	}
	s.bucket = b
	return s, nil
}

// openBucket opens the location's bucket with its cloud's credential chain,
// read at each open. gocloud's default openers for Azure and GCS read their
// credentials once per process instead, and the GCS one prints a warning to
// standard output when it finds none, which a provider must not do; so these
// two are made here, and S3's (see openS3).
func openBucket(ctx context.Context, loc Location) (*blob.Bucket, error) {
	u, err := url.Parse(loc.bucketURL())
	if err != nil {
		return nil, err
	}
	switch {
	case loc.scheme == "s3":
		return openS3(ctx, loc)
	case loc.scheme == "azblob":
		opener := &azureblob.URLOpener{MakeClient: azureblob.NewDefaultClient, ServiceURLOptions: *azureblob.NewDefaultServiceURLOptions()}
		return opener.OpenBucketURL(ctx, u)
	case loc.scheme == "gs" && os.Getenv("STORAGE_EMULATOR_HOST") == "" && loc.query.Get("anonymous") != "true":
		creds, err := gcp.DefaultCredentials(ctx)
		if err != nil {
			return nil, fmt.Errorf("no Google Cloud credentials found (set GOOGLE_APPLICATION_CREDENTIALS, use workload identity, or run gcloud auth application-default login): %w", err)
		}
		client, err := gcp.NewHTTPClient(gcp.DefaultTransport(), gcp.CredentialsTokenSource(creds))
		if err != nil {
			return nil, err
		}
		opener := &gcsblob.URLOpener{Client: client}
		return opener.OpenBucketURL(ctx, u)
	}
	return blob.OpenBucket(ctx, u.String())
}

// Location is where the store writes.
func (s *Store) Location() Location { return s.loc }

// Close releases the bucket's client.
func (s *Store) Close() error {
	return s.fail("closing", s.bucket.Close())
}

// Stat reads the object's size, Content-Type and metadata without reading
// the object. A missing object is ErrNotFound.
func (s *Store) Stat(ctx context.Context) (Object, error) {
	a, err := s.bucket.Attributes(ctx, s.loc.key)
	if err != nil {
		return Object{}, s.fail("reading the attributes of", err)
	}
	return Object{
		Size:        a.Size,
		ContentType: a.ContentType,
		SHA256:      a.Metadata[MetaSHA256],
		TaskID:      a.Metadata[MetaTask],
		Model:       a.Metadata[MetaModel],
		ModTime:     a.ModTime,
		Metadata:    a.Metadata,
	}, nil
}

// NewReader opens the object for reading, for a local copy served from the
// stored one. A missing object is ErrNotFound. The reader's errors are
// redacted too.
func (s *Store) NewReader(ctx context.Context) (io.ReadCloser, error) {
	r, err := s.bucket.NewReader(ctx, s.loc.key, nil)
	if err != nil {
		return nil, s.fail("reading", err)
	}
	return &reader{r: r, s: s}, nil
}

// Delete removes the object. A missing object is ErrNotFound.
func (s *Store) Delete(ctx context.Context) error {
	return s.fail("deleting", s.bucket.Delete(ctx, s.loc.key))
}

// reader classifies and redacts the errors of a read in progress.
type reader struct {
	r *blob.Reader
	s *Store
}

func (r *reader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		err = r.s.fail("reading", err)
	}
	return n, err
}

func (r *reader) Close() error { return r.s.fail("reading", r.r.Close()) }

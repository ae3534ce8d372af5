package clipstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"

	"cloud.google.com/go/storage"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// errChanged: the object at the key is no longer the one just written.
var errChanged = errors.New("the object changed while its SHA-256 was being recorded; it was left as it is")

// recordSHA256 replaces the metadata of the object just written with md
// (which names its SHA-256), only if the object is still the one written:
// same size, the task it names now (was: md's task for an object Write
// wrote, "" for one another writer left without metadata, see Seal), and
// (where the store offers it) the same version: version, the one hashed
// (see hashObject), when it is not "", else the one found now. Only the
// metadata changes; the bytes stay, and the object is never absent.
func (s *Store) recordSHA256(ctx context.Context, size int64, was, version string, md map[string]string) error {
	switch s.loc.scheme {
	case "s3":
		return s.recordS3(ctx, size, was, md)
	case "gs":
		return s.recordGCS(ctx, size, was, version, md)
	case "azblob":
		return s.recordAzure(ctx, size, was, md)
	case "file":
		return s.recordFile(size, was, md)
	}
	return fmt.Errorf("no way to record metadata for %s://", s.loc.scheme)
}

// recordS3 copies the object onto itself with the new metadata, on
// condition of its ETag. S3 copies objects up to 5 GiB in one request.
func (s *Store) recordS3(ctx context.Context, size int64, was string, md map[string]string) error {
	var c *s3.Client
	if !s.bucket.As(&c) {
		return errors.New("the S3 client is not available")
	}
	head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(s.loc.bucket), Key: aws.String(s.loc.key)})
	if err != nil {
		return err
	}
	if aws.ToInt64(head.ContentLength) != size || unescape(head.Metadata[MetaTask]) != was {
		return errChanged
	}
	escaped := make(map[string]string, len(md))
	for k, v := range md {
		escaped[k] = url.PathEscape(v)
	}
	in := &s3.CopyObjectInput{
		Bucket:            aws.String(s.loc.bucket),
		Key:               aws.String(s.loc.key),
		CopySource:        aws.String((&url.URL{Path: s.loc.bucket + "/" + s.loc.key}).EscapedPath()),
		CopySourceIfMatch: head.ETag,
		MetadataDirective: s3types.MetadataDirectiveReplace,
		Metadata:          escaped,
		ContentType:       aws.String(ContentType),
	}
	if v := s.loc.query.Get("ssetype"); v != "" {
		in.ServerSideEncryption = s3types.ServerSideEncryption(v)
	}
	if v := s.loc.query.Get("kmskeyid"); v != "" {
		in.SSEKMSKeyId = aws.String(v)
	}
	_, err = c.CopyObject(ctx, in)
	return err
}

// recordGCS updates the object's metadata on condition of its generation
// (the one hashed, when given) and metageneration.
func (s *Store) recordGCS(ctx context.Context, size int64, was, version string, md map[string]string) error {
	var c *storage.Client
	if !s.bucket.As(&c) {
		return errors.New("the Cloud Storage client is not available")
	}
	o := c.Bucket(s.loc.bucket).Object(s.loc.key)
	attrs, err := o.Attrs(ctx)
	if err != nil {
		return err
	}
	if attrs.Size != size || attrs.Metadata[MetaTask] != was ||
		(version != "" && strconv.FormatInt(attrs.Generation, 10) != version) {
		return errChanged
	}
	_, err = o.If(storage.Conditions{GenerationMatch: attrs.Generation, MetagenerationMatch: attrs.Metageneration}).
		Update(ctx, storage.ObjectAttrsToUpdate{Metadata: md})
	return err
}

// recordAzure sets the blob's metadata on condition of its ETag.
func (s *Store) recordAzure(ctx context.Context, size int64, was string, md map[string]string) error {
	var c *container.Client
	if !s.bucket.As(&c) {
		return errors.New("the Azure container client is not available")
	}
	bc := c.NewBlobClient(s.loc.key)
	props, err := bc.GetProperties(ctx, nil)
	if err != nil {
		return err
	}
	task := ""
	for k, v := range props.Metadata {
		if v != nil && (k == MetaTask || k == "Task") {
			task = unescape(*v)
		}
	}
	if props.ContentLength == nil || *props.ContentLength != size || task != was {
		return errChanged
	}
	escaped := make(map[string]*string, len(md))
	for k, v := range md {
		escaped[k] = aws.String(url.PathEscape(v))
	}
	_, err = bc.SetMetadata(ctx, escaped, &blob.SetMetadataOptions{
		AccessConditions: &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: props.ETag}},
	})
	return err
}

// recordFile rewrites the attributes file fileblob keeps beside the file
// (name + ".attrs", JSON), replacing it by a rename so it is never half
// written. Its other fields are kept as they are.
func (s *Store) recordFile(size int64, was string, md map[string]string) error {
	path := filepath.Join(filepath.FromSlash(s.loc.bucket), s.loc.key)
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	raw, err := os.ReadFile(path + ".attrs")
	if err != nil {
		return err
	}
	var attrs map[string]json.RawMessage
	if err := json.Unmarshal(raw, &attrs); err != nil {
		return fmt.Errorf("reading %s.attrs: %w", s.loc.key, err)
	}
	var old map[string]string
	if err := json.Unmarshal(attrs["user.metadata"], &old); err != nil || fi.Size() != size || old[MetaTask] != was {
		return errChanged
	}
	if attrs["user.metadata"], err = json.Marshal(md); err != nil {
		return err
	}
	out, err := json.Marshal(attrs)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+s.loc.key+".attrs.*")
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	if _, err := tmp.Write(out); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path+".attrs")
}

func unescape(v string) string {
	if u, err := url.PathUnescape(v); err == nil {
		return u
	}
	return v
}

package clipstore

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// AbortIncompleteUploads aborts the incomplete S3 multipart uploads of the
// store's key (exactly that key) and returns how many it aborted. A write
// interrupted in an orderly way aborts its own upload; one whose process was
// killed outright leaves its upload behind, invisible to readers but kept
// (and billed) by the store until a lifecycle rule or this removes it. Write
// calls it first, so the re-apply after a killed run leaves none. An upload
// of the same key by another writer at the same moment is aborted too; its
// write then fails instead of completing. Other stores keep nothing to abort:
// it returns 0 for them.
func (s *Store) AbortIncompleteUploads(ctx context.Context) (int, error) {
	if s.loc.scheme != "s3" {
		return 0, nil
	}
	var c *s3.Client
	if !s.bucket.As(&c) {
		return 0, s.fail("listing the incomplete uploads of", errors.New("the S3 client is not available"))
	}
	aborted := 0
	in := &s3.ListMultipartUploadsInput{Bucket: aws.String(s.loc.bucket), Prefix: aws.String(s.loc.key)}
	for {
		out, err := c.ListMultipartUploads(ctx, in)
		if err != nil {
			return aborted, s.fail("listing the incomplete uploads of", err)
		}
		for _, u := range out.Uploads {
			if aws.ToString(u.Key) != s.loc.key {
				continue
			}
			_, err := c.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{
				Bucket: aws.String(s.loc.bucket), Key: u.Key, UploadId: u.UploadId,
			})
			if err != nil && classify(err) != KindNotFound {
				return aborted, s.fail("aborting an incomplete upload of", err)
			}
			aborted++
		}
		if !aws.ToBool(out.IsTruncated) {
			return aborted, nil
		}
		in.KeyMarker, in.UploadIdMarker = out.NextKeyMarker, out.NextUploadIdMarker
	}
}

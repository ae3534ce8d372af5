package clipstore

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	gcaws "gocloud.dev/aws"
	"gocloud.dev/blob"
	"gocloud.dev/blob/s3blob"
)

// openS3 opens an S3 bucket as s3blob's URL opener does (the same query
// parameters, the same AWS credential chain through gocloud's
// V2ConfigFromURLParams), with one difference: requests never sign their
// payload. The AWS SDK signs payloads over plain HTTP endpoints (an
// S3-compatible store on a private network), which reads every byte of a
// clip a second time to hash it; over HTTPS it already sends them unsigned.
// The bytes stay protected by the request checksums the SDK adds and by the
// SHA-256 Write computes.
func openS3(ctx context.Context, loc Location) (*blob.Bucket, error) {
	q := url.Values{}
	for k, v := range loc.query {
		q[k] = v
	}
	var opts s3blob.Options
	clientOpts := []func(*s3.Options){func(o *s3.Options) {
		o.APIOptions = append(o.APIOptions, v4.SwapComputePayloadSHA256ForUnsignedPayloadMiddleware)
	}}
	if v := q.Get("ssetype"); v != "" {
		q.Del("ssetype")
		sse := s3types.ServerSideEncryption("")
		for _, t := range s3types.ServerSideEncryptionAes256.Values() {
			if strings.EqualFold(string(t), v) {
				sse = t
			}
		}
		if sse == "" {
			return nil, fmt.Errorf("%q is not a valid value for ssetype", v)
		}
		opts.EncryptionType = sse
	}
	if v := q.Get("kmskeyid"); v != "" {
		q.Del("kmskeyid")
		opts.KMSEncryptionID = v
	}
	for _, param := range []string{"accelerate", "disable_https", "use_path_style", "s3ForcePathStyle"} {
		v := q.Get(param)
		if v == "" {
			continue
		}
		q.Del(param)
		on, err := strconv.ParseBool(v)
		if err != nil {
			return nil, fmt.Errorf("invalid value for %q: %w", param, err)
		}
		switch param {
		case "accelerate":
			clientOpts = append(clientOpts, func(o *s3.Options) { o.UseAccelerate = on })
		case "disable_https":
			clientOpts = append(clientOpts, func(o *s3.Options) { o.EndpointOptions.DisableHTTPS = on })
		default:
			clientOpts = append(clientOpts, func(o *s3.Options) { o.UsePathStyle = on })
		}
	}
	cfg, err := gcaws.V2ConfigFromURLParams(ctx, q)
	if err != nil {
		return nil, err
	}
	// The transfer manager takes the checksum setting from the bucket's
	// options, not the client's.
	opts.RequestChecksumCalculation = cfg.RequestChecksumCalculation
	return s3blob.OpenBucket(ctx, s3.NewFromConfig(cfg, clientOpts...), loc.bucket, &opts)
}

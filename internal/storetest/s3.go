package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// S3Region is the region versitygw serves and its clients sign for.
const S3Region = "us-east-1"

// StartS3 starts versitygw with its posix backend in a temporary directory
// and one bucket, "clips", for the test. Its Env holds a fresh access key
// pair and keeps the AWS SDK from the machine's own configuration (shared
// files, profiles, instance metadata). Its URLs name the endpoint, with
// path-style requests, as for any S3-compatible store.
func StartS3(t testing.TB) *Server {
	t.Helper()
	return start(t, "s3")
}

func startS3(ctx context.Context, root, dir string) (*Server, error) {
	bin, err := tool(ctx, root, "VERSITYGW")
	if err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "versitygw")
	if err := os.MkdirAll(data, 0o700); err != nil {
		return nil, err
	}
	access, secret := "videogen-test-"+randomHex(4), randomHex(20)
	endpoint, log, stop, err := run(ctx, "versitygw", func(ctx context.Context, port int) *exec.Cmd {
		//nolint:gosec // G204: the server make store-server-path built
		cmd := exec.CommandContext(ctx, bin, "--access", access, "--secret", secret, "--region", S3Region,
			"--port", "127.0.0.1:"+strconv.Itoa(port), "posix", data)
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir}
		return cmd
	}, answers)
	if err != nil {
		return nil, err
	}
	s := &Server{
		Kind:     "s3",
		Endpoint: endpoint,
		Bucket:   "clips",
		Env: map[string]string{
			"AWS_ACCESS_KEY_ID":           access,
			"AWS_SECRET_ACCESS_KEY":       secret,
			"AWS_SESSION_TOKEN":           "",
			"AWS_REGION":                  S3Region,
			"AWS_PROFILE":                 "",
			"AWS_CONFIG_FILE":             filepath.Join(dir, "no-aws-config"),
			"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "no-aws-credentials"),
			"AWS_EC2_METADATA_DISABLED":   "true",
		},
		query: query("endpoint", endpoint, "use_path_style", "true", "region", S3Region),
		name:  "versitygw",
		log:   log,
		stop:  stop,
	}
	if _, err := s.S3Client().CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(s.Bucket)}); err != nil {
		stop()
		return nil, fmt.Errorf("creating the bucket on versitygw: %w\n%s", err, log.String())
	}
	return s, nil
}

// S3Client is an AWS SDK client of the server with its credentials: the
// store's own client, to check what a test wrote.
func (s *Server) S3Client() *s3.Client {
	return s3.New(s3.Options{
		Region:       S3Region,
		Credentials:  credentials.NewStaticCredentialsProvider(s.Env["AWS_ACCESS_KEY_ID"], s.Env["AWS_SECRET_ACCESS_KEY"], ""),
		BaseEndpoint: aws.String(s.Endpoint),
		UsePathStyle: true,
	})
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return hex.EncodeToString(b)
}

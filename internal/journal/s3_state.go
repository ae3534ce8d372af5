package journal

import (
	"context"
	"io"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// s3State is the savedState of a state Terraform's s3 backend keeps: the
// object of its workspace, read once, the first time the journal offers a
// task (the state lock keeps every other run from changing it meanwhile), as
// the backend itself reaches it: its recorded bucket, key, workspace prefix,
// region, endpoint and path style, with the credentials it was given (its
// access_key and secret_key settings when it has them, else its profile or
// the standard AWS chain: the environment, the shared files its settings or
// the environment name). A backend that assumes a role, or has any other
// setting s3Settings does not name, is not read at all; a read that fails or
// a state it cannot parse (an encrypted one) proves nothing. Nothing it reads
// or is given is ever shown or logged.
type s3State struct {
	bucket, key, region, endpoint, profile string
	accessKey, secretKey, token            string
	pathStyle                              bool
	sharedConfig, sharedCredentials        []string

	readOnce
}

// s3Settings are the s3 backend's settings its reader follows or that do not
// change a read (locking, retries, checks it skips, keys the server decrypts
// with on its own, account lists, endpoints of other services: used only to
// assume a role, which is not followed).
var s3Settings = []string{
	"bucket", "key", "region", "workspace_key_prefix", "endpoints", "endpoint", "use_path_style", "force_path_style",
	"access_key", "secret_key", "token", "profile", "shared_config_files", "shared_credentials_files",
	"shared_credentials_file",
	"skip_credentials_validation", "skip_metadata_api_check", "skip_region_validation", "skip_requesting_account_id",
	"skip_s3_checksum", "skip_get_ec2_platforms", "encrypt", "kms_key_id", "acl", "dynamodb_table", "dynamodb_endpoint",
	"use_lockfile", "max_retries", "retry_mode", "allowed_account_ids", "forbidden_account_ids", "iam_endpoint",
	"sts_endpoint", "sts_region", "use_legacy_workflow",
}

// stateReadTimeout bounds a remote state's whole read: an endpoint that drops
// packets, or a credential chain that asks instance metadata off a cloud VM,
// must not hang the plan.
const stateReadTimeout = 20 * time.Second

// currentS3State is the s3 backend b's state of the current workspace.
func currentS3State(b *recordedBackend) *s3State {
	s := &s3State{
		bucket:    b.setting("bucket"),
		region:    b.setting("region"),
		profile:   b.setting("profile"),
		accessKey: b.setting("access_key"),
		secretKey: b.setting("secret_key"),
		token:     b.setting("token"),
		// Terraform 1.6 and later, OpenTofu: use_path_style; before: force_path_style.
		pathStyle: b.flag("use_path_style") || b.flag("force_path_style"),
		// Terraform 1.6 and later, OpenTofu: the lists; before: one file.
		sharedConfig:      b.paths("shared_config_files"),
		sharedCredentials: b.paths("shared_credentials_files"),
	}
	if f := b.setting("shared_credentials_file"); f != "" {
		s.sharedCredentials = append(s.sharedCredentials, expandHome(f))
	}
	// As the backend names the object: key for the default workspace,
	// <workspace_key_prefix>/<workspace>/<key> for the others.
	s.key = b.setting("key")
	if ws := workspace(); ws != "default" && s.key != "" {
		prefix := "env:"
		if p, ok := b.Config["workspace_key_prefix"].(string); ok {
			prefix = p
		}
		s.key = strings.TrimPrefix(prefix+"/"+ws+"/"+s.key, "/")
	}
	// Terraform 1.6 and later, OpenTofu: endpoints.s3; before: endpoint, or
	// AWS_S3_ENDPOINT. Newer backends also take AWS_ENDPOINT_URL_S3, which
	// the SDK reads itself.
	if eps, ok := b.Config["endpoints"].(map[string]any); ok {
		s.endpoint, _ = eps["s3"].(string)
	}
	if s.endpoint == "" {
		s.endpoint = b.setting("endpoint")
	}
	if s.endpoint == "" {
		s.endpoint = os.Getenv("AWS_S3_ENDPOINT")
	}
	return s
}

func (s *s3State) heldTasks(ctx context.Context) map[string]bool { return s.get(ctx, s.read) }

// read returns the tasks of the saved state; nil when it cannot tell.
func (s *s3State) read(ctx context.Context) map[string]bool {
	if s.bucket == "" || s.key == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, stateReadTimeout)
	defer cancel()
	var opts []func(*config.LoadOptions) error
	if s.region != "" {
		opts = append(opts, config.WithRegion(s.region))
	}
	if s.profile != "" {
		opts = append(opts, config.WithSharedConfigProfile(s.profile))
	}
	if len(s.sharedConfig) > 0 {
		opts = append(opts, config.WithSharedConfigFiles(s.sharedConfig))
	}
	if len(s.sharedCredentials) > 0 {
		opts = append(opts, config.WithSharedCredentialsFiles(s.sharedCredentials))
	}
	if s.accessKey != "" && s.secretKey != "" {
		opts = append(opts, config.WithCredentialsProvider(
			credentials.NewStaticCredentialsProvider(s.accessKey, s.secretKey, s.token)))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil
	}
	client := s3.NewFromConfig(cfg, func(o *s3.Options) {
		if s.endpoint != "" {
			o.BaseEndpoint = aws.String(s.endpoint)
		}
		o.UsePathStyle = s.pathStyle
	})
	obj, err := client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(s.key)})
	if err != nil {
		return nil
	}
	defer func() { _ = obj.Body.Close() }()
	data, err := io.ReadAll(obj.Body)
	if err != nil {
		return nil
	}
	return stateTasks(data)
}

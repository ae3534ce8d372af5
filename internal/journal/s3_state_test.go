package journal

import (
	"encoding/json"
	"testing"
)

// The s3 backend's object is named and reached as the backend does, from the
// settings `init` recorded: both CLIs' spellings of the endpoint and path
// style, and the workspace prefix (env: unless set).
func TestS3StateNamesTheBackendsObject(t *testing.T) {
	for _, tc := range []struct {
		name, workspace, config string
		wantKey, wantEndpoint   string
		wantPathStyle           bool
	}{
		{"Terraform 1.6 and later", "default",
			`{"bucket":"b","key":"k/s.tfstate","endpoints":{"s3":"http://127.0.0.1:9000","iam":null},"use_path_style":true,"force_path_style":null}`,
			"k/s.tfstate", "http://127.0.0.1:9000", true},
		{"Terraform before 1.6", "default",
			`{"bucket":"b","key":"s.tfstate","endpoint":"http://127.0.0.1:9000","force_path_style":true}`,
			"s.tfstate", "http://127.0.0.1:9000", true},
		{"another workspace", "blue", `{"bucket":"b","key":"s.tfstate"}`, "env:/blue/s.tfstate", "", false},
		{"its own prefix", "blue", `{"bucket":"b","key":"s.tfstate","workspace_key_prefix":"teams"}`, "teams/blue/s.tfstate", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("TF_WORKSPACE", tc.workspace)
			t.Setenv("AWS_S3_ENDPOINT", "")
			b := &recordedBackend{Type: "s3"}
			if err := json.Unmarshal([]byte(tc.config), &b.Config); err != nil {
				t.Fatal(err)
			}
			s := currentS3State(b)
			if s.bucket != "b" || s.key != tc.wantKey || s.endpoint != tc.wantEndpoint || s.pathStyle != tc.wantPathStyle {
				t.Fatalf("bucket %q key %q endpoint %q path style %v; want b, %q, %q, %v",
					s.bucket, s.key, s.endpoint, s.pathStyle, tc.wantKey, tc.wantEndpoint, tc.wantPathStyle)
			}
		})
	}
}

// A state object that cannot be read (nothing listens at the endpoint) proves
// nothing: no task is held, so none is dropped from the journal.
func TestS3StateUnreadableHoldsNothing(t *testing.T) {
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_CONFIG_FILE", t.TempDir()+"/none")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", t.TempDir()+"/none")
	s := &s3State{bucket: "b", key: "k", region: "us-east-1", endpoint: "http://127.0.0.1:1", pathStyle: true,
		accessKey: "id", secretKey: "secret"}
	if got := s.heldTasks(t.Context()); got != nil {
		t.Fatalf("an unreachable endpoint read as tasks %v", got)
	}
}

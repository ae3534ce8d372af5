package clipstore

import (
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		secrets  []string
	}{{
		in:      "GET https://media.s3.eu-west-1.amazonaws.com/intro.mp4?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20240101%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Date=20240101T000000Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature=0123456789abcdef: 403",
		want:    "GET https://media.s3.eu-west-1.amazonaws.com/intro.mp4?X-Amz-Algorithm=REDACTED&X-Amz-Credential=REDACTED&X-Amz-Date=REDACTED&X-Amz-Expires=REDACTED&X-Amz-Signature=REDACTED&X-Amz-SignedHeaders=REDACTED: 403",
		secrets: []string{"AKIAIOSFODNN7EXAMPLE", "0123456789abcdef"},
	}, {
		in:      "PUT http://127.0.0.1:10000/acct/clips/intro.mp4?comp=block&sv=2022-11-02&se=2030-01-01&sp=rw&sig=c2lnbmF0dXJlL3NlY3JldA%3D%3D failed",
		want:    "PUT http://127.0.0.1:10000/acct/clips/intro.mp4?comp=REDACTED&se=REDACTED&sig=REDACTED&sp=REDACTED&sv=REDACTED failed",
		secrets: []string{"c2lnbmF0dXJlL3NlY3JldA"},
	}, {
		in:      "https://storage.googleapis.com/media/intro.mp4?X-Goog-Signature=abcdef0123&GoogleAccessId=sa@p.iam.gserviceaccount.com&Expires=1700000000",
		want:    "https://storage.googleapis.com/media/intro.mp4?Expires=REDACTED&GoogleAccessId=REDACTED&X-Goog-Signature=REDACTED",
		secrets: []string{"abcdef0123", "sa@p.iam"},
	}, {
		in:      "dial s3://AKIAIOSFODNN7EXAMPLE:wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY@media/intro.mp4?region=eu-west-1",
		want:    "dial s3://REDACTED:REDACTED@media/intro.mp4?region=eu-west-1",
		secrets: []string{"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY"},
	}, {
		in:      "s3://media/intro.mp4?endpoint=https://minio.example:9000&region=us-east-1",
		want:    "s3://media/intro.mp4?endpoint=https%3A%2F%2Fminio.example%3A9000&region=us-east-1",
		secrets: nil,
	}, {
		in:      `Authorization: AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20240101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=fe5f80f77d5fa3beca038a248ff027`,
		want:    `Authorization: AWS4-HMAC-SHA256 Credential=REDACTED, SignedHeaders=host, Signature=REDACTED`,
		secrets: []string{"AKIAIOSFODNN7EXAMPLE", "fe5f80f77d5fa3beca038a248ff027"},
	}, {
		in:      "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsu==;EndpointSuffix=core.windows.net",
		want:    "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=REDACTED;EndpointSuffix=core.windows.net",
		secrets: []string{"Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsu"},
	}, {
		in:      `{"access_token": "ya29.a0AfH6SMB", "token_type": "Bearer"} Authorization: Bearer ya29.a0AfH6SMC`,
		want:    `{"access_token": "REDACTED", "token_type": "Bearer"} Authorization: Bearer REDACTED`,
		secrets: []string{"ya29.a0AfH6SMB", "ya29.a0AfH6SMC"},
	}, {
		in:      "the key already holds an object of 3 bytes with SHA-256 abc; task cgt-2024 model seedance-1-0-pro",
		want:    "the key already holds an object of 3 bytes with SHA-256 abc; task cgt-2024 model seedance-1-0-pro",
		secrets: nil,
	}} {
		got := Redact(tc.in)
		if got != tc.want {
			t.Errorf("Redact(%q)\n = %q\nwant %q", tc.in, got, tc.want)
		}
		for _, s := range tc.secrets {
			if strings.Contains(got, s) {
				t.Errorf("Redact(%q) = %q keeps %q", tc.in, got, s)
			}
		}
		if again := Redact(got); again != got {
			t.Errorf("Redact is not idempotent: %q, then %q", got, again)
		}
	}
}

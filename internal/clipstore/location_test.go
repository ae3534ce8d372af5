package clipstore

import (
	"strings"
	"testing"
)

func TestParseAcceptsEachStore(t *testing.T) {
	for _, tc := range []struct {
		raw, scheme, bucket, key, bucketURL string
	}{
		{"s3://media/clips/intro.mp4?region=eu-west-1", "s3", "media", "clips/intro.mp4", "s3://media?region=eu-west-1"},
		{"s3://media/intro.mp4?endpoint=http://127.0.0.1:9000&use_path_style=true", "s3", "media", "intro.mp4",
			"s3://media?endpoint=http%3A%2F%2F127.0.0.1%3A9000&use_path_style=true"},
		{"gs://media/a/b.mp4", "gs", "media", "a/b.mp4", "gs://media"},
		{"azblob://clips/intro.mp4", "azblob", "clips", "intro.mp4", "azblob://clips"},
		{"file:///srv/media/intro.mp4", "file", "/srv/media/", "intro.mp4", "file:///srv/media/?create_dir=true&no_tmp_dir=true"},
	} {
		loc, err := Parse(tc.raw)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.raw, err)
			continue
		}
		if loc.Scheme() != tc.scheme || loc.Bucket() != tc.bucket || loc.Key() != tc.key || loc.bucketURL() != tc.bucketURL {
			t.Errorf("Parse(%q) = %s %q %q %q; want %s %q %q %q", tc.raw, loc.Scheme(), loc.Bucket(), loc.Key(), loc.bucketURL(),
				tc.scheme, tc.bucket, tc.key, tc.bucketURL)
		}
	}
}

func TestParseRefusesWithoutShowingSecrets(t *testing.T) {
	for _, tc := range []struct{ raw, says string }{
		{"https://media.s3.amazonaws.com/intro.mp4", "the scheme must be one of s3://, gs://, azblob://, file://"},
		{"s3://media", "names no key"},
		{"s3://media/", "names no key"},
		{"s3://media/clips/", "ends in /"},
		{"s3:///intro.mp4", "names no bucket"},
		{"s3://media/a//b.mp4", "empty, . or .. segment"},
		{"s3://media/../b.mp4", "empty, . or .. segment"},
		{"s3://media/a%3Fb.mp4", "not every store keeps as is"},
		{"s3://media/intro.mp4?regoin=eu-west-1", `query parameter "regoin" is not taken by s3://`},
		{"s3://media/intro.mp4?region=a&region=b", "given 2 times"},
		{"s3://AKIAIOSFODNN7EXAMPLE:wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY@media/intro.mp4", "carries user information"},
		{"s3://media/intro.mp4?X-Amz-Signature=deadbeefcafe&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20240101", "are not taken by s3://"},
		{"azblob://clips/intro.mp4?sig=c2VjcmV0c2lnbmF0dXJl&sv=2022-11-02", "are not taken by azblob://"},
		{"s3://media/intro.mp4?endpoint=http://user:hunter2@minio:9000", "no user information"},
		{"s3://media/intro.mp4?endpoint=minio:9000", "http:// or https:// URL"},
		{"gs://media/intro.mp4#frag", "fragment"},
		{"file://host/srv/intro.mp4", "names a local path"},
		{"file:///srv/media/", "absolute, clean path"},
		{"file:///srv/../intro.mp4", "absolute, clean path"},
		{"file:///srv/intro.mp4.attrs", "reserved"},
	} {
		_, err := Parse(tc.raw)
		if err == nil {
			t.Errorf("Parse(%q) succeeded; want an error saying %q", tc.raw, tc.says)
			continue
		}
		if !strings.Contains(err.Error(), tc.says) {
			t.Errorf("Parse(%q) = %q; want it to say %q", tc.raw, err, tc.says)
		}
		for _, secret := range []string{"wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY", "AKIAIOSFODNN7EXAMPLE", "deadbeefcafe", "c2VjcmV0c2lnbmF0dXJl", "hunter2"} {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("Parse(%q) = %q shows the secret %q", tc.raw, err, secret)
			}
		}
	}
}

func TestLocationStringIsRedacted(t *testing.T) {
	loc, err := Parse("s3://media/intro.mp4?region=eu-west-1&endpoint=https://minio.example:9000")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := loc.String(), "s3://media/intro.mp4?endpoint=https%3A%2F%2Fminio.example%3A9000&region=eu-west-1"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

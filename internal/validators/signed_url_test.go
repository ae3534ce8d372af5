package validators

import (
	"os"
	"strings"
	"testing"
)

func TestSameMedia(t *testing.T) {
	t.Parallel()
	const (
		s3     = "https://bucket.s3.eu-west-1.amazonaws.com/refs/mug.png"
		s3Sig  = "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDEXAMPLE%2F20260101%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Date=20260101T000000Z&X-Amz-Expires=900&X-Amz-SignedHeaders=host&X-Amz-Signature=aaaa"
		s3Sig2 = "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=ASIAEXAMPLE%2F20260102%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Date=20260102T101500Z&X-Amz-Expires=3600&X-Amz-Security-Token=FwoGZX&X-Amz-SignedHeaders=host&X-Amz-Signature=bbbb"
		gcs    = "https://storage.googleapis.com/bucket/refs/cup.png"
		gcsV4  = "X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=sa%40p.iam.gserviceaccount.com%2F20260101%2Fauto%2Fstorage%2Fgoog4_request&X-Goog-Date=20260101T000000Z&X-Goog-Expires=600&X-Goog-SignedHeaders=host&X-Goog-Signature=0a1b"
		gcsV2  = "GoogleAccessId=sa%40p.iam.gserviceaccount.com&Expires=1767225600&Signature=c2ln%2B%3D"
		az     = "https://acct.blob.core.windows.net/refs/bowl.png"
		azSAS  = "sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-01-01T01:00:00Z&st=2026-01-01T00:00:00Z&spr=https&sig=abc%2Bdef%3D"
		azSAS2 = "sp=r&st=2026-02-01T00:00:00Z&se=2026-02-01T01:00:00Z&skoid=1&sktid=2&skt=2026-02-01T00:00:00Z&ske=2026-02-02T00:00:00Z&sks=b&skv=2022-11-02&spr=https&sv=2022-11-02&sr=b&sig=xyz%3D"
		cf     = "https://d111111abcdef8.cloudfront.net/refs/plate.png"
		tos    = "https://bucket.tos-cn-beijing.volces.com/refs/fork.png"
	)
	tests := []struct {
		a, b string
		want bool
	}{
		{s3 + "?" + s3Sig, s3 + "?" + s3Sig2, true},
		{s3 + "?" + s3Sig, s3, true},
		{s3 + "?versionId=v1&" + s3Sig, s3 + "?versionId=v1&" + s3Sig2, true},
		{s3 + "?" + strings.ToLower(s3Sig), s3 + "?" + s3Sig2, true},
		{s3 + "?AWSAccessKeyId=AKID&Expires=1767225600&Signature=abc%3D", s3 + "?" + s3Sig, true},
		{gcs + "?" + gcsV4, gcs + "?" + gcsV2, true},
		{gcs + "?generation=17&" + gcsV4, gcs + "?generation=17&" + gcsV2, true},
		{az + "?" + azSAS, az + "?" + azSAS2, true},
		{az + "?snapshot=2026-01-01&" + azSAS, az + "?snapshot=2026-01-01&" + azSAS2, true},
		{cf + "?Expires=1767225600&Signature=abc&Key-Pair-Id=K2JCJMDEHXQW5F", cf + "?Policy=eyJ9&Signature=def&Key-Pair-Id=K2JCJMDEHXQW5F", true},
		{tos + "?X-Tos-Algorithm=TOS4-HMAC-SHA256&X-Tos-Credential=AK%2F20260101%2Fcn-beijing%2Ftos%2Frequest&X-Tos-Date=20260101T000000Z&X-Tos-Expires=3600&X-Tos-SignedHeaders=host&X-Tos-Signature=aa",
			tos + "?X-Tos-Algorithm=TOS4-HMAC-SHA256&X-Tos-Credential=AK%2F20260102%2Fcn-beijing%2Ftos%2Frequest&X-Tos-Date=20260102T000000Z&X-Tos-Expires=60&X-Tos-SignedHeaders=host&X-Tos-Signature=bb", true},
		// SameURL's equivalences still hold.
		{"HTTPS://Bucket.S3.eu-west-1.amazonaws.com:443/refs/mug.png?" + s3Sig, s3 + "?" + s3Sig2, true},

		// Parameters that choose the object or its bytes count.
		{s3 + "?versionId=v1&" + s3Sig, s3 + "?versionId=v2&" + s3Sig, false},
		{s3 + "?versionId=v1&" + s3Sig, s3 + "?" + s3Sig, false},
		{s3 + "?" + s3Sig, "https://bucket.s3.eu-west-1.amazonaws.com/refs/cup.png?" + s3Sig, false},
		{gcs + "?generation=17&" + gcsV4, gcs + "?generation=18&" + gcsV4, false},
		{az + "?versionid=1&" + azSAS, az + "?versionid=2&" + azSAS, false},
		{tos + "?x-tos-process=image%2Fresize%2Cw_100&X-Tos-Signature=aa", tos + "?x-tos-process=image%2Fresize%2Cw_200&X-Tos-Signature=aa", false},
		{s3 + "?X-Amz-Signature=aa&X-Amz-Unknown=1", s3 + "?X-Amz-Signature=bb&X-Amz-Unknown=2", false},
		{s3 + "?response-content-type=image%2Fpng&" + s3Sig, s3 + "?" + s3Sig, false},
		// A scheme's short names only sign a URL that carries its marker.
		{"https://img.example.com/render?sp=2&st=10", "https://img.example.com/render?sp=3&st=10", false},
		{"https://img.example.com/render?Expires=1&Signature=a", "https://img.example.com/render?Expires=2&Signature=b", false},
		{"https://img.example.com/x.png?v=1", "https://img.example.com/x.png?v=2", false},
		{s3 + "?" + s3Sig, "http://bucket.s3.eu-west-1.amazonaws.com/refs/mug.png?" + s3Sig, false},
	}
	for _, tt := range tests {
		if got := SameMedia(tt.a, tt.b); got != tt.want {
			t.Errorf("SameMedia(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
		if got := SameMedia(tt.b, tt.a); got != tt.want {
			t.Errorf("SameMedia(%q, %q) = %v, want %v (not symmetric)", tt.b, tt.a, got, tt.want)
		}
	}
}

func TestUnsignedURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://h.example.com/x.png?versionId=v1&X-Amz-Signature=a&X-Amz-Date=1": "https://h.example.com/x.png?versionId=v1",
		"https://h.example.com/x.png?X-Amz-Signature=a":                           "https://h.example.com/x.png",
		"https://h.example.com/x.png?a=1&sig=s&b=2&sv=3":                          "https://h.example.com/x.png?a=1&b=2",
		"https://h.example.com/x.png?sv=3&a=%20":                                  "https://h.example.com/x.png?sv=3&a=%20",
		"https://h.example.com/x.png?X%2DAmz%2DSignature=a&k=v":                   "https://h.example.com/x.png?k=v",
		"https://h.example.com/x.png":                                             "https://h.example.com/x.png",
		"http://[::1":                                                             "http://[::1",
	} {
		if got := UnsignedURL(in); got != want {
			t.Errorf("UnsignedURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// CONTRIBUTING.md lists the parameters for people who change the provider; the
// table here is what runs. They must not drift apart.
func TestSigningSchemesDocumented(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../CONTRIBUTING.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n### Signed reference URLs\n")
	if !ok {
		t.Fatal(`CONTRIBUTING.md has no "Signed reference URLs" section`)
	}
	section, _, _ = strings.Cut(section, "\n### ")
	for _, s := range signingSchemes {
		if !strings.Contains(section, "| "+s.Store) {
			t.Errorf("CONTRIBUTING.md, \"Signed reference URLs\", has no row for %s", s.Store)
		}
		for _, name := range append([]string{s.Marker}, s.Params...) {
			if !strings.Contains(section, "`"+name+"`") {
				t.Errorf("CONTRIBUTING.md, \"Signed reference URLs\", does not mention %q (%s)", name, s.Store)
			}
		}
	}
}

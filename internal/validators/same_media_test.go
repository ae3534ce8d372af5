package validators

import (
	"net/url"
	"strings"
	"testing"

	"github.com/videogen/terraform-provider-videogen/internal/signedurl"
)

// Presigned URLs as each store writes them, signed on two runs.
const (
	s3       = "https://bucket.s3.eu-west-1.amazonaws.com/refs/mug.png"
	s3Sig    = "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDEXAMPLE%2F20260101%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Date=20260101T000000Z&X-Amz-Expires=900&X-Amz-SignedHeaders=host&X-Amz-Signature=aaaa"
	s3Sig2   = "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=ASIAEXAMPLE%2F20260102%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Date=20260102T101500Z&X-Amz-Expires=3600&X-Amz-Security-Token=FwoGZX&X-Amz-SignedHeaders=host&X-Amz-Signature=bbbb"
	s3SigV2  = "AWSAccessKeyId=AKID&Expires=1767225600&Signature=abc%3D"
	s3SigV2b = "AWSAccessKeyId=AKID&Expires=1767312000&Signature=def%3D"
	gcs      = "https://storage.googleapis.com/bucket/refs/cup.png"
	gcsV4    = "X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=sa%40p.iam.gserviceaccount.com%2F20260101%2Fauto%2Fstorage%2Fgoog4_request&X-Goog-Date=20260101T000000Z&X-Goog-Expires=600&X-Goog-SignedHeaders=host&X-Goog-Signature=0a1b"
	gcsV4b   = "X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=sa%40p.iam.gserviceaccount.com%2F20260102%2Fauto%2Fstorage%2Fgoog4_request&X-Goog-Date=20260102T000000Z&X-Goog-Expires=600&X-Goog-SignedHeaders=host&X-Goog-Signature=2c3d"
	gcsV2    = "GoogleAccessId=sa%40p.iam.gserviceaccount.com&Expires=1767225600&Signature=c2ln%2B%3D"
	az       = "https://acct.blob.core.windows.net/refs/bowl.png"
	azSAS    = "sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-01-01T01:00:00Z&st=2026-01-01T00:00:00Z&spr=https&sig=abc%2Bdef%3D"
	azSAS2   = "sp=r&st=2026-02-01T00:00:00Z&se=2026-02-01T01:00:00Z&skoid=1&sktid=2&skt=2026-02-01T00:00:00Z&ske=2026-02-02T00:00:00Z&sks=b&skv=2022-11-02&spr=https&sv=2022-11-02&sr=b&sig=xyz%3D"
	// A SAS on a stored access policy: the policy holds the expiry, so no se.
	azPolicy  = "sv=2022-11-02&si=readers&sr=b&sig=pq%3D"
	azPolicy2 = "sv=2022-11-02&si=readers&sr=b&sig=rs%3D"
	cf        = "https://d111111abcdef8.cloudfront.net/refs/plate.png"
	cfCanned  = "Expires=1767225600&Signature=abc&Key-Pair-Id=K2JCJMDEHXQW5F"
	cfCustom  = "Policy=eyJ9&Signature=def&Key-Pair-Id=K2JCJMDEHXQW5F"
	tos       = "https://bucket.tos-cn-beijing.volces.com/refs/fork.png"
	tosSig    = "X-Tos-Algorithm=TOS4-HMAC-SHA256&X-Tos-Credential=AK%2F20260101%2Fcn-beijing%2Ftos%2Frequest&X-Tos-Date=20260101T000000Z&X-Tos-Expires=3600&X-Tos-SignedHeaders=host&X-Tos-Signature=aa"
	tosSig2   = "X-Tos-Algorithm=TOS4-HMAC-SHA256&X-Tos-Credential=AK%2F20260102%2Fcn-beijing%2Ftos%2Frequest&X-Tos-Date=20260102T000000Z&X-Tos-Expires=60&X-Tos-SignedHeaders=host&X-Tos-Signature=bb"
	// A host of the user's own: a proxy, a CNAME or a CDN in front of a store.
	own    = "https://media.example.com/refs/mug.png"
	thumbs = "https://thumbs.example.com/frame.jpg?src=movie.mp4&"
)

// sameMediaPairs are the pairs SameMedia must judge, both ways round.
var sameMediaPairs = []struct {
	name string
	a, b string
	want bool
}{
	// A signature rotated on a store's own host is the same media.
	{"S3 V4 rotated", s3 + "?" + s3Sig, s3 + "?" + s3Sig2, true},
	{"S3 V4 signed and unsigned", s3 + "?" + s3Sig, s3, true},
	{"S3 V4 rotated, versionId kept", s3 + "?versionId=v1&" + s3Sig, s3 + "?versionId=v1&" + s3Sig2, true},
	{"S3 V2 and V4 on S3's host", s3 + "?" + s3SigV2, s3 + "?" + s3Sig, true},
	{"S3 V2 rotated", s3 + "?" + s3SigV2, s3 + "?" + s3SigV2b, true},
	{"S3 path-style host", "https://s3.eu-west-1.amazonaws.com/bucket/x.png?" + s3Sig, "https://s3.eu-west-1.amazonaws.com/bucket/x.png?" + s3Sig2, true},
	{"S3 bucket with dots", "https://a.b.s3.amazonaws.com/x.png?" + s3SigV2, "https://a.b.s3.amazonaws.com/x.png?" + s3SigV2b, true},
	{"GCS V4 and V2", gcs + "?" + gcsV4, gcs + "?" + gcsV2, true},
	{"GCS V4 rotated, generation kept", gcs + "?generation=17&" + gcsV4, gcs + "?generation=17&" + gcsV4b, true},
	{"GCS with S3's V4 (HMAC keys)", gcs + "?" + s3Sig, gcs + "?" + s3Sig2, true},
	{"Azure SAS rotated", az + "?" + azSAS, az + "?" + azSAS2, true},
	{"Azure SAS rotated, snapshot kept", az + "?snapshot=2026-01-01&" + azSAS, az + "?snapshot=2026-01-01&" + azSAS2, true},
	{"Azure SAS on a stored policy, on Azure's host", az + "?" + azPolicy, az + "?" + azPolicy2, true},
	{"Azure SAS without sp, on Azure's host", az + "?" + azSAS, az + "?" + strings.Replace(azSAS, "sp=r&", "", 1), true},
	{"CloudFront canned and custom policy", cf + "?" + cfCanned, cf + "?" + cfCustom, true},
	{"TOS rotated", tos + "?" + tosSig, tos + "?" + tosSig2, true},
	// On any other host a store's complete mandatory set is beyond doubt.
	{"S3 V4 on own host", own + "?" + s3Sig, own + "?" + s3Sig2, true},
	{"S3 V2 on own host", own + "?" + s3SigV2, own + "?" + s3SigV2b, true},
	{"GCS V4 on own host", own + "?" + gcsV4, own + "?" + gcsV4b, true},
	{"Azure SAS on own host", own + "?" + azSAS, own + "?" + azSAS2, true},
	{"CloudFront on own CDN domain", own + "?" + cfCanned, own + "?" + cfCustom, true},
	{"TOS on own host", own + "?" + tosSig, own + "?" + tosSig2, true},
	// Spellings of one URL.
	{"percent-encoded signing name", s3 + "?X%2DAmz%2DSignature=a&" + s3Sig, s3 + "?" + s3Sig2, true},
	{"host case and default port", "HTTPS://Bucket.S3.eu-west-1.amazonaws.com:443/refs/mug.png?" + s3Sig, s3 + "?" + s3Sig2, true},
	{"unreserved characters encoded", own + "?v=%7E1", own + "?v=~1", true},
	{"encoded dot segment is a dot segment", s3 + "/b/%2E%2E/c.png", s3 + "/b/../c.png", true},

	// Short names sign only a URL a store signed: on other hosts they are content.
	{"ss with a sig", thumbs + "ss=5&sig=aaa", thumbs + "ss=60&sig=aaa", false},
	{"st with a sig", thumbs + "st=10&sig=aaa", thumbs + "st=20&sig=aaa", false},
	{"sr (a sample rate) with a sig", thumbs + "sr=44100&sig=aaa", thumbs + "sr=48000&sig=aaa", false},
	{"si with a sig", thumbs + "si=1&sig=aaa", thumbs + "si=2&sig=aaa", false},
	{"sp dropped with a sig", thumbs + "sp=2&sig=aaa", thumbs + "sig=aaa", false},
	{"percent-encoded sp with a sig", thumbs + "s%70=3&sig=aaa", thumbs + "s%70=9&sig=aaa", false},
	{"Azure's set short of se on own host", own + "?" + azPolicy, own + "?" + azPolicy2, false},
	{"x-amz-date on a proxy with a signature only", own + "?x-amz-date=20260101&X-Amz-Signature=aaa", own + "?x-amz-date=20260102&X-Amz-Signature=aaa", false},
	{"x-amz-date in lower case beside S3's set", own + "?x-amz-date=20260101&" + s3Sig, own + "?x-amz-date=20260102&" + s3Sig, false},
	{"S3's names in lower case on own host", own + "?" + strings.ToLower(s3Sig), own + "?" + strings.ToLower(s3Sig2), false},
	{"X-Goog-Signature alone on own host", own + "?X-Goog-Date=1&X-Goog-Signature=a", own + "?X-Goog-Date=2&X-Goog-Signature=a", false},
	{"Expires and Signature alone", own + "?Expires=1&Signature=a", own + "?Expires=2&Signature=b", false},
	{"CloudFront's host without Key-Pair-Id", cf + "?Expires=1&Signature=a", cf + "?Expires=2&Signature=b", false},
	{"two stores' sets on own host", own + "?" + cfCanned + "&AWSAccessKeyId=A", own + "?Expires=2&Signature=b&Key-Pair-Id=K2JCJMDEHXQW5F&AWSAccessKeyId=A", false},
	{"Azure's set on S3's host", s3 + "?sp=1&" + azSAS, s3 + "?sp=2&" + azSAS, false},
	{"a lookalike name", s3 + "?X-Amz-Signature-Key=1&" + s3Sig, s3 + "?X-Amz-Signature-Key=2&" + s3Sig, false},
	{"an X-Amz name S3 does not sign with", s3 + "?X-Amz-Unknown=1&" + s3Sig, s3 + "?X-Amz-Unknown=2&" + s3Sig2, false},
	// Parameters that choose the object or its bytes.
	{"S3 versionId", s3 + "?versionId=v1&" + s3Sig, s3 + "?versionId=v2&" + s3Sig2, false},
	{"S3 versionId dropped", s3 + "?versionId=v1&" + s3Sig, s3 + "?" + s3Sig, false},
	{"S3 partNumber", s3 + "?partNumber=1&" + s3Sig, s3 + "?partNumber=2&" + s3Sig, false},
	{"S3 response-content-type", s3 + "?response-content-type=image%2Fpng&" + s3Sig, s3 + "?" + s3Sig, false},
	{"S3 V2 versionId", s3 + "?versionId=v1&" + s3SigV2, s3 + "?versionId=v2&" + s3SigV2, false},
	{"GCS generation, V4", gcs + "?generation=17&" + gcsV4, gcs + "?generation=18&" + gcsV4b, false},
	{"GCS generation, V2", gcs + "?generation=17&" + gcsV2, gcs + "?generation=18&" + gcsV2, false},
	{"Azure versionid", az + "?versionid=1&" + azSAS, az + "?versionid=2&" + azSAS2, false},
	{"Azure snapshot", az + "?snapshot=2026-01-01&" + azSAS, az + "?snapshot=2026-02-01&" + azSAS, false},
	{"Azure rsct", az + "?rsct=image%2Fpng&" + azSAS, az + "?rsct=image%2Fjpeg&" + azSAS, false},
	{"TOS x-tos-process", tos + "?x-tos-process=image%2Fresize%2Cw_100&" + tosSig, tos + "?x-tos-process=image%2Fresize%2Cw_200&" + tosSig2, false},
	{"CloudFront w", cf + "?w=100&" + cfCanned, cf + "?w=200&" + cfCanned, false},
	{"content parameters reordered", s3 + "?a=1&b=2&" + s3Sig, s3 + "?b=2&a=1&" + s3Sig, false},
	{"a plus is not %20", s3 + "?a=x+y&" + s3Sig, s3 + "?a=x%20y&" + s3Sig, false},
	// Paths are literal keys.
	{"another object", s3 + "?" + s3Sig, "https://bucket.s3.eu-west-1.amazonaws.com/refs/cup.png?" + s3Sig2, false},
	{"dot-dot segment", "https://bucket.s3.eu-west-1.amazonaws.com/a/b/../c.png?" + s3Sig, "https://bucket.s3.eu-west-1.amazonaws.com/a/c.png?" + s3Sig2, false},
	{"encoded dot-dot segment", "https://bucket.s3.eu-west-1.amazonaws.com/a/b/%2E%2E/c.png?" + s3Sig, "https://bucket.s3.eu-west-1.amazonaws.com/a/c.png?" + s3Sig, false},
	{"dot segment", own + "/a/./c.png", own + "/a/c.png", false},
	{"encoded slash", own + "/a%2Fc.png", own + "/a/c.png", false},
	{"path case", s3 + "?" + s3Sig, strings.Replace(s3, "mug", "Mug", 1) + "?" + s3Sig, false},
	{"scheme", s3 + "?" + s3Sig, strings.Replace(s3, "https", "http", 1) + "?" + s3Sig, false},
	{"another host", s3 + "?" + s3Sig, own + "?" + s3Sig, false},
}

func TestSameMedia(t *testing.T) {
	t.Parallel()
	if len(sameMediaPairs) < 40 {
		t.Fatalf("%d pairs; the table must keep at least 40", len(sameMediaPairs))
	}
	for _, tt := range sameMediaPairs {
		if got := SameMedia(tt.a, tt.b); got != tt.want {
			t.Errorf("%s: SameMedia(%q, %q) = %v, want %v", tt.name, tt.a, tt.b, got, tt.want)
		}
		if got := SameMedia(tt.b, tt.a); got != tt.want {
			t.Errorf("%s: SameMedia(%q, %q) = %v, want %v (not symmetric)", tt.name, tt.b, tt.a, got, tt.want)
		}
	}
}

// FuzzSameMedia holds SameMedia's promises for any pair of URLs: it is reflexive
// and symmetric, and adding or changing a parameter that no store signs with, or
// changing the path, never leaves two URLs the same.
func FuzzSameMedia(f *testing.F) {
	for _, p := range sameMediaPairs {
		f.Add(p.a, p.b, "ss", "5")
	}
	f.Add(az+"?"+azSAS, own+"?"+azSAS, "versionid", "1")
	f.Add(thumbs+"s%70=3&sig=aaa", tos+"?"+tosSig, "s%70", "9")
	f.Fuzz(func(t *testing.T, a, b, name, value string) {
		if !SameMedia(a, a) {
			t.Fatalf("SameMedia(%q, itself) = false", a)
		}
		if SameMedia(a, b) != SameMedia(b, a) {
			t.Fatalf("SameMedia(%q, %q) = %v, but %v the other way round", a, b, SameMedia(a, b), SameMedia(b, a))
		}
		u, err := url.Parse(a)
		if err != nil || u.Host == "" || u.Opaque != "" {
			return
		}
		if name != "" && !signedurl.IsSigningName(name) {
			added := *u
			pair := escapeAll(name) + "=" + escapeAll(value)
			if added.RawQuery == "" {
				added.RawQuery = pair
			} else {
				added.RawQuery += "&" + pair
			}
			if SameMedia(a, added.String()) {
				t.Fatalf("SameMedia(%q, %q) = true after adding %q", a, added.String(), pair)
			}
		}
		pairs := strings.Split(u.RawQuery, "&")
		for i, p := range pairs {
			n, _, _ := strings.Cut(p, "=")
			if decoded, err := url.PathUnescape(n); err == nil && signedurl.IsSigningName(decoded) || u.RawQuery == "" {
				continue
			}
			changed := *u
			pairs[i] = p + "x"
			changed.RawQuery = strings.Join(pairs, "&")
			if SameMedia(a, changed.String()) {
				t.Fatalf("SameMedia(%q, %q) = true after changing %q", a, changed.String(), p)
			}
			break
		}
		moved := *u
		moved.RawPath = u.EscapedPath() + "/x"
		moved.Path += "/x"
		if SameMedia(a, moved.String()) {
			t.Fatalf("SameMedia(%q, %q) = true after changing the path", a, moved.String())
		}
	})
}

// escapeAll percent-encodes every byte of s but the unreserved characters.
func escapeAll(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if isUnreserved(s[i]) {
			b.WriteByte(s[i])
		} else {
			b.WriteString("%" + upperHex[s[i]>>4:s[i]>>4+1] + upperHex[s[i]&0xF:s[i]&0xF+1])
		}
	}
	return b.String()
}

package validators

import (
	"net/url"
	"strings"
)

// signingScheme is one way an object store signs a URL: the query parameter every
// URL signed that way carries, and the parameters that only sign it (credentials,
// dates, expiry, permissions, signatures) without choosing the object or its bytes.
type signingScheme struct {
	Store  string
	Marker string
	Params []string
	// FoldCase compares the names without regard to case, as the store does for
	// names that mirror HTTP headers.
	FoldCase bool
}

// signingSchemes lists the schemes whose parameters a reference URL may change
// without naming other media (CONTRIBUTING.md, "Signed reference URLs"). A scheme
// applies only to a URL that carries its marker: short names such as "sp" or "st"
// may select content on another host. Prefixes are never trusted wholesale, since
// some stores transform the object through a parameter of the same family
// (x-tos-process); every other parameter, versionId and generation included,
// still names the media.
var signingSchemes = []signingScheme{
	{
		Store: "Amazon S3, Signature Version 4", Marker: "X-Amz-Signature", FoldCase: true,
		Params: []string{"X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Date", "X-Amz-Expires", "X-Amz-Signature",
			"X-Amz-SignedHeaders", "X-Amz-Security-Token"},
	},
	{
		Store: "Amazon S3, Signature Version 2", Marker: "AWSAccessKeyId",
		Params: []string{"AWSAccessKeyId", "Signature", "Expires", "x-amz-security-token"},
	},
	{
		Store: "Google Cloud Storage, V4 signing", Marker: "X-Goog-Signature", FoldCase: true,
		Params: []string{"X-Goog-Algorithm", "X-Goog-Credential", "X-Goog-Date", "X-Goog-Expires", "X-Goog-Signature",
			"X-Goog-SignedHeaders"},
	},
	{
		Store: "Google Cloud Storage, V2 signing", Marker: "GoogleAccessId",
		Params: []string{"GoogleAccessId", "Expires", "Signature"},
	},
	{
		Store: "Azure Storage shared access signature (SAS)", Marker: "sig",
		Params: []string{"sv", "ss", "srt", "sp", "se", "st", "spr", "sip", "sig", "si", "sr", "skoid", "sktid", "skt",
			"ske", "sks", "skv", "sdd", "ses", "saoid", "suoid", "scid"},
	},
	{
		Store: "Amazon CloudFront signed URL", Marker: "Key-Pair-Id",
		Params: []string{"Expires", "Signature", "Key-Pair-Id", "Policy"},
	},
	{
		Store: "Volcengine TOS", Marker: "X-Tos-Signature", FoldCase: true,
		Params: []string{"X-Tos-Algorithm", "X-Tos-Credential", "X-Tos-Date", "X-Tos-Expires", "X-Tos-Signature",
			"X-Tos-SignedHeaders", "X-Tos-Security-Token"},
	},
}

func (s signingScheme) has(name string) bool {
	for _, p := range s.Params {
		if p == name || s.FoldCase && strings.EqualFold(p, name) {
			return true
		}
	}
	return false
}

func (s signingScheme) markedIn(names []string) bool {
	for _, n := range names {
		if n == s.Marker || s.FoldCase && strings.EqualFold(n, s.Marker) {
			return true
		}
	}
	return false
}

// UnsignedURL returns raw without the query parameters of the signing schemes it
// carries; everything else stays as written, in order. A value that does not
// parse is returned as it is.
func UnsignedURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.RawQuery == "" {
		return raw
	}
	pairs := strings.Split(u.RawQuery, "&")
	names := make([]string, len(pairs))
	for i, p := range pairs {
		name, _, _ := strings.Cut(p, "=")
		if unescaped, err := url.QueryUnescape(name); err == nil {
			name = unescaped
		}
		names[i] = name
	}
	var active []signingScheme
	for _, s := range signingSchemes {
		if s.markedIn(names) {
			active = append(active, s)
		}
	}
	if len(active) == 0 {
		return raw
	}
	kept := pairs[:0:0]
	for i, p := range pairs {
		signing := false
		for _, s := range active {
			signing = signing || s.has(names[i])
		}
		if !signing {
			kept = append(kept, p)
		}
	}
	u.RawQuery = strings.Join(kept, "&")
	return u.String()
}

// SameMedia reports whether two reference URLs name the same media: the same URL
// (see SameURL) once the signing parameters are set aside, so that a signature
// rotated on every run is not a new image.
func SameMedia(a, b string) bool {
	return a == b || SameURL(UnsignedURL(a), UnsignedURL(b))
}

// Package signedurl knows how object stores sign URLs: which query parameters only
// sign a URL (credentials, dates, expiry, signatures) without choosing the object or
// its bytes, and when a store signed a URL beyond doubt. The provider compares
// reference media without them (validators.SameMedia) and records echoes without
// them; the client keeps them out of its logs.
package signedurl

import (
	"net/url"
	"strings"
)

// signingScheme is one way an object store signs a URL: the sets of query
// parameters that make a URL signed that way beyond doubt, and the parameters that
// only sign it (credentials, dates, expiry, permissions, signatures) without
// choosing the object or its bytes.
type signingScheme struct {
	Store string
	// Signed lists the mandatory sets: a URL that carries every name of one of them
	// is signed this way whatever its host.
	Signed [][]string
	Params []string
}

// The schemes whose parameters a reference URL may change without naming other
// media (CONTRIBUTING.md, "Signed reference URLs"). Names are matched exactly, in
// the case the store writes them, after percent-decoding: a name the store would
// not write is a parameter the provider does not know, and it names the media.
// Prefixes are never trusted wholesale, since some stores transform the object
// through a parameter of the same family (x-tos-process); every other parameter,
// versionId and generation included, still names the media.
var (
	schemeS3V4 = signingScheme{
		Store:  "Amazon S3, Signature Version 4",
		Signed: [][]string{{"X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Signature"}},
		Params: []string{"X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Date", "X-Amz-Expires", "X-Amz-Signature",
			"X-Amz-SignedHeaders", "X-Amz-Security-Token"},
	}
	schemeS3V2 = signingScheme{
		Store:  "Amazon S3, Signature Version 2",
		Signed: [][]string{{"AWSAccessKeyId", "Signature", "Expires"}},
		Params: []string{"AWSAccessKeyId", "Signature", "Expires", "x-amz-security-token"},
	}
	schemeGCSV4 = signingScheme{
		Store:  "Google Cloud Storage, V4 signing",
		Signed: [][]string{{"X-Goog-Algorithm", "X-Goog-Credential", "X-Goog-Signature"}},
		Params: []string{"X-Goog-Algorithm", "X-Goog-Credential", "X-Goog-Date", "X-Goog-Expires", "X-Goog-Signature",
			"X-Goog-SignedHeaders"},
	}
	schemeGCSV2 = signingScheme{
		Store:  "Google Cloud Storage, V2 signing",
		Signed: [][]string{{"GoogleAccessId", "Signature", "Expires"}},
		Params: []string{"GoogleAccessId", "Expires", "Signature"},
	}
	schemeAzureSAS = signingScheme{
		Store:  "Azure Storage shared access signature (SAS)",
		Signed: [][]string{{"sv", "sig", "se"}},
		Params: []string{"sv", "ss", "srt", "sp", "se", "st", "spr", "sip", "sig", "si", "sr", "skoid", "sktid", "skt",
			"ske", "sks", "skv", "sdd", "ses", "saoid", "suoid", "scid"},
	}
	schemeCloudFront = signingScheme{
		Store: "Amazon CloudFront signed URL",
		Signed: [][]string{
			{"Key-Pair-Id", "Signature", "Expires"}, // canned policy
			{"Key-Pair-Id", "Signature", "Policy"},  // custom policy
		},
		Params: []string{"Expires", "Signature", "Key-Pair-Id", "Policy"},
	}
	schemeTOS = signingScheme{
		Store:  "Volcengine TOS",
		Signed: [][]string{{"X-Tos-Algorithm", "X-Tos-Credential", "X-Tos-Signature"}},
		Params: []string{"X-Tos-Algorithm", "X-Tos-Credential", "X-Tos-Date", "X-Tos-Expires", "X-Tos-Signature",
			"X-Tos-SignedHeaders", "X-Tos-Security-Token"},
	}
)

var signingSchemes = []*signingScheme{&schemeS3V4, &schemeS3V2, &schemeGCSV4, &schemeGCSV2, &schemeAzureSAS, &schemeCloudFront, &schemeTOS}

// storeHost is a host name only a store answers on, so that the store itself reads
// the query: there each of its signing parameters signs, with or without a
// mandatory set. A CDN (CloudFront) has no such hosts: it hands parameters to an
// origin whose meaning for them it does not know.
type storeHost struct {
	// Pattern is a host name in which "*" stands for one label, or a label's rest
	// after a prefix ("s3-*"); a leading "*." stands for one or more labels, since
	// bucket names may hold dots.
	Pattern string
	Schemes []*signingScheme
}

var storeHosts = []storeHost{
	{"s3.amazonaws.com", []*signingScheme{&schemeS3V4, &schemeS3V2}},
	{"*.s3.amazonaws.com", []*signingScheme{&schemeS3V4, &schemeS3V2}},
	{"s3.*.amazonaws.com", []*signingScheme{&schemeS3V4, &schemeS3V2}},
	{"*.s3.*.amazonaws.com", []*signingScheme{&schemeS3V4, &schemeS3V2}},
	{"s3-*.amazonaws.com", []*signingScheme{&schemeS3V4, &schemeS3V2}},
	{"*.s3-*.amazonaws.com", []*signingScheme{&schemeS3V4, &schemeS3V2}},
	{"s3.*.amazonaws.com.cn", []*signingScheme{&schemeS3V4, &schemeS3V2}},
	{"*.s3.*.amazonaws.com.cn", []*signingScheme{&schemeS3V4, &schemeS3V2}},
	// The XML API also takes S3's Signature Version 4 (HMAC keys).
	{"storage.googleapis.com", []*signingScheme{&schemeGCSV4, &schemeGCSV2, &schemeS3V4}},
	{"*.storage.googleapis.com", []*signingScheme{&schemeGCSV4, &schemeGCSV2, &schemeS3V4}},
	{"*.blob.core.windows.net", []*signingScheme{&schemeAzureSAS}},
	{"*.dfs.core.windows.net", []*signingScheme{&schemeAzureSAS}},
	{"*.file.core.windows.net", []*signingScheme{&schemeAzureSAS}},
	{"*.blob.core.chinacloudapi.cn", []*signingScheme{&schemeAzureSAS}},
	{"*.blob.core.usgovcloudapi.net", []*signingScheme{&schemeAzureSAS}},
	// TOS's S3-compatible endpoints (tos-s3-*) take S3's Signature Version 4.
	{"tos-*.volces.com", []*signingScheme{&schemeTOS, &schemeS3V4}},
	{"*.tos-*.volces.com", []*signingScheme{&schemeTOS, &schemeS3V4}},
}

// matchHost reports whether host (lower case, without a port) fits pattern.
func matchHost(pattern, host string) bool {
	pl, hl := strings.Split(pattern, "."), strings.Split(host, ".")
	if pl[0] == "*" && len(pl) > 1 {
		// One or more leading labels: try each split.
		for skip := 1; skip < len(hl) && hl[skip-1] != ""; skip++ {
			if matchLabels(pl[1:], hl[skip:]) {
				return true
			}
		}
		return false
	}
	return matchLabels(pl, hl)
}

func matchLabels(pl, hl []string) bool {
	if len(pl) != len(hl) {
		return false
	}
	for i, p := range pl {
		h := hl[i]
		if h == "" {
			return false
		}
		if prefix, ok := strings.CutSuffix(p, "*"); ok {
			if !strings.HasPrefix(h, prefix) || len(h) == len(prefix) {
				return false
			}
		} else if p != h {
			return false
		}
	}
	return true
}

// signingOf returns the schemes that sign a URL on host with the query parameter
// names given (percent-decoded): the schemes of the store whose host it is, else
// the schemes whose mandatory set it carries when they are all one store's. A URL
// that carries the sets of two stores is in doubt, and none applies.
func signingOf(host string, names []string) []*signingScheme {
	for _, h := range storeHosts {
		if matchHost(h.Pattern, host) {
			return h.Schemes
		}
	}
	present := make(map[string]bool, len(names))
	for _, n := range names {
		present[n] = true
	}
	var signed []*signingScheme
	for _, s := range signingSchemes {
		for _, set := range s.Signed {
			all := true
			for _, n := range set {
				all = all && present[n]
			}
			if all {
				signed = append(signed, s)
				break
			}
		}
	}
	for _, s := range signed {
		if storeOf(s) != storeOf(signed[0]) {
			return nil
		}
	}
	return signed
}

// storeOf names the store behind a scheme: its two S3 (or GCS) schemes are one
// store's, which may be used together.
func storeOf(s *signingScheme) string {
	store, _, _ := strings.Cut(s.Store, ",")
	return store
}

func signs(schemes []*signingScheme, name string) bool {
	for _, s := range schemes {
		for _, p := range s.Params {
			if p == name {
				return true
			}
		}
	}
	return false
}

// Unsigned returns raw without the signing parameters of the store that signed it
// beyond doubt (see signingOf); everything else stays as written, in order. A value
// that does not parse, or that no store signed, is returned as it is.
func Unsigned(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.RawQuery == "" {
		return raw
	}
	pairs := strings.Split(u.RawQuery, "&")
	names := make([]string, len(pairs))
	for i, p := range pairs {
		names[i] = ParamName(p)
	}
	schemes := signingOf(strings.ToLower(u.Hostname()), names)
	if len(schemes) == 0 {
		return raw
	}
	kept := pairs[:0:0]
	for i, p := range pairs {
		if !signs(schemes, names[i]) {
			kept = append(kept, p)
		}
	}
	u.RawQuery = strings.Join(kept, "&")
	return u.String()
}

// ParamName returns the name of a query's name=value pair, percent-decoded. Only
// percent-decoding: "+" is a space to some readers of a query and not to others,
// so a name spelled with one is no store's name.
func ParamName(pair string) string {
	name, _, _ := strings.Cut(pair, "=")
	if unescaped, err := url.PathUnescape(name); err == nil {
		return unescaped
	}
	return name
}

// IsSigningName reports whether any store signs URLs with a parameter of this
// name, in any case, on any host: for keeping URLs out of logs, where setting
// aside too much costs nothing.
func IsSigningName(name string) bool {
	for _, s := range signingSchemes {
		for _, p := range s.Params {
			if strings.EqualFold(p, name) {
				return true
			}
		}
	}
	return false
}

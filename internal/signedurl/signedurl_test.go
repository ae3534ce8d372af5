package signedurl

import (
	"os"
	"strings"
	"testing"
)

const (
	s3  = "https://bucket.s3.eu-west-1.amazonaws.com/refs/mug.png"
	az  = "https://acct.blob.core.windows.net/refs/bowl.png"
	own = "https://media.example.com/refs/mug.png"
	// S3's mandatory set and the rest of a V4 signature.
	s3Sig = "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDEXAMPLE%2F20260101%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Date=20260101T000000Z&X-Amz-Expires=900&X-Amz-SignedHeaders=host&X-Amz-Signature=aaaa"
)

func TestUnsigned(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		s3 + "?versionId=v1&X-Amz-Signature=a&X-Amz-Date=1":          s3 + "?versionId=v1",
		own + "?versionId=v1&X-Amz-Signature=a&X-Amz-Date=1":         own + "?versionId=v1&X-Amz-Signature=a&X-Amz-Date=1",
		own + "?a=1&" + s3Sig + "&b=2":                               own + "?a=1&b=2",
		az + "?a=1&sig=s&b=2&sv=3":                                   az + "?a=1&b=2",
		own + "?a=1&sig=s&b=2&sv=3":                                  own + "?a=1&sig=s&b=2&sv=3",
		s3 + "?X%2DAmz%2DSignature=a&k=v":                            s3 + "?k=v",
		s3 + "?X-Amz+Signature=a&k=v":                                s3 + "?X-Amz+Signature=a&k=v",
		"https://h.example.com/x.png":                                "https://h.example.com/x.png",
		"http://[::1":                                                "http://[::1",
		"https://bucket.s3.amazonaws.com.evil.example/x?Signature=a": "https://bucket.s3.amazonaws.com.evil.example/x?Signature=a",
	} {
		if got := Unsigned(in); got != want {
			t.Errorf("Unsigned(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMatchHost(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern, host string
		want          bool
	}{
		{"*.s3.*.amazonaws.com", "bucket.s3.eu-west-1.amazonaws.com", true},
		{"*.s3.*.amazonaws.com", "a.b.s3.eu-west-1.amazonaws.com", true},
		{"*.s3.*.amazonaws.com", "s3.eu-west-1.amazonaws.com", false},
		{"*.s3.*.amazonaws.com", "bucket.s3.dualstack.eu-west-1.amazonaws.com", false},
		{"s3-*.amazonaws.com", "s3-eu-west-1.amazonaws.com", true},
		{"s3-*.amazonaws.com", "s3-.amazonaws.com", false},
		{"*.s3-*.amazonaws.com", "api.execute-api.eu-west-1.amazonaws.com", false},
		{"*.blob.core.windows.net", "acct.blob.core.windows.net", true},
		{"*.blob.core.windows.net", "blob.core.windows.net", false},
		{"*.blob.core.windows.net", "acct.blob.core.windows.net.example.com", false},
		{"*.blob.core.windows.net", "acct..blob.core.windows.net", false},
	}
	for _, tt := range tests {
		if got := matchHost(tt.pattern, tt.host); got != tt.want {
			t.Errorf("matchHost(%q, %q) = %v, want %v", tt.pattern, tt.host, got, tt.want)
		}
	}
}

func TestIsSigningName(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"X-Amz-Signature": true, "x-amz-signature": true, "sig": true, "Key-Pair-Id": true, "X-Tos-Security-Token": true,
		"versionId": false, "generation": false, "x-tos-process": false, "X-Amz-Signature-Key": false, "src": false,
	} {
		if got := IsSigningName(name); got != want {
			t.Errorf("IsSigningName(%q) = %v, want %v", name, got, want)
		}
	}
}

// CONTRIBUTING.md lists the parameters and hosts for people who change the
// provider; the tables here are what runs. They must not drift apart.
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
	rows := map[string]string{}
	for _, line := range strings.Split(section, "\n") {
		if cells := strings.Split(line, " | "); len(cells) > 1 {
			rows[strings.TrimPrefix(cells[0], "| ")] = line
		}
	}
	for _, s := range signingSchemes {
		row, ok := rows[s.Store]
		if !ok {
			t.Errorf("CONTRIBUTING.md, \"Signed reference URLs\", has no row for %s", s.Store)
			continue
		}
		var names []string
		for _, set := range s.Signed {
			names = append(names, "`"+strings.Join(set, "` + `")+"`")
		}
		for _, name := range s.Params {
			names = append(names, "`"+name+"`")
		}
		for _, h := range storeHosts {
			for _, hs := range h.Schemes {
				if hs == s {
					names = append(names, "`"+h.Pattern+"`")
				}
			}
		}
		for _, name := range names {
			if !strings.Contains(row, name) {
				t.Errorf("CONTRIBUTING.md, \"Signed reference URLs\", row %s does not say %s", s.Store, name)
			}
		}
	}
}

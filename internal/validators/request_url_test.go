package validators

import (
	"net/url"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestRequestURL(t *testing.T) {
	t.Parallel()
	checkString(t, RequestURL(), "reference_images", []stringCase{
		{types.StringValue("https://cdn.example.com/ref/cat.png"), ""},
		{types.StringValue("https://cdn.example.com/a%20b.png?sig=abc%2Fdef&x=1"), ""},
		{types.StringValue("http://127.0.0.1:8080/x.png"), ""},
		{types.StringValue("https://cdn.example.com"), ""},
		{types.StringNull(), ""},
		{types.StringUnknown(), ""},
		{types.StringValue("images/cat.png"), "absolute http or https URL"},
		{types.StringValue("cdn.example.com/cat.png"), `add https:// in front, as in "https://cdn.example.com/cat.png"`},
		{types.StringValue("https://user:pass@cdn.example.com/x.png"), "must not contain credentials"},
		{types.StringValue("https://token@cdn.example.com/x.png"), "stored in plain text in the Terraform state"},
		{types.StringValue("https://cdn.example.com/a b.png"), `write "https://cdn.example.com/a%20b.png"`},
		{types.StringValue("https://CDN.Example.com/x.png"), `write "https://cdn.example.com/x.png"`},
		{types.StringValue("HTTPS://cdn.example.com/x.png"), `write "https://cdn.example.com/x.png"`},
		{types.StringValue("https://cdn.example.com/é.png"), `write "https://cdn.example.com/%C3%A9.png"`},
		{types.StringValue("https://cdn.example.com/x.png?q=a b"), `write "https://cdn.example.com/x.png?q=a%20b"`},
		{types.StringValue("https://cdn.example.com/x.png?off=50%"), `write "https://cdn.example.com/x.png?off=50%25"`},
		{types.StringValue("https://cdn.example.com/x#a b"), `write "https://cdn.example.com/x#a%20b"`},
	})
}

// A diagnostic about a URL with credentials must not repeat them: diagnostics end
// up in CI logs.
func TestURLMessagesHideCredentials(t *testing.T) {
	t.Parallel()
	const secret = "hunter2-s3cret"
	for _, raw := range []string{
		"https://user:" + secret + "@cdn.example.com/x.png",
		"https://" + secret + "@cdn.example.com/x.png",
		"ftp://user:" + secret + "@cdn.example.com/x.png",
		" https://user:" + secret + "@cdn.example.com/x.png",
		"https://user:" + secret + "@cdn.example.com/a b.png",
		"http://user:" + secret + "@[::1/x",
		"user:" + secret + "@cdn.example.com/x.png",
	} {
		summary, detail := checkRequestURL(raw)
		if summary == "" {
			t.Errorf("%q: accepted", raw)
		}
		if strings.Contains(detail, secret) {
			t.Errorf("%q: detail repeats the credentials: %s", raw, detail)
		}
	}
}

func TestCanonicalURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://cdn.example.com/x.png":           "https://cdn.example.com/x.png",
		"HTTPS://CDN.EXAMPLE.COM/X.png":           "https://cdn.example.com/X.png",
		"https://cdn.example.com/a b":             "https://cdn.example.com/a%20b",
		"https://cdn.example.com/a%2fb":           "https://cdn.example.com/a%2fb",
		"https://cdn.example.com/?q=a b&r=é":      "https://cdn.example.com/?q=a%20b&r=%C3%A9",
		"https://cdn.example.com/?q=%zz":          "https://cdn.example.com/?q=%25zz",
		"https://cdn.example.com/?q=a+b&s=%2F":    "https://cdn.example.com/?q=a+b&s=%2F",
		"https://cdn.example.com:8443/x?":         "https://cdn.example.com:8443/x?",
		"https://[2001:DB8::1]/x":                 "https://[2001:db8::1]/x",
		"https://cdn.example.com/x#frag ment":     "https://cdn.example.com/x#frag%20ment",
		"https://cdn.example.com/a/./b/../c.png":  "https://cdn.example.com/a/./b/../c.png",
		"https://cdn.example.com/x?a=1&a=2&b=[1]": "https://cdn.example.com/x?a=1&a=2&b=%5B1%5D",
	} {
		got, err := CanonicalURL(in)
		if err != nil || got != want {
			t.Errorf("CanonicalURL(%q) = %q, %v; want %q", in, got, err, want)
			continue
		}
		// Canonical is a fixed point: it stays as it is, and means what it came from.
		if again, _ := CanonicalURL(got); again != got || !SameURL(in, got) {
			t.Errorf("CanonicalURL(%q) = %q is not stable (%q) or not the same URL", in, got, again)
		}
	}
	if _, err := CanonicalURL("http://[::1"); err == nil {
		t.Error("CanonicalURL accepted a URL that does not parse")
	}
}

func TestSameURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want bool
	}{
		{"https://cdn.example.com/x.png", "https://cdn.example.com/x.png", true},
		{"https://cdn.example.com/a b.png", "https://cdn.example.com/a%20b.png", true},
		{"https://CDN.example.com/x.png", "https://cdn.example.com/x.png", true},
		{"HTTPS://cdn.example.com/x.png", "https://cdn.example.com/x.png", true},
		{"https://cdn.example.com/a%2fb", "https://cdn.example.com/a%2Fb", true},
		{"https://cdn.example.com/%7Euser/%41.png", "https://cdn.example.com/~user/A.png", true},
		{"https://cdn.example.com:443/x", "https://cdn.example.com/x", true},
		{"http://cdn.example.com:80/x", "http://cdn.example.com/x", true},
		{"https://cdn.example.com", "https://cdn.example.com/", true},
		{"https://cdn.example.com/x?q=a b", "https://cdn.example.com/x?q=a%20b", true},
		{"https://cdn.example.com/x?s=%2f", "https://cdn.example.com/x?s=%2F", true},
		{"https://cdn.example.com/é", "https://cdn.example.com/%c3%a9", true},
		{" https://cdn.example.com/x", "https://cdn.example.com/x", false},
		// Different resources.
		{"https://cdn.example.com/a%2Fb", "https://cdn.example.com/a/b", false},
		{"https://cdn.example.com/x?q=a+b", "https://cdn.example.com/x?q=a%20b", false},
		{"https://cdn.example.com/X.png", "https://cdn.example.com/x.png", false},
		{"http://cdn.example.com/x", "https://cdn.example.com/x", false},
		{"https://cdn.example.com:8443/x", "https://cdn.example.com/x", false},
		{"https://cdn.example.com/x?a=1&b=2", "https://cdn.example.com/x?b=2&a=1", false},
		{"https://cdn.example.com/x", "https://cdn.example.com/x/", false},
		{"https://cdn.example.com/x#a", "https://cdn.example.com/x", false},
		// Keys are literal: dot segments name other objects, in any encoding.
		{"https://cdn.example.com/a/./b/../c.png", "https://cdn.example.com/a/c.png", false},
		{"https://cdn.example.com/a/b/%2E%2E/c.png", "https://cdn.example.com/a/c.png", false},
		{"https://cdn.example.com/a/b/%2E%2E/c.png", "https://cdn.example.com/a/b/../c.png", true},
		{"https://cdn.example.com/x", "", false},
		{"http://[::1", "http://[::1", true},
		{"http://[::1", "http://[::1]", false},
	}
	for _, tt := range tests {
		if got := SameURL(tt.a, tt.b); got != tt.want {
			t.Errorf("SameURL(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
		if got := SameURL(tt.b, tt.a); got != tt.want {
			t.Errorf("SameURL(%q, %q) = %v, want %v (not symmetric)", tt.b, tt.a, got, tt.want)
		}
	}
}

// FuzzSameURL holds SameURL's promises for any URL: it is reflexive, agrees with a
// URL's canonical form and with its re-encoding by Go's parser.
func FuzzSameURL(f *testing.F) {
	for _, s := range []string{"https://cdn.example.com/a b.png?q=é#f", "HTTP://X:80/%7e/./..", "https://u:p@h/%zz", "mailto:x@y", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !SameURL(s, s) {
			t.Fatalf("SameURL(%q, itself) = false", s)
		}
		canonical, err := CanonicalURL(s)
		if err != nil {
			return
		}
		if !SameURL(s, canonical) {
			t.Fatalf("SameURL(%q, its canonical form %q) = false", s, canonical)
		}
		if again, err := CanonicalURL(canonical); err != nil || again != canonical {
			t.Fatalf("CanonicalURL(%q) = %q, %v; not a fixed point", canonical, again, err)
		}
		if u, err := url.Parse(canonical); err == nil && !SameURL(canonical, u.String()) {
			t.Fatalf("SameURL(%q, %q) = false", canonical, u.String())
		}
	})
}

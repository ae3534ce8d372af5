package validators

import (
	"context"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// RequestURL accepts a URL that the provider sends to the service and keeps in
// state: an absolute http or https URL (see CheckHTTPURL), without credentials, and
// written in canonical form (see CanonicalURL). Unknown and null values pass.
func RequestURL() validator.String { return requestURLValidator{} }

type requestURLValidator struct{}

func (requestURLValidator) Description(context.Context) string {
	return "value must be an absolute http or https URL without credentials, in canonical form"
}

func (v requestURLValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (v requestURLValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	summary, detail := checkRequestURL(req.ConfigValue.ValueString())
	if summary != "" {
		resp.Diagnostics.AddAttributeError(req.Path, summary, fmt.Sprintf("Attribute %s %s", req.Path, detail))
	}
}

// checkRequestURL returns a diagnostic's summary and the detail that follows the
// attribute's name, or two empty strings for a good URL.
func checkRequestURL(raw string) (string, string) {
	if err := CheckHTTPURL(raw); err != nil {
		return "Invalid URL", err.Error() + ". Use a full URL such as https://example.com/path."
	}
	u, _ := url.Parse(raw)
	if u.User != nil {
		return "Credentials in URL", fmt.Sprintf("must not contain credentials (user:password@): the URL would be stored "+
			"in plain text in the Terraform state and shown in every plan. Use a URL the service can read without them, "+
			"such as a signed URL, in place of %q with credentials.", shownURL(raw))
	}
	if canonical, err := CanonicalURL(raw); err == nil && canonical != raw {
		return "URL Not in Canonical Form", fmt.Sprintf("is %q, which is not in canonical form: write %q. The URL is "+
			"sent as written, and the service may echo it in canonical form, so each URL must have one spelling.",
			raw, canonical)
	}
	return "", ""
}

// CanonicalURL returns raw as Go's URL parser writes it back, with the scheme and
// host in lower case and any character a query may not hold (a space, a non-ASCII
// letter, a stray "%") percent-encoded. This is the spelling the provider asks for,
// so that a URL it sends is the URL the service sees.
func CanonicalURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("%q does not parse: %w", shownURL(raw), err)
	}
	u.Scheme, u.Host = strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	u.RawQuery = rewritePercent(u.RawQuery, queryByte, keepEncodings)
	return u.String(), nil
}

// SameURL reports whether two URLs address the same resource once the spellings
// that do not change meaning are set aside (RFC 3986, section 6.2): the case of
// the scheme, the host and percent-encodings; percent-encoded characters that need
// no encoding; characters that need one; a default port; and an empty path for
// "/". Paths are otherwise compared byte for byte: "." and ".." segments stay, as
// an object store's keys are literal ("a/../b.png" is a key of its own) and an
// HTTP client may send them as written. Values that do not parse compare as
// strings.
func SameURL(a, b string) bool {
	if a == b {
		return true
	}
	na, errA := normalizeURL(a)
	nb, errB := normalizeURL(b)
	return errA == nil && errB == nil && na == nb
}

func normalizeURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", err
	}
	scheme, host := strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	if port := u.Port(); (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		host = strings.TrimSuffix(host, ":"+port)
	}
	host = strings.TrimSuffix(host, ":")
	path := rewritePercent(u.EscapedPath(), pathByte, normalizeEncodings)
	if host != "" && path == "" {
		path = "/"
	}
	var b strings.Builder
	if scheme != "" {
		b.WriteString(scheme + ":")
	}
	if host != "" || u.User != nil || scheme != "" && u.Opaque == "" {
		b.WriteString("//")
	}
	if u.User != nil {
		b.WriteString(rewritePercent(u.User.String(), queryByte, normalizeEncodings) + "@")
	}
	b.WriteString(host)
	b.WriteString(rewritePercent(u.Opaque, pathByte, normalizeEncodings))
	b.WriteString(path)
	if u.RawQuery != "" || u.ForceQuery {
		b.WriteString("?" + rewritePercent(u.RawQuery, queryByte, normalizeEncodings))
	}
	if u.Fragment != "" {
		b.WriteString("#" + rewritePercent(u.EscapedFragment(), queryByte, normalizeEncodings))
	}
	return b.String(), nil
}

func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

// pathByte and queryByte report the bytes that RFC 3986 lets a path segment or a
// query hold unencoded.
func pathByte(c byte) bool {
	return isUnreserved(c) || strings.IndexByte("!$&'()*+,;=:@/", c) >= 0
}

func queryByte(c byte) bool { return pathByte(c) || c == '?' }

const upperHex = "0123456789ABCDEF"

// Whether rewritePercent keeps an existing percent-encoding as written or
// normalises it.
type percentMode bool

const (
	keepEncodings      percentMode = false
	normalizeEncodings percentMode = true
)

// rewritePercent percent-encodes each byte of s that allowed rejects and each "%"
// that does not start a percent-encoding. An existing encoding is kept as written
// (keepEncodings) or written in upper case and, when it stands for an unreserved
// character, decoded (normalizeEncodings).
func rewritePercent(s string, allowed func(byte) bool, mode percentMode) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if d, ok := hexPair(s[i+1:]); c == '%' && ok {
			if mode == keepEncodings {
				b.WriteString(s[i : i+3])
				i += 2
				continue
			}
			c, i = d, i+2
			if isUnreserved(c) {
				b.WriteByte(c)
				continue
			}
		} else if allowed(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(upperHex[c>>4])
		b.WriteByte(upperHex[c&0xF])
	}
	return b.String()
}

// hexPair decodes the two hexadecimal digits s starts with.
func hexPair(s string) (byte, bool) {
	if len(s) < 2 {
		return 0, false
	}
	b, err := hex.DecodeString(s[:2])
	if err != nil {
		return 0, false
	}
	return b[0], true
}

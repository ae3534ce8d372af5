package client

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/videogen/terraform-provider-videogen/internal/signedurl"
)

// redactedText replaces the API key wherever a response quotes it.
const redactedText = "(redacted)"

// redactor finds a secret in text that a server sent back, in every form a server
// may quote it: raw; JSON-escaped, where any character may be written as \uXXXX
// (a surrogate pair above U+FFFF), "/" as \/ and the usual short escapes; and
// URL-encoded, where any byte may be written as %XX in either case and a space as
// "+". Forms mix and nest: each character is decoded on its own, and up to
// maxEncodingLayers layers are undone (%252F is "/" encoded twice; \u0025 is a "%"
// inside JSON; %5Cu002F is a JSON escape put into a URL). The key itself is
// matched exactly: it is case-sensitive. Besides the API key, a redactor looks
// for the values of the extra request headers (WithHeaders), which are secrets
// too.
type redactor struct{ secrets [][]byte }

// maxEncodingLayers bounds how many layers of escaping are undone; each costs one
// linear pass over the text.
const maxEncodingLayers = 4

func newRedactor(secret string, more ...string) *redactor {
	r := &redactor{}
	for _, s := range append([]string{secret}, more...) {
		if s != "" {
			r.secrets = append(r.secrets, []byte(s))
		}
	}
	return r
}

// unit is one byte of a decoded text, with the span of the original text it came
// from: a literal byte spans itself, a decoded escape spans the whole escape.
type unit struct {
	b          byte
	start, end int32
}

// String returns s with every occurrence of each secret replaced.
func (r *redactor) String(s string) string {
	for _, secret := range r.secrets {
		s = redactOne(secret, s)
	}
	return s
}

func redactOne(secret []byte, s string) string {
	if len(secret) == 0 || len(s) < len(secret) {
		return s
	}
	if !strings.ContainsAny(s, `%+\`) {
		// Nothing is escaped: only the raw form can be there.
		return strings.ReplaceAll(s, string(secret), redactedText)
	}
	raw := make([]unit, len(s))
	for i := range len(s) {
		raw[i] = unit{b: s[i], start: int32(i), end: int32(i + 1)} //nolint:gosec // bodies are capped far below 2 GiB.
	}
	var spans [][2]int32
	for _, plusIsSpace := range []bool{false, true} {
		layer := raw
		for depth := 0; ; depth++ {
			spans = append(spans, find(secret, layer)...)
			if depth == maxEncodingLayers {
				break
			}
			next, changed := decodeLayer(layer, plusIsSpace)
			if !changed {
				break
			}
			layer = next
		}
	}
	if len(spans) == 0 {
		return s
	}
	slices.SortFunc(spans, func(a, b [2]int32) int { return int(a[0] - b[0]) })
	var b strings.Builder
	last := int32(0)
	for _, sp := range spans {
		if sp[0] >= last {
			b.WriteString(s[last:sp[0]])
			b.WriteString(redactedText)
		}
		last = max(last, sp[1])
	}
	b.WriteString(s[last:])
	return b.String()
}

// Bytes is String for a body.
func (r *redactor) Bytes(data []byte) []byte {
	s := string(data)
	if out := r.String(s); out != s {
		return []byte(out)
	}
	return data
}

// find returns the original spans of every occurrence of secret in a layer.
func find(secret []byte, layer []unit) [][2]int32 {
	text := make([]byte, len(layer))
	for i, u := range layer {
		text[i] = u.b
	}
	var spans [][2]int32
	for from := 0; ; {
		i := bytes.Index(text[from:], secret)
		if i < 0 {
			return spans
		}
		i += from
		spans = append(spans, [2]int32{layer[i].start, layer[i+len(secret)-1].end})
		from = i + 1
	}
}

var jsonShortEscapes = map[byte]byte{'/': '/', '\\': '\\', '"': '"', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// decodeLayer undoes one layer of percent-encoding and JSON escapes (and, when
// plusIsSpace, reads "+" as a space, as a query does), reporting whether anything
// was decoded.
func decodeLayer(in []unit, plusIsSpace bool) ([]unit, bool) {
	if !slices.ContainsFunc(in, func(u unit) bool { return u.b == '%' || u.b == '\\' || (plusIsSpace && u.b == '+') }) {
		return in, false
	}
	out := make([]unit, 0, len(in))
	changed := false
	for i := 0; i < len(in); {
		u := in[i]
		switch {
		case u.b == '%' && i+2 < len(in):
			var b [1]byte
			if _, err := hex.Decode(b[:], []byte{in[i+1].b, in[i+2].b}); err == nil {
				out = append(out, unit{b: b[0], start: u.start, end: in[i+2].end})
				i, changed = i+3, true
				continue
			}
		case u.b == '+' && plusIsSpace:
			out = append(out, unit{b: ' ', start: u.start, end: u.end})
			i, changed = i+1, true
			continue
		case u.b == '\\' && i+1 < len(in):
			if c, ok := jsonShortEscapes[in[i+1].b]; ok {
				out = append(out, unit{b: c, start: u.start, end: in[i+1].end})
				i, changed = i+2, true
				continue
			}
			if r, n := uEscape(in[i:]); n > 0 {
				var buf [utf8.UTFMax]byte
				for _, b := range buf[:utf8.EncodeRune(buf[:], r)] {
					out = append(out, unit{b: b, start: u.start, end: in[i+n-1].end})
				}
				i, changed = i+n, true
				continue
			}
		}
		out = append(out, u)
		i++
	}
	return out, changed
}

// uEscape reads \uXXXX, or a surrogate pair of two, at the start of in, returning
// the character and how many units it took (0 when there is none).
func uEscape(in []unit) (rune, int) {
	unit16 := func(at int) (rune, bool) {
		if at+6 > len(in) || in[at].b != '\\' || in[at+1].b != 'u' {
			return 0, false
		}
		return hexUnits(in[at+2 : at+6])
	}
	hi, ok := unit16(0)
	if !ok {
		return 0, 0
	}
	if utf16.IsSurrogate(hi) {
		if lo, ok := unit16(6); ok {
			if r := utf16.DecodeRune(hi, lo); r != utf8.RuneError {
				return r, 12
			}
		}
	}
	return hi, 6
}

// hexUnits reads the value of four hexadecimal digits.
func hexUnits(digits []unit) (rune, bool) {
	src := make([]byte, len(digits))
	for i, u := range digits {
		src[i] = u.b
	}
	dst := make([]byte, hex.DecodedLen(len(src)))
	if _, err := hex.Decode(dst, src); err != nil {
		return 0, false
	}
	var v rune
	for _, b := range dst {
		v = v<<8 | rune(b)
	}
	return v, true
}

// redirectTarget describes a Location header without its query, fragment or user
// information, which may carry tokens; it says when a query was left out.
func redirectTarget(location string) string {
	u, err := url.Parse(location)
	if err != nil {
		target, _, cut := strings.Cut(location, "?")
		target, _, cutFragment := strings.Cut(target, "#")
		if cut || cutFragment {
			return target + " (query not shown)"
		}
		return target
	}
	hadQuery := u.RawQuery != "" || u.ForceQuery || u.Fragment != ""
	u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment, u.User = "", false, "", "", nil
	if hadQuery {
		return u.String() + " (query not shown)"
	}
	return u.String()
}

// redactor returns the redactor of this client's API key, extra headers and
// the vertex API's access tokens.
func (c *Client) redactor() *redactor {
	return newRedactor(c.apiKey, append(c.headers.secrets(), c.google.seenTokens()...)...)
}

// Text returns text a server sent, fit for an error or a diagnostic: without the
// secret in any form, and without the signature of any signed URL it quotes. A
// service that cannot fetch a presigned reference quotes the URL back whole ("cannot
// fetch https://...&X-Amz-Signature=..."), and the user may have kept it out of
// state with write-only arguments. Every server-provided text that reaches an error
// (an error body's message, a quoted body, a task's failure reason) goes through
// it, or through Error, which uses it.
func (r *redactor) Text(s string) string { return withoutSignatures(r.String(s)) }

// Error returns err unchanged when its message holds no trace of the secret nor a
// signature (Text), and otherwise an error with the redacted message that still
// unwraps to err, so that errors.As and errors.Is keep working.
func (r *redactor) Error(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if clean := r.Text(msg); clean != msg {
		return &redactedError{msg: clean, err: err}
	}
	return err
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// logField returns the value of the log field named name without the secret.
// Numbers and bools cannot hold it and stay as they are; a field named for a
// credential (isCredentialName) is masked whole whatever else it holds: the key
// may not be the only secret in it. A map of headers keeps its shape with each
// value redacted (redactedHeaders masks the Authorization header); bytes are
// read as the text they hold (a logger would print their numbers or base64,
// where the key is not found); and anything else (an error, a list, a
// Stringer, a struct) becomes the redacted text fmt.Sprint makes of it.
func (r *redactor) logField(name string, v any) any {
	if v != nil {
		switch reflect.TypeOf(v).Kind() {
		case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint,
			reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
			// A number or bool of any named type (a time.Duration) keeps its type.
			return v
		}
	}
	if isCredentialName(name) {
		return redactedText
	}
	switch v := v.(type) {
	case nil:
		return v
	case map[string]string:
		m := make(map[string]string, len(v))
		for k, hv := range v {
			m[k] = r.String(hv)
		}
		return m
	case []byte:
		return r.String(string(v))
	case json.RawMessage:
		return r.String(string(v))
	default:
		return r.String(fmt.Sprint(v))
	}
}

// credentialNameEndings end the names of the log fields and headers that hold
// a credential, as credentialName spells them: api_key, X-Api-Key,
// Proxy-Authorization, access_token, client_secret, db_password, Cookie.
var credentialNameEndings = []string{"authorization", "apikey", "token", "password", "secret", "cookie"}

// isCredentialName reports whether a log field or header named name holds a
// credential by its name. When in doubt it does: a masked field costs a log
// reader a value, an unmasked one may cost the secret.
func isCredentialName(name string) bool {
	folded := strings.NewReplacer("_", "", "-", "", ".", "").Replace(strings.ToLower(name))
	return slices.ContainsFunc(credentialNameEndings, func(end string) bool { return strings.HasSuffix(folded, end) })
}

// withoutSignatures returns text, a request or response body for the log, with the
// value of every signing parameter of every URL in it replaced: a presigned
// reference URL is a credential while it lives, and the user may have kept it out of
// state with write-only arguments. URLs are found as written and inside JSON
// strings (where "&" may be \u0026), and inside a parameter that holds another URL,
// percent-encoded. Any store's names count, in any case and on any host
// (signedurl.IsSigningName): a log loses nothing it needs by it.
func withoutSignatures(text string) string {
	if !strings.Contains(text, "=") {
		return text
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(text); i++ {
		if text[i] != '"' {
			continue
		}
		end := jsonStringEnd(text, i)
		if end < 0 {
			break
		}
		literal := text[i : end+1]
		var s string
		if strings.Contains(literal, "=") && json.Unmarshal([]byte(literal), &s) == nil {
			if clean := urlsWithoutSignatures(s); clean != s {
				quoted, _ := json.Marshal(clean) //nolint:errchkjson // a string always marshals
				b.WriteString(text[last:i])
				b.Write(quoted)
				last = end + 1
			}
		}
		i = end
	}
	b.WriteString(text[last:])
	return urlsWithoutSignatures(b.String())
}

// jsonStringEnd returns the index of the quote that ends the JSON string starting
// at text[start], or -1.
func jsonStringEnd(text string, start int) int {
	for j := start + 1; j < len(text); j++ {
		switch text[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return -1
}

// urlEnd reports the bytes that end a URL written in running text.
func urlEnd(c byte) bool { return c <= ' ' || strings.IndexByte("\"'<>\\`{}|^", c) >= 0 }

// urlsWithoutSignatures replaces the values of the signing parameters in the query
// of every http(s) URL in s.
func urlsWithoutSignatures(s string) string {
	var b strings.Builder
	last := 0
	for from := 0; ; {
		i := strings.Index(s[from:], "://")
		if i < 0 {
			break
		}
		start := from + i
		end := start + 3
		for end < len(s) && (!urlEnd(s[end]) || jsonEscapedSeparator(s[end:]) > 0) {
			end += max(1, jsonEscapedSeparator(s[end:]))
		}
		q := strings.IndexByte(s[start:end], '?')
		if q >= 0 {
			query := s[start+q+1 : end]
			if hash := strings.IndexByte(query, '#'); hash >= 0 {
				query = query[:hash]
			}
			if clean := queryWithoutSignatures(query); clean != query {
				b.WriteString(s[last : start+q+1])
				b.WriteString(clean)
				last = start + q + 1 + len(query)
			}
		}
		from = end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// jsonEscapedSeparator returns the length of the JSON escape of "&" or "/" that s
// starts with ("\u0026", "\/"), or 0: a URL in JSON text that is not read as
// JSON still goes on past them.
func jsonEscapedSeparator(s string) int {
	for _, esc := range []string{`\u0026`, `\/`} {
		if strings.HasPrefix(s, esc) {
			return len(esc)
		}
	}
	return 0
}

func queryWithoutSignatures(query string) string {
	// The pairs, and after each the separator that follows it: "&" or its JSON escape.
	var pairs, seps []string
	start := 0
	for i := 0; i < len(query); i++ {
		sep := ""
		switch {
		case query[i] == '&':
			sep = "&"
		case strings.HasPrefix(query[i:], `\u0026`):
			sep = `\u0026`
		default:
			continue
		}
		pairs, seps = append(pairs, query[start:i]), append(seps, sep)
		i += len(sep) - 1
		start = i + 1
	}
	pairs, seps = append(pairs, query[start:]), append(seps, "")
	for i, p := range pairs {
		rawName, value, hasValue := strings.Cut(p, "=")
		name := signedurl.ParamName(p)
		if spaced, err := url.QueryUnescape(rawName); err == nil && signedurl.IsSigningName(spaced) {
			name = spaced
		}
		switch {
		case !hasValue:
		case signedurl.IsSigningName(name):
			pairs[i] = rawName + "=" + redactedText
		case strings.Contains(value, "%3A%2F%2F") || strings.Contains(value, "%3a%2f%2f"):
			// Another URL, percent-encoded into this one.
			if inner, err := url.QueryUnescape(value); err == nil {
				if clean := urlsWithoutSignatures(inner); clean != inner {
					pairs[i] = rawName + "=" + url.QueryEscape(clean)
				}
			}
		}
	}
	var b strings.Builder
	for i, p := range pairs {
		b.WriteString(p)
		b.WriteString(seps[i])
	}
	return b.String()
}

package clipstore

import (
	"net/url"
	"regexp"
	"strings"
)

// redacted replaces every secret Redact removes.
const redacted = "REDACTED"

// shownParams are the query parameters whose values Redact keeps: the
// destination parameters Parse takes (none is a secret) and a few that say
// which object a presigned URL names without granting anything. Every other
// parameter's value is replaced, so signatures, SAS tokens, security tokens,
// credentials and expiry times of any store never show.
var shownParams = func() map[string]bool {
	shown := map[string]bool{"versionId": true, "uploadId": true, "partNumber": true, "generation": true, "alt": true, "prefix": true}
	for _, params := range bucketParams {
		for name := range params {
			shown[name] = true
		}
	}
	return shown
}()

var (
	// urlPattern finds URLs in text; it stops at white space and quotes.
	urlPattern = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s"'<>` + "`" + `]+`)
	// secretPairs finds name=value and name: value pairs outside URLs whose
	// name says the value is a secret: signatures, keys, tokens, passwords,
	// the Credential and Signature of an AWS Authorization header, Azure
	// connection strings' AccountKey and SharedAccessSignature.
	secretPairs = regexp.MustCompile(`(?i)((?:x-amz-|x-goog-)?(?:signature|credential|security-token|securitytoken|sig|accountkey|sharedaccesssignature|sas[_-]?token|access[_-]?token|refresh[_-]?token|id[_-]?token|client[_-]?secret|secret[_-]?access[_-]?key|secret|password|passwd|private[_-]?key|api[_-]?key|apikey|token)"?\s*[=:]\s*"?)([^\s&;,"'` + "`" + `]+)`)
	// bearer finds HTTP authorization schemes followed by their credential.
	bearer = regexp.MustCompile(`(?i)\b(Bearer|Basic|SharedKey|SharedKeyLite)\s+[A-Za-z0-9._~+/=:-]+`)
	// accessKeyIDs are AWS access key IDs (long-term AKIA, temporary ASIA).
	accessKeyIDs = regexp.MustCompile(`\b(?:AKIA|ASIA)[A-Z0-9]{12,}\b`)
)

// Redact returns text with every credential it can recognize replaced by
// REDACTED: the password of URLs' user information, the values of URLs'
// query parameters other than the harmless ones a destination takes
// (signatures, SAS tokens and presigned query strings included), fragments,
// secret-named name=value pairs, authorization headers and AWS access key
// IDs. It is applied to everything the package shows, and is idempotent.
func Redact(text string) string {
	text = urlPattern.ReplaceAllStringFunc(text, func(m string) string {
		// Punctuation that ends a sentence or a clause is not the URL's.
		trimmed := strings.TrimRight(m, ".,:;)]}!")
		return redactURL(trimmed) + m[len(trimmed):]
	})
	text = secretPairs.ReplaceAllStringFunc(text, func(m string) string {
		sub := secretPairs.FindStringSubmatch(m)
		if sub[2] == redacted {
			return m
		}
		return sub[1] + redacted
	})
	text = bearer.ReplaceAllString(text, "$1 "+redacted)
	return accessKeyIDs.ReplaceAllString(text, redacted)
}

func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		// Unparseable: keep what precedes any user information or query.
		if i := strings.IndexAny(raw, "?#"); i >= 0 {
			raw = raw[:i] + "?" + redacted
		}
		if i := strings.Index(raw, "@"); i >= 0 {
			if j := strings.Index(raw, "://"); j >= 0 && j < i {
				raw = raw[:j+3] + redacted + raw[i:]
			}
		}
		return raw
	}
	if u.User != nil {
		// The user name can be an access key ID: neither part is kept.
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(redacted, redacted)
		} else {
			u.User = url.User(redacted)
		}
	}
	if u.RawQuery != "" {
		q, err := url.ParseQuery(u.RawQuery)
		if err != nil {
			u.RawQuery = redacted
		} else {
			for name, values := range q {
				for i, v := range values {
					switch {
					case !shownParams[name]:
						values[i] = redacted
					case strings.Contains(v, "://"):
						values[i] = redactURL(v)
					}
				}
			}
			u.RawQuery = q.Encode()
		}
	}
	if u.Fragment != "" || u.RawFragment != "" {
		u.Fragment, u.RawFragment = redacted, ""
	}
	return u.String()
}

package clipstore

import (
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Schemes lists the destination URL schemes, in the order errors name them.
var Schemes = []string{"s3", "gs", "azblob", "file"}

// bucketParams are the query parameters each scheme passes on to its
// gocloud opener. None of them carries a secret: credentials come from each
// cloud's own chain, never from the URL. Anything else is refused, so a
// mistyped parameter (or a presigned URL's signature) fails the plan instead
// of being ignored or stored.
var bucketParams = map[string]map[string]bool{
	"s3": {
		"region": true, "endpoint": true, "use_path_style": true, "s3ForcePathStyle": true,
		"disable_https": true, "hostname_immutable": true, "dualstack": true, "fips": true,
		"accelerate": true, "profile": true, "anonymous": true,
		"role": true, "role_session_name": true, "role_external_id": true, "role_duration": true,
		"web_identity_token_file": true, "ssetype": true, "kmskeyid": true,
		"request_checksum_calculation": true, "response_checksum_validation": true,
		"rate_limiter_capacity": true,
	},
	"gs":     {"anonymous": true, "universe_domain": true},
	"azblob": {"domain": true, "protocol": true, "cdn": true, "localemu": true, "storage_account": true},
	"file":   {},
}

// Location is a parsed destination: which store, which bucket (container,
// directory) and which key. Build one with Parse.
type Location struct {
	scheme string
	bucket string
	key    string
	query  url.Values
	shown  string
}

// Parse checks a destination URL without contacting anything: its scheme,
// bucket and key, and that every query parameter is one the store takes. Its
// errors show the URL redacted.
func Parse(raw string) (Location, error) {
	shown := Redact(raw)
	u, err := url.Parse(raw)
	if err != nil {
		return Location{}, fmt.Errorf("%q is not a URL", shown)
	}
	scheme := strings.ToLower(u.Scheme)
	params, known := bucketParams[scheme]
	if !known {
		return Location{}, fmt.Errorf("%q: the scheme must be one of %s:// (got %q)", shown, strings.Join(Schemes, "://, "), u.Scheme)
	}
	if u.User != nil {
		return Location{}, fmt.Errorf("%q carries user information; credentials never go in the URL: the store reads them from its own environment (see the provider documentation)", shown)
	}
	if u.Fragment != "" || u.RawFragment != "" {
		return Location{}, fmt.Errorf("%q has a fragment (#...); remove it", shown)
	}
	if u.Opaque != "" {
		return Location{}, fmt.Errorf("%q: write %s:// followed by the bucket and the key", shown, scheme)
	}
	q := u.Query()
	var unknown []string
	for name := range q {
		if !params[name] {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		accepted := make([]string, 0, len(params))
		for name := range params {
			accepted = append(accepted, name)
		}
		sort.Strings(accepted)
		hint := "it takes none"
		if len(accepted) > 0 {
			hint = "it takes " + strings.Join(accepted, ", ")
		}
		return Location{}, fmt.Errorf("%q: %s taken by %s:// (%s); credentials and signatures never go in the URL", shown, notTaken(unknown), scheme, hint)
	}
	for name, values := range q {
		if len(values) != 1 {
			return Location{}, fmt.Errorf("%q: query parameter %q is given %d times", shown, name, len(values))
		}
	}
	if endpoint := q.Get("endpoint"); endpoint != "" {
		e, err := url.Parse(endpoint)
		if err != nil || e.Host == "" || (e.Scheme != "http" && e.Scheme != "https") {
			return Location{}, fmt.Errorf("%q: endpoint must be an http:// or https:// URL such as https://minio.example:9000", shown)
		}
		if e.User != nil || e.RawQuery != "" {
			return Location{}, fmt.Errorf("%q: endpoint must carry no user information or query; credentials never go in the URL", shown)
		}
	}

	loc := Location{scheme: scheme, query: q, shown: shown}
	if scheme == "file" {
		if u.Host != "" && u.Host != "localhost" {
			return Location{}, fmt.Errorf("%q: a file:// URL names a local path, as file:///absolute/dir/clip.mp4 (got the host %q)", shown, u.Host)
		}
		p := u.Path
		if !strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") || path.Clean(p) != p {
			return Location{}, fmt.Errorf("%q: a file:// URL names an absolute, clean path to a file, as file:///absolute/dir/clip.mp4", shown)
		}
		loc.bucket, loc.key = path.Split(p)
		if strings.HasSuffix(loc.key, ".attrs") {
			return Location{}, fmt.Errorf("%q: a file name ending in .attrs is reserved for the attributes of the file beside it", shown)
		}
		return loc, nil
	}
	if u.Host == "" {
		return Location{}, fmt.Errorf("%q names no bucket: write %s://bucket/key", shown, scheme)
	}
	loc.bucket = u.Host
	loc.key = strings.TrimPrefix(u.Path, "/")
	if err := checkKey(loc.key); err != nil {
		return Location{}, fmt.Errorf("%q: %w", shown, err)
	}
	return loc, nil
}

// checkKey refuses keys that stores escape or treat as directories, so the
// key the user wrote is the key in the bucket, byte for byte.
func checkKey(key string) error {
	switch {
	case key == "":
		return fmt.Errorf("names no key: write the object's key after the bucket, as bucket/clips/intro.mp4")
	case strings.HasSuffix(key, "/"):
		return fmt.Errorf("the key %q ends in /, which names a folder, not an object", key)
	case strings.Contains(key, "//"), strings.HasPrefix(key, "./"), strings.Contains(key, "/./"),
		strings.HasPrefix(key, "../"), strings.Contains(key, "/../"), key == ".", key == "..",
		strings.HasSuffix(key, "/."), strings.HasSuffix(key, "/.."):
		return fmt.Errorf("the key %q has an empty, . or .. segment", key)
	}
	for _, r := range key {
		if r < 0x20 || r == 0x7f || strings.ContainsRune(`"#%?\`, r) {
			return fmt.Errorf("the key %q has the character %q, which not every store keeps as is", key, r)
		}
	}
	return nil
}

// notTaken says which query parameters are not taken: "query parameter "x"
// is not", "query parameters "x", "y" are not".
func notTaken(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = fmt.Sprintf("%q", n)
	}
	if len(quoted) == 1 {
		return "query parameter " + quoted[0] + " is not"
	}
	return "query parameters " + strings.Join(quoted, ", ") + " are not"
}

// Scheme is the store's URL scheme: s3, gs, azblob or file.
func (l Location) Scheme() string { return l.scheme }

// Bucket is the bucket, the Azure container, or, for file://, the directory.
func (l Location) Bucket() string { return l.bucket }

// Key is the object's key in the bucket, or the file's name.
func (l Location) Key() string { return l.key }

// String is the URL as it may be shown: redacted.
func (l Location) String() string { return l.shown }

// bucketURL is the gocloud URL of the bucket, with the query parameters the
// store takes.
func (l Location) bucketURL() string {
	q := url.Values{}
	for k, v := range l.query {
		q[k] = v
	}
	u := url.URL{Scheme: l.scheme, Host: l.bucket}
	if l.scheme == "file" {
		u.Host = ""
		u.Path = filepath.ToSlash(l.bucket)
		// The directory is made as a file's parent would be, and the
		// temporary file is made beside the file: a rename into place
		// cannot cross file systems.
		q.Set("create_dir", "true")
		q.Set("no_tmp_dir", "true")
	}
	u.RawQuery = q.Encode()
	return u.String()
}

package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
)

// echoKey has the characters that escape differently in each form: "/" (\/ in
// JSON, %2F in a URL), "+" and "=" (query-escaped), a space (+ or %20), a non-ASCII
// letter (two UTF-8 bytes, one \u escape) and one above U+FFFF (a surrogate pair).
const echoKey = "sk-vg/Echo+Key=9 é😀-DO-NOT-LEAK"

// keyForms are the ways a server may quote a key, generated independently of the
// redactor: each must be found.
func keyForms(key string) map[string]string {
	jsonStd, _ := json.Marshal(key)
	uEscape := func(upper bool, every int) string {
		var b strings.Builder
		for i, r := range []rune(key) {
			if i%every != 0 {
				b.WriteRune(r)
				continue
			}
			for _, u := range utf16.Encode([]rune{r}) {
				h := fmt.Sprintf(`\u%04x`, u)
				if upper {
					h = `\u` + strings.ToUpper(h[2:])
				}
				b.WriteString(h)
			}
		}
		return b.String()
	}
	percentAll := func(format string) string {
		var b strings.Builder
		for _, c := range []byte(key) {
			fmt.Fprintf(&b, format, c)
		}
		return b.String()
	}
	lowerHex := regexp.MustCompile(`%[0-9A-F]{2}`).ReplaceAllStringFunc(url.QueryEscape(key), strings.ToLower)
	return map[string]string{
		"raw":                      key,
		"json":                     strings.Trim(string(jsonStd), `"`),
		"json slash":               strings.ReplaceAll(strings.Trim(string(jsonStd), `"`), "/", `\/`),
		"json every char":          uEscape(false, 1),
		"json every char upper":    uEscape(true, 1),
		"json every third char":    uEscape(false, 3),
		"query escaped":            url.QueryEscape(key),
		"query escaped lower hex":  lowerHex,
		"path escaped":             url.PathEscape(key),
		"every byte":               percentAll("%%%02X"),
		"every byte lower":         percentAll("%%%02x"),
		"double encoded":           strings.ReplaceAll(url.QueryEscape(key), "%", "%25"),
		"percent inside json":      strings.ReplaceAll(url.PathEscape(key), "%", `\u0025`),
		"json put into a url":      url.QueryEscape(uEscape(false, 2)),
		"path escaped in location": strings.ReplaceAll(url.PathEscape(key), "%2F", "%2f"),
	}
}

func TestRedactorFindsEveryForm(t *testing.T) {
	t.Parallel()
	r := newRedactor(echoKey)
	for name, form := range keyForms(echoKey) {
		for _, text := range []string{form, "key " + form + " rejected", `{"error":"` + form + `"}`, form + form} {
			got := r.String(text)
			if strings.Contains(got, form) || !strings.Contains(got, redactedText) {
				t.Errorf("%s: String(%q) = %q", name, text, got)
			}
		}
	}
	if got := r.String("before " + echoKey + " between " + url.QueryEscape(echoKey) + " after"); got != "before (redacted) between (redacted) after" {
		t.Errorf("two forms in one text: %q", got)
	}
}

func TestRedactorLeavesOtherTextAlone(t *testing.T) {
	t.Parallel()
	r := newRedactor(echoKey)
	for _, text := range []string{
		"",
		"an ordinary message with % signs, \\u escapes \\u0041 and + pluses",
		strings.ToUpper(echoKey), // keys are case-sensitive
		echoKey[:len(echoKey)-1],
		strings.Replace(echoKey, "Echo", "Ech0", 1),
		"%zz\\u12",
		`\`,
		"%",
	} {
		if got := r.String(text); got != text {
			t.Errorf("String(%q) = %q, want it unchanged", text, got)
		}
	}
	if got := newRedactor("").String("anything"); got != "anything" {
		t.Errorf("an empty secret redacted %q", got)
	}
	body := []byte(`{"ok":true}`)
	if got := r.Bytes(body); &got[0] != &body[0] {
		t.Error("Bytes copied a body that holds no secret")
	}
}

func TestRedactorError(t *testing.T) {
	t.Parallel()
	r := newRedactor(echoKey)
	inner := &net.OpError{Op: "read", Net: "tcp", Err: errors.New("peer said " + url.QueryEscape(echoKey))}
	err := r.Error(fmt.Errorf("reading: %w", inner))
	if strings.Contains(err.Error(), url.QueryEscape(echoKey)) || !strings.Contains(err.Error(), "peer said (redacted)") {
		t.Errorf("Error() = %q", err)
	}
	var opErr *net.OpError
	if !errors.As(err, &opErr) {
		t.Error("the redacted error no longer unwraps to its cause")
	}
	plain := errors.New("no secret here")
	var wrapped *redactedError
	if errors.As(r.Error(plain), &wrapped) || r.Error(nil) != nil {
		t.Error("Error wrapped an error that holds no secret")
	}
}

func TestRedirectTarget(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"/moved/v1/video/generations", "/moved/v1/video/generations"},
		{"https://new.example.com/v1", "https://new.example.com/v1"},
		{"https://new.example.com/v1?api_key=abc&x=1", "https://new.example.com/v1 (query not shown)"},
		{"https://user:pw@new.example.com/v1#frag", "https://new.example.com/v1 (query not shown)"},
		{"https://new.example.com/v1?", "https://new.example.com/v1 (query not shown)"},
		{"http://[::1/x?token=abc", "http://[::1/x (query not shown)"},
	}
	for _, tt := range tests {
		if got := redirectTarget(tt.in); got != tt.want {
			t.Errorf("redirectTarget(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// leakCheck reports every way text still carries key: any generated form, or the
// raw key after undoing JSON and URL escapes.
func leakCheck(t *testing.T, where, text, key string) {
	t.Helper()
	for name, form := range keyForms(key) {
		if strings.Contains(text, form) {
			t.Errorf("%s carries the key (%s form): %s", where, name, text)
		}
	}
	decoded := text
	for range 3 {
		if s, err := url.QueryUnescape(decoded); err == nil {
			decoded = s
		}
		var s string
		if json.Unmarshal([]byte(`"`+strings.ReplaceAll(decoded, `"`, `\"`)+`"`), &s) == nil {
			decoded = s
		}
	}
	if strings.Contains(decoded, key) {
		t.Errorf("%s carries the key once unescaped: %s", where, text)
	}
}

// TestKeyEchoedInAnyFormNeverLeaks runs the whole request path against a server
// that quotes the key back in every form and place it can: error bodies (JSON and
// HTML), a task's failure reason, a Location header, a Content-Type header and a
// malformed status line. Neither the error nor any log line may carry the key.
func TestKeyEchoedInAnyFormNeverLeaks(t *testing.T) {
	t.Parallel()
	type echo struct {
		name   string
		handle func(w http.ResponseWriter, form string)
	}
	jsonError := func(status int) func(http.ResponseWriter, string) {
		return func(w http.ResponseWriter, form string) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"error":{"message":"Incorrect API key provided: %s","type":"auth %s","param":"%s"}}`, form, form, form)
		}
	}
	echoes := []echo{
		{"401 json", jsonError(http.StatusUnauthorized)},
		{"503 json after retries", jsonError(http.StatusServiceUnavailable)},
		{"502 html", func(w http.ResponseWriter, form string) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusBadGateway)
			fmt.Fprintf(w, "<html><body><p>Bad gateway for key <b>%s</b></p></body></html>", form)
		}},
		{"content type", func(w http.ResponseWriter, form string) {
			w.Header().Set("Content-Type", "text/x-"+url.PathEscape(form))
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, "denied")
		}},
		{"redirect query", func(w http.ResponseWriter, form string) {
			w.Header().Set("Location", "https://elsewhere.example.com/v1?api_key="+url.QueryEscape(form))
			w.WriteHeader(http.StatusFound)
		}},
		{"redirect path", func(w http.ResponseWriter, form string) {
			w.Header().Set("Location", "https://elsewhere.example.com/"+url.PathEscape(form)+"/v1")
			w.WriteHeader(http.StatusMovedPermanently)
		}},
		{"200 not json", func(w http.ResponseWriter, form string) {
			w.WriteHeader(http.StatusOK)
			fmt.Fprintf(w, "key=%s", form)
		}},
		{"failed task reason", func(w http.ResponseWriter, form string) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"task_id":"t","status":"failed","error":{"message":"bad key %s"}}`, form)
		}},
	}
	for _, e := range echoes {
		for formName, form := range keyForms(echoKey) {
			t.Run(e.name+"/"+formName, func(t *testing.T) {
				t.Parallel()
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { e.handle(w, form) }))
				t.Cleanup(srv.Close)
				checkNoLeak(t, srv.URL, echoKey)
			})
		}
	}
	t.Run("malformed status line", func(t *testing.T) {
		t.Parallel()
		ln, err := (&net.ListenConfig{}).Listen(t.Context(), "tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = ln.Close() })
		go func() {
			for {
				conn, err := ln.Accept()
				if err != nil {
					return
				}
				go func() {
					defer conn.Close()
					_, _ = http.ReadRequest(bufio.NewReader(conn))
					_, _ = fmt.Fprintf(conn, "%s %s\r\n\r\n", echoKey, url.QueryEscape(echoKey))
				}()
			}
		}()
		checkNoLeak(t, "http://"+ln.Addr().String(), echoKey)
	})
}

// checkNoLeak makes each kind of call and checks its error and every log line.
func checkNoLeak(t *testing.T, baseURL, key string) {
	t.Helper()
	logger := &recordingLogger{}
	c, err := New(baseURL, key, WithRetryWait(time.Millisecond, 2*time.Millisecond), WithMaxRetries(1), WithLogger(logger),
		WithPollPolicy(PollPolicy{Fixed: time.Millisecond, MaxConsecutiveErrors: 1}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	// Each call returns what a caller would show: its result and its error.
	calls := map[string]func() (any, error){
		"get": func() (any, error) { return c.GetVideo(ctx, "t") },
		"submit": func() (any, error) {
			return c.SubmitVideo(ctx, VideoRequest{Model: "m", Prompt: "p"})
		},
		"models": func() (any, error) { return c.ListModels(ctx) },
		"wait":   func() (any, error) { return c.WaitForVideo(ctx, "t") },
	}
	for name, call := range calls {
		result, err := call()
		if v, ok := result.(*Video); ok && v != nil {
			leakCheck(t, name+" result", fmt.Sprintf("%+v", *v), key)
		}
		if err == nil {
			continue
		}
		leakCheck(t, name+" error", err.Error(), key)
		leakCheck(t, name+" error (%+v)", fmt.Sprintf("%+v", err), key)
		var apiErr *APIError
		if errors.As(err, &apiErr) {
			leakCheck(t, name+" APIError fields", apiErr.Message+" "+apiErr.Type+" "+apiErr.Param, key)
		}
	}
	for _, entry := range logger.all() {
		for field, value := range entry.fields {
			leakCheck(t, fmt.Sprintf("log %q field %q", entry.msg, field), fmt.Sprintf("%v", value), key)
		}
	}
}

// FuzzRedactor puts each form of the key between arbitrary text: whatever
// surrounds it, no form may survive, and redacting twice changes nothing more.
func FuzzRedactor(f *testing.F) {
	f.Add("", "", uint8(0))
	f.Add(`\`, "", uint8(3))
	f.Add("%", "%41", uint8(7))
	f.Add(`{"error":"`, `"}`, uint8(11))
	f.Add("+", "%2", uint8(5))
	forms := keyForms(echoKey)
	names := make([]string, 0, len(forms))
	for name := range forms {
		names = append(names, name)
	}
	slices.Sort(names)
	r := newRedactor(echoKey)
	f.Fuzz(func(t *testing.T, prefix, suffix string, which uint8) {
		form := forms[names[int(which)%len(names)]]
		got := r.String(prefix + form + suffix)
		for name, other := range forms {
			if strings.Contains(got, other) {
				t.Fatalf("the %s form survives in %q", name, got)
			}
		}
		if again := r.String(got); again != got {
			t.Fatalf("a second pass changed %q to %q", got, again)
		}
		if plain := prefix + suffix; !strings.Contains(r.String(plain), redactedText) && r.String(plain) != plain {
			t.Fatalf("String(%q) changed text without redacting it", plain)
		}
	})
}

package client

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/videogen/terraform-provider-videogen/internal/localfile"
)

// dlClip is a small valid-looking MP4: an ftyp box, then a free box of filler.
func dlClip(size int) []byte {
	b := binary.BigEndian.AppendUint32(nil, 20)
	b = append(b, "ftypisom"...)
	b = binary.BigEndian.AppendUint32(b, 0x200)
	b = append(b, "isom"...)
	b = binary.BigEndian.AppendUint32(b, uint32(size-len(b))) //nolint:gosec // G115: test clips are far below 4 GiB
	b = append(b, "free"...)
	for i := len(b); i < size; i++ {
		b = append(b, byte(i*7)) //nolint:gosec // G115: wrapping is the point, it makes varied filler
	}
	return b
}

// dlSink is an Output in memory that counts how often it was reset.
type dlSink struct {
	resets int
	buf    bytes.Buffer
}

func (s *dlSink) Write(p []byte) (int, error) { return s.buf.Write(p) }

func (s *dlSink) Reset() error {
	s.resets++
	s.buf.Reset()
	return nil
}

// noLimit is the maxBytes of tests that are not about the size bound.
const noLimit = 1 << 40

// elsewhereAPI is the base URL of tests whose clip host is not the API: their
// downloads must not carry the key (dlServer checks).
const elsewhereAPI = "http://127.0.0.1:1/v1"

// dlServer answers each request with the next handler; the last one repeats.
func dlServer(t *testing.T, handlers ...http.HandlerFunc) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if got := r.Header.Get("Authorization"); got != "" {
			t.Errorf("the clip host received an Authorization header %q", got)
		}
		if strings.Contains(r.Header.Get("Authorization")+r.URL.String(), testAPIKey) {
			t.Errorf("the API key reached the clip host")
		}
		i := int(hits.Add(1)) - 1
		handlers[min(i, len(handlers)-1)](w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func serveClip(clip []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "video/mp4")
		w.Header().Set("Content-Length", strconv.Itoa(len(clip)))
		_, _ = w.Write(clip)
	}
}

func serveStatus(status int, contentType, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

// serveHalfThenDrop promises the whole clip, sends half and drops the connection.
func serveHalfThenDrop(clip []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(clip)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(clip[:len(clip)/2])
		_ = http.NewResponseController(w).Flush()
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
	}
}

// serveChunked sends the clip in pieces without a Content-Length, as a host that
// streams from elsewhere does.
func serveChunked(clip []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "video/mp4")
		for rest := clip; len(rest) > 0; {
			piece := rest[:min(len(rest), 256<<10)]
			rest = rest[len(piece):]
			_, _ = w.Write(piece)
			_ = http.NewResponseController(w).Flush()
		}
	}
}

// serveEndless starts like a clip and never ends: it sends filler without a
// Content-Length until the client goes away. Each write is reported to sent.
func serveEndless(sent func(total int64)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "video/mp4")
		chunk := dlClip(256 << 10)
		var total int64
		for r.Context().Err() == nil {
			n, err := w.Write(chunk)
			if err != nil {
				return
			}
			total += int64(n)
			if sent != nil {
				sent(total)
			}
		}
	}
}

const s3Expired = `<?xml version="1.0" encoding="UTF-8"?>
<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>`

func TestDownloadClip(t *testing.T) {
	t.Parallel()
	clip := dlClip(3<<20 + 123)
	tests := []struct {
		name       string
		handlers   []http.HandlerFunc
		opts       []Option
		maxBytes   int64
		wantHits   int32
		wantResets int
		// atLeastHits makes wantHits and wantResets lower bounds, with one reset per hit.
		atLeastHits bool
		check       func(t *testing.T, err error)
	}{
		{
			name:       "streams the clip",
			handlers:   []http.HandlerFunc{serveClip(clip)},
			wantHits:   1,
			wantResets: 1,
		},
		{
			name: "retries 429 and 5xx before any output",
			handlers: []http.HandlerFunc{
				serveStatus(http.StatusServiceUnavailable, "text/plain", "busy"),
				serveStatus(http.StatusTooManyRequests, "text/plain", "slow down"),
				serveClip(clip),
			},
			wantHits:   3,
			wantResets: 1,
		},
		{
			name:       "restarts the output after a connection lost mid-body",
			handlers:   []http.HandlerFunc{serveHalfThenDrop(clip), serveClip(clip)},
			wantHits:   2,
			wantResets: 2,
		},
		{
			name:       "gives up after the retry budget, body failures included",
			handlers:   []http.HandlerFunc{serveStatus(http.StatusBadGateway, "text/plain", "bad gateway"), serveHalfThenDrop(clip)},
			opts:       []Option{WithMaxRetries(2)},
			wantHits:   3,
			wantResets: 2,
			check: func(t *testing.T, err error) {
				var tErr *TransportError
				if !errors.As(err, &tErr) || tErr.Attempts != 3 || !IsTransient(err) {
					t.Fatalf("want a transient *TransportError after 3 attempts, got %T %v", err, err)
				}
			},
		},
		{
			name:     "keeps the last error status when retries run out",
			handlers: []http.HandlerFunc{serveStatus(http.StatusServiceUnavailable, "application/xml", `<Error><Code>SlowDown</Code></Error>`)},
			opts:     []Option{WithMaxRetries(1)},
			wantHits: 2,
			check: func(t *testing.T, err error) {
				var dErr *DownloadError
				if !errors.As(err, &dErr) || dErr.StatusCode != 503 || dErr.Attempts != 2 || dErr.Message != "SlowDown" {
					t.Fatalf("want *DownloadError 503 SlowDown after 2 attempts, got %#v", err)
				}
				if IsExpiredURL(err) {
					t.Error("a 503 is not an expired URL")
				}
			},
		},
		{
			name:     "403 is an expired URL and is not retried",
			handlers: []http.HandlerFunc{serveStatus(http.StatusForbidden, "application/xml", s3Expired)},
			wantHits: 1,
			check: func(t *testing.T, err error) {
				if !IsExpiredURL(err) {
					t.Fatalf("IsExpiredURL(%v) = false", err)
				}
				if !strings.Contains(err.Error(), "AccessDenied: Request has expired") {
					t.Errorf("the error does not quote the host's message: %v", err)
				}
			},
		},
		{
			name:     "404 is an expired URL",
			handlers: []http.HandlerFunc{serveStatus(http.StatusNotFound, "application/xml", `<Error><Code>NoSuchKey</Code></Error>`)},
			wantHits: 1,
			check: func(t *testing.T, err error) {
				if !IsExpiredURL(err) || IsNotFound(err) {
					t.Fatalf("want IsExpiredURL and not the API's IsNotFound, got %v", err)
				}
			},
		},
		{
			name:     "an HTML page answered with 200 is not saved",
			handlers: []http.HandlerFunc{serveStatus(http.StatusOK, "text/html", "<!DOCTYPE html><html><body>Sign in</body></html>")},
			wantHits: 1,
			check: func(t *testing.T, err error) {
				if !IsNotMP4(err) || !strings.Contains(err.Error(), "text/html") || !strings.Contains(err.Error(), "<!DOCTYPE html>") {
					t.Fatalf("want a *NotMP4Error naming the content, got %v", err)
				}
			},
		},
		{
			name:     "an empty body is not an MP4",
			handlers: []http.HandlerFunc{serveStatus(http.StatusOK, "video/mp4", "")},
			wantHits: 1,
			check: func(t *testing.T, err error) {
				if !IsNotMP4(err) {
					t.Fatalf("want a *NotMP4Error, got %v", err)
				}
			},
		},
		{
			name:     "a Content-Length above the maximum fails before any output",
			handlers: []http.HandlerFunc{serveClip(clip)},
			maxBytes: int64(len(clip)) - 1,
			wantHits: 1,
			check: func(t *testing.T, err error) {
				var tErr *TooLargeError
				if !errors.As(err, &tErr) || tErr.Announced != int64(len(clip)) || !IsTooLarge(err) || IsTransient(err) {
					t.Fatalf("want a *TooLargeError announcing %d bytes, got %v", len(clip), err)
				}
				if !strings.Contains(err.Error(), "Content-Length") {
					t.Errorf("the error does not say where the size came from: %v", err)
				}
			},
		},
		{
			name:       "a body without Content-Length may reach the maximum",
			handlers:   []http.HandlerFunc{serveChunked(clip)},
			maxBytes:   int64(len(clip)),
			wantHits:   1,
			wantResets: 1,
		},
		{
			name:       "a body without Content-Length stops at the maximum",
			handlers:   []http.HandlerFunc{serveChunked(clip)},
			maxBytes:   int64(len(clip)) - 1,
			wantHits:   1,
			wantResets: 1,
			check: func(t *testing.T, err error) {
				var tErr *TooLargeError
				if !errors.As(err, &tErr) || tErr.Announced != -1 || tErr.MaxBytes != int64(len(clip))-1 {
					t.Fatalf("want a *TooLargeError with no announced size, got %v", err)
				}
			},
		},
		{
			name:       "a body shorter than its Content-Length is retried, then an error",
			handlers:   []http.HandlerFunc{serveHalfThenDrop(clip)},
			opts:       []Option{WithMaxRetries(1)},
			wantHits:   2,
			wantResets: 2,
			check: func(t *testing.T, err error) {
				var tErr *TransportError
				if !errors.As(err, &tErr) || !IsTransient(err) {
					t.Fatalf("want a transient *TransportError, got %T %v", err, err)
				}
				if want := fmt.Sprintf("of the %d bytes its Content-Length announced", len(clip)); !strings.Contains(err.Error(), want) {
					t.Errorf("the error does not say the body was short (%q): %v", want, err)
				}
			},
		},
		{
			name: "a stalled body is retried",
			handlers: []http.HandlerFunc{
				func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Length", strconv.Itoa(len(clip)))
					_, _ = w.Write(clip[:sniffBytes*2])
					_ = http.NewResponseController(w).Flush()
					<-r.Context().Done()
				},
				serveClip(clip),
			},
			// The short timeout that detects the stall can also cut a good attempt
			// short on a loaded machine; that attempt is retried in turn, so only
			// a lower bound on the attempts holds.
			opts:        []Option{WithRequestTimeout(300 * time.Millisecond)},
			wantHits:    2,
			wantResets:  2,
			atLeastHits: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, hits := dlServer(t, tt.handlers...)
			c := newTestClient(t, "http://127.0.0.1:1/v1", tt.opts...)
			sink := &dlSink{}
			maxBytes := tt.maxBytes
			if maxBytes == 0 {
				maxBytes = noLimit
			}
			n, err := c.downloadClip(context.Background(), srv.URL+"/clips/task-1.mp4?sig=SECRET-SIGNATURE&expires=1", sink, maxBytes)
			switch got := hits.Load(); {
			case tt.atLeastHits && (got < tt.wantHits || sink.resets != int(got)):
				t.Errorf("the clip host got %d requests and the output was reset %d times, want at least %d of each",
					got, sink.resets, tt.wantHits)
			case tt.atLeastHits:
			case got != tt.wantHits:
				t.Errorf("the clip host got %d requests, want %d", got, tt.wantHits)
			case sink.resets != tt.wantResets:
				t.Errorf("the output was reset %d times, want %d", sink.resets, tt.wantResets)
			}
			if tt.check != nil {
				if err == nil {
					t.Fatal("want an error, got none")
				}
				if strings.Contains(err.Error(), "SECRET-SIGNATURE") {
					t.Errorf("the error reveals the URL's signature: %v", err)
				}
				tt.check(t, err)
				return
			}
			if err != nil {
				t.Fatalf("downloadClip: %v", err)
			}
			if n != int64(len(clip)) || !bytes.Equal(sink.buf.Bytes(), clip) {
				t.Fatalf("got %d bytes (buffer %d), want the %d-byte clip", n, sink.buf.Len(), len(clip))
			}
		})
	}
}

func TestDownloadClipWriteErrorIsNotRetried(t *testing.T) {
	t.Parallel()
	srv, hits := dlServer(t, serveClip(dlClip(1<<20)))
	c := newTestClient(t, elsewhereAPI)
	diskFull := errors.New("no space left on device")
	_, err := c.downloadClip(context.Background(), srv.URL+"/clip.mp4", &failingOutput{writeErr: diskFull}, noLimit)
	if !errors.Is(err, diskFull) || IsTransient(err) {
		t.Fatalf("want the writer's error, not transient, got %v", err)
	}
	if hits.Load() != 1 {
		t.Errorf("a write error was retried: %d requests", hits.Load())
	}
	resetErr := errors.New("permission denied")
	_, err = c.downloadClip(context.Background(), srv.URL+"/clip.mp4", &failingOutput{resetErr: resetErr}, noLimit)
	if !errors.Is(err, resetErr) {
		t.Fatalf("want the reset error, got %v", err)
	}
}

type failingOutput struct{ writeErr, resetErr error }

func (o *failingOutput) Write([]byte) (int, error) { return 0, o.writeErr }
func (o *failingOutput) Reset() error              { return o.resetErr }

func TestDownloadClipFollowsRedirectsWithoutKey(t *testing.T) {
	t.Parallel()
	clip := dlClip(64 << 10)
	cdn, cdnHits := dlServer(t, serveClip(clip))
	origin, _ := dlServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, cdn.URL+"/edge/clip.mp4?token=x", http.StatusFound)
	})
	c := newTestClient(t, elsewhereAPI)
	sink := &dlSink{}
	if _, err := c.downloadClip(context.Background(), origin.URL+"/clip.mp4", sink, noLimit); err != nil {
		t.Fatal(err)
	}
	if cdnHits.Load() != 1 || !bytes.Equal(sink.buf.Bytes(), clip) {
		t.Fatalf("the redirect was not followed: %d CDN hits, %d bytes", cdnHits.Load(), sink.buf.Len())
	}
}

// keyServer records the Authorization header of every request, by path, and
// answers each with handle.
type keyServer struct {
	*httptest.Server
	mu   sync.Mutex
	auth map[string][]string
}

func newKeyServer(t *testing.T, handle http.HandlerFunc) *keyServer {
	t.Helper()
	k := &keyServer{auth: map[string][]string{}}
	k.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k.mu.Lock()
		k.auth[r.URL.Path] = append(k.auth[r.URL.Path], r.Header.Get("Authorization"))
		k.mu.Unlock()
		handle(w, r)
	}))
	t.Cleanup(k.Close)
	return k
}

// sent is the Authorization header of each request to path, in order.
func (k *keyServer) sent(path string) []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]string(nil), k.auth[path]...)
}

// A clip on the API's own origin (a gateway's /v1/videos/{id}/content) is
// fetched with the key; anywhere else, even the same host on another port or
// under another name, without it.
func TestDownloadClipSendsKeyOnlyToTheAPIOrigin(t *testing.T) {
	t.Parallel()
	clip := dlClip(64 << 10)
	api := newKeyServer(t, serveClip(clip))
	other := newKeyServer(t, serveClip(clip))
	apiPort := api.Listener.Addr().(*net.TCPAddr).Port //nolint:forcetypeassert // httptest listens on TCP
	c := newTestClient(t, api.URL+"/v1")
	const bearer = "Bearer " + testAPIKey
	tests := []struct {
		name    string
		srv     *keyServer
		url     string
		wantKey bool
	}{
		{"the API's origin, another path", api, api.URL + "/v1/videos/task-1/content", true},
		{"the API's origin, scheme in capitals", api, "HTTP://127.0.0.1:" + strconv.Itoa(apiPort) + "/spelled", true},
		{"the same host on another port", other, other.URL + "/v1/videos/task-1/content", false},
		{"another name of the same host", api, "http://localhost:" + strconv.Itoa(apiPort) + "/by-name", false},
	}
	for _, tt := range tests {
		u, err := url.Parse(tt.url)
		if err != nil {
			t.Fatal(err)
		}
		sink := &dlSink{}
		if _, err := c.downloadClip(t.Context(), tt.url, sink, noLimit); err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		got := tt.srv.sent(u.Path)
		want := ""
		if tt.wantKey {
			want = bearer
		}
		if len(got) != 1 || got[0] != want {
			t.Errorf("%s: the host received Authorization %q, want %q", tt.name, got, want)
		}
		if !bytes.Equal(sink.buf.Bytes(), clip) {
			t.Errorf("%s: got %d bytes, want the clip", tt.name, sink.buf.Len())
		}
	}
}

func TestSameOrigin(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want bool
	}{
		{"https://api.example.com/v1", "https://api.example.com/v1/videos/x/content", true},
		{"https://api.example.com/v1", "https://API.Example.com:443/clip", true},
		{"http://api.example.com/v1", "http://api.example.com:80/clip", true},
		{"https://api.example.com/v1", "http://api.example.com/clip", false},
		{"https://api.example.com/v1", "https://api.example.com:8443/clip", false},
		{"http://api.example.com:8080/v1", "http://api.example.com/clip", false},
		{"https://api.example.com/v1", "https://cdn.api.example.com/clip", false},
		{"https://api.example.com/v1", "https://example.com/clip", false},
		{"http://[::1]:3000/v1", "http://[::1]:3000/clip", true},
	}
	for _, tt := range tests {
		a, errA := url.Parse(tt.a)
		b, errB := url.Parse(tt.b)
		if errA != nil || errB != nil {
			t.Fatal(errA, errB)
		}
		if got := sameOrigin(a, b); got != tt.want {
			t.Errorf("sameOrigin(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// A redirect keeps the key while it stays on the API's origin and drops it for
// good once it leaves, even for a hop back to the origin: net/http alone would
// send it to the same host name on another port.
func TestDownloadClipRedirectLeavingTheOriginDropsTheKey(t *testing.T) {
	t.Parallel()
	clip := dlClip(64 << 10)
	var other *keyServer
	api := newKeyServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/videos/stay/content":
			http.Redirect(w, r, "/v1/videos/stay/moved", http.StatusFound)
		case "/v1/videos/leave/content":
			http.Redirect(w, r, other.URL+"/bounce/leave/content", http.StatusFound)
		case "/v1/videos/return/content":
			http.Redirect(w, r, other.URL+"/bounce/return/content", http.StatusFound)
		default:
			serveClip(clip)(w, r)
		}
	})
	other = newKeyServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/bounce/return/content" {
			http.Redirect(w, r, api.URL+"/v1/videos/return/back", http.StatusFound)
			return
		}
		serveClip(clip)(w, r)
	})
	c := newTestClient(t, api.URL+"/v1")
	const bearer = "Bearer " + testAPIKey
	tests := []struct {
		name  string
		start string
		hops  []func() []string
		want  []string
	}{
		{"a redirect on the origin keeps the key", "stay",
			[]func() []string{func() []string { return api.sent("/v1/videos/stay/content") }, func() []string { return api.sent("/v1/videos/stay/moved") }},
			[]string{bearer, bearer}},
		{"a redirect to another port drops it", "leave",
			[]func() []string{func() []string { return api.sent("/v1/videos/leave/content") }, func() []string { return other.sent("/bounce/leave/content") }},
			[]string{bearer, ""}},
		{"a redirect back to the origin does not get it back", "return",
			[]func() []string{
				func() []string { return api.sent("/v1/videos/return/content") },
				func() []string { return other.sent("/bounce/return/content") },
				func() []string { return api.sent("/v1/videos/return/back") },
			},
			[]string{bearer, "", ""}},
	}
	for _, tt := range tests {
		sink := &dlSink{}
		if _, err := c.downloadClip(t.Context(), api.URL+"/v1/videos/"+tt.start+"/content", sink, noLimit); err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		for i, hop := range tt.hops {
			if got := hop(); len(got) != 1 || got[0] != tt.want[i] {
				t.Errorf("%s: hop %d received Authorization %q, want %q", tt.name, i+1, got, tt.want[i])
			}
		}
		if !bytes.Equal(sink.buf.Bytes(), clip) {
			t.Errorf("%s: got %d bytes, want the clip", tt.name, sink.buf.Len())
		}
	}
}

// A keyed download whose host quotes the key back, in any form, in an error
// or in a body that is not a clip: neither the error nor a log line carries it.
func TestKeyedDownloadNeverLeaksTheKey(t *testing.T) {
	t.Parallel()
	echoes := map[string]func(w http.ResponseWriter, form string){
		"401 json": func(w http.ResponseWriter, form string) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"error":{"message":"invalid token %s","type":"new_api_error"}}`, form)
		},
		"403 xml": func(w http.ResponseWriter, form string) {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprintf(w, "<Error><Code>AccessDenied</Code><Message>key %s</Message></Error>", form)
		},
		"200 page": func(w http.ResponseWriter, form string) {
			w.Header().Set("Content-Type", "text/html; key="+url.QueryEscape(form))
			fmt.Fprintf(w, "<p>%s</p>", form)
		},
	}
	for name, echo := range echoes {
		for formName, form := range keyForms(echoKey) {
			t.Run(name+"/"+formName, func(t *testing.T) {
				t.Parallel()
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.Header.Get("Authorization") != "Bearer "+echoKey {
						t.Errorf("the API's origin got Authorization %q, want the key", r.Header.Get("Authorization"))
					}
					echo(w, form)
				}))
				t.Cleanup(srv.Close)
				logger := &recordingLogger{}
				c, err := New(srv.URL, echoKey, WithRetryWait(time.Millisecond, 2*time.Millisecond), WithMaxRetries(1), WithLogger(logger))
				if err != nil {
					t.Fatal(err)
				}
				video := &Video{TaskID: "t", Status: StatusSucceeded, URL: srv.URL + "/v1/videos/t/content"}
				_, err = c.DownloadVideo(t.Context(), video, &dlSink{}, noLimit)
				if err == nil {
					t.Fatal("the download succeeded")
				}
				leakCheck(t, "error", err.Error(), echoKey)
				leakCheck(t, "error (%+v)", fmt.Sprintf("%+v", err), echoKey)
				for _, entry := range logger.all() {
					for field, value := range entry.fields {
						leakCheck(t, fmt.Sprintf("log %q field %q", entry.msg, field), fmt.Sprintf("%v", value), echoKey)
					}
				}
			})
		}
	}
}

func TestDownloadClipContextCanceled(t *testing.T) {
	t.Parallel()
	clip := dlClip(1 << 20)
	started := make(chan struct{})
	srv, _ := dlServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(clip)))
		_, _ = w.Write(clip[:sniffBytes*2])
		_ = http.NewResponseController(w).Flush()
		close(started)
		<-r.Context().Done()
	})
	c := newTestClient(t, elsewhereAPI)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		cancel()
	}()
	sink := &dlSink{}
	_, err := c.downloadClip(ctx, srv.URL+"/clip.mp4", sink, noLimit)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
	if sink.resets > 1 {
		t.Errorf("a canceled download was retried: %d resets", sink.resets)
	}
}

func TestDownloadClipRejectsBadURLs(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, "http://127.0.0.1:1")
	for _, raw := range []string{"", "/relative/clip.mp4", "ftp://host/clip.mp4", "file:///etc/passwd", "http:///nohost?sig=SECRET"} {
		_, err := c.downloadClip(context.Background(), raw, &dlSink{}, noLimit)
		if err == nil {
			t.Errorf("downloadClip(%q) accepted the URL", raw)
			continue
		}
		if strings.Contains(err.Error(), "SECRET") {
			t.Errorf("the error reveals the query: %v", err)
		}
	}
}

// lyingTransport answers every request with a body twice as long as the
// Content-Length it announces. net/http's own transport never lets that through
// for HTTP/1.1; the bound must hold whatever the transport.
type lyingTransport struct{ clip []byte }

func (l lyingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	body := append(append([]byte(nil), l.clip...), l.clip...)
	return &http.Response{
		StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"video/mp4"}},
		ContentLength: int64(len(l.clip)),
		Body:          io.NopCloser(bytes.NewReader(body)),
		Request:       req,
	}, nil
}

func TestDownloadClipLongerThanAnnounced(t *testing.T) {
	t.Parallel()
	clip := dlClip(3 << 20)
	c := newTestClient(t, "http://clips.invalid", WithHTTPClient(&http.Client{Transport: lyingTransport{clip: clip}}))
	sink := &dlSink{}
	n, err := c.downloadClip(context.Background(), "http://clips.invalid/clip.mp4", sink, noLimit)
	if !errors.Is(err, errLongBody) || IsTransient(err) {
		t.Fatalf("want errLongBody, not retried, got %v", err)
	}
	if n > int64(len(clip)) || sink.buf.Len() > len(clip) || sink.resets != 1 {
		t.Errorf("wrote %d bytes (buffer %d) over %d attempt(s); want at most the %d announced, once", n, sink.buf.Len(), sink.resets, len(clip))
	}
}

// expectEmptyDir fails the test when dir holds anything: a partial clip, or a
// temporary file.
func expectEmptyDir(t *testing.T, dir string) {
	t.Helper()
	if list, err := os.ReadDir(dir); err != nil || len(list) != 0 {
		t.Errorf("%s holds %v (%v), want nothing", dir, list, err)
	}
}

// A body with no end and no Content-Length stops at the maximum, and the file
// written through localfile is gone.
func TestDownloadVideoEndlessBodyLeavesNoFile(t *testing.T) {
	t.Parallel()
	srv, _ := dlServer(t, serveEndless(nil))
	c := newTestClient(t, elsewhereAPI)
	dir := t.TempDir()
	const maxBytes = 8 << 20
	var written int64
	_, err := localfile.Write(filepath.Join(dir, "clip.mp4"), 0o644, 0o755, func(f *localfile.File) error {
		dl, err := c.DownloadVideo(context.Background(), &Video{TaskID: "task-1", Status: StatusSucceeded, URL: srv.URL + "/clip.mp4"}, f, maxBytes)
		written = dl.Bytes
		return err
	})
	var tErr *TooLargeError
	if !errors.As(err, &tErr) || tErr.MaxBytes != maxBytes {
		t.Fatalf("want a *TooLargeError at %d bytes, got %v", maxBytes, err)
	}
	if written > maxBytes {
		t.Errorf("%d bytes were written, more than the maximum %d", written, maxBytes)
	}
	expectEmptyDir(t, dir)
}

// A host announcing far more than the maximum is refused before anything is
// written, without reading its body.
func TestDownloadVideoAnnouncedTooLargeWritesNothing(t *testing.T) {
	t.Parallel()
	srv, _ := dlServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.FormatInt(10<<30, 10))
		_, _ = w.Write(dlClip(sniffBytes))
		_ = http.NewResponseController(w).Flush()
		<-r.Context().Done()
	})
	c := newTestClient(t, elsewhereAPI)
	dir := t.TempDir()
	_, err := localfile.Write(filepath.Join(dir, "clip.mp4"), 0o644, 0o755, func(f *localfile.File) error {
		_, err := c.DownloadVideo(context.Background(), &Video{TaskID: "task-1", Status: StatusSucceeded, URL: srv.URL + "/clip.mp4"}, f, 4<<30)
		return err
	})
	var tErr *TooLargeError
	if !errors.As(err, &tErr) || tErr.Announced != 10<<30 {
		t.Fatalf("want a *TooLargeError announcing 10 GiB, got %v", err)
	}
	expectEmptyDir(t, dir)
}

// An interrupt in the middle of an endless body ends the download, and the
// partial file is gone. The test asserts no duration: the copy loop checks the
// context between chunks, so the download cannot outlive the cancellation by
// more than one chunk.
func TestDownloadVideoCanceledLeavesNoFile(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, _ := dlServer(t, serveEndless(func(total int64) {
		if total >= 16<<20 {
			cancel()
		}
	}))
	c := newTestClient(t, elsewhereAPI)
	dir := t.TempDir()
	_, err := localfile.Write(filepath.Join(dir, "clip.mp4"), 0o644, 0o755, func(f *localfile.File) error {
		_, err := c.DownloadVideo(ctx, &Video{TaskID: "task-1", Status: StatusSucceeded, URL: srv.URL + "/clip.mp4"}, f, 1<<40)
		return err
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
	expectEmptyDir(t, dir)
}

// taskServer is the API, answering GET of task-1 with the next status and URL.
func taskServer(t *testing.T, answers ...string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var gets atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/v1/video/generations/task-1" {
			t.Errorf("unexpected API call %s %s", r.Method, r.URL.Path)
			http.NotFound(w, r)
			return
		}
		i := int(gets.Add(1)) - 1
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, answers[min(i, len(answers)-1)])
	}))
	t.Cleanup(srv.Close)
	return srv, &gets
}

func TestDownloadVideoRefreshesExpiredURL(t *testing.T) {
	t.Parallel()
	clip := dlClip(1 << 20)
	expired := serveStatus(http.StatusForbidden, "application/xml", s3Expired)
	task := func(status, url string) string {
		return fmt.Sprintf(`{"task_id":"task-1","status":%q,"url":%q}`, status, url)
	}
	tests := []struct {
		name      string
		clipHost  []http.HandlerFunc
		answer    func(clipURL string) string
		wantHits  int32
		wantGets  int32
		wantFresh bool
		check     func(t *testing.T, err error)
	}{
		{
			name:      "a refused URL is replaced once by the task's fresh one",
			clipHost:  []http.HandlerFunc{expired, serveClip(clip)},
			answer:    func(u string) string { return task("succeeded", u+"/clip.mp4?sig=fresh") },
			wantHits:  2,
			wantGets:  1,
			wantFresh: true,
		},
		{
			name:     "a second refusal is returned as an expired URL",
			clipHost: []http.HandlerFunc{expired},
			answer:   func(u string) string { return task("succeeded", u+"/clip.mp4?sig=fresh") },
			wantHits: 2,
			wantGets: 1,
			check: func(t *testing.T, err error) {
				if !IsExpiredURL(err) {
					t.Fatalf("want IsExpiredURL, got %v", err)
				}
			},
		},
		{
			name:     "a task that no longer reports a URL",
			clipHost: []http.HandlerFunc{expired},
			answer:   func(string) string { return task("running", "") },
			wantHits: 1,
			wantGets: 1,
			check: func(t *testing.T, err error) {
				if !IsExpiredURL(err) || !strings.Contains(err.Error(), "no longer reports a download URL") {
					t.Fatalf("want the refusal and the task's state, got %v", err)
				}
			},
		},
		{
			name:     "other errors are not retried with a fresh URL",
			clipHost: []http.HandlerFunc{serveStatus(http.StatusOK, "text/html", "<html>sign in</html>")},
			answer:   func(string) string { return task("succeeded", "unused") },
			wantHits: 1,
			wantGets: 0,
			check: func(t *testing.T, err error) {
				if !IsNotMP4(err) {
					t.Fatalf("want a *NotMP4Error, got %v", err)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clipHost, hits := dlServer(t, tt.clipHost...)
			api, gets := taskServer(t, tt.answer(clipHost.URL))
			c := newTestClient(t, api.URL)
			sink := &dlSink{}
			video := &Video{TaskID: "task-1", Status: StatusSucceeded, URL: clipHost.URL + "/clip.mp4?sig=old"}
			dl, err := c.DownloadVideo(context.Background(), video, sink, noLimit)
			if got := hits.Load(); got != tt.wantHits {
				t.Errorf("the clip host got %d requests, want %d", got, tt.wantHits)
			}
			if got := gets.Load(); got != tt.wantGets {
				t.Errorf("the task was read %d times, want %d", got, tt.wantGets)
			}
			if tt.check != nil {
				if err == nil {
					t.Fatal("want an error, got none")
				}
				tt.check(t, err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if dl.Bytes != int64(len(clip)) || !bytes.Equal(sink.buf.Bytes(), clip) {
				t.Errorf("got %d bytes, want the %d-byte clip", dl.Bytes, len(clip))
			}
			if tt.wantFresh != strings.HasSuffix(dl.URL, "sig=fresh") {
				t.Errorf("Download.URL = %s", dl.URL)
			}
		})
	}
}

func TestDownloadVideoWithoutURL(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, "http://127.0.0.1:1")
	_, err := c.DownloadVideo(context.Background(), &Video{TaskID: "task-1", Status: StatusRunning}, &dlSink{}, noLimit)
	if err == nil || !strings.Contains(err.Error(), "no clip URL") {
		t.Fatalf("want an error about the missing URL, got %v", err)
	}
}

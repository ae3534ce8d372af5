package client

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const dlKey = "sk-vg-DOWNLOAD-TEST-never-on-the-clip-host"

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

func dlClient(t *testing.T, baseURL string, opts ...Option) *Client {
	t.Helper()
	opts = append([]Option{WithRetryWait(time.Millisecond, 5*time.Millisecond), WithMaxRetries(3)}, opts...)
	c, err := New(baseURL, dlKey, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// dlSink hands out a fresh buffer per attempt, as a truncated file would be.
type dlSink struct {
	mu    sync.Mutex
	opens int
	buf   *bytes.Buffer
}

func (s *dlSink) open() (io.Writer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opens++
	s.buf = &bytes.Buffer{}
	return s.buf, nil
}

// dlServer answers each request with the next handler; the last one repeats.
func dlServer(t *testing.T, handlers ...http.HandlerFunc) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if got := r.Header.Get("Authorization"); got != "" {
			t.Errorf("the clip host received an Authorization header %q", got)
		}
		if strings.Contains(r.Header.Get("Authorization")+r.URL.String(), dlKey) {
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

const s3Expired = `<?xml version="1.0" encoding="UTF-8"?>
<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>`

func TestDownloadClip(t *testing.T) {
	t.Parallel()
	clip := dlClip(3<<20 + 123)
	tests := []struct {
		name      string
		handlers  []http.HandlerFunc
		opts      []Option
		wantHits  int32
		wantOpens int
		check     func(t *testing.T, err error)
	}{
		{
			name:      "streams the clip",
			handlers:  []http.HandlerFunc{serveClip(clip)},
			wantHits:  1,
			wantOpens: 1,
		},
		{
			name: "retries 429 and 5xx before any output",
			handlers: []http.HandlerFunc{
				serveStatus(http.StatusServiceUnavailable, "text/plain", "busy"),
				serveStatus(http.StatusTooManyRequests, "text/plain", "slow down"),
				serveClip(clip),
			},
			wantHits:  3,
			wantOpens: 1,
		},
		{
			name:      "restarts the output after a connection lost mid-body",
			handlers:  []http.HandlerFunc{serveHalfThenDrop(clip), serveClip(clip)},
			wantHits:  2,
			wantOpens: 2,
		},
		{
			name:      "gives up after the retry budget, body failures included",
			handlers:  []http.HandlerFunc{serveStatus(http.StatusBadGateway, "text/plain", "bad gateway"), serveHalfThenDrop(clip)},
			opts:      []Option{WithMaxRetries(2)},
			wantHits:  3,
			wantOpens: 2,
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
			opts:      []Option{WithRequestTimeout(300 * time.Millisecond)},
			wantHits:  2,
			wantOpens: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, hits := dlServer(t, tt.handlers...)
			c := dlClient(t, "http://127.0.0.1:1/v1", tt.opts...)
			sink := &dlSink{}
			n, err := c.DownloadClip(context.Background(), srv.URL+"/clips/task-1.mp4?sig=SECRET-SIGNATURE&expires=1", sink.open)
			if got := hits.Load(); got != tt.wantHits {
				t.Errorf("the clip host got %d requests, want %d", got, tt.wantHits)
			}
			if sink.opens != tt.wantOpens {
				t.Errorf("open was called %d times, want %d", sink.opens, tt.wantOpens)
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
				t.Fatalf("DownloadClip: %v", err)
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
	c := dlClient(t, srv.URL)
	diskFull := errors.New("no space left on device")
	_, err := c.DownloadClip(context.Background(), srv.URL+"/clip.mp4", func() (io.Writer, error) {
		return failingWriter{err: diskFull}, nil
	})
	if !errors.Is(err, diskFull) || IsTransient(err) {
		t.Fatalf("want the writer's error, not transient, got %v", err)
	}
	if hits.Load() != 1 {
		t.Errorf("a write error was retried: %d requests", hits.Load())
	}
	openErr := errors.New("permission denied")
	_, err = c.DownloadClip(context.Background(), srv.URL+"/clip.mp4", func() (io.Writer, error) { return nil, openErr })
	if !errors.Is(err, openErr) {
		t.Fatalf("want the open error, got %v", err)
	}
}

type failingWriter struct{ err error }

func (w failingWriter) Write([]byte) (int, error) { return 0, w.err }

func TestDownloadClipFollowsRedirectsWithoutKey(t *testing.T) {
	t.Parallel()
	clip := dlClip(64 << 10)
	cdn, cdnHits := dlServer(t, serveClip(clip))
	origin, _ := dlServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, cdn.URL+"/edge/clip.mp4?token=x", http.StatusFound)
	})
	c := dlClient(t, origin.URL)
	sink := &dlSink{}
	if _, err := c.DownloadClip(context.Background(), origin.URL+"/clip.mp4", sink.open); err != nil {
		t.Fatal(err)
	}
	if cdnHits.Load() != 1 || !bytes.Equal(sink.buf.Bytes(), clip) {
		t.Fatalf("the redirect was not followed: %d CDN hits, %d bytes", cdnHits.Load(), sink.buf.Len())
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
	c := dlClient(t, srv.URL)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		cancel()
	}()
	sink := &dlSink{}
	_, err := c.DownloadClip(ctx, srv.URL+"/clip.mp4", sink.open)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
	if sink.opens > 1 {
		t.Errorf("a canceled download was retried: %d opens", sink.opens)
	}
}

func TestDownloadClipRejectsBadURLs(t *testing.T) {
	t.Parallel()
	c := dlClient(t, "http://127.0.0.1:1")
	for _, raw := range []string{"", "/relative/clip.mp4", "ftp://host/clip.mp4", "file:///etc/passwd", "http:///nohost?sig=SECRET"} {
		_, err := c.DownloadClip(context.Background(), raw, (&dlSink{}).open)
		if err == nil {
			t.Errorf("DownloadClip(%q) accepted the URL", raw)
			continue
		}
		if strings.Contains(err.Error(), "SECRET") {
			t.Errorf("the error reveals the query: %v", err)
		}
	}
}

func TestLooksLikeMP4(t *testing.T) {
	t.Parallel()
	box := func(typ string, size int) []byte {
		b := binary.BigEndian.AppendUint32(nil, uint32(size)) //nolint:gosec // G115: box sizes here are small
		b = append(b, typ...)
		return append(b, make([]byte, max(0, size-8))...)
	}
	large := binary.BigEndian.AppendUint32(nil, 1)
	large = append(large, "wide"...)
	large = binary.BigEndian.AppendUint64(large, 24)
	large = append(large, make([]byte, 8)...)
	tests := []struct {
		name string
		head []byte
		want bool
	}{
		{"ftyp first", dlClip(100), true},
		{"free box, then ftyp", append(box("free", 16), box("ftyp", 24)...), true},
		{"64-bit box, then ftyp", append(large, box("ftyp", 24)...), true},
		{"html", []byte("<!DOCTYPE html><html><body>denied</body></html>"), false},
		{"json", []byte(`{"error":{"message":"expired"}}`), false},
		{"empty", nil, false},
		{"truncated header", []byte{0, 0, 0, 24, 'f', 't'}, false},
		{"ftyp too small", box("ftyp", 12), false},
		{"no ftyp", append(box("moov", 16), box("mdat", 16)...), false},
		{"box larger than the sniffed head", append(box("free", 16), []byte{0, 1, 0, 0, 'f', 'r', 'e', 'e'}...), false},
	}
	for _, tt := range tests {
		if got := LooksLikeMP4(tt.head); got != tt.want {
			t.Errorf("%s: LooksLikeMP4 = %v, want %v", tt.name, got, tt.want)
		}
	}
}

package mockapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// boxes lists the top-level ISO-BMFF boxes of b as type:size.
func boxes(t *testing.T, b []byte) []string {
	t.Helper()
	var out []string
	for off := uint64(0); off < uint64(len(b)); {
		if uint64(len(b))-off < 8 {
			t.Fatalf("truncated box header at %d", off)
		}
		size := uint64(binary.BigEndian.Uint32(b[off:]))
		typ := string(b[off+4 : off+8])
		if size == 1 {
			size = binary.BigEndian.Uint64(b[off+8:])
		}
		if size < 8 || off+size > uint64(len(b)) {
			t.Fatalf("box %q at %d has bad size %d (file %d bytes)", typ, off, size, len(b))
		}
		out = append(out, typ+":"+strconv.FormatUint(size, 10))
		off += size
	}
	return out
}

func TestFixtureIsMP4(t *testing.T) {
	t.Parallel()
	if len(fixtureClip) < 1000 || len(fixtureClip) > 64<<10 {
		t.Fatalf("fixture is %d bytes; want a few KB", len(fixtureClip))
	}
	got := boxes(t, fixtureClip)
	if !strings.HasPrefix(got[0], "ftyp:") {
		t.Errorf("fixture starts with %s, want ftyp", got[0])
	}
	// faststart: the index precedes the media so players can start early.
	if len(got) < 2 || !strings.HasPrefix(got[1], "moov:") {
		t.Errorf("fixture boxes %v: want moov right after ftyp", got)
	}
}

func TestClipDownload(t *testing.T) {
	t.Parallel()
	srv, ts := newTestServer(t, func(c *Config) { c.TaskDuration = 0 })
	v := getTask(t, ts, submit(t, ts, `{"model":"videogen-1","prompt":"p"}`))

	res := do(t, ts, http.MethodGet, v.URL, "", "")
	want := strconv.FormatInt(minClipSize, 10)
	if res.status != 200 || res.header.Get("Content-Type") != "video/mp4" ||
		res.header.Get("Content-Length") != want || !bytes.Equal(res.body, clipHead(v.TaskID, minClipSize)) {
		t.Fatalf("GET clip: status %d, headers %v, %d bytes", res.status, res.header, len(res.body))
	}
	head := do(t, ts, http.MethodHead, v.URL, "", "")
	if head.status != 200 || head.header.Get("Content-Length") != want || len(head.body) != 0 {
		t.Errorf("HEAD clip: status %d, headers %v, %d body bytes", head.status, head.header, len(head.body))
	}
	// The URL must not change between GETs, or every Terraform plan shows a diff.
	if again := getTask(t, ts, v.TaskID); again.URL != v.URL {
		t.Errorf("url changed between GETs:\n%s\n%s", v.URL, again.URL)
	}

	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, v.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Range", "bytes=4-7")
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if r := readResult(t, resp); r.status != http.StatusPartialContent || string(r.body) != "ftyp" {
		t.Errorf("Range: status %d, body %q", r.status, r.body)
	}
	// The ledger tells the range request from the whole downloads, so that a
	// test counting downloads does not count a probe of a clip's bytes.
	l := srv.Ledger()
	if ep := "GET " + epClips; l.Requests[ep] != 2 || l.RangeRequests[ep] != 1 {
		t.Errorf("ledger: %d GET(s) of the clip, %d of them ranged; want 2, 1", l.Requests[ep], l.RangeRequests[ep])
	}

	u, err := url.Parse(v.URL)
	if err != nil {
		t.Fatal(err)
	}
	tampered := *u
	tampered.RawQuery = "sig=" + strings.Repeat("0", 64)
	otherTask := *u
	otherTask.Path = "/_mock/clips/task_00000000000000000000000000000000.mp4"
	for name, target := range map[string]string{
		"bad signature":    tampered.String(),
		"no signature":     ts.URL + u.Path,
		"signature reused": otherTask.String(),
	} {
		res := do(t, ts, http.MethodGet, target, "", "")
		if res.status != 403 || !strings.Contains(string(res.body), "<Code>SignatureDoesNotMatch</Code>") {
			t.Errorf("%s: status %d, body %s", name, res.status, res.body)
		}
	}
}

// With KeyedClips, clips are served on the mock's own address behind the
// key, as new-api serves its Sora and Veo channels' clips. The openai-videos
// dialect serves them there always, and its video objects carry no URL: its
// own tests download them (TestOpenAIVideos_sdkLifecycle).
func TestKeyedClips(t *testing.T) {
	t.Parallel()
	for _, dialect := range []string{DialectOpenAI, DialectNewAPI} {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			_, ts := newTestServer(t, func(c *Config) {
				c.TaskDuration, c.Dialect, c.KeyedClips = 0, dialect, true
				c.Keys = append(c.Keys, Key{Key: "revoked-key", Revoked: true})
			})
			id := submitTask(t, ts, dialect, "p")
			clipURL := ts.URL + "/v1/videos/" + id + "/content"
			if got := taskURL(t, ts, dialect, id); got != clipURL {
				t.Fatalf("the task's clip URL is %s, want %s", got, clipURL)
			}
			res := do(t, ts, http.MethodGet, clipURL, DefaultAPIKey, "")
			if res.status != http.StatusOK || res.header.Get("Content-Type") != "video/mp4" || !bytes.Equal(res.body, clipHead(id, minClipSize)) {
				t.Fatalf("GET the clip with the key: status %d, headers %v, %d bytes", res.status, res.header, len(res.body))
			}
			if head := do(t, ts, http.MethodHead, clipURL, DefaultAPIKey, ""); head.status != http.StatusOK || len(head.body) != 0 {
				t.Errorf("HEAD the clip: status %d, %d body bytes", head.status, len(head.body))
			}
			for name, key := range map[string]string{"no key": "", "unknown key": "not-a-key", "revoked key": "revoked-key"} {
				if res := do(t, ts, http.MethodGet, clipURL, key, ""); res.status != http.StatusUnauthorized {
					t.Errorf("GET the clip with %s: status %d, want 401: %s", name, res.status, res.body)
				}
			}
			pending := submitTask(t, ts, dialect, "p [mock:duration=1h]")
			for target, want := range map[string]int{
				ts.URL + "/v1/videos/" + pending + "/content": http.StatusBadRequest,
				ts.URL + "/v1/videos/task_unknown/content":    http.StatusNotFound,
				ts.URL + clipPathPrefix + id + clipPathSuffix: http.StatusForbidden,
			} {
				if res := do(t, ts, http.MethodGet, target, DefaultAPIKey, ""); res.status != want {
					t.Errorf("GET %s: status %d, want %d: %s", target, res.status, want, res.body)
				}
			}
		})
	}
	// Without the option the path is not served.
	_, ts := newTestServer(t, func(c *Config) { c.TaskDuration = 0 })
	id := submit(t, ts, `{"model":"videogen-1","prompt":"p"}`)
	if res := do(t, ts, http.MethodGet, "/v1/videos/"+id+"/content", DefaultAPIKey, ""); res.status != http.StatusNotFound {
		t.Errorf("GET /v1/videos/{id}/content without KeyedClips: status %d, want 404", res.status)
	}
}

// submitTask submits prompt in dialect and returns the task ID.
func submitTask(t *testing.T, ts *httptest.Server, dialect, prompt string) string {
	t.Helper()
	body := `{"model":"videogen-1","prompt":` + strconv.Quote(prompt) + `}`
	if dialect == DialectOpenAI {
		return submit(t, ts, body)
	}
	res := do(t, ts, http.MethodPost, "/v1/video/generations", DefaultAPIKey, body)
	var sr struct {
		TaskID string `json:"task_id"`
	}
	mustDecode(t, res.body, &sr)
	if res.status != http.StatusOK || sr.TaskID == "" {
		t.Fatalf("submit %s: status %d: %s", body, res.status, res.body)
	}
	return sr.TaskID
}

// taskURL reads task id in dialect and returns its clip URL.
func taskURL(t *testing.T, ts *httptest.Server, dialect, id string) string {
	t.Helper()
	if dialect == DialectOpenAI {
		return getTask(t, ts, id).URL
	}
	res := do(t, ts, http.MethodGet, "/v1/video/generations/"+id, DefaultAPIKey, "")
	var env struct {
		Data struct {
			FailReason string `json:"fail_reason"`
		} `json:"data"`
	}
	mustDecode(t, res.body, &env)
	return env.Data.FailReason
}

func TestClipNotFound(t *testing.T) {
	t.Parallel()
	srv, ts := newTestServer(t, nil)
	pending := submit(t, ts, `{"model":"videogen-1","prompt":"p [mock:duration=1h]"}`)
	failed := submit(t, ts, `{"model":"videogen-1","prompt":"p [mock:fail] [mock:duration=0s]"}`)
	for _, id := range []string{pending, failed, "task_unknown"} {
		// Sign as the server would, to get past the signature check.
		target := ts.URL + clipPathPrefix + id + ".mp4?sig=" + srv.signClip(id, 0, 0)
		res := do(t, ts, http.MethodGet, target, "", "")
		if res.status != 404 || !strings.Contains(string(res.body), "NoSuchKey") {
			t.Errorf("clip of %s: status %d, body %s", id, res.status, res.body)
		}
	}
}

func TestExpireURLs(t *testing.T) {
	t.Parallel()
	srv, ts := newTestServer(t, func(c *Config) { c.TaskDuration = 0 })
	id := submit(t, ts, `{"model":"videogen-1","prompt":"p"}`)
	before := getTask(t, ts, id).URL

	srv.ExpireURLs()
	if res := do(t, ts, http.MethodGet, before, "", ""); res.status != 403 {
		t.Errorf("old URL after ExpireURLs: status %d", res.status)
	}
	after := getTask(t, ts, id).URL
	if after == before {
		t.Fatal("GET after ExpireURLs returned the old URL")
	}
	if res := do(t, ts, http.MethodGet, after, "", ""); res.status != 200 {
		t.Errorf("fresh URL: status %d", res.status)
	}
	if again := getTask(t, ts, id).URL; again != after {
		t.Errorf("fresh URL is not stable: %s vs %s", after, again)
	}

	if res := do(t, ts, http.MethodPost, "/_mock/expire-urls", "", ""); res.status != http.StatusNoContent {
		t.Fatalf("POST /_mock/expire-urls: status %d", res.status)
	}
	if res := do(t, ts, http.MethodGet, after, "", ""); res.status != 403 {
		t.Errorf("URL after POST /_mock/expire-urls: status %d", res.status)
	}
}

func TestURLTTL(t *testing.T) {
	t.Parallel()
	srv, ts, clock := newClockedTestServer(t, func(c *Config) { c.TaskDuration = 0; c.URLTTL = Duration(time.Second) })
	v := getTask(t, ts, submit(t, ts, `{"model":"videogen-1","prompt":"p"}`))
	u, err := url.Parse(v.URL)
	if err != nil {
		t.Fatal(err)
	}
	if exp, err := strconv.ParseInt(u.Query().Get("expires"), 10, 64); err != nil || exp != clock.Now().Unix()+1 {
		t.Fatalf("expires %q in %s: want %d, a second from now", u.Query().Get("expires"), v.URL, clock.Now().Unix()+1)
	}
	if res := do(t, ts, http.MethodGet, v.URL, "", ""); res.status != 200 {
		t.Fatalf("fresh URL: status %d", res.status)
	}
	clock.Add(999 * time.Millisecond)
	if res := do(t, ts, http.MethodHead, v.URL, "", ""); res.status != 200 {
		t.Fatalf("URL just before its expiry: status %d", res.status)
	}
	clock.Add(time.Millisecond)
	if res := do(t, ts, http.MethodHead, v.URL, "", ""); res.status != 403 {
		t.Errorf("expired URL: status %d, want 403", res.status)
	}
	if res := do(t, ts, http.MethodGet, v.URL, "", ""); !strings.Contains(string(res.body), "expired") {
		t.Errorf("expired URL body %s", res.body)
	}
	if fresh := getTask(t, ts, v.TaskID).URL; fresh == v.URL || do(t, ts, http.MethodGet, fresh, "", "").status != 200 {
		t.Errorf("GET after expiry did not give a working fresh URL: %s", fresh)
	}
	if lt, _ := srv.Ledger().Task(v.TaskID); !lt.Billed {
		t.Errorf("task %+v: an expired URL must not change billing", lt)
	}
}

func TestClipBytes(t *testing.T) {
	t.Parallel()
	n := int64(len(fixtureClip)) + 1000
	_, ts := newTestServer(t, func(c *Config) { c.TaskDuration = 0; c.ClipBytes = n })
	v := getTask(t, ts, submit(t, ts, `{"model":"videogen-1","prompt":"p"}`))
	res := do(t, ts, http.MethodGet, v.URL, "", "")
	if int64(len(res.body)) != n || res.header.Get("Content-Length") != strconv.FormatInt(n, 10) {
		t.Fatalf("got %d bytes, Content-Length %s; want %d", len(res.body), res.header.Get("Content-Length"), n)
	}
	got := boxes(t, res.body)
	if !strings.HasPrefix(got[0], "ftyp:") || got[len(got)-1] != "free:1000" {
		t.Errorf("boxes %v: want ftyp first and free:1000 last", got)
	}
	if !bytes.Equal(res.body[:len(fixtureClip)], fixtureClip) {
		t.Error("padded clip does not start with the fixture")
	}

	ffprobe, err := exec.LookPath("ffprobe")
	if err != nil {
		t.Log("ffprobe not installed; skipping the player check")
		return
	}
	path := filepath.Join(t.TempDir(), "padded.mp4")
	if err := os.WriteFile(path, res.body, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.CommandContext(t.Context(), ffprobe, "-v", "error", "-show_entries", "format=format_name", "-of", "csv=p=0", path).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "mp4") {
		t.Errorf("ffprobe rejects the padded clip: %v: %s", err, out)
	}
}

func TestClipHead(t *testing.T) {
	t.Parallel()
	f := int64(len(fixtureClip))
	const id = "task_1"
	tag := clipTag(id)
	tests := []struct {
		name   string
		size   int64
		header []byte // after the fixture, before the tag
	}{
		{"smallest clip", minClipSize, []byte{0, 0, 0, 40, 'f', 'r', 'e', 'e'}},
		{"largest 32-bit box", f + 0xFFFFFFFF, []byte{0xFF, 0xFF, 0xFF, 0xFF, 'f', 'r', 'e', 'e'}},
		{"64-bit box", f + 0x100000000, []byte{0, 0, 0, 1, 'f', 'r', 'e', 'e', 0, 0, 0, 1, 0, 0, 0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := clipHead(id, tt.size)
			if want := append(append(slices.Clone(fixtureClip), tt.header...), tag...); !bytes.Equal(h, want) {
				t.Errorf("head after fixture = %x, want %x", h[f:], want[f:])
			}
		})
	}
}

// TestClipsDiffer checks that every task's clip has its own bytes, the same
// on every download, and is still an MP4: a client that mixed up two tasks'
// clips gets a different SHA-256.
func TestClipsDiffer(t *testing.T) {
	t.Parallel()
	for _, size := range []int64{0, minClipSize + 1000} {
		srv, ts := newTestServer(t, func(c *Config) { c.TaskDuration = 0; c.ClipBytes = size })
		seen := map[[32]byte]string{}
		for range 3 {
			v := getTask(t, ts, submit(t, ts, `{"model":"videogen-1","prompt":"the same prompt"}`))
			first := do(t, ts, http.MethodGet, v.URL, "", "").body
			again := do(t, ts, http.MethodGet, getTask(t, ts, v.TaskID).URL, "", "").body
			clip, ok := srv.Clip(v.TaskID)
			if !ok || !bytes.Equal(first, again) || !bytes.Equal(first, clip) {
				t.Errorf("size %d, task %s: downloads of %d and %d bytes and Clip() of %d (%v) differ",
					size, v.TaskID, len(first), len(again), len(clip), ok)
			}
			got := boxes(t, first)
			if !strings.HasPrefix(got[0], "ftyp:") || !strings.HasPrefix(got[len(got)-1], "free:") {
				t.Errorf("boxes %v: want ftyp first and free last", got)
			}
			sum := sha256.Sum256(first)
			if other, dup := seen[sum]; dup {
				t.Errorf("tasks %s and %s serve the same clip", other, v.TaskID)
			}
			seen[sum] = v.TaskID
		}
	}
	srv, _ := newTestServer(t, nil)
	if _, ok := srv.Clip("task_unknown"); ok {
		t.Error("Clip of an unknown task reports ok")
	}
}

func TestClipReader(t *testing.T) {
	t.Parallel()
	const size = 5 << 30 // past 4 GiB, never materialised
	r := &clipReader{head: clipHead("task_1", size), size: size}
	if end, err := r.Seek(0, io.SeekEnd); err != nil || end != size {
		t.Fatalf("Seek end = %d, %v", end, err)
	}
	if _, err := r.Seek(-10, io.SeekEnd); err != nil {
		t.Fatal(err)
	}
	tail, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(tail, make([]byte, 10)) {
		t.Errorf("tail = %x, %v; want 10 zero bytes", tail, err)
	}
	if _, err := r.Seek(int64(len(fixtureClip))-2, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 20)
	if n, err := io.ReadFull(r, buf); err != nil || n != 20 {
		t.Fatalf("read across the head boundary: %d, %v", n, err)
	}
	want := append(append([]byte{}, fixtureClip[len(fixtureClip)-2:]...), 0, 0, 0, 1, 'f', 'r', 'e', 'e')
	if !bytes.Equal(buf[:10], want) {
		t.Errorf("boundary bytes %x, want %x", buf[:10], want)
	}
	if _, err := r.Seek(-1, io.SeekStart); err == nil {
		t.Error("negative seek succeeded")
	}
}

// TestClipStreamsInFlatMemory is deliberately not parallel: it measures
// allocations, which other tests running at the same time would inflate.
func TestClipStreamsInFlatMemory(t *testing.T) {
	const size = 256 << 20
	_, ts := newTestServer(t, func(c *Config) { c.TaskDuration = 0; c.ClipBytes = size })
	v := getTask(t, ts, submit(t, ts, `{"model":"videogen-1","prompt":"p"}`))

	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, v.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.CopyBuffer(io.Discard, resp.Body, make([]byte, 64<<10))
	resp.Body.Close()
	runtime.ReadMemStats(&after)
	if err != nil || n != size {
		t.Fatalf("streamed %d bytes, %v; want %d", n, err, size)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("serving a %d MiB clip allocated %d MiB; it must stream", size>>20, alloc>>20)
	}
}

// TestClipFor checks that the clip for stand-ins is the mock's own smallest
// clip of that task ID: an MP4, the same for one ID, different across IDs.
func TestClipFor(t *testing.T) {
	t.Parallel()
	srv, ts := newTestServer(t, func(c *Config) { c.TaskDuration = 0 })
	id := submit(t, ts, `{"model":"videogen-1","prompt":"p"}`)
	clip, ok := srv.Clip(id)
	if got := ClipFor(id); !ok || !bytes.Equal(got, clip) {
		t.Errorf("ClipFor(%s) is %d bytes, the mock's clip %d (%v): want the same bytes", id, len(got), len(clip), ok)
	}
	if bytes.Equal(ClipFor("a"), ClipFor("b")) {
		t.Error("ClipFor gives two task IDs the same bytes")
	}
	if got := boxes(t, ClipFor("a")); !strings.HasPrefix(got[0], "ftyp:") {
		t.Errorf("boxes %v: want ftyp first", got)
	}
}

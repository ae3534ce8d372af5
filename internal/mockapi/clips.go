package mockapi

import (
	"crypto/hmac"
	"crypto/sha256"
	_ "embed" // for the fixture clip
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// fixtureClip is a real, playable 1 s H.264 MP4 (see fixture/make-clip.sh), so
// clients that probe or play the download get something genuine.
//
//go:embed fixture/clip.mp4
var fixtureClip []byte

const (
	clipPathPrefix = "/_mock/clips/"
	clipPathSuffix = ".mp4"
	// The keyed clip's path is new-api's, where it serves the clips of its
	// Sora and Veo channels.
	keyedClipPrefix = "/v1/videos/"
	keyedClipSuffix = "/content"
	freeBoxHeader   = 8  // size(4) + type(4)
	largeBoxHeader  = 16 // size(4)=1 + type(4) + largesize(8)
	clipTagSize     = sha256.Size
)

// minClipSize is the size of every clip when Config.ClipBytes is 0, and the
// least it may be: the fixture and a free box holding the task's tag.
var minClipSize = int64(len(fixtureClip)) + freeBoxHeader + clipTagSize

// htmlClip is served instead of the MP4 for [mock:html] tasks: some CDNs answer
// 200 with an error page, and clients must notice it isn't a video.
const htmlClip = `<!DOCTYPE html>
<html><head><title>Access denied</title></head>
<body><h1>Please sign in to continue</h1><p>This page is not a video.</p></body></html>
`

// clipTag is what makes a task's clip its own: a digest of the task ID, so
// two tasks never serve the same bytes (a client that mixed clips up would
// get the wrong SHA-256), and one task always serves the same.
func clipTag(id string) []byte {
	sum := sha256.Sum256([]byte("videogen-mock clip\n" + id))
	return sum[:]
}

// clipHead returns the bytes that start task id's clip of total size n: the
// fixture, then one ISO-BMFF free box that pads to exactly n bytes, whose body
// starts with the task's tag. Players skip free boxes, so the clip still
// plays. The rest of the body is zeros and is never materialised, so huge
// clips stream in constant memory. n is at least minClipSize.
func clipHead(id string, n int64) []byte {
	head := make([]byte, 0, len(fixtureClip)+largeBoxHeader+clipTagSize)
	head = append(head, fixtureClip...)
	pad := n - int64(len(fixtureClip))
	if pad <= math.MaxUint32 {
		head = binary.BigEndian.AppendUint32(head, uint32(pad)) //nolint:gosec // pad <= MaxUint32 here
		head = append(head, "free"...)
	} else {
		// A 32-bit size can't hold it: size 1 means "64-bit largesize follows".
		head = binary.BigEndian.AppendUint32(head, 1)
		head = append(head, "free"...)
		head = binary.BigEndian.AppendUint64(head, uint64(pad))
	}
	return append(head, clipTag(id)...)
}

// clipReader is an io.ReadSeeker over head followed by zeros up to size.
type clipReader struct {
	head []byte
	size int64
	off  int64
}

func (c *clipReader) Read(p []byte) (int, error) {
	if c.off >= c.size {
		return 0, io.EOF
	}
	if rem := c.size - c.off; int64(len(p)) > rem {
		p = p[:rem]
	}
	var n int
	if c.off < int64(len(c.head)) {
		n = copy(p, c.head[c.off:])
	}
	clear(p[n:])
	c.off += int64(len(p))
	return len(p), nil
}

func (c *clipReader) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += c.off
	case io.SeekEnd:
		offset += c.size
	default:
		return 0, errors.New("clipReader: invalid whence")
	}
	if offset < 0 {
		return 0, errors.New("clipReader: negative position")
	}
	c.off = offset
	return offset, nil
}

// signClip signs a clip URL. The epoch lets ExpireURLs invalidate every URL
// handed out so far without tracking them.
func (s *Server) signClip(id string, expires int64, epoch uint64) string {
	m := hmac.New(sha256.New, s.signKey)
	fmt.Fprintf(m, "%s\n%d\n%d", id, expires, epoch)
	return hex.EncodeToString(m.Sum(nil))
}

// clipURL mints a download URL for a succeeded task. With no TTL and no
// ExpireURLs call the result is identical on every call, which keeps
// Terraform plans empty. Callers hold s.mu.
func (s *Server) clipURL(base, id string, now time.Time) string {
	if s.cfg.KeyedClips {
		return base + keyedClipPrefix + url.PathEscape(id) + keyedClipSuffix
	}
	var expires int64
	if s.cfg.URLTTL > 0 {
		// Round up so a URL is never shorter-lived than the TTL.
		expires = now.Add(time.Duration(s.cfg.URLTTL) + time.Second - 1).Unix()
	}
	q := url.Values{"sig": {s.signClip(id, expires, s.urlEpoch)}}
	if expires != 0 {
		q.Set("expires", strconv.FormatInt(expires, 10))
	}
	return base + clipPathPrefix + url.PathEscape(id) + clipPathSuffix + "?" + q.Encode()
}

// baseURL is where the client reached us, so URLs work behind httptest's
// random ports and from other hosts alike.
func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// handleClip serves downloads like a storage bucket would: no bearer auth,
// XML errors, Range and HEAD support.
func (s *Server) handleClip(w http.ResponseWriter, r *http.Request, id string) {
	q := r.URL.Query()
	var expires int64
	if e := q.Get("expires"); e != "" {
		v, err := strconv.ParseInt(e, 10, 64)
		if err != nil {
			writeBucketError(w, http.StatusForbidden, "AccessDenied", "Invalid expires parameter.")
			return
		}
		expires = v
	}
	now := s.now()

	s.mu.Lock()
	want := s.signClip(id, expires, s.urlEpoch)
	t := s.lookup(id, now)
	found := t != nil && !t.deleted && s.observe(t, now) == statusSucceeded
	gone := found && s.clipExpired(t, now)
	s.mu.Unlock()

	got := q.Get("sig")
	if !hmac.Equal([]byte(got), []byte(want)) {
		writeBucketError(w, http.StatusForbidden, "SignatureDoesNotMatch",
			"The request signature does not match or the URL was revoked. Get a fresh URL from the task.")
		return
	}
	if expires != 0 && now.Unix() >= expires {
		writeBucketError(w, http.StatusForbidden, "AccessDenied", "Request has expired. Get a fresh URL from the task.")
		return
	}
	if !found {
		writeBucketError(w, http.StatusNotFound, "NoSuchKey", "The specified key does not exist.")
		return
	}
	if gone {
		// Ark's clip URLs answer so once their storage expired, fresh
		// signature or not.
		writeBucketError(w, http.StatusForbidden, "AccessDenied", "Request has expired.")
		return
	}
	s.serveClipBody(w, r, t)
}

// handleKeyedClip serves a clip behind the key (Config.KeyedClips), as
// new-api serves the clips of its Sora and Veo channels: the caller passed
// authentication already; an unknown task is 404 and an unfinished one 400,
// with new-api's messages, in the error shape of the API.
func (s *Server) handleKeyedClip(w http.ResponseWriter, r *http.Request, id string) {
	now := s.now()
	s.mu.Lock()
	t := s.lookup(id, now)
	status := ""
	if t != nil && !t.deleted {
		status = s.observe(t, now)
	}
	expired := status == statusSucceeded && (s.clipExpired(t, now) || s.videos && s.cfg.URLTTL > 0 && !now.Before(s.contentExpiry(t)))
	s.mu.Unlock()
	switch {
	case status == "":
		writeError(w, http.StatusNotFound, "invalid_request_error", "", "Task not found")
		return
	case expired:
		// OpenAI keeps a video's content until its expires_at.
		writeError(w, http.StatusNotFound, "invalid_request_error", "", "The video's content has expired.")
		return
	case status == statusSucceeded:
	default:
		writeError(w, http.StatusBadRequest, "invalid_request_error", "",
			"Task is not completed yet, current status: "+status)
		return
	}
	s.serveClipBody(w, r, t)
}

// serveClipBody serves t's clip, or for an [mock:html] task the page a CDN
// might answer instead, with Range and HEAD support.
func (s *Server) serveClipBody(w http.ResponseWriter, r *http.Request, t *task) {
	if r.Method != http.MethodHead {
		s.mu.Lock()
		t.clipServed++
		if h := s.clipHold; h != nil {
			w = &holdingWriter{ResponseWriter: w, r: r, hold: h, left: h.after}
		}
		s.mu.Unlock()
	}
	if t.html {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		http.ServeContent(w, r, "", t.finalAt, strings.NewReader(htmlClip))
		return
	}
	w.Header().Set("Content-Type", "video/mp4")
	http.ServeContent(w, r, "", t.finalAt, &clipReader{head: clipHead(t.id, s.clipSize), size: s.clipSize})
}

// Clip returns the bytes the task's clip URL serves once it has succeeded,
// so that a test can check a download against the clip it must be without
// a request the ledger would count. It reads the whole clip into memory:
// keep Config.ClipBytes small where it is used. ok is false for a task the
// mock never received.
func (s *Server) Clip(id string) (clip []byte, ok bool) {
	s.mu.Lock()
	t := s.tasks[id]
	s.mu.Unlock()
	if t == nil {
		return nil, false
	}
	return s.clipBytes(t)
}

// clipBytes is t's clip, whole; it needs no lock (a task's clip is fixed at
// submission).
func (s *Server) clipBytes(t *task) ([]byte, bool) {
	if t.html {
		return []byte(htmlClip), true
	}
	clip, err := io.ReadAll(&clipReader{head: clipHead(t.id, s.clipSize), size: s.clipSize})
	if err != nil {
		panic(err) // clipReader never fails
	}
	return clip, true
}

// ClipFor returns a clip of the smallest size for task id: the fixture MP4
// with id's tag, so that a stand-in for another service (a gateway's
// upstream) serves playable clips that differ per task, as the mock's do.
func ClipFor(id string) []byte {
	return clipHead(id, minClipSize)
}

func writeBucketError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/xml")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	fmt.Fprintf(w, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>%s</Code><Message>%s</Message></Error>\n", code, msg)
}

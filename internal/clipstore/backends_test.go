package clipstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/storage"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	azblobblob "github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/videogen/terraform-provider-videogen/internal/storetest"
)

func hashOf(t *testing.T, r io.Reader) string {
	t.Helper()
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		t.Fatalf("reading back: %v", err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func TestFileStore(t *testing.T) {
	dir := t.TempDir()
	testStore(t, backend{
		url: func(key string) string {
			return (&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(dir, key))}).String()
		},
		read: func(t *testing.T, key string) (string, string, map[string]string, bool) {
			f, err := os.Open(filepath.Join(dir, key))
			if errors.Is(err, os.ErrNotExist) {
				return "", "", nil, false
			}
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			sum := hashOf(t, f)
			raw, err := os.ReadFile(filepath.Join(dir, key) + ".attrs")
			if err != nil {
				t.Fatal(err)
			}
			var attrs struct {
				ContentType string            `json:"user.content_type"`
				Metadata    map[string]string `json:"user.metadata"`
			}
			if err := json.Unmarshal(raw, &attrs); err != nil {
				t.Fatal(err)
			}
			return sum, attrs.ContentType, attrs.Metadata, true
		},
		uploading: func(t *testing.T, key string) bool {
			tmp, _ := filepath.Glob(filepath.Join(dir, key) + ".*.tmp")
			return len(tmp) > 0
		},
		leftovers: func(t *testing.T, key string) []string {
			left, _ := filepath.Glob(filepath.Join(dir, key) + "*")
			return left
		},
	})
}

func TestS3Store(t *testing.T) {
	srv := storetest.StartS3(t)
	srv.Setenv(t)
	c := srv.S3Client()
	uploads := func(t *testing.T, key string) []string {
		out, err := c.ListMultipartUploads(t.Context(), &s3.ListMultipartUploadsInput{Bucket: aws.String(srv.Bucket), Prefix: aws.String(key)})
		if err != nil {
			t.Fatalf("listing multipart uploads: %v", err)
		}
		var ids []string
		for _, u := range out.Uploads {
			ids = append(ids, aws.ToString(u.Key)+" "+aws.ToString(u.UploadId))
		}
		return ids
	}
	testStore(t, backend{
		url: srv.URL,
		read: func(t *testing.T, key string) (string, string, map[string]string, bool) {
			return backend{}.readS3(t, c, srv.Bucket, key)
		},
		uploading: func(t *testing.T, key string) bool { return len(uploads(t, key)) > 0 },
		leftovers: uploads,
		secrets:   []string{srv.Env["AWS_SECRET_ACCESS_KEY"]},
	})

	t.Run("a killed run's multipart upload is aborted by the next write", func(t *testing.T) {
		ctx := t.Context()
		// What a process killed mid-upload leaves: an upload with a part,
		// never completed nor aborted; and one of another key beside it.
		for _, key := range []string{"clips/killed.mp4", "clips/killed.mp4.other"} {
			mu, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(srv.Bucket), Key: aws.String(key)})
			if err != nil {
				t.Fatal(err)
			}
			part, _ := clip(3, 5<<20)
			if _, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(srv.Bucket), Key: aws.String(key),
				UploadId: mu.UploadId, PartNumber: aws.Int32(1), Body: bytes.NewReader(part)}); err != nil {
				t.Fatal(err)
			}
		}
		s := openStore(t, srv.URL("clips/killed.mp4"))
		data, sum := clip(4, 1<<20)
		w, err := s.Write(ctx, bytes.NewReader(data), Meta{TaskID: "cgt-killed", Model: "m"}, WriteOptions{})
		if err != nil || w.SHA256 != sum {
			t.Fatalf("Write = %+v, %v", w, err)
		}
		if left := uploads(t, "clips/killed.mp4"); len(left) != 1 || !strings.HasPrefix(left[0], "clips/killed.mp4.other ") {
			t.Errorf("incomplete uploads after the write: %v; want only the other key's", left)
		}
	})

	t.Run("a part in flight is answered before the upload is aborted", func(t *testing.T) {
		// A part whose request is cut while the store writes it can land
		// after the abort and bring the upload back. So an interrupted
		// write stops reading its source but waits for the parts already
		// sent. The gate holds part 2 and tells whether its sender gave up
		// on it once the write's context ended.
		gate := &partGate{held: make(chan struct{}), release: make(chan struct{}), cut: make(chan struct{})}
		target, err := url.Parse(srv.Endpoint)
		if err != nil {
			t.Fatal(err)
		}
		gate.proxy = httputil.NewSingleHostReverseProxy(target)
		front := httptest.NewServer(gate)
		defer front.Close()
		key := "clips/in-flight.mp4"
		s := openStore(t, strings.Replace(srv.URL(key), url.QueryEscape(srv.Endpoint), url.QueryEscape(front.URL), 1))
		data, _ := clip(5, clipSize)
		wctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		done := make(chan error, 1)
		go func() {
			_, err := s.Write(wctx, bytes.NewReader(data), Meta{TaskID: "cgt-in-flight"}, WriteOptions{})
			done <- err
		}()
		<-gate.held
		cancel()
		select {
		case <-gate.cut:
			t.Error("the interrupted write cut the part it had sent instead of waiting for its answer")
		case <-time.After(2 * time.Second): // how long a cut may take to show; a slow machine only hides it
		}
		close(gate.release)
		if err := <-done; !errors.Is(err, ErrCanceled) {
			t.Errorf("Write = %v; want ErrCanceled", err)
		}
		if left := uploads(t, key); len(left) > 0 {
			t.Errorf("the interrupted write left %v", left)
		}
		if _, _, _, found := (backend{}).readS3(t, c, srv.Bucket, key); found {
			t.Error("an object is at the key after the interrupted write")
		}
	})

	t.Run("a clip of known size is one PUT, or one part without checksums", func(t *testing.T) {
		// A multipart object's ETag ends in "-<parts>", a PUT's does not.
		// Without request checksums the store may not take the PUT's
		// trailing one, so the clip goes as one part; interrupted, that
		// leaves nothing either. The setting from the environment, as the
		// AWS SDK reads it, takes the same path.
		for _, tc := range []struct{ name, query, env, etagEnd string }{
			{"default", "", "", ""},
			{"URL", "&request_checksum_calculation=when_required", "", "-1"},
			{"environment", "", "when_required", "-1"},
		} {
			key := "clips/known-size-" + tc.name + ".mp4"
			if tc.env != "" {
				t.Setenv("AWS_REQUEST_CHECKSUM_CALCULATION", tc.env)
			}
			s := openStore(t, srv.URL(key)+tc.query)
			data, sum := clip(6, clipSize)
			wctx, cancel := context.WithCancel(t.Context())
			src := &interruptingReader{r: bytes.NewReader(data), after: 18 << 20, interrupt: func() error {
				cancel()
				return wctx.Err()
			}}
			if _, err := s.Write(wctx, src, Meta{TaskID: "cgt-known"}, WriteOptions{Size: clipSize}); !errors.Is(err, ErrCanceled) {
				t.Errorf("%s: the interrupted Write = %v; want ErrCanceled", tc.name, err)
			}
			if _, _, _, found := (backend{}).readS3(t, c, srv.Bucket, key); found {
				t.Errorf("%s: an object is at the key after the interrupted write", tc.name)
			}
			if left := uploads(t, key); len(left) > 0 {
				t.Errorf("%s: the interrupted write left %v", tc.name, left)
			}
			w, err := s.Write(t.Context(), bytes.NewReader(data), Meta{TaskID: "cgt-known"}, WriteOptions{Size: clipSize})
			if err != nil || w.SHA256 != sum {
				t.Fatalf("%s: Write = %+v, %v; want SHA-256 %s", tc.name, w, err, sum)
			}
			head, err := c.HeadObject(t.Context(), &s3.HeadObjectInput{Bucket: aws.String(srv.Bucket), Key: aws.String(key)})
			if err != nil {
				t.Fatal(err)
			}
			etag := strings.Trim(aws.ToString(head.ETag), `"`)
			if multipart := strings.Contains(etag, "-"); multipart != (tc.etagEnd != "") || !strings.HasSuffix(etag, tc.etagEnd) {
				t.Errorf("%s: the object's ETag is %s; want one ending in %q", tc.name, etag, tc.etagEnd)
			}
		}
	})

	t.Run("a clip not of its announced size is not stored", func(t *testing.T) {
		key := "clips/wrong-size.mp4"
		s := openStore(t, srv.URL(key))
		data, _ := clip(7, 1<<20)
		for _, size := range []int64{int64(len(data)) - 1, int64(len(data)) + 1} {
			if _, err := s.Write(t.Context(), bytes.NewReader(data), Meta{TaskID: "cgt-size"}, WriteOptions{Size: size}); err == nil {
				t.Errorf("Write of %d bytes announced as %d succeeded", len(data), size)
			}
			if _, _, _, found := (backend{}).readS3(t, c, srv.Bucket, key); found {
				t.Fatalf("an object is at the key after a write of %d bytes announced as %d", len(data), size)
			}
		}
	})

	t.Run("refused credentials say so and show none", func(t *testing.T) {
		t.Setenv("AWS_SECRET_ACCESS_KEY", "wrong-"+srv.Env["AWS_SECRET_ACCESS_KEY"])
		s := openStore(t, srv.URL("clips/denied.mp4"))
		_, err := s.Write(t.Context(), strings.NewReader("clip"), Meta{TaskID: "cgt-1"}, WriteOptions{})
		if !errors.Is(err, ErrPermission) {
			t.Fatalf("Write with a wrong secret = %v; want ErrPermission", err)
		}
		backend{secrets: []string{srv.Env["AWS_SECRET_ACCESS_KEY"], "wrong-"}}.checkShown(t, err)
		if _, err := s.Stat(t.Context()); !errors.Is(err, ErrPermission) && !errors.Is(err, ErrNotFound) {
			t.Errorf("Stat with a wrong secret = %v; want ErrPermission", err)
		}
	})
}

func TestGCSStore(t *testing.T) {
	srv := storetest.StartGCS(t)
	srv.Setenv(t)
	c := srv.GCSClient(t)
	testStore(t, backend{
		url: srv.URL,
		read: func(t *testing.T, key string) (string, string, map[string]string, bool) {
			o := c.Bucket(srv.Bucket).Object(key)
			attrs, err := o.Attrs(t.Context())
			if errors.Is(err, storage.ErrObjectNotExist) {
				return "", "", nil, false
			}
			if err != nil {
				t.Fatalf("reading the object's attributes: %v", err)
			}
			r, err := o.NewReader(t.Context())
			if err != nil {
				t.Fatalf("reading the object: %v", err)
			}
			defer r.Close()
			return hashOf(t, r), attrs.ContentType, attrs.Metadata, true
		},
	})
}

func TestAzureStore(t *testing.T) {
	srv := storetest.StartAzurite(t)
	srv.Setenv(t)
	c := srv.AzureClient(t)
	testStore(t, backend{
		url: srv.URL,
		read: func(t *testing.T, key string) (string, string, map[string]string, bool) {
			resp, err := c.NewBlobClient(key).DownloadStream(t.Context(), nil)
			var re *azcore.ResponseError
			if errors.As(err, &re) && re.StatusCode == 404 {
				return "", "", nil, false
			}
			if err != nil {
				t.Fatalf("DownloadStream: %v", err)
			}
			defer resp.Body.Close()
			md := map[string]string{}
			for k, v := range resp.Metadata {
				if v != nil {
					md[strings.ToLower(k)] = unescape(*v)
				}
			}
			return hashOf(t, resp.Body), aws.ToString(resp.ContentType), md, true
		},
		uploading: func(t *testing.T, key string) bool {
			// Blocks staged but not committed: Azure keeps them out of
			// sight and discards them unless a block list commits them.
			list, err := c.NewBlockBlobClient(key).GetBlockList(t.Context(), blockblob.BlockListTypeUncommitted, nil)
			return err == nil && len(list.UncommittedBlocks) > 0
		},
		secrets: []string{srv.Env["AZURE_STORAGE_KEY"]},
	})

	t.Run("refused credentials say so and show none", func(t *testing.T) {
		t.Setenv("AZURE_STORAGE_KEY", "d3JvbmcgYnV0IHdlbGwtZm9ybWVkIGtleQ==")
		s := openStore(t, srv.URL("clips/denied.mp4"))
		_, err := s.Write(t.Context(), strings.NewReader("clip"), Meta{TaskID: "cgt-1"}, WriteOptions{})
		if !errors.Is(err, ErrPermission) {
			t.Fatalf("Write with a wrong key = %v; want ErrPermission", err)
		}
		backend{secrets: []string{srv.Env["AZURE_STORAGE_KEY"], "d3JvbmcgYnV0IHdlbGwtZm9ybWVkIGtleQ"}}.checkShown(t, err)
	})
	_ = azblobblob.SetMetadataOptions{}
}

// readS3 reads an object with the AWS SDK: its SHA-256, Content-Type and
// metadata; found is false when there is none.
func (backend) readS3(t *testing.T, c *s3.Client, bucket, key string) (sum, contentType string, md map[string]string, found bool) {
	t.Helper()
	out, err := c.GetObject(t.Context(), &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	var nsk *s3types.NoSuchKey
	if errors.As(err, &nsk) {
		return "", "", nil, false
	}
	if err != nil {
		t.Fatalf("GetObject: %v", err)
	}
	defer out.Body.Close()
	return hashOf(t, out.Body), aws.ToString(out.ContentType), out.Metadata, true
}

// partGate stands between a writer and the S3 server and holds the first
// upload of part 2 until released, saying on cut if its sender gives up on it
// meanwhile.
type partGate struct {
	proxy   *httputil.ReverseProxy
	once    sync.Once
	held    chan struct{}
	release chan struct{}
	cut     chan struct{}
}

func (g *partGate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	first := false
	if r.Method == http.MethodPut && r.URL.Query().Get("partNumber") == "2" {
		g.once.Do(func() { first = true })
	}
	if !first {
		g.proxy.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		close(g.cut)
		return
	}
	close(g.held)
	select {
	case <-r.Context().Done():
		close(g.cut)
		<-g.release
		return
	case <-g.release:
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	g.proxy.ServeHTTP(w, r)
}

package videofile_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
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
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
	"github.com/videogen/terraform-provider-videogen/internal/storetest"
)

// cliProvider is what a configuration for the real CLI adds: the provider's
// source, which the harness's filesystem mirror serves.
const cliProvider = `terraform {
  required_providers {
    videogen = { source = "videogen/videogen" }
  }
}
`

// storedObject is an object as its store's own client reads it.
type storedObject struct {
	data        []byte
	contentType string
	metadata    map[string]string
	// version changes whenever the object is written again (S3's and
	// Azure's ETag and modification time, GCS's generation).
	version string
}

// nativeStore reads and deletes objects with the store's own SDK, apart from
// the provider's code.
type nativeStore interface {
	read(ctx context.Context, key string) (storedObject, error)
	remove(ctx context.Context, key string) error
}

type s3Native struct {
	c      *s3.Client
	bucket string
}

func (n s3Native) read(ctx context.Context, key string) (storedObject, error) {
	out, err := n.c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(n.bucket), Key: aws.String(key)})
	if err != nil {
		return storedObject{}, err
	}
	defer out.Body.Close()
	data, err := io.ReadAll(out.Body)
	return storedObject{data: data, contentType: aws.ToString(out.ContentType), metadata: out.Metadata,
		version: aws.ToString(out.ETag) + " " + aws.ToTime(out.LastModified).String()}, err
}

func (n s3Native) remove(ctx context.Context, key string) error {
	_, err := n.c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(n.bucket), Key: aws.String(key)})
	return err
}

type gcsNative struct{ b *storage.BucketHandle }

func (n gcsNative) read(ctx context.Context, key string) (storedObject, error) {
	o := n.b.Object(key)
	attrs, err := o.Attrs(ctx)
	if err != nil {
		return storedObject{}, err
	}
	r, err := o.NewReader(ctx)
	if err != nil {
		return storedObject{}, err
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	return storedObject{data: data, contentType: attrs.ContentType, metadata: attrs.Metadata,
		version: fmt.Sprint(attrs.Generation)}, err
}

func (n gcsNative) remove(ctx context.Context, key string) error { return n.b.Object(key).Delete(ctx) }

func nativeFor(t *testing.T, srv *storetest.Server) nativeStore {
	switch srv.Kind {
	case "s3":
		return s3Native{c: srv.S3Client(), bucket: srv.Bucket}
	case "gs":
		return gcsNative{b: srv.GCSClient(t).Bucket(srv.Bucket)}
	default:
		return azureNative{c: srv.AzureClient(t)}
	}
}

// stateAttr is an attribute of a resource in a state file.
func stateAttr(t *testing.T, state []byte, addr, name string) string {
	t.Helper()
	var s struct {
		Resources []struct {
			Type, Name string
			Instances  []struct {
				Attributes map[string]any `json:"attributes"`
			}
		}
	}
	if err := json.Unmarshal(state, &s); err != nil {
		t.Fatalf("reading the state: %v", err)
	}
	for _, r := range s.Resources {
		if r.Type+"."+r.Name == addr && len(r.Instances) == 1 {
			return fmt.Sprint(r.Instances[0].Attributes[name])
		}
	}
	t.Fatalf("no %s in the state", addr)
	return ""
}

// A clip stored to each real store, through the real CLI on a remote state:
// the recorded SHA-256 is the bytes' as the store's own client reads them,
// with Content-Type and metadata; a second apply and a fresh runner make no
// download and no upload; an object deleted outside Terraform is planned and
// written again from the same task; one clip billed throughout; and no
// storage credential is in the state, the plan or a TF_LOG=TRACE log. Once
// the vendor forgets the task, the plan names the object as the clip's stored
// copy and nothing is submitted.
func TestAccStoredClips_realStores(t *testing.T) {
	for _, start := range []func(testing.TB) *storetest.Server{storetest.StartS3, storetest.StartGCS, storetest.StartAzurite} {
		srv := start(t)
		t.Run(srv.Kind, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			native := nativeFor(t, srv)
			mock := acctest.NewMock(t, withClipBytes)
			backend := acctest.NewHTTPBackend(t)
			key := "campaign/teaser.mp4"
			cfg := cliProvider + backend.Block() + objectConfig(mock, "a stored clip on "+srv.Kind, srv.URL(key), "")
			var logs []string
			runner := func() *acctest.Workdir {
				w := acctest.NewWorkdir(t)
				for k, v := range srv.Env {
					if err := w.Setenv(k, v); err != nil {
						t.Fatal(err)
					}
				}
				logPath := filepath.Join(w.Dir, "trace.log")
				logs = append(logs, logPath)
				if err := w.TF.SetLog("TRACE"); err != nil {
					t.Fatal(err)
				}
				if err := w.TF.SetLogPath(logPath); err != nil {
					t.Fatal(err)
				}
				if err := w.Write(cfg); err != nil {
					t.Fatal(err)
				}
				if err := w.Init(ctx); err != nil {
					t.Fatal(err)
				}
				return w
			}
			expect := func(step string, submissions, downloads int) {
				t.Helper()
				if got := mock.Submissions(); got != submissions {
					t.Errorf("%s: %d submission(s), want %d", step, got, submissions)
				}
				if got := mock.ClipDownloads(); got != downloads {
					t.Errorf("%s: %d clip download(s), want %d", step, got, downloads)
				}
			}

			first := runner()
			if err := first.Apply(ctx); err != nil {
				t.Fatal(err)
			}
			expect("first apply", 1, 1)
			obj, err := native.read(ctx, key)
			if err != nil {
				t.Fatalf("reading the object back: %v", err)
			}
			taskID := stateAttr(t, backend.State(), storedAddr, "task_id")
			want, err := mock.ReferenceClip(taskID)
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(obj.data)
			got := hex.EncodeToString(sum[:])
			if got != want.SHA256 || stateAttr(t, backend.State(), storedAddr, "sha256") != got {
				t.Errorf("object sha256 %s, state's %s, the clip's %s", got, stateAttr(t, backend.State(), storedAddr, "sha256"), want.SHA256)
			}
			if obj.contentType != "video/mp4" || obj.metadata["sha256"] != got || obj.metadata["task"] != taskID ||
				obj.metadata["model"] != "videogen-1" {
				t.Errorf("object's Content-Type %q, metadata %v: want video/mp4, sha256 %s, task %s, model videogen-1",
					obj.contentType, obj.metadata, got, taskID)
			}

			if err := first.Apply(ctx); err != nil {
				t.Fatal(err)
			}
			expect("second apply", 1, 1)
			expectVersion(t, native, key, obj.version, "second apply")

			fresh := runner()
			if changes, err := fresh.Plan(ctx); err != nil || changes {
				t.Fatalf("fresh runner's plan: changes %v, %v; want none", changes, err)
			}
			if err := fresh.Apply(ctx); err != nil {
				t.Fatal(err)
			}
			expect("fresh runner", 1, 1)
			expectVersion(t, native, key, obj.version, "fresh runner")

			if err := native.remove(ctx, key); err != nil {
				t.Fatal(err)
			}
			planned, err := fresh.PlanOut(ctx, filepath.Join(fresh.Dir, "restore.tfplan"), storedAddr)
			if err != nil || planned == nil {
				t.Fatalf("plan after the object was deleted: %v, %v; want it planned again", planned, err)
			}
			// Shown before any apply: Terraform 1.0 refuses to show a saved
			// plan whose state has changed since ("Saved plan is stale").
			show, err := fresh.TF.ShowPlanFileRaw(ctx, filepath.Join(fresh.Dir, "restore.tfplan"))
			if err != nil {
				t.Fatal(err)
			}
			if err := fresh.Apply(ctx); err != nil {
				t.Fatal(err)
			}
			expect("restore", 1, 2)
			restored, err := native.read(ctx, key)
			if err != nil || !bytes.Equal(restored.data, want.Data) {
				t.Errorf("restored object: %d bytes, %v; want the clip", len(restored.data), err)
			}

			// The vendor forgets the task: the plan names this object as the
			// stored copy of a clip the service no longer holds, and the apply
			// submits nothing.
			mock.DeleteTask(taskID)
			out, err := fresh.Start(ctx, "plan", "-input=false", "-no-color").Wait()
			if err != nil {
				t.Fatalf("plan after the vendor forgot the task: %v\n%s", err, out)
			}
			if flat := strings.Join(strings.Fields(strings.ReplaceAll(out, "│", " ")), " "); !strings.Contains(flat, "Stored Copy of a Clip the Service No Longer Holds") ||
				!strings.Contains(flat, srv.Kind+"://"+srv.Bucket+"/"+key) || !strings.Contains(flat, "Clip No Longer Held by the Service") {
				t.Errorf("the plan after the vendor forgot the task does not name the stored copy %s://%s/%s:\n%s", srv.Kind, srv.Bucket, key, out)
			}
			if err := fresh.Apply(ctx); err != nil {
				t.Fatal(err)
			}
			expect("vendor forgot", 1, 2)

			seen := map[string]string{"state": string(backend.State()), "plan": show}
			for _, p := range logs {
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				seen[p] = string(b)
			}
			for _, name := range []string{"AWS_SECRET_ACCESS_KEY", "AZURE_STORAGE_KEY"} {
				secret := srv.Env[name]
				if secret == "" {
					continue
				}
				for where, text := range seen {
					if strings.Contains(text, secret) || strings.Contains(text, url.QueryEscape(secret)) {
						t.Errorf("%s appears in %s", name, where)
					}
				}
			}
			if len(seen[logs[0]]) == 0 {
				t.Error("the TRACE log is empty: the secrets check read nothing")
			}
		})
	}
}

func expectVersion(t *testing.T, native nativeStore, key, want, step string) {
	t.Helper()
	obj, err := native.read(t.Context(), key)
	if err != nil {
		t.Fatalf("%s: %v", step, err)
	}
	if obj.version != want {
		t.Errorf("%s: the object was written again (version %s, was %s); want no upload", step, obj.version, want)
	}
}

// azureNative reads and deletes blobs with Azure's own SDK.
type azureNative struct{ c *container.Client }

func (n azureNative) read(ctx context.Context, key string) (storedObject, error) {
	resp, err := n.c.NewBlobClient(key).DownloadStream(ctx, nil)
	if err != nil {
		return storedObject{}, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	md := map[string]string{}
	for k, v := range resp.Metadata {
		if v != nil {
			md[strings.ToLower(k)] = *v // Azure's names are case-insensitive; its SDK capitalises them
		}
	}
	obj := storedObject{data: data, metadata: md}
	if resp.ContentType != nil {
		obj.contentType = *resp.ContentType
	}
	if resp.ETag != nil {
		obj.version = string(*resp.ETag)
	}
	return obj, err
}

func (n azureNative) remove(ctx context.Context, key string) error {
	_, err := n.c.NewBlobClient(key).Delete(ctx, nil)
	return err
}

// uploadGate stands between the provider and the S3 server and, in each
// request that carries the clip's bytes (a PUT of the object or of a part,
// not a copy), lets heldAfter bytes through to the server and holds the rest
// until the provider gives the request up (interrupted or killed), so that
// the test interrupts the run while the clip is half uploaded, whatever the
// machine's speed. The server then sees the body end early.
type uploadGate struct {
	proxy  *httputil.ReverseProxy
	once   sync.Once
	held   chan struct{} // closed once an upload is held
	stop   chan struct{} // closed when the test ends: no request stays held
	mu     sync.Mutex
	closed bool // lets every request through
}

const heldAfter = 8 << 20

func (g *uploadGate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	open := g.closed
	g.mu.Unlock()
	if !open && r.Method == http.MethodPut && r.Header.Get("X-Amz-Copy-Source") == "" {
		r.Body = &heldBody{r: r.Body, gate: g, ctx: r.Context()}
	}
	g.proxy.ServeHTTP(w, r)
}

func (g *uploadGate) open() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
}

// heldBody passes heldAfter bytes of a request body, then blocks until the
// provider gives the request up. It reads the rest from the provider without
// passing it on: a server learns that its client went away only by reading,
// so a read of the rest is where an interrupted or killed provider shows
// (or, once the body was read whole, the request's context ending).
type heldBody struct {
	r       io.ReadCloser
	gate    *uploadGate
	ctx     context.Context
	n       int
	drained bool
}

func (b *heldBody) Read(p []byte) (int, error) {
	if b.n >= heldAfter {
		b.gate.once.Do(func() { close(b.gate.held) })
		if !b.drained {
			b.drained = true
			if _, err := io.Copy(io.Discard, b.r); err != nil {
				return 0, err
			}
		}
		select {
		case <-b.ctx.Done():
			return 0, b.ctx.Err()
		case <-b.gate.stop:
			return 0, io.ErrUnexpectedEOF
		}
	}
	if len(p) > heldAfter-b.n {
		p = p[:heldAfter-b.n]
	}
	n, err := b.r.Read(p)
	b.n += n
	return n, err
}

func (b *heldBody) Close() error { return b.r.Close() }

// An upload interrupted halfway, by Ctrl-C and by SIGKILL of Terraform and the
// provider: no object at the key and, once a plain apply has finished the
// clip, no multipart upload left behind; one clip billed.
func TestAccStoredClips_interruptedUpload(t *testing.T) {
	for name, interrupt := range map[string]func(*acctest.Run) error{
		"SIGINT":  func(r *acctest.Run) error { return r.Signal(os.Interrupt) },
		"SIGKILL": func(r *acctest.Run) error { return r.KillGroup() },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			srv := storetest.StartS3(t)
			target, err := url.Parse(srv.Endpoint)
			if err != nil {
				t.Fatal(err)
			}
			gate := &uploadGate{proxy: httputil.NewSingleHostReverseProxy(target), held: make(chan struct{}), stop: make(chan struct{})}
			front := httptest.NewServer(gate)
			t.Cleanup(front.Close)
			t.Cleanup(func() { close(gate.stop) }) // before front.Close: cleanups run last first
			mock := acctest.NewMock(t, func(c *mockapi.Config) { c.ClipBytes = 20 << 20 })
			key := "interrupted/teaser.mp4"
			dest := "s3://" + srv.Bucket + "/" + key + "?" + url.Values{
				"endpoint": {front.URL}, "use_path_style": {"true"}, "region": {storetest.S3Region},
			}.Encode()
			w := acctest.NewWorkdir(t)
			for k, v := range srv.Env {
				if err := w.Setenv(k, v); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Write(cliProvider + objectConfig(mock, "an interrupted upload", dest, "")); err != nil {
				t.Fatal(err)
			}
			if err := w.Init(ctx); err != nil {
				t.Fatal(err)
			}
			run := w.Start(ctx, "apply", "-auto-approve", "-input=false")
			select {
			case <-gate.held:
			case <-time.After(10 * time.Minute): // a liveness bound, not a timing assertion
				t.Fatalf("nothing was uploaded: %s", run.Output())
			}
			if err := interrupt(run); err != nil {
				t.Fatal(err)
			}
			out, err := run.Wait()
			if err == nil {
				t.Fatalf("the interrupted apply succeeded: %s", out)
			}
			t.Logf("the interrupted apply: %v\n%s", err, out)
			// The server finishes the cut request on its own time, after the
			// run has ended: it logs the request once it has taken or
			// refused it.
			lctx, cancel := context.WithTimeout(ctx, 5*time.Minute) // a liveness bound, not a timing assertion
			line, err := srv.AwaitLogLine(lctx, "| PUT |", "/"+srv.Bucket+"/"+key+" |")
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("the server, on the cut upload: %s", line)
			c := srv.S3Client()
			if _, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(srv.Bucket), Key: aws.String(key)}); err == nil {
				t.Error("an object is at the key after the interrupted upload")
			}
			gate.open()
			if err := w.Apply(ctx); err != nil {
				t.Fatal(err)
			}
			obj, err := s3Native{c: c, bucket: srv.Bucket}.read(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			want, err := mock.ReferenceClip(obj.metadata["task"])
			if err != nil || string(obj.data) != string(want.Data) {
				t.Errorf("the object after the re-apply is not the clip (%d bytes, %v)", len(obj.data), err)
			}
			uploads, err := c.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: aws.String(srv.Bucket)})
			if err != nil {
				t.Fatal(err)
			}
			if len(uploads.Uploads) != 0 {
				t.Errorf("%d multipart upload(s) left behind after the re-apply", len(uploads.Uploads))
			}
			if got := mock.Submissions(); got != 1 {
				t.Errorf("%d submission(s), want 1", got)
			}
		})
	}
}

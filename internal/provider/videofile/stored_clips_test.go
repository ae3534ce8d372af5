package videofile_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/storage"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"google.golang.org/api/iterator"

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
	// list names the objects whose keys start with prefix.
	list(ctx context.Context, prefix string) ([]string, error)
	// unfinished names what unfinished uploads to key keep at the store
	// that the store's API shows: S3's multipart uploads, Azure's
	// uncommitted blocks. A GCS resumable upload is not listed by its API;
	// it never is an object, which list shows.
	unfinished(ctx context.Context, key string) ([]string, error)
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

func (n s3Native) list(ctx context.Context, prefix string) ([]string, error) {
	out, err := n.c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(n.bucket), Prefix: aws.String(prefix)})
	if err != nil {
		return nil, err
	}
	var names []string
	for _, o := range out.Contents {
		names = append(names, aws.ToString(o.Key))
	}
	return names, nil
}

func (n s3Native) unfinished(ctx context.Context, key string) ([]string, error) {
	out, err := n.c.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: aws.String(n.bucket), Prefix: aws.String(key)})
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, u := range out.Uploads {
		ids = append(ids, "multipart upload "+aws.ToString(u.UploadId))
	}
	return ids, nil
}

type gcsNative struct{ b *storage.BucketHandle }

func (n gcsNative) list(ctx context.Context, prefix string) ([]string, error) {
	var names []string
	it := n.b.Objects(ctx, &storage.Query{Prefix: prefix})
	for {
		a, err := it.Next()
		if errors.Is(err, iterator.Done) {
			return names, nil
		}
		if err != nil {
			return nil, err
		}
		names = append(names, a.Name)
	}
}

func (gcsNative) unfinished(context.Context, string) ([]string, error) { return nil, nil }

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
	t.Parallel()
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
			// This apply read no videogen_video (nothing of it changed): the
			// model comes from the file's state.
			if restored.metadata["task"] != taskID || restored.metadata["model"] != "videogen-1" || restored.metadata["sha256"] != got {
				t.Errorf("restored object's metadata %v: want task %s, model videogen-1, sha256 %s", restored.metadata, taskID, got)
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

func (n azureNative) list(ctx context.Context, prefix string) ([]string, error) {
	var names []string
	pager := n.c.NewListBlobsFlatPager(&container.ListBlobsFlatOptions{Prefix: &prefix})
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, b := range page.Segment.BlobItems {
			names = append(names, *b.Name)
		}
	}
	return names, nil
}

func (n azureNative) unfinished(ctx context.Context, key string) ([]string, error) {
	resp, err := n.c.NewBlockBlobClient(key).GetBlockList(ctx, blockblob.BlockListTypeUncommitted, nil)
	if bloberror.HasCode(err, bloberror.BlobNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var blocks []string
	for _, b := range resp.UncommittedBlocks {
		blocks = append(blocks, fmt.Sprintf("uncommitted block of %d bytes", *b.Size))
	}
	return blocks, nil
}

func (n azureNative) remove(ctx context.Context, key string) error {
	_, err := n.c.NewBlobClient(key).Delete(ctx, nil)
	return err
}

// interruptedClip is the size of the clip an interrupted test stores, and
// heldAfter how much of it the mock sends before it holds the download.
// What the mock has sent and the provider not yet read waits in the socket's
// buffers (a few MiB on loopback), so the provider has read well over one
// 5 MiB part of a GCS or Azure upload when the download stops.
const (
	interruptedClip = 32 << 20
	heldAfter       = 24 << 20
)

// awaitPartTaken waits until the store has taken a part of the upload to key
// (a GCS chunk, an Azure block): the upload is then in flight, unfinished.
// S3's one streamed PUT has no part to wait for; it is in flight while the
// download that feeds it is held.
func awaitPartTaken(ctx context.Context, t *testing.T, srv *storetest.Server, key string) {
	t.Helper()
	var words []string
	switch srv.Kind {
	case "gs":
		// A chunk, not the request that starts the session: Google's
		// client is answered 200 for a chunk taken (it asks for no 308).
		words = []string{"/upload/storage/v1/b/" + srv.Bucket + "/o?uploadType=resumable&name=" + url.QueryEscape(key) + "&upload_id=", " 200 "}
	case "azblob":
		words = []string{"PUT /" + storetest.AzuriteAccount + "/" + srv.Bucket + "/" + url.PathEscape(key) + "?", "comp=block", " 201 "}
	default:
		return
	}
	awaitLogLine(ctx, t, srv, words...)
}

// awaitCutUpload waits until the store has answered the request the
// interruption cut, where that request alone could still store the object:
// S3's PUT, which versitygw logs once it has refused (or, were the body a
// plain one, taken) it. A GCS or Azure object appears only on a request that
// finishes the upload (the last chunk, the block list), which an
// interrupted provider never sends.
func awaitCutUpload(ctx context.Context, t *testing.T, srv *storetest.Server, key string) {
	t.Helper()
	if srv.Kind == "s3" {
		t.Logf("the server, on the cut upload: %s", awaitLogLine(ctx, t, srv, "| PUT |", "/"+srv.Bucket+"/"+key+" |"))
	}
}

func awaitLogLine(ctx context.Context, t *testing.T, srv *storetest.Server, words ...string) string {
	t.Helper()
	lctx, cancel := context.WithTimeout(ctx, 5*time.Minute) // a liveness bound, not a timing assertion
	defer cancel()
	line, err := srv.AwaitLogLine(lctx, words...)
	if err != nil {
		t.Fatalf("%v\n%s", err, srv.Log())
	}
	return line
}

// An upload interrupted halfway, by Ctrl-C and by SIGKILL of Terraform and the
// provider, on each real store: no object at the key and, once a plain apply
// has stored the clip, nothing of the interrupted upload left (S3: no
// multipart upload; Azure: no uncommitted block; GCS: no object but the
// clip); one clip billed. The mock holds the clip's download halfway, so the
// run is interrupted while the upload is in flight, whatever the machine's
// speed.
func TestAccStoredClips_interruptedUpload(t *testing.T) {
	t.Parallel()
	for _, start := range []func(testing.TB) *storetest.Server{storetest.StartS3, storetest.StartGCS, storetest.StartAzurite} {
		srv := start(t)
		for _, sig := range []struct {
			name      string
			interrupt func(*acctest.Run) error
		}{
			{"SIGINT", func(r *acctest.Run) error { return r.Signal(os.Interrupt) }},
			{"SIGKILL", func(r *acctest.Run) error { return r.KillGroup() }},
		} {
			t.Run(srv.Kind+"/"+sig.name, func(t *testing.T) {
				t.Parallel()
				ctx := t.Context()
				native := nativeFor(t, srv)
				mock := acctest.NewMock(t, func(c *mockapi.Config) { c.ClipBytes = interruptedClip })
				held, release := mock.HoldClipBodies(heldAfter)
				t.Cleanup(release) // before the mock closes: cleanups run last first
				key := "interrupted/" + sig.name + ".mp4"
				w := acctest.NewWorkdir(t)
				for k, v := range srv.Env {
					if err := w.Setenv(k, v); err != nil {
						t.Fatal(err)
					}
				}
				if err := w.Write(cliProvider + objectConfig(mock, "an interrupted upload", srv.URL(key), "")); err != nil {
					t.Fatal(err)
				}
				if err := w.Init(ctx); err != nil {
					t.Fatal(err)
				}
				run := w.Start(ctx, "apply", "-auto-approve", "-input=false")
				select {
				case <-held:
				case <-time.After(10 * time.Minute): // a liveness bound, not a timing assertion
					t.Fatalf("the clip was never downloaded: %s", run.Output())
				}
				awaitPartTaken(ctx, t, srv, key)
				if err := sig.interrupt(run); err != nil {
					t.Fatal(err)
				}
				out, err := run.Wait()
				if err == nil {
					t.Fatalf("the interrupted apply succeeded: %s", out)
				}
				t.Logf("the interrupted apply: %v\n%s", err, out)
				awaitCutUpload(ctx, t, srv, key)
				if names, err := native.list(ctx, key); err != nil || len(names) != 0 {
					t.Errorf("objects after the interrupted upload: %v, %v; want none", names, err)
				}
				left, err := native.unfinished(ctx, key)
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("what the interrupted upload left unfinished: %v", left)
				if srv.Kind == "azblob" && len(left) == 0 {
					t.Error("no uncommitted block after the interrupted upload: it was not in flight")
				}

				release()
				if err := w.Apply(ctx); err != nil {
					t.Fatal(err)
				}
				obj, err := native.read(ctx, key)
				if err != nil {
					t.Fatal(err)
				}
				want, err := mock.ReferenceClip(obj.metadata["task"])
				if err != nil || !bytes.Equal(obj.data, want.Data) {
					t.Errorf("the object after the re-apply is not the clip (%d bytes, %v)", len(obj.data), err)
				}
				if names, err := native.list(ctx, key); err != nil || len(names) != 1 || names[0] != key {
					t.Errorf("objects after the re-apply: %v, %v; want only %s", names, err, key)
				}
				if left, err := native.unfinished(ctx, key); err != nil || len(left) != 0 {
					t.Errorf("left unfinished after the re-apply: %v, %v; want nothing", left, err)
				}
				if got := mock.Submissions(); got != 1 {
					t.Errorf("%d submission(s), want 1", got)
				}
			})
		}
	}
}

// Package clipstore keeps a clip's bytes where a team keeps its assets: an
// object in S3 (or any S3-compatible store), Google Cloud Storage, Azure Blob
// Storage, or a file in a directory, each named by one URL:
//
//	s3://bucket/key?region=eu-west-1
//	s3://bucket/key?endpoint=https://minio.example:9000&use_path_style=true&region=us-east-1
//	gs://bucket/key
//	azblob://container/key            (the account comes from AZURE_STORAGE_ACCOUNT)
//	file:///absolute/directory/clip.mp4
//
// It is the only package that talks to object stores; the provider decides
// what to store and when, and phrases the diagnostics.
//
// # API
//
//   - Parse(url) (Location, error): checks a destination without any network
//     use, so a plan can refuse a bad one. Location.String() is the form to
//     show; it is always redacted.
//   - Open(ctx, url) / OpenLocation(ctx, loc) (*Store, error); Store.Close.
//   - Store.Stat(ctx) (Object, error): size, Content-Type and the clip's
//     metadata (task, model, SHA-256) from the store's attributes, without
//     reading the object. Object.Holds(size, sha256) says whether it is the
//     recorded clip: only when the stored SHA-256 and size both match.
//   - Store.Write(ctx, r, Meta, WriteOptions) (Written, error): streams r to
//     the object with bounded memory, computing its SHA-256 on the way, and
//     stores Content-Type video/mp4 and the metadata task, model and sha256.
//     Unless WriteOptions.Overwrite, it never replaces an object that holds
//     other bytes (the error is ErrExists); an object that already holds the
//     same bytes is reported as Written.Unchanged. Callers that can should
//     Stat first: an object that Holds the clip needs no upload at all.
//   - Store.NewReader(ctx) (io.ReadCloser, error), Store.Delete(ctx).
//   - Store.AbortIncompleteUploads(ctx) (int, error): aborts the S3 multipart
//     uploads of the key that a killed process left (Write does it first).
//   - Errors: every error from a Store is an *Error whose message is
//     redacted; errors.Is(err, ErrNotFound | ErrExists | ErrPermission)
//     classifies it (KindOf too), so the caller can say what to do.
//   - Redact(text) string: the one function that removes credentials
//     (user info, presigned query strings, signatures, keys, tokens) from
//     anything shown: errors, logs, plans.
//
// # Credentials
//
// No credential is ever an argument. Each cloud's own chain is used, as its
// CLI would: AWS environment variables, shared config profile (?profile=),
// web identity and instance roles; Google application default credentials
// (GOOGLE_APPLICATION_CREDENTIALS, workload identity, gcloud's login), or
// STORAGE_EMULATOR_HOST for an emulator; Azure AZURE_STORAGE_ACCOUNT with
// AZURE_STORAGE_KEY, AZURE_STORAGE_SAS_TOKEN, AZURE_STORAGE_CONNECTION_STRING
// or the default Azure credential (workload or managed identity, az login).
// A URL carrying credentials (user info, a signature, a SAS token) is refused
// by Parse, so none can reach state or a plan.
//
// # Atomicity and conditional writes
//
// A reader never sees a partial object. On S3 a clip of known size is one
// PUT whose body is aws-chunked with a trailing CRC32, sent only once the
// whole clip was read: the store takes the object only after the final
// chunk and a matching trailer, so a PUT cut short is refused (a plain PUT
// cut short may be kept as the object; versitygw keeps it). A clip of
// unknown size is a multipart upload, visible only when it completes, which
// Write aborts when the stream fails or its context is cancelled; GCS makes a
// resumable upload visible only when it is finalized; Azure commits the
// block list only at the end (uncommitted blocks are discarded by the
// service); a file is written to a temporary file in the same directory and
// renamed. Write sends If-None-Match: * (S3 and GCS's ifGenerationMatch=0,
// Azure's If-None-Match: *), so an object created by someone else meanwhile
// is not replaced; fileblob checks and renames under a process-wide lock,
// which does not guard against another process writing the same path.
//
// The SHA-256 is known only once the stream ends, after the store has taken
// the object's metadata, so Write records it in a second, conditional step
// that changes only the metadata of the object it just wrote (S3: a copy of
// the object onto itself, conditional on its ETag; GCS: a metadata update
// conditional on its generation; Azure: Set Blob Metadata conditional on its
// ETag; a file: its attributes file). Until that step ends, Stat shows the
// object without a SHA-256, which Holds treats as not the clip; an object
// left so by an interrupted run is finished by the next Write of the same
// task, after reading it back to check its bytes.
package clipstore

package clipstore

import "time"

// The metadata names Write stores with every clip. They are single words,
// valid as S3 (x-amz-meta-*), GCS and Azure metadata names alike, so a
// bucket listing shows them as written.
const (
	MetaTask   = "task"
	MetaModel  = "model"
	MetaSHA256 = "sha256"
)

// ContentType is the Content-Type Write stores.
const ContentType = "video/mp4"

// Object is what Stat reads from the store's attributes, without reading
// the object.
type Object struct {
	Size        int64
	ContentType string
	// SHA256 is the lowercase hex SHA-256 Write recorded, "" when the object
	// has none (written by something else, or a write that did not finish).
	SHA256  string
	TaskID  string
	Model   string
	ModTime time.Time
	// Metadata is every metadata pair, names lowercased.
	Metadata map[string]string
}

// Holds says whether the object is the clip with this size and SHA-256: only
// when both are known and equal, as a doubt means a different object.
func (o Object) Holds(size int64, sha256 string) bool {
	return sha256 != "" && o.SHA256 == sha256 && o.Size == size
}

// Meta names the clip an object holds.
type Meta struct {
	TaskID string
	Model  string
}

// WriteOptions changes what Write may do.
type WriteOptions struct {
	// Overwrite lets Write replace an object that holds other bytes. Without
	// it, such an object is left as it is and Write fails with ErrExists.
	Overwrite bool
	// Size is the stream's length when the caller knows it (a download's
	// Content-Length), 0 when not. S3 then takes the clip in one streamed PUT
	// (up to 5 GiB) rather than a multipart upload: no parts held in memory,
	// nothing left behind when it is interrupted, and the server writes the
	// bytes once. A stream of another length fails the write.
	Size int64
}

// Written is what Write stored.
type Written struct {
	Size   int64
	SHA256 string
	// Unchanged: the object already held these bytes (from an earlier run),
	// and was left as it was.
	Unchanged bool
}

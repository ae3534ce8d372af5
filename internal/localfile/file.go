package localfile

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// File is a file being written atomically. Bytes go to a temporary file in the
// target's directory (so that the final rename stays on one file system) and into
// a running SHA-256. Commit makes the file durable and moves it into place;
// until then the target is untouched, and Discard leaves nothing behind.
type File struct {
	path string
	mode os.FileMode
	tmp  *os.File
	hash *hasher
	size int64
	// written is how much of the file was handed to startWriteback.
	written int64
	done    bool
	// noReplace makes Commit fail with ErrOccupied rather than replace whatever
	// appeared at path since the caller looked.
	noReplace bool
}

// writebackBytes is how much a File writes before it asks the kernel to start
// putting it on disk (see startWriteback).
const writebackBytes = 8 << 20

// Summary describes a committed file.
type Summary struct {
	// SHA256 is the lowercase hex digest of the content.
	SHA256 string
	Size   int64
}

// Create prepares to write path with the permissions mode. Missing parent
// directories are created with exactly dirMode, whatever the umask; existing ones
// are left as they are. The caller must call Commit or Discard.
func Create(path string, mode, dirMode os.FileMode) (*File, error) {
	dir := filepath.Dir(path)
	if err := mkdirAll(dir, dirMode); err != nil {
		return nil, &Error{Op: "creating the directory " + dir, Err: err}
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.part")
	if err != nil {
		return nil, &Error{Op: "creating a temporary file in " + dir, Err: err}
	}
	return &File{path: path, mode: mode, tmp: tmp, hash: newHasher()}, nil
}

// Write fills the file at path through fill and commits it when fill succeeds.
// When fill or the commit fails, nothing is left behind: not the temporary file,
// and not a changed target. Parent directories it created stay.
func Write(path string, mode, dirMode os.FileMode, fill func(*File) error) (Summary, error) {
	f, err := Create(path, mode, dirMode)
	if err != nil {
		return Summary{}, err
	}
	defer f.Discard() //nolint:errcheck // the first error is the one that matters
	if err := fill(f); err != nil {
		return Summary{}, err
	}
	return f.Commit()
}

// WriteNew is Write for a path the caller found empty: when something is at path
// by the time the file is to be put in place, it fails with ErrOccupied and
// leaves that alone.
func WriteNew(path string, mode, dirMode os.FileMode, fill func(*File) error) (Summary, error) {
	f, err := Create(path, mode, dirMode)
	if err != nil {
		return Summary{}, err
	}
	f.noReplace = true
	defer f.Discard() //nolint:errcheck // the first error is the one that matters
	if err := fill(f); err != nil {
		return Summary{}, err
	}
	return f.Commit()
}

// Write writes to the temporary file and the checksum together.
func (f *File) Write(p []byte) (int, error) {
	n, err := f.tmp.Write(p)
	f.hash.write(p[:n])
	f.size += int64(n)
	if f.size-f.written >= writebackBytes {
		startWriteback(f.tmp, f.written, f.size-f.written)
		f.written = f.size
	}
	if err != nil {
		return n, &Error{Op: "writing " + f.tmp.Name(), Err: err}
	}
	return n, nil
}

// Reset empties the file and its checksum, for a writer that starts over.
func (f *File) Reset() error {
	f.hash.stop()
	f.hash = newHasher()
	f.size, f.written = 0, 0
	if _, err := f.tmp.Seek(0, io.SeekStart); err != nil {
		return &Error{Op: "rewinding " + f.tmp.Name(), Err: err}
	}
	if err := f.tmp.Truncate(0); err != nil {
		return &Error{Op: "truncating " + f.tmp.Name(), Err: err}
	}
	return nil
}

// Commit flushes the file to disk, sets its permissions and renames it over the
// target. When it fails, the temporary file is removed and the target is as it
// was.
func (f *File) Commit() (Summary, error) {
	if f.done {
		return Summary{}, errors.New("localfile: Commit after Commit or Discard")
	}
	sum := f.hash.sum()
	fail := func(op string, err error) (Summary, error) {
		_ = f.Discard()
		return Summary{}, &Error{Op: op, Err: err}
	}
	if err := f.tmp.Sync(); err != nil {
		return fail("flushing "+f.tmp.Name()+" to disk", err)
	}
	if err := f.tmp.Chmod(f.mode); err != nil {
		return fail("setting the permissions of "+f.tmp.Name(), err)
	}
	if err := f.tmp.Close(); err != nil {
		return fail("closing "+f.tmp.Name(), err)
	}
	place := os.Rename
	if f.noReplace {
		place = placeNew
	}
	if err := place(f.tmp.Name(), f.path); err != nil {
		return fail("moving "+f.tmp.Name()+" into place at "+f.path, err)
	}
	f.done = true
	syncDir(filepath.Dir(f.path))
	return Summary{SHA256: hex.EncodeToString(sum), Size: f.size}, nil
}

// Discard closes and removes the temporary file. It does nothing after Commit,
// so that it can be deferred.
func (f *File) Discard() error {
	if f.done {
		return nil
	}
	f.done = true
	f.hash.stop()
	_ = f.tmp.Close()
	if err := os.Remove(f.tmp.Name()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return &Error{Op: "removing " + f.tmp.Name(), Err: err}
	}
	return nil
}

// SHA256 returns the lowercase hex SHA-256 of the file at path.
func SHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.CopyBuffer(h, f, make([]byte, 256<<10)); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// placeNew puts tmp at path only when nothing is there. A hard link, unlike a
// rename, fails when the name exists, and does so atomically, so a file that
// appears while the clip downloads is never replaced.
func placeNew(tmp, path string) error {
	err := os.Link(tmp, path)
	switch {
	case err == nil:
		_ = os.Remove(tmp) // the clip is in place; a leftover hidden .part is harmless
		return nil
	case errors.Is(err, fs.ErrExist):
		return ErrOccupied
	}
	// A file system without hard links: look, then rename, which leaves only
	// the moment between the two for a racing writer.
	switch _, lerr := os.Lstat(path); {
	case lerr == nil:
		return ErrOccupied
	case !errors.Is(lerr, fs.ErrNotExist):
		return lerr
	}
	return os.Rename(tmp, path)
}

package localfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Canonical returns path cleaned and made absolute against the working
// directory, the form in which two spellings of one file compare equal
// (`out/x.mp4`, `./out/x.mp4`, `out/../out/x.mp4` and `/work/out/x.mp4` run from
// `/work`). Symbolic links are not resolved: a link is a file of its own.
func Canonical(path string) (string, error) {
	return filepath.Abs(path)
}

// SamePath reports whether a and b name the same file once both are Canonical.
func SamePath(a, b string) bool {
	if a == b {
		return true
	}
	ca, errA := Canonical(a)
	cb, errB := Canonical(b)
	return errA == nil && errB == nil && ca == cb
}

// CheckTarget reports, without writing anything, why a file could not be
// created at path: path is a directory, or something other than a directory
// is in the way of its parent, or the nearest existing parent cannot be written
// by this process (missing parents would be created inside it). A nil result
// is no promise, since the disk may change or fill up before the write.
func CheckTarget(path string) error {
	abs, err := Canonical(path)
	if err != nil {
		return &Error{Op: "resolving " + path, Err: err}
	}
	// Lstat: a symbolic link at path is replaced by the file, never followed,
	// so what it points at does not matter here.
	info, err := os.Lstat(abs)
	switch {
	case err == nil && info.Mode()&fs.ModeSymlink != 0:
	case err == nil && info.IsDir():
		return &Error{Op: "checking " + path, Err: errors.New("it is an existing directory; give the path of a file inside it")}
	case err == nil && !info.Mode().IsRegular():
		return &Error{Op: "checking " + path, Err: errors.New("it exists and is not a regular file")}
	}
	for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
		info, err := os.Stat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist) && filepath.Dir(dir) != dir:
			continue
		case err != nil:
			return &Error{Op: "checking the directory " + dir, Err: err}
		case !info.IsDir():
			return &Error{Op: "checking the directory " + dir, Err: errors.New("it exists and is not a directory")}
		}
		if err := canWriteDir(dir); err != nil {
			return &Error{Op: "checking that files can be created in " + dir, Err: err}
		}
		return nil
	}
}

// mkdirAll creates dir and its missing parents with exactly mode (the umask
// aside), leaving existing directories alone.
func mkdirAll(dir string, mode os.FileMode) error {
	info, err := os.Stat(dir)
	if err == nil {
		if !info.IsDir() {
			return fmt.Errorf("%s exists and is not a directory", dir)
		}
		return nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if parent := filepath.Dir(dir); parent != dir {
		if err := mkdirAll(parent, mode); err != nil {
			return err
		}
	}
	if err := os.Mkdir(dir, mode); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil
		}
		return err
	}
	return os.Chmod(dir, mode)
}

// syncDir makes a rename durable. Where directories cannot be synced, the
// rename stands anyway.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

package localfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Found is what is at a path, compared with the clip that a file there
// should hold.
type Found struct {
	Occupant Occupant
	// Drift says how it differs from the clip ("has changed size ..."); empty
	// when it holds the clip, and when nothing is there.
	Drift string
	// Mode is a regular file's permissions.
	Mode fs.FileMode
}

// Compare looks at path for the clip whose lowercase hex SHA-256 is sum and
// whose size is size (negative: not known). A file of another size is never
// read.
func Compare(path, sum string, size int64) (Found, error) {
	occ, info, err := Inspect(path)
	found := Found{Occupant: occ}
	switch {
	case err != nil || occ == Nothing:
		return found, err
	case occ != RegularFile:
		found.Drift = "was replaced by " + occ.String()
		return found, nil
	}
	found.Mode = info.Mode().Perm()
	if size >= 0 && info.Size() != size {
		found.Drift = fmt.Sprintf("has changed size (%d bytes, the clip has %d)", info.Size(), size)
		return found, nil
	}
	got, err := SHA256(path)
	if err != nil {
		return found, &Error{Op: "reading " + path, Err: err}
	}
	if got != sum {
		found.Drift = "no longer matches the SHA-256 of the clip"
	}
	return found, nil
}

// RemoveClip removes the file at path while it holds the clip of sum and
// size; an empty sum accepts any regular file. What it leaves in place, it
// reports: Nothing when nothing is there any more (removed, or already gone).
func RemoveClip(path, sum string, size int64) (Occupant, error) {
	occ, _, err := Inspect(path)
	if err != nil || occ == Nothing || occ != RegularFile {
		return occ, err
	}
	if sum != "" {
		if holds, err := Holds(path, sum, size); err != nil || !holds {
			return occ, err
		}
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return occ, &Error{Op: "removing " + path, Err: err}
	}
	return Nothing, nil
}

// ReadClip takes the measure of a clip written before: path must be, or link
// to, a regular file that starts like an MP4 video (ErrNotMP4 otherwise).
func ReadClip(path string) (Summary, fs.FileMode, error) {
	info, err := os.Stat(path)
	switch {
	case err != nil:
		return Summary{}, 0, &Error{Op: "checking " + path, Err: err}
	case !info.Mode().IsRegular():
		return Summary{}, 0, &Error{Op: "checking " + path, Err: errors.New("not a regular file")}
	}
	if err := CheckMP4(path); err != nil {
		return Summary{}, 0, err
	}
	sum, err := SHA256(path)
	if err != nil {
		return Summary{}, 0, &Error{Op: "reading " + path, Err: err}
	}
	return Summary{SHA256: sum, Size: info.Size()}, info.Mode().Perm(), nil
}

// SetMode sets the permissions of the file at path, whatever the umask.
func SetMode(path string, mode fs.FileMode) error {
	if err := os.Chmod(path, mode); err != nil {
		return &Error{Op: "setting the permissions of " + path, Err: err}
	}
	return nil
}

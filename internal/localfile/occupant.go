package localfile

import (
	"errors"
	"io/fs"
	"os"
)

// Occupant is what already is at a path where a clip is to be written.
type Occupant int

const (
	// Nothing is at the path.
	Nothing Occupant = iota
	// RegularFile is a plain file, which may or may not hold the clip.
	RegularFile
	// Directory is a directory; no clip ever replaces one.
	Directory
	// Symlink is a symbolic link, whatever it points at. Writing a clip replaces
	// the link itself and never follows it to its target.
	Symlink
	// Special is a device, a named pipe or a socket.
	Special
)

func (o Occupant) String() string {
	switch o {
	case Nothing:
		return "nothing"
	case RegularFile:
		return "a file"
	case Directory:
		return "a directory"
	case Symlink:
		return "a symbolic link"
	}
	return "a special file (device, pipe or socket)"
}

// Inspect says what is at path, without following a symbolic link there.
func Inspect(path string) (Occupant, fs.FileInfo, error) {
	info, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Nothing, nil, nil
	case err != nil:
		return Nothing, nil, &Error{Op: "checking " + path, Err: err}
	}
	switch mode := info.Mode(); {
	case mode.IsRegular():
		return RegularFile, info, nil
	case mode.IsDir():
		return Directory, info, nil
	case mode&fs.ModeSymlink != 0:
		return Symlink, info, nil
	}
	return Special, info, nil
}

// Holds reports whether path is a regular file, not a link to one, whose size
// and lowercase hex SHA-256 are size and sum. The size is compared first, so a
// file of another size is never read.
func Holds(path, sum string, size int64) (bool, error) {
	occ, info, err := Inspect(path)
	if err != nil || occ != RegularFile || info.Size() != size {
		return false, err
	}
	got, err := SHA256(path)
	if err != nil {
		return false, &Error{Op: "reading " + path, Err: err}
	}
	return got == sum, nil
}

// ErrOccupied is the error of a write that was not to replace anything and
// found something at its path when it came to put the file in place.
var ErrOccupied = errors.New("something else is now at the path, and it was left as it is")

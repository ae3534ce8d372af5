package localfile

// Error is a failure on the local disk. It tells a caller that the problem is the
// path it chose (permissions, a directory in the way, a full disk) rather than
// whatever the bytes came from.
type Error struct {
	// Op says what was being done, naming the file or directory concerned.
	Op  string
	Err error
}

func (e *Error) Error() string { return e.Op + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

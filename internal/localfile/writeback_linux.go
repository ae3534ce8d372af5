package localfile

import (
	"os"

	"golang.org/x/sys/unix"
)

// startWriteback asks the kernel to start writing n bytes of f from off to
// disk without waiting for them, so that the fsync of Commit finds little
// left to do instead of a whole clip. It is only a hint: an error changes
// nothing, since Commit's fsync is what makes the file durable.
func startWriteback(f *os.File, off, n int64) {
	_ = unix.SyncFileRange(int(f.Fd()), off, n, unix.SYNC_FILE_RANGE_WRITE)
}

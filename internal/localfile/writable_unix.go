//go:build unix

package localfile

import "syscall"

// canWriteDir asks the kernel whether this process may create entries in dir.
// Unlike the permission bits, access(2) also knows about read-only mounts and
// file systems such as /proc that refuse new files even to root.
func canWriteDir(dir string) error {
	const writeAndSearch = 0x2 | 0x1 // W_OK | X_OK, the same on every Unix
	return syscall.Access(dir, writeAndSearch)
}

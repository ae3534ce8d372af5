package localfile

import (
	"encoding/binary"
	"errors"
	"io"
	"os"
)

// MP4SniffBytes is how much of the start of a file LooksLikeMP4 needs.
const MP4SniffBytes = 4096

// LooksLikeMP4 walks the ISO base media boxes at the start of head (the first
// MP4SniffBytes are enough) and accepts it when an ftyp box comes before anything
// that is not a box. It tells a clip from an HTML error page saved in its place.
func LooksLikeMP4(head []byte) bool {
	for off := uint64(0); off+8 <= uint64(len(head)); {
		size := uint64(binary.BigEndian.Uint32(head[off:]))
		typ := head[off+4 : off+8]
		if string(typ) == "ftyp" {
			return size == 0 || size == 1 || size >= 16
		}
		for _, ch := range typ {
			if ch < 0x20 || ch > 0x7e {
				return false
			}
		}
		switch {
		case size == 1 && off+16 <= uint64(len(head)):
			size = binary.BigEndian.Uint64(head[off+8:])
		case size < 8:
			return false
		}
		if size < 8 || size > uint64(len(head)) {
			return false
		}
		off += size
	}
	return false
}

// ErrNotMP4 is the file CheckMP4 looked at is something other than an MP4 video.
var ErrNotMP4 = errors.New("not an MP4 video (no ftyp box at the start of the file)")

// CheckMP4 reads the start of the file at path and returns ErrNotMP4 unless it
// looks like an MP4 video.
func CheckMP4(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, MP4SniffBytes)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return err
	}
	if !LooksLikeMP4(head[:n]) {
		return ErrNotMP4
	}
	return nil
}

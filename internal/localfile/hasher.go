package localfile

import (
	"crypto/sha256"
	"hash"
)

// hashChunks and hashChunkBytes bound the memory of a hasher: at most that many
// chunks of that size wait to be hashed, and a Write waits when all are taken.
const (
	hashChunks     = 4
	hashChunkBytes = 256 << 10
)

// hasher computes a SHA-256 on a goroutine of its own, so that hashing a large
// file overlaps with receiving and writing it instead of adding to it: a clip
// of a gigabyte takes the better part of a second to hash. Write copies the
// bytes into one of a few recycled chunks, which are allocated only as needed;
// sum waits until every chunk is hashed. The File that owns it ends it with
// sum or stop, always.
type hasher struct {
	h    hash.Hash
	work chan []byte
	free chan []byte
	done chan struct{}
}

func newHasher() *hasher {
	s := &hasher{h: sha256.New(), work: make(chan []byte, hashChunks), free: make(chan []byte, hashChunks),
		done: make(chan struct{})}
	for range hashChunks {
		s.free <- nil
	}
	go s.run()
	return s
}

func (s *hasher) run() {
	defer close(s.done)
	for chunk := range s.work {
		s.h.Write(chunk)
		s.free <- chunk[:0]
	}
}

// write hashes a copy of p, after the bytes written before it.
func (s *hasher) write(p []byte) {
	for len(p) > 0 {
		chunk := <-s.free
		n := min(len(p), hashChunkBytes)
		chunk = append(chunk[:0], p[:n]...)
		s.work <- chunk
		p = p[n:]
	}
}

// sum waits for every byte written and returns the digest; the hasher is
// finished.
func (s *hasher) sum() []byte {
	s.stop()
	return s.h.Sum(nil)
}

// stop ends the goroutine once it has hashed what was written.
func (s *hasher) stop() {
	select {
	case <-s.done:
		return
	default:
	}
	close(s.work)
	<-s.done
}

package mockapi

import (
	"net/http"
	"sync"
)

// clipHold stops every clip download partway (HoldClipBodies).
type clipHold struct {
	after    int64
	held     chan struct{} // closed when a download first stops
	heldOnce sync.Once
	release  chan struct{} // closed by the release function
}

// HoldClipBodies makes each clip download stop after its first n bytes and
// wait there until its client goes away or the returned release is called;
// held is closed when a download first stops. A test can then interrupt a
// run while a clip is half downloaded, and so half written wherever it goes,
// however fast or slow the machine, rather than by guessing a moment. A HEAD
// and a body shorter than n are not held. After release nothing is held.
func (s *Server) HoldClipBodies(n int64) (held <-chan struct{}, release func()) {
	h := &clipHold{after: n, held: make(chan struct{}), release: make(chan struct{})}
	s.mu.Lock()
	s.clipHold = h
	s.mu.Unlock()
	var once sync.Once
	return h.held, func() {
		once.Do(func() {
			s.mu.Lock()
			if s.clipHold == h {
				s.clipHold = nil
			}
			s.mu.Unlock()
			close(h.release)
		})
	}
}

// holdingWriter passes the first hold.after bytes of a clip, flushed so that
// the client has them, then blocks until the client has gone or the hold is
// released.
type holdingWriter struct {
	http.ResponseWriter
	r    *http.Request
	hold *clipHold
	left int64
}

func (w *holdingWriter) Write(p []byte) (int, error) {
	if w.left < 0 || int64(len(p)) <= w.left {
		n, err := w.ResponseWriter.Write(p)
		if w.left >= 0 {
			w.left -= int64(n)
		}
		return n, err
	}
	n, err := w.ResponseWriter.Write(p[:w.left])
	if err != nil {
		return n, err
	}
	w.left = -1
	if err := http.NewResponseController(w.ResponseWriter).Flush(); err != nil {
		return n, err
	}
	w.hold.heldOnce.Do(func() { close(w.hold.held) })
	select {
	case <-w.r.Context().Done():
		return n, w.r.Context().Err()
	case <-w.hold.release:
	}
	m, err := w.ResponseWriter.Write(p[n:])
	return n + m, err
}

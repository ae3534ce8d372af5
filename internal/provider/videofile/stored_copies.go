package videofile

import (
	"sync"
)

// storedCopies is what this provider process knows of the objects that hold
// a task's clip: every object destination of the run that was seen holding
// its recorded SHA-256 (at refresh, at plan, once written). When the vendor
// can no longer give a clip, a file or object of the same task is written
// from one of these instead. See CONTRIBUTING.md, "Stored clips (object
// storage)".
type storedCopies struct {
	mu     sync.Mutex
	byTask map[string][]storedCopy
}

// storedCopy is one object that holds a task's clip.
type storedCopy struct {
	url    string
	sha256 string
	size   int64
}

// copiesByProvider holds one storedCopies per configured provider (each
// alias), kept beside Configured so that the provider's data need not know it.
var copiesByProvider sync.Map // Configured -> *storedCopies

// storedCopies is this provider's registry; nil, which knows nothing, before
// the provider is configured.
func (r *videoFileResource) storedCopies() *storedCopies {
	if r.data == nil {
		return nil
	}
	c, _ := copiesByProvider.LoadOrStore(r.data, &storedCopies{})
	return c.(*storedCopies) //nolint:forcetypeassert // only *storedCopies is stored
}

// remember records that the object at url holds task's clip.
func (s *storedCopies) remember(task string, c storedCopy) {
	if s == nil || task == "" || c.sha256 == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byTask == nil {
		s.byTask = map[string][]storedCopy{}
	}
	for i, known := range s.byTask[task] {
		if known.url == c.url {
			s.byTask[task][i] = c
			return
		}
	}
	s.byTask[task] = append(s.byTask[task], c)
}

// forget drops the object at url from task's copies: it no longer holds the
// clip.
func (s *storedCopies) forget(task, url string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.byTask[task]) == 0 {
		return
	}
	kept := s.byTask[task][:0]
	for _, c := range s.byTask[task] {
		if c.url != url {
			kept = append(kept, c)
		}
	}
	s.byTask[task] = kept
}

// of lists the known copies of task's clip, except the one at self (the
// destination being written, which cannot be its own source).
func (s *storedCopies) of(task, self string) []storedCopy {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []storedCopy
	for _, c := range s.byTask[task] {
		if c.url != self {
			out = append(out, c)
		}
	}
	return out
}

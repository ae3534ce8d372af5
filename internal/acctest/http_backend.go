package acctest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// HTTPBackend is a remote state for Terraform's `http` backend, served on
// loopback: like every remote backend, it receives the state only when
// Terraform uploads it (at the end of an apply, or every 20 seconds or so),
// not each time a resource is created. It locks as the backend asks.
type HTTPBackend struct {
	URL string

	mu    sync.Mutex
	state []byte
	lock  []byte
}

// NewHTTPBackend serves an empty state until the test ends.
func NewHTTPBackend(t testing.TB) *HTTPBackend {
	t.Helper()
	b := &HTTPBackend{}
	ts := httptest.NewServer(b)
	t.Cleanup(ts.Close)
	b.URL = ts.URL
	return b
}

// Block is the terraform block that keeps a configuration's state here.
func (b *HTTPBackend) Block() string {
	return fmt.Sprintf(`
terraform {
  backend "http" {
    address        = %[1]q
    lock_address   = %[1]q
    unlock_address = %[1]q
  }
}
`, b.URL+"/state")
}

// State is the state last uploaded (nil before the first upload).
func (b *HTTPBackend) State() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.state
}

// LockID is the ID of the lock held, for `terraform force-unlock`; empty
// when the state is not locked.
func (b *HTTPBackend) LockID() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var info struct{ ID string }
	_ = json.Unmarshal(b.lock, &info)
	return info.ID
}

func (b *HTTPBackend) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	switch r.Method {
	case http.MethodGet:
		if b.state == nil {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		_, _ = w.Write(b.state)
	case http.MethodPost:
		b.state = body
	case http.MethodDelete:
		b.state = nil
	case "LOCK":
		if b.lock != nil {
			w.WriteHeader(http.StatusLocked)
			_, _ = w.Write(b.lock)
			return
		}
		b.lock = body
	case "UNLOCK":
		// `terraform force-unlock` sends no lock information: it unlocks whatever holds the state.
		b.lock = nil
	default:
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

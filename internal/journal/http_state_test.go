package journal

import (
	"maps"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// The http backend's state is a GET of its address with its credentials: a
// state proves the tasks it holds; no content is no state, which holds none;
// any other answer proves nothing, and the journal then says it did not read
// the state. The read says who it is, and is made once.
func TestHTTPStateReadsTheBackendsAddress(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		body   string
		want   map[string]bool
	}{
		{"a state", http.StatusOK, `{"version":4,"resources":[{"mode":"managed","type":"videogen_video",` +
			`"name":"clip","instances":[{"attributes":{"task_id":"task_1"}}]}]}`, map[string]bool{"task_1": true}},
		{"no state yet", http.StatusNoContent, "", map[string]bool{}},
		{"refused", http.StatusForbidden, "", nil},
		{"not a state", http.StatusOK, "<html>", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("TF_WORKSPACE", "")
			t.Setenv("TF_HTTP_PASSWORD", "from-env")
			var gets atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				gets.Add(1)
				if user, pass, _ := r.BasicAuth(); r.Method != http.MethodGet || r.URL.Path != "/state" ||
					user != "u" || pass != "from-env" || r.UserAgent() != StateReaderUserAgent {
					http.Error(w, "unexpected", http.StatusBadRequest)
					return
				}
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			s := currentHTTPState(&recordedBackend{Type: "http",
				Config: map[string]any{"address": srv.URL + "/state", "username": "u", "password": nil}})
			j := &Journal{saved: s}
			got := s.heldTasks(t.Context())
			if (got == nil) != (tc.want == nil) || !maps.Equal(got, tc.want) {
				t.Fatalf("read %v, want %v", got, tc.want)
			}
			if j.ReadsSavedState(t.Context()) != (tc.want != nil) || gets.Load() != 1 {
				t.Fatalf("state read: %v after %d GETs; want %v after 1", j.ReadsSavedState(t.Context()), gets.Load(),
					tc.want != nil)
			}
		})
	}
}

package clip

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/journal"
)

// The 404 rule, through the provider's one way of reading a task a state
// holds: a 404 means gone only from an address proven to be the service (its
// model list answers), and only for a task whose state records that the
// provider's API made it; then the journal forgets the task. A task whose state
// records no API may be another API's, and the journal keeps it; a 404 from an
// address not proven to be the service is an error naming the address, and
// nothing is forgotten.
func TestReadHeldSaysWhatA404Means(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name         string
		service      bool
		origin       Origin
		want         Held
		forgotten    bool
		wrongAddress bool
	}{
		{"service, API recorded", true, OriginRecorded, TaskGone, true, false},
		{"service, API unknown", true, OriginUnknown, UnknownHere, false, false},
		{"not the service, API recorded", false, OriginRecorded, HeldByService, false, true},
		{"not the service, API unknown", false, OriginUnknown, HeldByService, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				if tc.service && r.URL.Path == "/v1/models" {
					_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"videogen-1","object":"model"}]}`))
					return
				}
				w.WriteHeader(http.StatusNotFound)
				_, _ = w.Write([]byte(`{"error":{"message":"not found","type":"not_found_error"}}`))
			}))
			t.Cleanup(srv.Close)
			c, err := client.New(srv.URL, "test-key", client.WithMaxRetries(0))
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "pending-tasks.json")
			j := journal.New(path, "state", journal.DefaultMaxAge)
			if err := j.Claim(t.Context(), journal.Entry{TaskID: "task_held", Fingerprint: "f", SubmittedAt: time.Now()}); err != nil {
				t.Fatal(err)
			}
			l := New(Config{Client: c, Models: client.NewModelCatalog(c), Journal: j, MaxNewClips: -1})

			v, held, err := l.ReadHeld(t.Context(), "task_held", client.StatusRunning, tc.origin)
			if held != tc.want || v != nil {
				t.Errorf("ReadHeld = %v, %d; want nil, %d", v, held, tc.want)
			}
			if !client.IsNotFound(err) || WrongAddress(err) != tc.wrongAddress {
				t.Errorf("err = %v: want the 404, WrongAddress %v", err, tc.wrongAddress)
			}
			if _, keep := AfterRead(client.StatusRunning, held); keep == tc.forgotten {
				t.Errorf("AfterRead keeps the clip in state: %v, want %v", keep, !tc.forgotten)
			}
			// What a later run finds in the journal for this clip.
			matches, err := journal.New(path, "state", journal.DefaultMaxAge).Matching(t.Context(), "f")
			if err != nil {
				t.Fatal(err)
			}
			forgotten := !slices.ContainsFunc(matches, func(m journal.Match) bool { return m.TaskID == "task_held" })
			if forgotten != tc.forgotten {
				t.Errorf("the journal forgot the task: %v, want %v", forgotten, tc.forgotten)
			}
			if lost := l.Lost("task_held"); lost != tc.forgotten {
				t.Errorf("Lost = %v, want %v", lost, tc.forgotten)
			}
		})
	}
}

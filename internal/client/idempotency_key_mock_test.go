package client_test

import (
	"slices"
	"testing"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
)

// Every dialect of the mock takes a submission with an Idempotency-Key as
// the server it plays would: the default dialect (a server that
// deduplicates) answers the key sent again with the first task, billed
// once; new-api, OpenAI's video API and Google's Veo APIs, which document no
// deduplication, and a server set to ignore keys, accept the header and
// create, and bill, a second task; nothing fails. Only the first echoes the
// key in its answer (Video.KeyEchoed).
func TestIdempotencyKeyAgainstEveryDialect(t *testing.T) {
	t.Parallel()
	type dialectCase struct {
		dialect string
		ignore  bool
		tasks   int
	}
	cases := []dialectCase{{mockapi.DialectOpenAI, false, 1}, {mockapi.DialectOpenAI, true, 2}}
	for _, d := range slices.Concat(mockapi.Dialects, mockapi.GoogleDialects) {
		if d != mockapi.DialectOpenAI {
			cases = append(cases, dialectCase{d, false, 2})
		}
	}
	for _, tc := range cases {
		t.Run(fmtCase(tc.dialect, tc.ignore), func(t *testing.T) {
			t.Parallel()
			m := acctest.NewMock(t, mockapi.WithDialect(tc.dialect), func(c *mockapi.Config) {
				c.HoldTasks = true
				c.IgnoreIdempotencyKeys = tc.ignore
			})
			c := m.Client(t)
			req := client.VideoRequest{Model: "videogen-1", Prompt: "a kept promise", Seconds: "8", IdempotencyKey: "note-1"}
			first, err := c.SubmitVideo(t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			again, err := c.SubmitVideo(t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			if n := m.Submissions(); n != tc.tasks || (tc.tasks == 1) != (again.TaskID == first.TaskID) {
				t.Fatalf("the key sent twice: tasks %s and %s, %d in the ledger; want %d", first.TaskID, again.TaskID, n, tc.tasks)
			}
			// Only a server that deduplicates echoes the key: the provider
			// remembers it so.
			if dedups := tc.tasks == 1; first.KeyEchoed != dedups || again.KeyEchoed != dedups {
				t.Errorf("the answers echo the key: %v, %v; want %v", first.KeyEchoed, again.KeyEchoed, dedups)
			}
		})
	}
}

func fmtCase(dialect string, ignore bool) string {
	if ignore {
		return dialect + " ignoring keys"
	}
	return dialect
}

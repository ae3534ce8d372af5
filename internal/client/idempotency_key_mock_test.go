package client_test

import (
	"testing"
	"time"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
)

// Every dialect of the mock takes a submission with an Idempotency-Key as
// its server would: the default and openai-videos dialects (a server that
// deduplicates) answer the key sent again with the first task, billed once;
// new-api, which ignores the header, and a server set to ignore keys create
// a second task, and nothing fails.
func TestIdempotencyKeyAgainstEveryDialect(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		dialect string
		api     client.API
		ignore  bool
		tasks   int
	}{
		{mockapi.DialectOpenAI, client.APIVideoGenerations, false, 1},
		{mockapi.DialectOpenAIVideos, client.APIOpenAIVideos, false, 1},
		{mockapi.DialectNewAPI, client.APIVideoGenerations, false, 2},
		{mockapi.DialectOpenAI, client.APIVideoGenerations, true, 2},
	} {
		t.Run(fmtCase(tc.dialect, tc.ignore), func(t *testing.T) {
			t.Parallel()
			m := acctest.NewMock(t, mockapi.WithDialect(tc.dialect), func(c *mockapi.Config) {
				c.HoldTasks = true
				c.IgnoreIdempotencyKeys = tc.ignore
			})
			c, err := client.New(m.URL, mockapi.DefaultAPIKey, client.WithAPI(tc.api),
				client.WithRetryWait(time.Millisecond, 5*time.Millisecond))
			if err != nil {
				t.Fatal(err)
			}
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
		})
	}
}

func fmtCase(dialect string, ignore bool) string {
	if ignore {
		return dialect + " ignoring keys"
	}
	return dialect
}

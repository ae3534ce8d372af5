package main

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/videogen/terraform-provider-videogen/internal/client"
)

// TestDocsStateTheClientsBounds: the provider page's plan-time checks state
// how long a plan tries a service it cannot reach, in figures that follow from
// the client's settings (attempts and back-off, not a stopwatch), so that the
// words and the code cannot drift apart.
func TestDocsStateTheClientsBounds(t *testing.T) {
	t.Parallel()
	page, err := os.ReadFile("docs/index.md")
	if err != nil {
		t.Fatal(err)
	}
	refused := client.RefusedWaitBound(client.DefaultRetryWaitMin, client.DefaultRetryWaitMax)
	for _, want := range []string{
		fmt.Sprintf("a refused port (%d attempts, within %d seconds)", client.MaxRefusedAttempts,
			int(math.Ceil(refused.Seconds()))),
		fmt.Sprintf("silence (%d seconds, retries included)", client.ModelListTimeout/time.Second),
	} {
		if !strings.Contains(strings.Join(strings.Fields(string(page)), " "), want) {
			t.Errorf("docs/index.md does not say %q, which the client's settings make true", want)
		}
	}
}

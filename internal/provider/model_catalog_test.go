package provider

import (
	"net"
	"strconv"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
)

// refusedURL is a loopback address whose port nothing listens on.
func refusedURL(t *testing.T) string {
	t.Helper()
	var lc net.ListenConfig
	l, err := lc.Listen(t.Context(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

// An address that refuses connections fails the plan with the transport
// error, not as a wrong base URL, and nothing is submitted.
func TestAccModelCatalog_unreachableServiceFailsPlan(t *testing.T) {
	mock := acctest.NewMock(t)
	config := mock.ProviderBlock("base_url = "+strconv.Quote(refusedURL(t)), "max_retries = 1") + `
resource "videogen_video" "test" {
  model  = "videogen-1"
  prompt = "nobody answers"
}
`
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:   config,
			PlanOnly: true,
			ExpectError: wrapped("Video Service Unreachable", "the connection was refused", "base_url", "VIDEOGEN_BASE_URL",
				"Nothing has been submitted", "connection refused"),
		}},
	})
	if n := mock.Ledger().RequestCount(); n != 0 {
		t.Errorf("the mock received %d request(s), want none", n)
	}
}

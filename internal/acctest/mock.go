package acctest

import (
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"golang.org/x/oauth2"

	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
)

// MockPollInterval is the provider's poll_interval in ProviderBlock: tasks
// finish at once or when a test releases them, so a short interval only
// keeps waits short.
const MockPollInterval = "100ms"

// Mock is the mock service on its own in-process listener, so each test's
// ledger is its own. The embedded Server gives tests its controls
// (FinishTask, FailTask, AwaitTasks, DeleteTask, Ledger, ...).
type Mock struct {
	*mockapi.Server
	URL string // base URL, without /v1

	ts      *httptest.Server
	journal string // journal_path for ProviderBlock; empty keeps the provider's default
	// api is the API the mock's dialect speaks, which Client and ProviderBlock
	// select.
	api client.API
}

// StartMock serves a mock with cfg until Close. It is for programs such as
// the bench; tests use NewMock.
func StartMock(cfg mockapi.Config) (*Mock, error) {
	srv, err := mockapi.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("acctest: starting the mock: %w", err)
	}
	ts := httptest.NewUnstartedServer(srv)
	if cfg.TLS != nil {
		ts.TLS = cfg.TLS
		ts.StartTLS()
	} else {
		ts.Start()
	}
	api := client.APIVideoGenerations
	switch cfg.Dialect {
	case mockapi.DialectOpenAIVideos:
		api = client.APIOpenAIVideos
	case mockapi.DialectGemini:
		api = client.APIGemini
	case mockapi.DialectVertex:
		api = client.APIVertex
	}
	return &Mock{Server: srv, URL: ts.URL, ts: ts, api: api}, nil
}

// Close stops the listener, then the mock's timers and webhook deliveries.
func (m *Mock) Close() {
	m.ts.Close()
	m.Server.Close()
}

// NewMock starts the one mock of a test: mockapi.DefaultConfig with tasks
// that finish at once and a model list that publishes no limits, changed by
// opts in order, closed when the test ends.
// A test that needs a task to stay unfinished holds it (a prompt with
// [mock:hold], or Config.HoldTasks) and releases it with FinishTask or
// FailTask, rather than choosing a duration and hoping for the timing.
func NewMock(t testing.TB, opts ...func(*mockapi.Config)) *Mock {
	t.Helper()
	cfg := mockapi.DefaultConfig()
	cfg.TaskDuration = 0
	// The default models publish their limits in the model list, so that a
	// plan against `make mock` shows the plan-time checks. The tests were
	// written against a list without them, and many check what the service
	// itself answers to a clip outside a limit, which a plan-time check would
	// pre-empt: a test of the plan-time checks publishes the limits it needs
	// (Model.Record, mockapi.PublishedLimits).
	for i := range cfg.Models {
		cfg.Models[i].Record = nil
	}
	// Nor prices: a test of what a plan says a clip costs publishes them.
	cfg.PublishPrices = false
	for _, opt := range opts {
		opt(&cfg)
	}
	if cfg.Dialect == mockapi.DialectVertex {
		// The provider's credentials for Vertex AI are Application Default
		// Credentials only: the tests' own, whose token the mock knows.
		if err := useGoogleADC(); err != nil {
			t.Fatalf("acctest: Application Default Credentials for the vertex dialect: %v", err)
		}
		cfg.Keys = append(cfg.Keys, mockapi.Key{Key: VertexAccessToken})
	}
	m, err := StartMock(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	// A provider served in-process runs in the test's package directory, not
	// in Terraform's working directory, so its default journal would land in
	// the source tree and be shared by every test of the package.
	m.journal = filepath.Join(t.TempDir(), "pending-tasks.json")
	return m
}

// ProviderBlock configures the provider against the mock: base_url, the
// mock's key as api_key, poll_interval MockPollInterval, for a NewMock a
// journal_path in the test's temporary directory, and the api of the mock's
// dialect unless it is the default, then each extra line
// inside the block. An extra line that sets one of these ("api_key =
// \"other\"") replaces the default instead, so a test changes one setting
// without writing the block out.
func (m *Mock) ProviderBlock(extra ...string) string {
	settings := []struct{ name, value string }{
		{"base_url", strconv.Quote(m.URL)},
		{"api_key", strconv.Quote(mockapi.DefaultAPIKey)},
		{"poll_interval", strconv.Quote(MockPollInterval)},
	}
	if m.journal != "" {
		settings = append(settings, struct{ name, value string }{"journal_path", strconv.Quote(m.journal)})
	}
	if m.api != "" && m.api != client.APIVideoGenerations {
		settings = append(settings, struct{ name, value string }{"api", strconv.Quote(string(m.api))})
	}
	if m.api == client.APIVertex {
		// Vertex AI takes no key: Application Default Credentials, a project
		// and a location.
		settings = append(settings[:1], settings[2:]...)
		settings = append(settings, struct{ name, value string }{"project", strconv.Quote(VertexProject)},
			struct{ name, value string }{"location", strconv.Quote(VertexLocation)})
	}
	var rest []string
	for _, line := range extra {
		if name, value, ok := strings.Cut(line, "="); ok && !strings.Contains(line, "\n") {
			replaced := false
			for i := range settings {
				if settings[i].name == strings.TrimSpace(name) {
					settings[i].value = strings.TrimSpace(value)
					replaced = true
				}
			}
			if replaced {
				continue
			}
		}
		for _, l := range strings.Split(strings.TrimSpace(line), "\n") {
			rest = append(rest, strings.TrimSpace(l))
		}
	}
	var b strings.Builder
	b.WriteString("\nprovider \"videogen\" {\n")
	for _, s := range settings {
		fmt.Fprintf(&b, "  %-13s = %s\n", s.name, s.value)
	}
	for _, l := range rest {
		fmt.Fprintf(&b, "  %s\n", l)
	}
	b.WriteString("}\n")
	return b.String()
}

// Submissions counts the tasks the mock accepted, whatever the client was
// told: each is a clip billed or billable.
func (m *Mock) Submissions() int { return len(m.Ledger().Tasks) }

// ExpectSubmissions checks that the mock's ledger holds exactly n tasks.
func (m *Mock) ExpectSubmissions(n int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if got := m.Submissions(); got != n {
			return fmt.Errorf("the mock's ledger shows %d submitted task(s), want %d", got, n)
		}
		return nil
	}
}

// NothingNewStep is the step that ends most tests: config plans nothing, and the
// ledger still holds exactly submissions tasks, so no clip was generated again.
func (m *Mock) NothingNewStep(config string, submissions int) resource.TestStep {
	return resource.TestStep{
		Config: config,
		ConfigPlanChecks: resource.ConfigPlanChecks{
			PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
		},
		Check: m.ExpectSubmissions(submissions),
	}
}

// Client is the project's API client for the mock, with the mock's key and
// the API its dialect speaks, for tests that act as a script or another
// workspace would; opts come first, so the mock's own settings win.
func (m *Mock) Client(t testing.TB, opts ...client.Option) *client.Client {
	t.Helper()
	if m.api != "" {
		opts = append(opts, client.WithAPI(m.api))
	}
	key := mockapi.DefaultAPIKey
	if m.api == client.APIVertex {
		key = ""
		opts = append(opts, client.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: VertexAccessToken})),
			client.WithVertexProject(VertexProject, VertexLocation))
	}
	c, err := client.New(m.URL, key, opts...)
	if err != nil {
		t.Fatalf("acctest: client for the mock: %v", err)
	}
	return c
}

// Task reads a task through the client, as the provider sees it.
func (m *Mock) Task(t testing.TB, id string) *client.Video {
	t.Helper()
	v, err := m.Client(t).GetVideo(t.Context(), id)
	if err != nil {
		t.Fatalf("acctest: reading task %s from the mock: %v", id, err)
	}
	return v
}

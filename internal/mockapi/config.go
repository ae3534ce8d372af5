package mockapi

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// DefaultAPIKey is the only key accepted by DefaultConfig. It is not a secret:
// the mock never talks to the real service.
const DefaultAPIKey = "videogen-mock-key" //nolint:gosec // a well-known test key, not a credential

const (
	defaultTaskDuration   = 2 * time.Second
	defaultFailMarker     = "[mock:fail]"
	defaultPricePerSecond = 1
	defaultSeconds        = 5
	defaultMaxAttempts    = 5
	defaultInitialBackoff = 200 * time.Millisecond
)

// allResolutions is what a model accepts when its config lists none.
var allResolutions = []string{"480p", "720p", "1080p"}

// Duration is a time.Duration that reads from JSON as a Go duration string
// ("2s", "500ms") or as a number of seconds, and writes as a string, so that
// config files stay readable.
type Duration time.Duration

// MarshalJSON writes the duration as a Go duration string such as "1.5s".
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// UnmarshalJSON accepts "2s"-style strings and numbers of seconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if string(b) == "null" {
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		v, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("invalid duration %q: use a Go duration such as \"2s\" or \"500ms\"", s)
		}
		*d = Duration(v)
		return nil
	}
	secs, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return fmt.Errorf("invalid duration %s: use a string such as \"2s\" or a number of seconds", b)
	}
	if math.IsNaN(secs) || math.Abs(secs*float64(time.Second)) > math.MaxInt64 {
		return fmt.Errorf("duration %s seconds is out of range", b)
	}
	*d = Duration(secs * float64(time.Second))
	return nil
}

// String formats the duration like time.Duration.
func (d Duration) String() string { return time.Duration(d).String() }

// Config describes the mock's keys, models and simulated behaviour. Zero values
// of most fields mean "use the default"; TaskDuration and URLTTL are the
// exceptions, where 0 is meaningful (see the field comments).
type Config struct {
	Keys            []Key     `json:"keys"`
	Models          []Model   `json:"models"`
	TaskDuration    Duration  `json:"task_duration"`     // time from submission to final state; 0 = final at once (DefaultConfig and LoadConfig use 2s)
	FailMarker      string    `json:"fail_marker"`       // default "[mock:fail]": a prompt containing it ends failed
	Seed            int64     `json:"seed"`              // makes task IDs, faults, failures repeatable; 0 = a random seed at every start (Server.Seed tells it)
	FaultRate       float64   `json:"fault_rate"`        // fraction of API requests answered 500/502/503 before any effect (submissions: JSON 500/503 only)
	TaskFailureRate float64   `json:"task_failure_rate"` // fraction of tasks that end failed
	RateLimit       RateLimit `json:"rate_limit"`        // per key token bucket; RequestsPerSecond 0 = unlimited
	Webhook         Webhook   `json:"webhook"`
	ClipBytes       int64     `json:"clip_bytes"`       // 0 = the committed fixture and the task's tag; N = valid MP4 of exactly N bytes; each task's bytes are its own
	URLTTL          Duration  `json:"url_ttl"`          // 0 = clip URLs never expire; DialectOpenAIVideos: a video's content is kept this long after it completes (its expires_at)
	PricePerSecond  int64     `json:"price_per_second"` // cost units per clip second; 0 = default 1
	// PublishPrices prices each model in its GET /v1/models record, as a
	// service that states its prices does: price_per_second (PricePerSecond),
	// default_seconds (what a clip without seconds is billed for) and currency
	// "credits", exactly what a success draws on the balance. DialectOpenAI
	// only. DefaultConfig sets it.
	PublishPrices bool `json:"publish_prices"`
	// TaskRetention is how long the service remembers a task after it
	// became final; then its reads answer 404, as after DeleteTask. 0 (the
	// default) remembers it for ever.
	TaskRetention Duration `json:"task_retention"`
	// ClipRetention is how long a succeeded task's clip storage lasts after
	// it finished; then the task still answers succeeded with a URL, but
	// every URL of the clip answers 403 (404 behind the key) for ever, as
	// after ExpireClip. 0 (the default) keeps it for ever.
	ClipRetention Duration `json:"clip_retention"`
	// HoldTasks keeps every task running until Server.FinishTask or
	// Server.FailTask releases it, as the [mock:hold] prompt marker does for
	// one task.
	HoldTasks bool `json:"hold_tasks"`
	// GatewayFailuresAfterSubmit simulates a gateway that times out after
	// forwarding a submission: the next N accepted submissions create their
	// task and are then answered 504 with an HTML page; -1 means every one.
	// Server.SetGatewayFailuresAfterSubmit changes it while serving.
	GatewayFailuresAfterSubmit int `json:"gateway_failures_after_submit"`
	// IgnoreIdempotencyKeys plays a server that does not deduplicate
	// submissions: a repeated Idempotency-Key creates, and bills, a task
	// again (see IdempotencyKeyHeader). Server.SetIgnoreIdempotencyKeys
	// changes it while serving.
	IgnoreIdempotencyKeys bool `json:"ignore_idempotency_keys"`
	// IdempotencyWindow is how long a submission's Idempotency-Key returns
	// its task; 0 = a day.
	IdempotencyWindow Duration `json:"idempotency_window"`
	// KeyedClips serves clips as a gateway does that keeps them behind its
	// key (new-api's Sora and Veo channels): at
	// {base}/v1/videos/{task_id}/content on the mock's own address, an API
	// path that needs the key like any other, unsigned and never expiring.
	// Off (the default), clips are signed URLs that need no key, as on a
	// storage bucket.
	KeyedClips bool `json:"keyed_clips"`
	// Dialect is how the mock answers: DialectOpenAI (the default) as the
	// API is described, DialectNewAPI as the new-api gateway in front of a
	// Doubao video channel answers, DialectOpenAIVideos as OpenAI's video API.
	Dialect string `json:"dialect"`
	// VideosWithoutDelete makes DialectOpenAIVideos serve /v1/videos as
	// new-api v0.10.0 does: create, retrieve and /content, but no DELETE and
	// no list, which answer 404 "Invalid URL (...)".
	VideosWithoutDelete bool `json:"videos_without_delete"`
	// ProgressCurve is how the progress a running task reports (new-api's
	// "30%", OpenAI's 0-100; the canonical dialect reports none) grows with
	// the share of its time elapsed: ProgressLinear (the default) or one of
	// ProgressCurves' others, which do not keep pace with time.
	ProgressCurve string `json:"progress_curve"`
	// RequiredHeaders makes the mock answer like a header-based gateway in
	// front of a self-hosted server: an API request without each of these
	// headers, with exactly this value, is answered 403 (naming the header,
	// never its value) before its key is checked. Empty (the default): no
	// header is required.
	RequiredHeaders map[string]string `json:"required_headers,omitempty"`
	// TLS is the certificate the listener presents, for a test of a server
	// behind an internal certificate authority: acctest.StartMock serves TLS
	// when it is set. The handler itself never reads it, and a config file
	// cannot set it.
	TLS *tls.Config `json:"-"`
	// StateFile keeps the mock's tasks across restarts: read at start when it
	// exists, written whenever a task changes and at Close. A restarted mock
	// then answers for every task as before and its ledger is the one it had.
	// Empty (the default): tasks live as long as the process.
	StateFile string `json:"state_file,omitempty"`
	// CloudStorage is the Cloud Storage JSON API endpoint (an emulator's,
	// such as fake-gcs-server's http://127.0.0.1:port) where DialectVertex
	// writes the clip of an operation submitted with parameters.storageUri,
	// as Vertex AI writes it into the team's bucket, before it answers the
	// operation done. Empty (the default): the operation names the object
	// and nothing is written.
	CloudStorage string `json:"cloud_storage,omitempty"`
}

// Progress curves (Config.ProgressCurve): progress in whole percents as a
// function of the share x of the task's time elapsed since its submission,
// never 100 before the task is final.
const (
	ProgressLinear = "linear" // x
	ProgressStall  = "stall"  // 2x up to 99%: 99% for the second half
	ProgressJump   = "jump"   // 10% for the first half, then 90%
	ProgressLate   = "late"   // x³: slow, then fast
)

// ProgressCurves lists the curves Config.ProgressCurve accepts.
var ProgressCurves = []string{ProgressLinear, ProgressStall, ProgressJump, ProgressLate}

// Dialects the mock speaks.
const (
	// DialectOpenAI answers in the shapes CONTRIBUTING.md describes: flat
	// task objects, lower-case statuses, {"error":{...}} error bodies.
	DialectOpenAI = "openai"
	// DialectNewAPI answers as the new-api gateway (v0.10.0) does in front
	// of a Doubao video channel: a submission answer with only the task ID;
	// tasks in a {"code","message","data"} envelope with NOT_START ...
	// SUCCESS/FAILURE statuses, the clip URL in fail_reason and the
	// upstream's raw record in data.data; 400 task_not_exist for unknown
	// tasks; 503 model_not_found for unknown models. As that channel does,
	// it forwards only model and prompt: seconds and every metadata
	// parameter (ratio, resolution, generate_audio, content, callback_url)
	// are dropped, the clip is made with the model's defaults, billed as
	// such, and no webhook is sent. The ledger still records the request as
	// received.
	DialectNewAPI = "new-api"
	// DialectOpenAIVideos answers as OpenAI's video API does (openai-go
	// v3.98's shapes): multipart submissions to POST /v1/videos, video
	// objects at GET /v1/videos/{id} with queued, in_progress, completed and
	// failed and a progress in percent, the clip at /v1/videos/{id}/content
	// behind the key, DELETE /v1/videos/{id} and GET /v1/videos. The
	// video-generations endpoints answer 404, as on OpenAI.
	DialectOpenAIVideos = "openai-videos"
	// DialectGemini answers as the Gemini API's Veo does
	// (google.golang.org/genai v1.77's shapes): the key in x-goog-api-key (or
	// ?key=), POST /v1beta/models/{model}:predictLongRunning answered by a
	// long-running operation, GET /v1beta/{operation name} until done, the
	// clip at /v1beta/files/{file}:download?alt=media behind the key,
	// GET /v1beta/models with supportedGenerationMethods, Google's error
	// bodies ({"error": {"code", "message", "status", "details"}}).
	DialectGemini = "gemini"
	// DialectVertex answers as Vertex AI's Veo does: a bearer access token
	// (one of Config.Keys: the test's token source hands it out), POST
	// /v1/projects/{p}/locations/{l}/publishers/google/models/{model}:predictLongRunning
	// (v1beta1 too, genai's default), the operation read with POST
	// ...:fetchPredictOperation, the clip inline in the operation or, with
	// parameters.storageUri, named at gs://; GET
	// /v1beta1/publishers/google/models lists the models.
	DialectVertex = "vertex"
)

// Dialects lists the dialects of the video-generations and openai-videos
// APIs; GoogleDialects those of Google's Veo. Config.Dialect accepts both.
var (
	Dialects       = []string{DialectOpenAI, DialectNewAPI, DialectOpenAIVideos}
	GoogleDialects = []string{DialectGemini, DialectVertex}
)

// WithDialect is a Config option (as acctest.NewMock takes them) that makes
// the mock speak the named dialect.
func WithDialect(name string) func(*Config) {
	return func(c *Config) { c.Dialect = name }
}

// WithKeyedClips is a Config option that serves clips behind the key, on
// the mock's own address (Config.KeyedClips).
func WithKeyedClips() func(*Config) {
	return func(c *Config) { c.KeyedClips = true }
}

// WithoutVideoDelete is a Config option for Config.VideosWithoutDelete.
func WithoutVideoDelete() func(*Config) {
	return func(c *Config) { c.VideosWithoutDelete = true }
}

// Key is an API key the mock accepts, with the limits the console can set.
type Key struct {
	Key           string   `json:"key"`
	AllowedModels []string `json:"allowed_models"` // empty = all models
	Balance       *int64   `json:"balance"`        // nil = unlimited
	Revoked       bool     `json:"revoked"`
}

// Model is a video model the mock offers.
type Model struct {
	ID             string   `json:"id"`
	OwnedBy        string   `json:"owned_by"`
	Created        int64    `json:"created"`
	MaxSeconds     int      `json:"max_seconds"`     // 0 = no limit
	DefaultSeconds int      `json:"default_seconds"` // used for billing when seconds is omitted; default 5 (capped at MaxSeconds)
	Resolutions    []string `json:"resolutions"`     // empty = all of 480p,720p,1080p
	// Record holds more members of the model's entry in GET /v1/models, as
	// given (say {"max_seconds": 10}): the list publishes no limits unless a
	// test or a config file puts them here, under the names it wants. It
	// cannot replace id, object, created or owned_by. DialectOpenAI only:
	// new-api's model list publishes no limits, so DialectNewAPI ignores it.
	Record map[string]json.RawMessage `json:"record,omitempty"`
}

// RateLimit is a per-key token bucket.
type RateLimit struct {
	RequestsPerSecond float64 `json:"requests_per_second"` // 0 = unlimited
	Burst             int     `json:"burst"`               // default max(1, ceil(RequestsPerSecond))
}

// Webhook controls delivery of task-completion callbacks.
type Webhook struct {
	MaxAttempts    int      `json:"max_attempts"`    // default 5
	InitialBackoff Duration `json:"initial_backoff"` // default 200ms, doubles after each failed attempt
}

// defaultModels are the mock's three models. Their records in GET /v1/models
// publish the limits the mock enforces (max_seconds, resolutions), as a
// service that states them does, so that a plan against the default mock
// shows the provider's plan-time checks: seconds = "600" fails the plan.
func defaultModels() []Model {
	models := []Model{
		{ID: "videogen-1", OwnedBy: "videogen", Created: 1735689600, MaxSeconds: 10, DefaultSeconds: defaultSeconds, Resolutions: []string{"480p", "720p"}},
		{ID: "videogen-1-fast", OwnedBy: "videogen", Created: 1740787200, MaxSeconds: 5, DefaultSeconds: defaultSeconds, Resolutions: []string{"480p", "720p"}},
		{ID: "videogen-2", OwnedBy: "videogen", Created: 1748736000, MaxSeconds: 12, DefaultSeconds: defaultSeconds, Resolutions: []string{"720p", "1080p"}},
	}
	for i := range models {
		models[i].Record = PublishedLimits(models[i])
	}
	return models
}

// PublishedLimits is the record members that publish m's limits in the model
// list: max_seconds (when m has one) and resolutions.
func PublishedLimits(m Model) map[string]json.RawMessage {
	rec := map[string]json.RawMessage{}
	if m.MaxSeconds > 0 {
		rec["max_seconds"] = json.RawMessage(strconv.Itoa(m.MaxSeconds))
	}
	if len(m.Resolutions) > 0 {
		res, _ := json.Marshal(m.Resolutions) //nolint:errchkjson // a list of strings always encodes
		rec["resolutions"] = res
	}
	return rec
}

// DefaultConfig returns one unrestricted key (DefaultAPIKey) with unlimited
// balance, the three default models (whose list records publish their limits),
// a 2s task duration and no faults.
func DefaultConfig() Config {
	return Config{
		Keys:           []Key{{Key: DefaultAPIKey}},
		Models:         defaultModels(),
		TaskDuration:   Duration(defaultTaskDuration),
		FailMarker:     defaultFailMarker,
		PricePerSecond: defaultPricePerSecond,
		PublishPrices:  true,
		Webhook:        Webhook{MaxAttempts: defaultMaxAttempts, InitialBackoff: Duration(defaultInitialBackoff)},
	}
}

// LoadConfig reads a JSON Config from path. Unknown fields are an error so that
// typos don't silently fall back to defaults. Missing fields get the defaults
// of DefaultConfig, including keys, models and the 2s task duration.
func LoadConfig(path string) (Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("mockapi: reading config: %w", err)
	}
	// Preset only what a zero value can't express; everything else is filled
	// by withDefaults, exactly as New would.
	cfg := Config{TaskDuration: Duration(defaultTaskDuration)}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		return Config{}, fmt.Errorf("mockapi: config %s: %w", path, err)
	}
	if dec.More() {
		return Config{}, fmt.Errorf("mockapi: config %s: unexpected data after the JSON object", path)
	}
	if cfg.Keys == nil {
		cfg.Keys = DefaultConfig().Keys
	}
	if cfg.Models == nil {
		cfg.Models = defaultModels()
	}
	return cfg.withDefaults(), nil
}

// withDefaults returns a deep copy of c with zero values replaced by defaults,
// so the server never shares slices or balance pointers with its caller.
func (c Config) withDefaults() Config {
	out := c
	if out.FailMarker == "" {
		out.FailMarker = defaultFailMarker
	}
	if out.Dialect == "" {
		out.Dialect = DialectOpenAI
	}
	if out.PricePerSecond == 0 {
		out.PricePerSecond = defaultPricePerSecond
	}
	if out.Webhook.MaxAttempts == 0 {
		out.Webhook.MaxAttempts = defaultMaxAttempts
	}
	if out.Webhook.InitialBackoff == 0 {
		out.Webhook.InitialBackoff = Duration(defaultInitialBackoff)
	}
	if out.RateLimit.Burst == 0 && out.RateLimit.RequestsPerSecond > 0 && !math.IsInf(out.RateLimit.RequestsPerSecond, 0) {
		out.RateLimit.Burst = int(math.Max(1, math.Ceil(out.RateLimit.RequestsPerSecond)))
	}
	out.RequiredHeaders = maps.Clone(c.RequiredHeaders)
	out.Keys = make([]Key, len(c.Keys))
	for i, k := range c.Keys {
		k.AllowedModels = slices.Clone(k.AllowedModels)
		if k.Balance != nil {
			b := *k.Balance
			k.Balance = &b
		}
		out.Keys[i] = k
	}
	out.Models = make([]Model, len(c.Models))
	for i, m := range c.Models {
		if len(m.Resolutions) == 0 {
			m.Resolutions = slices.Clone(allResolutions)
		} else {
			m.Resolutions = slices.Clone(m.Resolutions)
		}
		m.Record = maps.Clone(m.Record)
		if m.DefaultSeconds == 0 {
			m.DefaultSeconds = defaultSeconds
			if m.MaxSeconds > 0 && m.MaxSeconds < m.DefaultSeconds {
				m.DefaultSeconds = m.MaxSeconds
			}
		}
		out.Models[i] = m
	}
	return out
}

// validate reports the first problem with a defaults-filled config, naming
// fields as they are spelled in a config file.
func (c Config) validate() error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	if len(c.Models) == 0 {
		add("models: at least one model is required")
	}
	modelIDs := map[string]bool{}
	for i, m := range c.Models {
		switch {
		case m.ID == "":
			add("models[%d].id is empty", i)
		case modelIDs[m.ID]:
			add("models[%d].id %q is a duplicate", i, m.ID)
		}
		modelIDs[m.ID] = true
		if m.MaxSeconds < 0 {
			add("models[%d].max_seconds must be >= 0 (0 = no limit), got %d", i, m.MaxSeconds)
		}
		if m.DefaultSeconds < 0 || (m.MaxSeconds > 0 && m.DefaultSeconds > m.MaxSeconds) {
			add("models[%d].default_seconds %d must be between 1 and max_seconds %d", i, m.DefaultSeconds, m.MaxSeconds)
		}
		for _, r := range m.Resolutions {
			if !slices.Contains(allResolutions, r) {
				add("models[%d].resolutions: %q is not one of %v", i, r, allResolutions)
			}
		}
	}
	if c.ProgressCurve != "" && !slices.Contains(ProgressCurves, c.ProgressCurve) {
		add("progress_curve %q is not one of %v", c.ProgressCurve, ProgressCurves)
	}
	if len(c.Keys) == 0 {
		add("keys: at least one key is required")
	}
	keys := map[string]bool{}
	for i, k := range c.Keys {
		switch {
		case k.Key == "":
			add("keys[%d].key is empty", i)
		case keys[k.Key]:
			// Don't print the key: config errors end up in CI logs.
			add("keys[%d].key duplicates an earlier key", i)
		}
		keys[k.Key] = true
		for _, id := range k.AllowedModels {
			if !modelIDs[id] {
				add("keys[%d].allowed_models: model %q is not in models", i, id)
			}
		}
		if k.Balance != nil && *k.Balance < 0 {
			add("keys[%d].balance must be >= 0, got %d", i, *k.Balance)
		}
	}
	if c.TaskDuration < 0 {
		add("task_duration must be >= 0, got %s", c.TaskDuration)
	}
	if c.URLTTL < 0 {
		add("url_ttl must be >= 0, got %s", c.URLTTL)
	}
	if c.TaskRetention < 0 {
		add("task_retention must be >= 0 (0 = for ever), got %s", c.TaskRetention)
	}
	if c.ClipRetention < 0 {
		add("clip_retention must be >= 0 (0 = for ever), got %s", c.ClipRetention)
	}
	if !(c.FaultRate >= 0 && c.FaultRate <= 1) {
		add("fault_rate must be between 0 and 1, got %v", c.FaultRate)
	}
	if !(c.TaskFailureRate >= 0 && c.TaskFailureRate <= 1) {
		add("task_failure_rate must be between 0 and 1, got %v", c.TaskFailureRate)
	}
	if !(c.RateLimit.RequestsPerSecond >= 0) || math.IsInf(c.RateLimit.RequestsPerSecond, 0) {
		add("rate_limit.requests_per_second must be a finite number >= 0 (0 = unlimited), got %v", c.RateLimit.RequestsPerSecond)
	}
	if c.RateLimit.Burst < 0 {
		add("rate_limit.burst must be >= 0, got %d", c.RateLimit.Burst)
	}
	if c.Webhook.MaxAttempts < 0 {
		add("webhook.max_attempts must be >= 1, got %d", c.Webhook.MaxAttempts)
	}
	if c.Webhook.InitialBackoff < 0 {
		add("webhook.initial_backoff must be >= 0, got %s", c.Webhook.InitialBackoff)
	}
	if c.GatewayFailuresAfterSubmit < -1 {
		add("gateway_failures_after_submit must be -1 (every submission), 0 (none) or a count, got %d", c.GatewayFailuresAfterSubmit)
	}
	if c.PricePerSecond < 0 {
		add("price_per_second must be >= 0, got %d", c.PricePerSecond)
	}
	if c.ClipBytes != 0 && c.ClipBytes < minClipSize {
		add("clip_bytes must be 0 (the smallest clip) or at least %d (the fixture and a free box holding the task's tag), got %d", minClipSize, c.ClipBytes)
	}
	for name := range c.RequiredHeaders {
		if strings.TrimSpace(name) == "" {
			add("required_headers: a header name is empty")
		}
	}
	if !slices.Contains(Dialects, c.Dialect) && !slices.Contains(GoogleDialects, c.Dialect) {
		add("dialect must be one of %q, got %q", slices.Concat(Dialects, GoogleDialects), c.Dialect)
	}
	if len(errs) > 0 {
		return fmt.Errorf("mockapi: invalid config: %w", errors.Join(errs...))
	}
	return nil
}

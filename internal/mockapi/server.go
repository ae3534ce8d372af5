package mockapi

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Endpoint patterns, also the keys of Ledger.Requests.
const (
	epGenerations = "/v1/video/generations"
	epTask        = "/v1/video/generations/{task_id}"
	epModels      = "/v1/models"
	epVideos      = "/v1/videos"
	epVideo       = "/v1/videos/{id}"
	epClips       = "/_mock/clips"
	epKeyedClip   = keyedClipPrefix + "{task_id}" + keyedClipSuffix
	epLedger      = "/_mock/ledger"
	epMockTask    = "/_mock/tasks/{task_id}"
	epMockFinish  = "/_mock/tasks/{task_id}/finish"
	epMockFail    = "/_mock/tasks/{task_id}/fail"
	epExpireClip  = "/_mock/tasks/{task_id}/expire-clip"
	epExpireURLs  = "/_mock/expire-urls"

	// unmatchedEndpoint counts requests to paths the mock doesn't serve,
	// so arbitrary paths can't grow the ledger without bound.
	unmatchedEndpoint = "unmatched"
)

const maxBodyBytes = 1 << 20

// Server is the mock service: an http.Handler plus the hooks tests use to
// simulate service-side events. Create it with New and release it with Close.
type Server struct {
	cfg      Config
	newAPI   bool // cfg.Dialect is DialectNewAPI
	videos   bool // cfg.Dialect is DialectOpenAIVideos
	gemini   bool // cfg.Dialect is DialectGemini
	vertex   bool // cfg.Dialect is DialectVertex
	models   map[string]*Model
	seed     int64 // cfg.Seed, or the one drawn for this run when it is 0
	signKey  []byte
	clipSize int64
	client   *http.Client // webhook deliveries

	// now is the mock's clock. Package tests replace it to step a task
	// through its states without waiting; timers still run on real time.
	now func() time.Time

	ctx    context.Context // cancelled by Close to abort webhook deliveries
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu        sync.Mutex // guards everything below
	closed    bool
	keys      map[string]*keyState
	tasks     map[string]*task
	order     []*task
	urlEpoch  uint64
	idRNG     *rand.Rand
	faultRNG  *rand.Rand
	failRNG   *rand.Rand
	requests  map[string]int
	responses map[string]int
	// rangeRequests counts the requests among requests that asked for a
	// byte range (Ledger.RangeRequests).
	rangeRequests map[string]int
	webhooks      []WebhookAttempt
	// changed is closed and replaced whenever a task, a GET count or a
	// webhook attempt changes, waking AwaitTasks, AwaitGets and friends.
	changed chan struct{}
	// gatewayFailures is how many more accepted submissions are answered
	// 504; negative means every one.
	gatewayFailures int
	// keyed holds the submissions by API key and Idempotency-Key;
	// ignoreKeys plays a server that does not deduplicate.
	keyed      map[string]keyedSubmission
	ignoreKeys bool
	// limitedSubmissions is how many more submissions are answered 429
	// whatever the key's bucket holds (RateLimitSubmissions).
	limitedSubmissions int
	// deliveriesStarted and deliveriesEnded count webhook deliveries, so
	// tests can wait until none is in flight instead of sleeping.
	deliveriesStarted int
	deliveriesEnded   int
	// stateErr is the first failure to write Config.StateFile.
	stateErr error
	// clipHold, when set, stops clip downloads partway (HoldClipBodies).
	clipHold *clipHold
}

type keyState struct {
	Key
	bucket tokenBucket
}

func (k *keyState) allows(model string) bool {
	if len(k.AllowedModels) == 0 {
		return true
	}
	for _, m := range k.AllowedModels {
		if m == model {
			return true
		}
	}
	return false
}

// New validates cfg, fills in defaults for zero fields and returns a ready
// server. The server keeps its own copy of cfg.
func New(cfg Config) (*Server, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	// Without a seed each run draws its own, so that task IDs never repeat
	// across restarts: a client that confused a task of an earlier run with
	// one of this run would otherwise go unnoticed.
	runSeed := cfg.Seed
	for runSeed == 0 {
		runSeed = rand.Int64() //nolint:gosec // uniqueness, not secrecy
	}
	seed := uint64(runSeed) //nolint:gosec // only the bits matter
	// The signing key comes from the seed so that URLs, like task IDs, repeat
	// across runs with the same seed.
	sum := sha256.Sum256(binary.BigEndian.AppendUint64([]byte("videogen-mock url signing\n"), seed))
	size := cfg.ClipBytes
	if size == 0 {
		size = minClipSize
	}
	ctx, cancel := context.WithCancel(context.Background())
	transport := http.DefaultTransport.(*http.Transport).Clone() //nolint:forcetypeassert // the standard library guarantees the type
	transport.Proxy = nil                                        // callbacks go to local receivers; a proxy would only get in the way
	s := &Server{
		cfg:      cfg,
		newAPI:   cfg.Dialect == DialectNewAPI,
		videos:   cfg.Dialect == DialectOpenAIVideos,
		gemini:   cfg.Dialect == DialectGemini,
		vertex:   cfg.Dialect == DialectVertex,
		models:   make(map[string]*Model, len(cfg.Models)),
		seed:     runSeed,
		signKey:  sum[:],
		clipSize: size,
		client:   &http.Client{Timeout: 10 * time.Second, Transport: transport},
		now:      time.Now,
		ctx:      ctx,
		cancel:   cancel,
		keys:     make(map[string]*keyState, len(cfg.Keys)),
		tasks:    map[string]*task{},
		// Separate streams keep task IDs independent of fault and failure
		// settings, so changing fault_rate doesn't reshuffle IDs.
		idRNG:     rand.New(rand.NewPCG(seed, 0x7461736b)), // "task"
		faultRNG:  rand.New(rand.NewPCG(seed, 0x6661756c)), // "faul"
		failRNG:   rand.New(rand.NewPCG(seed, 0x6661696c)), // "fail"
		requests:  map[string]int{},
		responses: map[string]int{},
		changed:   make(chan struct{}),

		rangeRequests: map[string]int{},

		gatewayFailures: cfg.GatewayFailuresAfterSubmit,
		keyed:           map[string]keyedSubmission{},
		ignoreKeys:      cfg.IgnoreIdempotencyKeys,
	}
	for i := range cfg.Models {
		s.models[cfg.Models[i].ID] = &s.cfg.Models[i]
	}
	for _, k := range cfg.Keys {
		s.keys[k.Key] = &keyState{Key: k}
	}
	if cfg.StateFile != "" {
		if err := s.restoreState(); err != nil {
			cancel()
			return nil, err
		}
	}
	return s, nil
}

// Seed is the seed of this run: Config.Seed, or the one drawn at random
// when that is 0. Config.Seed set to it repeats the run's task IDs, faults
// and failures.
func (s *Server) Seed() int64 { return s.seed }

// Close stops task timers and pending webhook deliveries and waits for the
// goroutines they run. The handler keeps answering afterwards, but tasks no
// longer trigger webhooks.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	for _, t := range s.order {
		if t.timer != nil {
			t.timer.Stop()
		}
	}
	// The request counters change without a notify: the last word is here.
	s.saveState()
	s.mu.Unlock()
	s.cancel()
	s.wg.Wait()
	s.client.CloseIdleConnections()
}

// DeleteTask makes a task vanish service-side: GETs of it then answer 404 and
// it is never billed or reported by webhook unless it already was. The ledger
// keeps it, marked deleted. It reports whether the task existed.
func (s *Server) DeleteTask(id string) bool {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.lookup(id, now)
	if t == nil {
		return false
	}
	if !t.deleted {
		t.deletedStatus = s.observe(t, now)
		t.deleted = true
		if t.timer != nil {
			t.timer.Stop()
		}
		s.notify()
	}
	return true
}

// ExpireURLs revokes every clip URL handed out so far: they answer 403, and
// the next GET of a task returns a fresh URL.
func (s *Server) ExpireURLs() {
	s.mu.Lock()
	s.urlEpoch++
	s.mu.Unlock()
}

// ServeHTTP routes a request. API requests pass auth, then the rate limit,
// then fault injection, so rejected or faulted requests have no effect.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := &statusRecorder{ResponseWriter: w}
	defer func() { s.countResponse(rec.code()) }()
	if s.google() && !strings.HasPrefix(r.URL.Path, "/_mock/") {
		s.serveGoogle(rec, r)
		return
	}

	ep, id, found := matchPath(r.URL)
	if ep == epKeyedClip && !s.cfg.KeyedClips && !s.videos {
		ep, id, found = "", "", false
	}
	allowed := allowedMethods(ep)
	key := unmatchedEndpoint
	if found {
		key = r.Method + " " + ep
	}
	s.countRequest(r, key)

	if isAPIPath(r.URL.Path) {
		if !s.admitsHeaders(rec, r) {
			return
		}
		ks, ok := s.authenticate(rec, r)
		if !ok {
			return
		}
		submission := r.Method == http.MethodPost && ep == s.submitEndpoint()
		if !s.admit(rec, ks, submission) {
			return
		}
		if s.injectFault(rec, ep, submission) {
			return
		}
		s.route(rec, r, ep, id, found, allowed, ks)
		return
	}
	s.route(rec, r, ep, id, found, allowed, nil)
}

func (s *Server) route(w http.ResponseWriter, r *http.Request, ep, id string, found bool, allowed []string, ks *keyState) {
	if s.videos != (ep == epVideos || ep == epVideo) && (ep == epVideos || ep == epVideo || ep == epGenerations || ep == epTask) {
		// Each dialect serves one API's paths.
		found = false
	}
	if !found {
		served := fmt.Sprintf("POST %s, GET %s and GET %s", epGenerations, epTask, epModels)
		if s.videos {
			served = fmt.Sprintf("POST %s, GET %s, GET %s/content, DELETE %s, GET %s and GET %s", epVideos, epVideo, epVideo, epVideo, epVideos, epModels)
		}
		writeError(w, http.StatusNotFound, "not_found_error", "", fmt.Sprintf("unknown path %s: the API serves %s", r.URL.Path, served))
		return
	}
	method := r.Method
	if method == http.MethodHead && (ep == epClips || ep == epKeyedClip) {
		method = http.MethodGet
	}
	if !containsString(allowed, method) {
		w.Header().Set("Allow", strings.Join(allowed, ", "))
		writeError(w, http.StatusMethodNotAllowed, "invalid_request_error", "",
			fmt.Sprintf("method %s is not allowed on %s; use %s", r.Method, ep, strings.Join(allowed, " or ")))
		return
	}
	switch ep {
	case epGenerations:
		s.handleSubmit(w, r, ks)
	case epTask:
		s.handleGetTask(w, r, id)
	case epVideos, epVideo:
		if s.cfg.VideosWithoutDelete && (r.Method == http.MethodDelete || ep == epVideos && r.Method == http.MethodGet) {
			writeError(w, http.StatusNotFound, "invalid_request_error", "", fmt.Sprintf("Invalid URL (%s %s)", r.Method, r.URL.Path))
			return
		}
		s.routeVideos(w, r, ep, id, ks)
	case epModels:
		s.handleModels(w, ks)
	case epClips:
		s.handleClip(w, r, id)
	case epKeyedClip:
		s.handleKeyedClip(w, r, id)
	case epLedger:
		writeJSON(w, http.StatusOK, s.Ledger())
	case epMockTask:
		if !s.DeleteTask(id) {
			writeError(w, http.StatusNotFound, "not_found_error", "task_id", fmt.Sprintf("unknown task id %q", id))
			return
		}
		w.WriteHeader(http.StatusNoContent)
	case epMockFinish, epMockFail:
		s.handleRelease(w, r, ep, id)
	case epExpireClip:
		s.handleExpireClip(w, id)
	case epExpireURLs:
		s.ExpireURLs()
		w.WriteHeader(http.StatusNoContent)
	}
}

// submitEndpoint is the endpoint that creates tasks in the server's dialect.
func (s *Server) submitEndpoint() string {
	if s.videos {
		return epVideos
	}
	return epGenerations
}

func isAPIPath(p string) bool { return p == "/v1" || strings.HasPrefix(p, "/v1/") }

// matchPath maps a URL to an endpoint pattern and its path parameter. IDs are
// unescaped after splitting, so an escaped "/" stays inside the ID (and then
// matches no task) instead of changing the route.
func matchPath(u *url.URL) (ep, id string, ok bool) {
	p := u.EscapedPath()
	param := func(prefix, suffix string) (string, bool) {
		rest, ok := strings.CutPrefix(p, prefix)
		if !ok {
			return "", false
		}
		if rest, ok = strings.CutSuffix(rest, suffix); !ok || rest == "" || strings.Contains(rest, "/") {
			return "", false
		}
		v, err := url.PathUnescape(rest)
		if err != nil {
			// Undecodable escapes can't name a task; keep the raw text so the
			// handler answers "unknown task id" rather than "unknown path".
			v = rest
		}
		return v, true
	}
	switch p {
	case epGenerations, epModels, epLedger, epExpireURLs, epVideos:
		return p, "", true
	}
	if v, ok := param(epVideos+"/", ""); ok {
		return epVideo, v, true
	}
	if v, ok := param(epGenerations+"/", ""); ok {
		return epTask, v, true
	}
	if v, ok := param(keyedClipPrefix, keyedClipSuffix); ok {
		return epKeyedClip, v, true
	}
	if v, ok := param(clipPathPrefix, clipPathSuffix); ok {
		return epClips, v, true
	}
	if v, ok := param("/_mock/tasks/", ""); ok {
		return epMockTask, v, true
	}
	if v, ok := param("/_mock/tasks/", "/finish"); ok {
		return epMockFinish, v, true
	}
	if v, ok := param("/_mock/tasks/", "/fail"); ok {
		return epMockFail, v, true
	}
	if v, ok := param("/_mock/tasks/", "/expire-clip"); ok {
		return epExpireClip, v, true
	}
	return "", "", false
}

func allowedMethods(ep string) []string {
	switch ep {
	case epGenerations, epExpireURLs, epMockFinish, epMockFail, epExpireClip:
		return []string{http.MethodPost}
	case epTask, epModels, epLedger:
		return []string{http.MethodGet}
	case epClips, epKeyedClip:
		return []string{http.MethodGet, http.MethodHead}
	case epMockTask:
		return []string{http.MethodDelete}
	case epVideos:
		return []string{http.MethodGet, http.MethodPost}
	case epVideo:
		return []string{http.MethodGet, http.MethodDelete}
	}
	return nil
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// authenticate resolves the bearer key. Messages never echo the key: it would
// end up in client logs and Terraform diagnostics.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request) (*keyState, bool) {
	h := r.Header.Get("Authorization")
	scheme, tok, _ := strings.Cut(h, " ")
	tok = strings.TrimSpace(tok)
	if h == "" || !strings.EqualFold(scheme, "Bearer") || tok == "" {
		s.writeAuthError(w, "未提供令牌",
			"missing API key: send it as \"Authorization: Bearer <API_KEY>\"")
		return nil, false
	}
	s.mu.Lock()
	ks := s.keys[tok]
	s.mu.Unlock()
	switch {
	case ks == nil:
		s.writeAuthError(w, "无效的令牌",
			"invalid API key: the key is not known to this service; check for typos or create a key in the console")
		return nil, false
	case ks.Revoked:
		s.writeAuthError(w, "该令牌状态不可用",
			"the API key was revoked (deleted in the console); create a new key and use it instead")
		return nil, false
	}
	return ks, true
}

// writeAuthError answers 401 with the gateway's message (newAPI) or the
// service's (msg).
func (s *Server) writeAuthError(w http.ResponseWriter, newAPI, msg string) {
	if s.newAPI {
		s.writeGatewayError(w, http.StatusUnauthorized, "", newAPI)
		return
	}
	writeError(w, http.StatusUnauthorized, "authentication_error", "", msg)
}

type errorBody struct {
	Error apiError `json:"error"`
}

type apiError struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Param   string `json:"param,omitempty"`
}

func writeError(w http.ResponseWriter, status int, typ, param, msg string) {
	writeJSON(w, status, errorBody{Error: apiError{Message: msg, Type: typ, Param: param}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	// Clip URLs contain "&"; keep them readable for humans and shell scripts.
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // the client went away; nothing useful to do
}

// statusRecorder remembers the status code for the ledger.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

func (r *statusRecorder) code() int {
	if r.status == 0 {
		return http.StatusOK
	}
	return r.status
}

// countRequest counts a request under its ledger key, and among the range
// requests when it asks for a byte range.
func (s *Server) countRequest(r *http.Request, key string) {
	s.mu.Lock()
	s.requests[key]++
	if r.Header.Get("Range") != "" {
		s.rangeRequests[key]++
	}
	s.mu.Unlock()
}

func (s *Server) countResponse(code int) {
	s.mu.Lock()
	s.responses[strconv.Itoa(code)]++
	s.mu.Unlock()
}

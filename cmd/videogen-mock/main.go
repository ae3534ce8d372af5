// Command videogen-mock serves the offline stand-in of the video generation
// API (package internal/mockapi) over HTTP, for demos, scripts and manual
// testing of the Terraform provider.
//
// Defaults: it listens on 127.0.0.1:8080 and accepts one API key,
// "videogen-mock-key" (send "Authorization: Bearer videogen-mock-key"), which
// may use every model and has an unlimited balance. The models are
// videogen-1 (up to 10 s, 480p/720p), videogen-1-fast (up to 5 s, 480p/720p)
// and videogen-2 (up to 12 s, 720p/1080p). A task takes 2s to finish, clip
// URLs never expire, and there are no faults, failures or rate limits. Task
// IDs differ from run to run unless -seed repeats a run's (the seed of each
// run is printed at start), and every task's clip has its own bytes.
//
// Usage:
//
//	videogen-mock [-addr 127.0.0.1:8080] [-config mock.json] [-api-key KEY]
//	              [-duration 2s] [-models videogen-1,videogen-2] [-seed 0]
//	              [-clip-bytes 0] [-fault-rate 0] [-task-failure-rate 0]
//	              [-rate-limit 0] [-url-ttl 0] [-hold] [-gateway-failures-after-submit 0]
//	              [-dialect openai] [-keyed-clips] [-ignore-idempotency-keys] [-state FILE]
//	              [-addr-file FILE] [-quiet] [-exit-with PID]
//
// Flags given on the command line override the -config file. With -hold every
// task stays running until released with POST /_mock/tasks/{task_id}/finish
// or .../fail; -gateway-failures-after-submit N answers the next N accepted
// submissions 504 after creating their task (-1: every one), as a gateway
// that times out in front of the service would. -dialect new-api answers as
// the new-api gateway (v0.10.0) in front of a Doubao video channel does:
// task IDs without a status, tasks in its {"code","message","data"}
// envelope, the clip URL in fail_reason, 400 task_not_exist for unknown
// tasks, 503 model_not_found for unknown models, and only model and prompt
// used (see mockapi.DialectNewAPI). -dialect openai-videos answers as OpenAI's
// video API does: POST /v1/videos (multipart), GET and DELETE /v1/videos/{id},
// the clip at /v1/videos/{id}/content behind the key, GET /v1/videos (see
// mockapi.DialectOpenAIVideos). -dialect gemini and -dialect vertex answer as
// Google's Veo does through the Gemini API (the key in x-goog-api-key) and
// through Vertex AI (a key as the bearer access token), with long-running
// operations (see mockapi.DialectGemini, mockapi.DialectVertex). -keyed-clips serves clips as new-api
// does for its Sora and Veo channels: at {base}/v1/videos/{task_id}/content
// on the mock's own address, only with the key. -ignore-idempotency-keys
// bills every submission, as a server that does not honour the
// Idempotency-Key header (most video APIs) does; by default the default
// dialect answers a key sent again within a day with the first task and bills
// nothing new (the other dialects ignore keys, as their servers do). -state FILE keeps the tasks
// (and the ledger) in FILE across restarts, so that a configuration tried by
// hand survives a restart of `make mock`; without it a restarted mock knows
// none of the earlier tasks. With
// "-addr 127.0.0.1:0" a free port is picked; -addr-file then tells scripts
// where: once listening, the base URL (http://127.0.0.1:PORT) is written to
// FILE atomically. The server stops gracefully on SIGINT or SIGTERM, and with
// -exit-with PID also when that process exits, however it ends: scripts pass
// their own PID so that a killed script never leaves the mock behind.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stderr)
	stop()
	switch {
	case errors.Is(err, flag.ErrHelp):
	case err != nil:
		fmt.Fprintln(os.Stderr, "videogen-mock:", err)
		os.Exit(1)
	}
}

type options struct {
	addr     string
	addrFile string
	quiet    bool
	exitWith []int
	cfg      mockapi.Config
}

// parseFlags builds the mock's config: defaults or -config, then the flags
// that were set explicitly, so a flag's default never masks the file.
func parseFlags(args []string, stderr io.Writer) (options, error) {
	def := mockapi.DefaultConfig()
	fs := flag.NewFlagSet("videogen-mock", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.addr, "addr", "127.0.0.1:8080", "listen address; port 0 picks a free port")
	fs.StringVar(&o.addrFile, "addr-file", "", "once listening, write the base URL to this file (atomically)")
	fs.BoolVar(&o.quiet, "quiet", false, "don't log requests")
	fs.Func("exit-with", "stop when the process with this PID exits (Linux; repeatable), such as the script that started the mock", func(v string) error {
		pid, err := strconv.Atoi(v)
		if err != nil || pid <= 0 {
			return fmt.Errorf("not a process ID: %q", v)
		}
		o.exitWith = append(o.exitWith, pid)
		return nil
	})
	configFile := fs.String("config", "", "JSON config file (mockapi.Config); flags set explicitly override it")
	apiKey := fs.String("api-key", mockapi.DefaultAPIKey, "API key to accept (replaces the key of the first configured key)")
	duration := fs.Duration("duration", time.Duration(def.TaskDuration), "time from submission to the final state")
	models := fs.String("models", "videogen-1,videogen-1-fast,videogen-2", "comma-separated model IDs to offer; known IDs keep their limits")
	seed := fs.Int64("seed", 0, "seed for task IDs, faults and failures (0 = a random one, printed at start; give it again to repeat a run)")
	clipBytes := fs.Int64("clip-bytes", 0, "serve synthetic MP4 clips of exactly this size (0 = the small fixture clip)")
	faultRate := fs.Float64("fault-rate", 0, "fraction of API requests answered 500/502/503")
	failureRate := fs.Float64("task-failure-rate", 0, "fraction of tasks that end failed")
	rateLimit := fs.Float64("rate-limit", 0, "requests per second per key, burst ceil(rate) (0 = unlimited)")
	urlTTL := fs.Duration("url-ttl", 0, "lifetime of clip URLs (0 = never expire)")
	taskRetention := fs.Duration("task-retention", 0,
		"forget a task this long after it became final: its reads answer 404, as DELETE /_mock/tasks/{task_id} does (0 = never)")
	clipRetention := fs.Duration("clip-retention", 0,
		"expire a clip's storage this long after its task succeeded: the task still answers, its clip URLs answer 403 for ever, "+
			"as POST /_mock/tasks/{task_id}/expire-clip does (0 = never)")
	hold := fs.Bool("hold", false, "keep every task running until POST /_mock/tasks/{task_id}/finish or /fail")
	gatewayFailures := fs.Int("gateway-failures-after-submit", 0,
		"answer the next N accepted submissions 504 after creating their task (-1 = every one)")
	dialect := fs.String("dialect", mockapi.DialectOpenAI,
		"answer as the API is described ("+mockapi.DialectOpenAI+"), as the new-api gateway does ("+mockapi.DialectNewAPI+
			"), as OpenAI's video API does ("+mockapi.DialectOpenAIVideos+"), or as Google's Veo does through the Gemini API ("+
			mockapi.DialectGemini+") or Vertex AI ("+mockapi.DialectVertex+")")
	stateFile := fs.String("state", "",
		"keep the tasks in this file across restarts: read at start when it exists, written on every change (default: none, tasks live as long as the mock)")
	keyedClips := fs.Bool("keyed-clips", false,
		"serve clips at /v1/videos/{task_id}/content behind the API key, as new-api does for Sora and Veo, instead of signed URLs")
	ignoreKeys := fs.Bool("ignore-idempotency-keys", false,
		"bill every submission, as a server that does not honour the Idempotency-Key header does (default: a key sent again "+
			"within a day returns the first task and bills nothing new)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage of videogen-mock (every setting is a flag):\n")
		fs.PrintDefaults()
		fmt.Fprintf(stderr, "\nControls at the base URL, without the API key:\n")
		for _, c := range mockapi.Controls {
			fmt.Fprintf(stderr, "  %-6s %s\n        %s\n", c.Method, c.Path, c.Does)
		}
	}
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q; all settings are flags (see -help)", fs.Args())
	}

	o.cfg = def
	if *configFile != "" {
		cfg, err := mockapi.LoadConfig(*configFile)
		if err != nil {
			return o, err
		}
		o.cfg = cfg
	}
	var err error
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "api-key":
			if len(o.cfg.Keys) == 0 {
				o.cfg.Keys = []mockapi.Key{{}}
			}
			o.cfg.Keys[0].Key = *apiKey
		case "duration":
			o.cfg.TaskDuration = mockapi.Duration(*duration)
		case "models":
			o.cfg.Models, err = pickModels(o.cfg.Models, *models)
		case "seed":
			o.cfg.Seed = *seed
		case "clip-bytes":
			o.cfg.ClipBytes = *clipBytes
		case "fault-rate":
			o.cfg.FaultRate = *faultRate
		case "task-failure-rate":
			o.cfg.TaskFailureRate = *failureRate
		case "rate-limit":
			o.cfg.RateLimit = mockapi.RateLimit{RequestsPerSecond: *rateLimit}
		case "url-ttl":
			o.cfg.URLTTL = mockapi.Duration(*urlTTL)
		case "task-retention":
			o.cfg.TaskRetention = mockapi.Duration(*taskRetention)
		case "clip-retention":
			o.cfg.ClipRetention = mockapi.Duration(*clipRetention)
		case "hold":
			o.cfg.HoldTasks = *hold
		case "gateway-failures-after-submit":
			o.cfg.GatewayFailuresAfterSubmit = *gatewayFailures
		case "dialect":
			o.cfg.Dialect = *dialect
		case "keyed-clips":
			o.cfg.KeyedClips = *keyedClips
		case "ignore-idempotency-keys":
			o.cfg.IgnoreIdempotencyKeys = *ignoreKeys
		case "state":
			o.cfg.StateFile = *stateFile
		}
	})
	return o, err
}

// pickModels keeps the definitions of IDs already known (from the config or
// the defaults) and invents permissive ones for new IDs.
func pickModels(current []mockapi.Model, list string) ([]mockapi.Model, error) {
	known := map[string]mockapi.Model{}
	for _, m := range mockapi.DefaultConfig().Models {
		known[m.ID] = m
	}
	for _, m := range current {
		known[m.ID] = m
	}
	var out []mockapi.Model
	for _, id := range strings.Split(list, ",") {
		id = strings.TrimSpace(id)
		if id == "" {
			continue
		}
		m, ok := known[id]
		if !ok {
			m = mockapi.Model{ID: id, OwnedBy: "videogen", Created: 1735689600}
		}
		out = append(out, m)
	}
	if len(out) == 0 {
		return nil, errors.New("-models lists no model IDs")
	}
	return out, nil
}

func run(ctx context.Context, args []string, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	for _, pid := range o.exitWith {
		if ctx, err = exitWith(ctx, pid); err != nil {
			return err
		}
	}
	mock, err := mockapi.New(o.cfg)
	if err != nil {
		return err
	}
	defer mock.Close()
	if o.cfg.StateFile != "" {
		fmt.Fprintf(stderr, "videogen-mock keeps its tasks in %s (%d tasks now)\n", o.cfg.StateFile, len(mock.Ledger().Tasks))
	}

	if o.addrFile != "" {
		// A file left by an earlier run would send waiting scripts to a dead port.
		if err := os.Remove(o.addrFile); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", o.addr)
	if err != nil {
		return err
	}
	base := baseURL(ln.Addr())

	logger := log.New(stderr, "", log.LstdFlags)
	var h http.Handler = mock
	if !o.quiet {
		h = logRequests(logger, mock)
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          logger,
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()

	if o.addrFile != "" {
		if err := writeFileAtomic(o.addrFile, base+"\n"); err != nil {
			_ = srv.Close()
			return err
		}
		defer os.Remove(o.addrFile)
	}
	fmt.Fprintf(stderr, "videogen-mock listening on %s (seed %d)\n", base, mock.Seed())

	select {
	case err := <-serveErr:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutting down: %w", err)
	}
	return nil
}

// baseURL names a loopback address when listening on all interfaces, since
// "http://[::]:8080" is not something a client can dial everywhere.
func baseURL(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "http://" + addr.String()
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port)
}

func writeFileAtomic(path, content string) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".videogen-mock-addr-*")
	if err != nil {
		return err
	}
	if _, err := f.WriteString(content); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	return os.Rename(f.Name(), path)
}

// logRequests logs one line per request. It logs the path without the query
// (clip signatures) and never the headers, so no key reaches the log.
func logRequests(l *log.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &recorder{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(rec, r)
		l.Printf("%s %s %d %dB %s", r.Method, r.URL.Path, rec.status, rec.bytes, time.Since(start).Round(time.Microsecond))
	})
}

type recorder struct {
	http.ResponseWriter
	status      int
	bytes       int64
	wroteHeader bool
}

func (r *recorder) WriteHeader(code int) {
	if !r.wroteHeader {
		r.status, r.wroteHeader = code, true
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	r.wroteHeader = true
	n, err := r.ResponseWriter.Write(b)
	r.bytes += int64(n)
	return n, err
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

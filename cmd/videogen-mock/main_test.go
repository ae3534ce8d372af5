package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
)

// livenessBound only turns a hang into a readable failure on a loaded
// machine; the waits end as soon as the server is ready or has stopped.
const livenessBound = 2 * time.Minute

// syncBuffer is written by server goroutines while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestRun(t *testing.T) {
	t.Parallel()
	addrFile := filepath.Join(t.TempDir(), "addr")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-addr-file", addrFile, "-api-key", "secret-test-key"}, &stderr)
	}()

	var base string
	deadline := time.Now().Add(livenessBound)
	for base == "" {
		if b, err := os.ReadFile(addrFile); err == nil {
			base = strings.TrimSpace(string(b))
			break
		}
		select {
		case err := <-done:
			t.Fatalf("run returned early: %v\n%s", err, stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no address file after %s; stderr:\n%s", livenessBound, stderr.String())
		}
	}

	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/v1/models", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer secret-test-key")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	err = json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || len(list.Data) != 3 {
		t.Fatalf("GET /v1/models: status %d, %d models, err %v", resp.StatusCode, len(list.Data), err)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(livenessBound):
		t.Fatal("run did not return after cancel")
	}
	out := stderr.String()
	if !strings.Contains(out, "videogen-mock listening on "+base+" (seed ") {
		t.Errorf("stderr lacks the listening line:\n%s", out)
	}
	if !strings.Contains(out, "GET /v1/models 200") {
		t.Errorf("stderr lacks the request log line:\n%s", out)
	}
	if strings.Contains(out, "secret-test-key") {
		t.Errorf("stderr contains the API key:\n%s", out)
	}
	if _, err := os.Stat(addrFile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("address file not removed on shutdown: %v", err)
	}
}

func TestParseFlags(t *testing.T) {
	t.Parallel()
	cfgFile := filepath.Join(t.TempDir(), "mock.json")
	if err := os.WriteFile(cfgFile, []byte(`{"seed": 7, "fault_rate": 0.5, "task_duration": "1s",
		"keys": [{"key": "k1", "allowed_models": ["videogen-2"]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		args  []string
		check func(t *testing.T, o options)
	}{
		{"defaults", nil, func(t *testing.T, o options) {
			if o.addr != "127.0.0.1:8080" || o.cfg.Keys[0].Key != mockapi.DefaultAPIKey || len(o.cfg.Models) != 3 ||
				time.Duration(o.cfg.TaskDuration) != 2*time.Second {
				t.Errorf("unexpected defaults: %+v", o)
			}
		}},
		{"config kept where no flag is set", []string{"-config", cfgFile, "-seed", "9"}, func(t *testing.T, o options) {
			if o.cfg.Seed != 9 || o.cfg.FaultRate != 0.5 || time.Duration(o.cfg.TaskDuration) != time.Second || o.cfg.Keys[0].Key != "k1" {
				t.Errorf("config/flag merge wrong: %+v", o.cfg)
			}
		}},
		{"api key keeps the key's rules", []string{"-config", cfgFile, "-api-key", "k2"}, func(t *testing.T, o options) {
			if o.cfg.Keys[0].Key != "k2" || len(o.cfg.Keys[0].AllowedModels) != 1 {
				t.Errorf("keys: %+v", o.cfg.Keys)
			}
		}},
		{"models", []string{"-models", "videogen-2, custom"}, func(t *testing.T, o options) {
			if len(o.cfg.Models) != 2 || o.cfg.Models[0].MaxSeconds != 12 || o.cfg.Models[1].ID != "custom" {
				t.Errorf("models: %+v", o.cfg.Models)
			}
		}},
		{"rates and sizes", []string{"-rate-limit", "3", "-url-ttl", "1m", "-clip-bytes", "10000", "-task-failure-rate", "0.25", "-duration", "0s",
			"-hold", "-gateway-failures-after-submit", "-1"},
			func(t *testing.T, o options) {
				c := o.cfg
				if c.RateLimit.RequestsPerSecond != 3 || time.Duration(c.URLTTL) != time.Minute || c.ClipBytes != 10000 ||
					c.TaskFailureRate != 0.25 || c.TaskDuration != 0 || !c.HoldTasks || c.GatewayFailuresAfterSubmit != -1 {
					t.Errorf("config: %+v", c)
				}
				if _, err := mockapi.New(c); err != nil {
					t.Errorf("New: %v", err)
				}
			}},
		{"retention", []string{"-task-retention", "72h", "-clip-retention", "24h"}, func(t *testing.T, o options) {
			if time.Duration(o.cfg.TaskRetention) != 72*time.Hour || time.Duration(o.cfg.ClipRetention) != 24*time.Hour {
				t.Errorf("retention: task %s, clip %s", o.cfg.TaskRetention, o.cfg.ClipRetention)
			}
			if _, err := mockapi.New(o.cfg); err != nil {
				t.Errorf("New: %v", err)
			}
		}},
		{"dialect", []string{"-dialect", "new-api"}, func(t *testing.T, o options) {
			if o.cfg.Dialect != mockapi.DialectNewAPI {
				t.Errorf("dialect %q", o.cfg.Dialect)
			}
			if _, err := mockapi.New(o.cfg); err != nil {
				t.Errorf("New: %v", err)
			}
		}},
		{"keyed clips", []string{"-keyed-clips"}, func(t *testing.T, o options) {
			if !o.cfg.KeyedClips {
				t.Error("-keyed-clips left Config.KeyedClips off")
			}
		}},
		{"ignore idempotency keys", []string{"-ignore-idempotency-keys"}, func(t *testing.T, o options) {
			if !o.cfg.IgnoreIdempotencyKeys {
				t.Error("-ignore-idempotency-keys left Config.IgnoreIdempotencyKeys off")
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o, err := parseFlags(tt.args, &bytes.Buffer{})
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, o)
		})
	}

	for _, args := range [][]string{{"-models", ","}, {"-config", "/does/not/exist.json"}, {"stray"}, {"-nope"}, {"-hold=maybe"}} {
		if _, err := parseFlags(args, &bytes.Buffer{}); err == nil {
			t.Errorf("parseFlags(%q) succeeded, want an error", args)
		}
	}
}

// A person trying the provider by hand learns the ledger and the task controls
// from -help and from this command's README, not only from Go code.
func TestHelpAndReadmeListControls(t *testing.T) {
	t.Parallel()
	var help bytes.Buffer
	if err := run(t.Context(), []string{"-help"}, &help); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-help returned %v, want flag.ErrHelp", err)
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(readme), "\n## The ledger and the task controls\n")
	section, _, _ = strings.Cut(section, "\n## ")
	for _, c := range mockapi.Controls {
		if !strings.Contains(help.String(), c.Method) || !strings.Contains(help.String(), c.Path) ||
			!strings.Contains(help.String(), c.Does) {
			t.Errorf("-help does not list %s %s", c.Method, c.Path)
		}
		if !strings.Contains(section, "| `"+c.Method+" "+c.Path+"` |") {
			t.Errorf("cmd/videogen-mock/README.md does not list %s %s", c.Method, c.Path)
		}
	}
}

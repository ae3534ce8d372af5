package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/videogen/terraform-provider-videogen/internal/loopback"
)

// readyTimeout bounds new-api's start: a migration of an empty SQLite
// database takes a second or two; only a broken start gets near this.
const readyTimeout = 2 * time.Minute

// newAPI is one new-api process on an empty SQLite database, configured
// with a root user, one video channel in front of each upstream, and an API
// key for the provider.
type newAPI struct {
	// URL is the base URL for the provider's base_url: http://127.0.0.1:port.
	URL string
	// Key is the API key (a new-api token) for the provider's api_key.
	Key string

	dir string
	out string // new-api's standard output and error
}

// startNewAPI starts the binary VIDEOGEN_NEW_API names, stopped when the test
// ends, and configures it through its own API.
func startNewAPI(t *testing.T, channels []*channel) *newAPI {
	t.Helper()
	bin := os.Getenv("VIDEOGEN_NEW_API")
	if bin == "" {
		t.Fatal("VIDEOGEN_NEW_API must name the new-api binary (make gateway-e2e builds it and sets it)")
	}
	port, err := loopback.FreePort(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	g := &newAPI{URL: "http://127.0.0.1:" + strconv.Itoa(port), dir: dir, out: filepath.Join(dir, "new-api.out")}
	out, err := os.Create(g.out)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "--log-dir", filepath.Join(dir, "logs")) //nolint:gosec // the binary make gateway-e2e built
	// new-api reads a .env file from its working directory.
	cmd.Dir = dir
	// Only what it needs: a developer's SQL_DSN or REDIS_CONN_STRING must not
	// point it at a real database.
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + dir,
		"PORT=" + strconv.Itoa(port),
		"SESSION_SECRET=" + randomHex(16),
		"SQLITE_PATH=" + filepath.Join(dir, "new-api.db") + "?_busy_timeout=30000",
	}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("starting new-api (%s): %v", bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cancel()
		if err := <-exited; err != nil {
			t.Logf("new-api stopped: %v", err) // killed by cancel, as expected
		}
		if t.Failed() {
			g.logOutput(t)
		}
	})
	if err := g.awaitReady(t.Context(), exited); err != nil {
		g.logOutput(t)
		t.Fatal(err)
	}
	if err := g.configure(t.Context(), channels); err != nil {
		g.logOutput(t)
		t.Fatal(err)
	}
	return g
}

// logOutput shows the end of new-api's output, to tell its failures from
// the provider's.
func (g *newAPI) logOutput(t *testing.T) {
	t.Helper()
	b, _ := os.ReadFile(g.out)
	if len(b) > 8000 {
		b = b[len(b)-8000:]
	}
	t.Logf("new-api's output (end):\n%s", b)
}

// awaitReady polls GET /api/status until new-api answers, it exits, or
// readyTimeout passes.
func (g *newAPI) awaitReady(ctx context.Context, exited <-chan error) error {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		if last = g.call(ctx, http.DefaultClient, http.MethodGet, "/api/status", nil, nil, nil); last == nil {
			return nil
		}
		select {
		case err := <-exited:
			return fmt.Errorf("new-api exited before it was ready: %w", err)
		case <-ctx.Done():
			return fmt.Errorf("new-api was not ready after %s: %w", readyTimeout, last)
		case <-tick.C:
		}
	}
}

// configure does what an administrator does in new-api's console, through
// the API behind it: create the root user, log in, get an access token for
// the admin calls, set the server address (new-api's clip URLs of the Sora
// and Veo channels start with it), add each video channel, and create the
// provider's key.
func (g *newAPI) configure(ctx context.Context, channels []*channel) error {
	const user = "root"
	password := randomHex(12)
	if err := g.call(ctx, http.DefaultClient, http.MethodPost, "/api/setup", nil, map[string]any{
		"username": user, "password": password, "confirmPassword": password,
		"SelfUseModeEnabled": false, "DemoSiteEnabled": false,
	}, nil); err != nil {
		return fmt.Errorf("setup: %w", err)
	}
	jar, err := cookiejar.New(nil)
	if err != nil {
		return err
	}
	session := &http.Client{Jar: jar}
	var me struct{ ID int }
	if err := g.call(ctx, session, http.MethodPost, "/api/user/login", nil,
		map[string]string{"username": user, "password": password}, &me); err != nil {
		return fmt.Errorf("login: %w", err)
	}
	userID := strconv.Itoa(me.ID)
	var accessToken string
	if err := g.call(ctx, session, http.MethodGet, "/api/user/token", map[string]string{"New-Api-User": userID}, nil, &accessToken); err != nil {
		return fmt.Errorf("access token: %w", err)
	}
	admin := map[string]string{"Authorization": accessToken, "New-Api-User": userID}
	if err := g.call(ctx, http.DefaultClient, http.MethodPut, "/api/option/", admin,
		map[string]string{"key": "ServerAddress", "value": g.URL}, nil); err != nil {
		return fmt.Errorf("setting the server address: %w", err)
	}
	for _, ch := range channels {
		if err := g.call(ctx, http.DefaultClient, http.MethodPost, "/api/channel/", admin, map[string]any{
			"mode": "single",
			"channel": map[string]any{
				"type": ch.channelType, "name": ch.name + "-stand-in", "key": ch.upstream.Key,
				"base_url": ch.upstream.URL, "models": ch.model, "group": "default",
			},
		}, nil); err != nil {
			return fmt.Errorf("adding the %s channel: %w", ch.name, err)
		}
	}
	if err := g.priceModels(ctx, admin, channels); err != nil {
		return err
	}
	if err := g.call(ctx, http.DefaultClient, http.MethodPost, "/api/token/", admin, map[string]any{
		"name": "videogen-e2e", "unlimited_quota": true, "expired_time": -1,
	}, nil); err != nil {
		return fmt.Errorf("creating the API key: %w", err)
	}
	var tokens struct {
		Items []struct {
			Name string
			Key  string
		}
	}
	if err := g.call(ctx, http.DefaultClient, http.MethodGet, "/api/token/?p=1&size=10", admin, nil, &tokens); err != nil {
		return fmt.Errorf("listing API keys: %w", err)
	}
	for _, tok := range tokens.Items {
		if tok.Name == "videogen-e2e" && tok.Key != "" {
			// new-api stores keys without the sk- that clients send.
			g.Key = "sk-" + tok.Key
			return nil
		}
	}
	return fmt.Errorf("listing API keys: the new key is not among %d listed", len(tokens.Items))
}

// modelPrice is what the test's new-api charges per clip, in its quota's
// dollars.
const modelPrice = 0.4

// priceModels gives each channel's model a price per clip, added to
// new-api's price list. new-api hides a model without a price or ratio from
// GET /v1/models (outside its self-use mode), so an administrator sets one
// when offering a model.
func (g *newAPI) priceModels(ctx context.Context, admin map[string]string, channels []*channel) error {
	var options []struct{ Key, Value string }
	if err := g.call(ctx, http.DefaultClient, http.MethodGet, "/api/option/", admin, nil, &options); err != nil {
		return fmt.Errorf("reading the options: %w", err)
	}
	prices := map[string]float64{}
	for _, o := range options {
		if o.Key == "ModelPrice" {
			if err := json.Unmarshal([]byte(o.Value), &prices); err != nil {
				return fmt.Errorf("reading the model prices %q: %w", o.Value, err)
			}
		}
	}
	for _, ch := range channels {
		prices[ch.model] = modelPrice
	}
	value, err := json.Marshal(prices)
	if err != nil {
		return err
	}
	if err := g.call(ctx, http.DefaultClient, http.MethodPut, "/api/option/", admin,
		map[string]string{"key": "ModelPrice", "value": string(value)}, nil); err != nil {
		return fmt.Errorf("pricing the models: %w", err)
	}
	return nil
}

// call sends a request to new-api's console API and decodes the data of its
// {"success","message","data"} answer into data (when not nil); an answer
// with success false is an error with its message.
func (g *newAPI) call(ctx context.Context, c *http.Client, method, path string, header map[string]string, body, data any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, g.URL+path, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := c.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return err
	}
	var env struct {
		Success bool
		Message string
		Data    json.RawMessage
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		return fmt.Errorf("%s %s: %d %s: %w", method, path, res.StatusCode, raw, err)
	}
	if res.StatusCode != http.StatusOK || !env.Success {
		return fmt.Errorf("%s %s: %d: %s", method, path, res.StatusCode, strings.TrimSpace(env.Message))
	}
	if data == nil {
		return nil
	}
	if len(env.Data) == 0 || string(env.Data) == "null" {
		return errors.New(method + " " + path + ": the answer has no data")
	}
	return json.Unmarshal(env.Data, data)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

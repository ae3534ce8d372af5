package mockapi

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// entries builds n metadata.content entries of one type.
func entries(typ, role string, n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(`{"type":%q,%q:{"url":"https://example.com/%d"},"role":%q}`, typ, typ, i, role)
	}
	return strings.Join(parts, ",")
}

func TestSubmitInvalid(t *testing.T) {
	t.Parallel()
	srv, ts := newTestServer(t, nil)

	const img = `{"type":"image_url","image_url":{"url":"https://example.com/a.png"},"role":"reference_image"}`
	tests := []struct {
		name  string
		body  string
		param string
		msg   string
	}{
		{"malformed JSON", `{"model":`, "", "not valid JSON"},
		{"empty body", ` `, "", "body is empty"},
		{"trailing data", `{"model":"videogen-1","prompt":"p"} {}`, "", "after the top-level value"},
		{"array body", `[{"model":"videogen-1"}]`, "", "must be a JSON object, not an array"},
		{"string body", `"hello"`, "", "not a string"},
		{"missing model", `{"prompt":"p"}`, "model", `missing required parameter "model"`},
		{"empty model", `{"model":"","prompt":"p"}`, "model", "must not be empty"},
		{"model not string", `{"model":1,"prompt":"p"}`, "model", "must be a string, not a number"},
		{"model null", `{"model":null,"prompt":"p"}`, "model", "must be a string, not null"},
		{"missing prompt", `{"model":"videogen-1"}`, "prompt", `missing required parameter "prompt"`},
		{"blank prompt", `{"model":"videogen-1","prompt":"  "}`, "prompt", "must not be empty"},
		{"seconds number", `{"model":"videogen-1","prompt":"p","seconds":5}`, "seconds", "not a number"},
		{"seconds null", `{"model":"videogen-1","prompt":"p","seconds":null}`, "seconds", "not null"},
		{"seconds unit", `{"model":"videogen-1","prompt":"p","seconds":"5s"}`, "seconds", `got "5s"`},
		{"seconds empty", `{"model":"videogen-1","prompt":"p","seconds":""}`, "seconds", "string of digits"},
		{"seconds negative", `{"model":"videogen-1","prompt":"p","seconds":"-1"}`, "seconds", "string of digits"},
		{"seconds space", `{"model":"videogen-1","prompt":"p","seconds":" 5"}`, "seconds", "string of digits"},
		{"seconds non-ASCII digits", `{"model":"videogen-1","prompt":"p","seconds":"５"}`, "seconds", "string of digits"},
		{"seconds zero", `{"model":"videogen-1","prompt":"p","seconds":"0"}`, "seconds", "at least"},
		{"seconds huge", `{"model":"videogen-1","prompt":"p","seconds":"99999999999"}`, "seconds", "too large"},
		{"seconds above max", `{"model":"videogen-1","prompt":"p","seconds":"11"}`, "seconds", "maximum of 10"},
		{"seconds above fast max", `{"model":"videogen-1-fast","prompt":"p","seconds":"6"}`, "seconds", "maximum of 5"},
		{"top-level callback_url", `{"model":"videogen-1","prompt":"p","callback_url":"http://x"}`, "callback_url", "metadata.callback_url"},
		{"top-level resolution", `{"model":"videogen-1","prompt":"p","resolution":"720p"}`, "resolution", "metadata.resolution"},
		{"unknown parameter", `{"model":"videogen-1","prompt":"p","size":"720x1280"}`, "size", `unrecognized request parameter "size"`},
		{"metadata array", `{"model":"videogen-1","prompt":"p","metadata":[]}`, "metadata", "must be a JSON object"},
		{"metadata null", `{"model":"videogen-1","prompt":"p","metadata":null}`, "metadata", "not null"},
		{"metadata string", `{"model":"videogen-1","prompt":"p","metadata":"{}"}`, "metadata", "not a string"},
		{"callback not URL", `{"model":"videogen-1","prompt":"p","metadata":{"callback_url":"example.com/hook"}}`, "metadata.callback_url", "absolute http or https URL"},
		{"callback not string", `{"model":"videogen-1","prompt":"p","metadata":{"callback_url":true}}`, "metadata.callback_url", "absolute http or https URL"},
		{"resolution unknown", `{"model":"videogen-2","prompt":"p","metadata":{"resolution":"4k"}}`, "metadata.resolution", "480p, 720p, 1080p"},
		{"resolution not for model", `{"model":"videogen-1","prompt":"p","metadata":{"resolution":"1080p"}}`, "metadata.resolution", "accepts: 480p, 720p"},
		{"resolution not for v2", `{"model":"videogen-2","prompt":"p","metadata":{"resolution":"480p"}}`, "metadata.resolution", "accepts: 720p, 1080p"},
		{"ratio malformed", `{"model":"videogen-1","prompt":"p","metadata":{"ratio":"wide"}}`, "metadata.ratio", `"16:9"`},
		{"generate_audio string", `{"model":"videogen-2","prompt":"p","metadata":{"generate_audio":"yes"}}`, "metadata.generate_audio", "true or false"},
		{"content object", `{"model":"videogen-1","prompt":"p","metadata":{"content":{}}}`, "metadata.content", "must be an array"},
		{"content entry string", `{"model":"videogen-1","prompt":"p","metadata":{"content":["https://x/a.png"]}}`, "metadata.content", "content[0] must be an object"},
		{"content bad type", `{"model":"videogen-1","prompt":"p","metadata":{"content":[{"type":"text","text":{"url":"x"},"role":"x"}]}}`, "metadata.content", "type must be one of image_url, video_url, audio_url"},
		{"content missing type", `{"model":"videogen-1","prompt":"p","metadata":{"content":[{"image_url":{"url":"x"},"role":"reference_image"}]}}`, "metadata.content", "got nothing"},
		{"content missing payload", `{"model":"videogen-1","prompt":"p","metadata":{"content":[{"type":"image_url","url":"x","role":"reference_image"}]}}`, "metadata.content", `needs a member "image_url"`},
		{"content payload mismatched", `{"model":"videogen-1","prompt":"p","metadata":{"content":[{"type":"video_url","image_url":{"url":"x"},"role":"reference_video"}]}}`, "metadata.content", `needs a member "video_url"`},
		{"content payload string", `{"model":"videogen-1","prompt":"p","metadata":{"content":[{"type":"image_url","image_url":"https://x","role":"reference_image"}]}}`, "metadata.content", `holding an object`},
		{"content empty url", `{"model":"videogen-1","prompt":"p","metadata":{"content":[{"type":"image_url","image_url":{"url":""},"role":"reference_image"}]}}`, "metadata.content", "url must be a non-empty string"},
		{"content wrong role", `{"model":"videogen-1","prompt":"p","metadata":{"content":[{"type":"audio_url","audio_url":{"url":"x"},"role":"reference_image"}]}}`, "metadata.content", `role must be "reference_audio"`},
		{"content missing role", `{"model":"videogen-1","prompt":"p","metadata":{"content":[{"type":"image_url","image_url":{"url":"x"}}]}}`, "metadata.content", `content[0].role must be "reference_image"`},
		{"content extra member", `{"model":"videogen-1","prompt":"p","metadata":{"content":[` + img + `,{"type":"image_url","image_url":{"url":"x"},"role":"reference_image","weight":1}]}}`, "metadata.content", `content[1] has unexpected member "weight"`},
		{"10 images", `{"model":"videogen-1","prompt":"p","metadata":{"content":[` + entries("image_url", "reference_image", 10) + `]}}`, "metadata.content", "10 image_url entries; at most 9"},
		{"4 videos", `{"model":"videogen-1","prompt":"p","metadata":{"content":[` + entries("video_url", "reference_video", 4) + `]}}`, "metadata.content", "4 video_url entries; at most 3"},
		{"4 audios", `{"model":"videogen-1","prompt":"p","metadata":{"content":[` + entries("audio_url", "reference_audio", 4) + `]}}`, "metadata.content", "4 audio_url entries; at most 3"},
		{"bad duration marker", `{"model":"videogen-1","prompt":"p [mock:duration=soon]"}`, "prompt", "[mock:duration=soon]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := do(t, ts, http.MethodPost, "/v1/video/generations", DefaultAPIKey, tt.body)
			if res.status != http.StatusBadRequest {
				t.Fatalf("status %d, want 400: %s", res.status, res.body)
			}
			e := apiErr(t, res)
			if e.Type != "invalid_request_error" || e.Param != tt.param || !strings.Contains(e.Message, tt.msg) {
				t.Errorf("error %+v, want invalid_request_error, param %q, message containing %q", e, tt.param, tt.msg)
			}
		})
	}

	t.Run("wrong content type", func(t *testing.T) {
		t.Parallel()
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, ts.URL+"/v1/video/generations",
			strings.NewReader(`{"model":"videogen-1","prompt":"p"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+DefaultAPIKey)
		req.Header.Set("Content-Type", "text/plain")
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res := readResult(t, resp)
		if e := apiErr(t, res); res.status != 400 || !strings.Contains(e.Message, "application/json") {
			t.Errorf("status %d, error %+v", res.status, e)
		}
	})

	t.Run("body too large", func(t *testing.T) {
		t.Parallel()
		body := `{"model":"videogen-1","prompt":"` + strings.Repeat("x", maxBodyBytes) + `"}`
		res := do(t, ts, http.MethodPost, "/v1/video/generations", DefaultAPIKey, body)
		if e := apiErr(t, res); res.status != 400 || !strings.Contains(e.Message, "larger than") {
			t.Errorf("status %d, error %+v", res.status, e)
		}
	})

	t.Cleanup(func() {
		// Runs after the parallel subtests: nothing rejected may leave a task.
		if n := len(srv.Ledger().Tasks); n != 0 {
			t.Errorf("rejected submissions created %d tasks", n)
		}
	})
}

func TestSubmitValid(t *testing.T) {
	t.Parallel()
	srv, ts := newTestServer(t, nil)
	content := entries("image_url", "reference_image", 9) + "," + entries("video_url", "reference_video", 3) + "," +
		entries("audio_url", "reference_audio", 3)
	bodies := []string{
		`{"model":"videogen-1","prompt":"a cat"}`,
		`{"model":"videogen-1","prompt":"a cat","seconds":"10"}`,
		`{"model":"videogen-1","prompt":"a cat","seconds":"05"}`,
		`{"model":"videogen-2","prompt":"@image1 walks","seconds":"12","metadata":{"ratio":"16:9","resolution":"1080p","generate_audio":true,` +
			`"callback_url":"https://hooks.example.com/x?a=1&b=2","content":[` + content + `],"vendor_extra":{"k":[1,2]}}}`,
		`{"model":"videogen-1-fast","prompt":"p","metadata":{}}`,
	}
	for _, body := range bodies {
		id := submit(t, ts, body)
		lt, ok := srv.Ledger().Task(id)
		if !ok {
			t.Fatalf("task %s missing from ledger", id)
		}
		if !strings.Contains(body, `"seconds":"`+lt.Seconds+`"`) && lt.Seconds != "" {
			t.Errorf("ledger seconds %q not as sent in %s", lt.Seconds, body)
		}
		if lt.Metadata != nil && !strings.Contains(body, string(lt.Metadata)) {
			t.Errorf("ledger metadata %s is not exactly what was sent in %s", lt.Metadata, body)
		}
	}
}

func TestSubmitAccess(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t, func(c *Config) {
		c.Keys = append(c.Keys,
			Key{Key: "fast-only", AllowedModels: []string{"videogen-1-fast"}},
			Key{Key: "poor", Balance: ptr[int64](4)},
			Key{Key: "poor too", Balance: ptr[int64](4)},
		)
		c.PricePerSecond = 2
	})
	tests := []struct {
		name   string
		key    string
		body   string
		status int
		typ    string
		param  string
		msg    []string
	}{
		{"unknown model", DefaultAPIKey, `{"model":"videogen-9","prompt":"p"}`, 404, "not_found_error", "model",
			[]string{`"videogen-9"`, "videogen-1, videogen-1-fast, videogen-2"}},
		{"unknown model lists the key's models", "fast-only", `{"model":"sora","prompt":"p"}`, 404, "not_found_error", "model",
			[]string{"available to this key: videogen-1-fast ("}},
		{"model not allowed", "fast-only", `{"model":"videogen-2","prompt":"p"}`, 403, "permission_error", "model",
			[]string{"may not use model \"videogen-2\""}},
		{"balance too low for default seconds", "poor", `{"model":"videogen-1","prompt":"p"}`, 403, "insufficient_quota", "",
			[]string{"insufficient balance", "costs 10", "balance is 4"}},
		{"balance too low", "poor", `{"model":"videogen-1","prompt":"p","seconds":"3"}`, 403, "insufficient_quota", "",
			[]string{"insufficient balance", "costs 6"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := do(t, ts, http.MethodPost, "/v1/video/generations", tt.key, tt.body)
			if res.status != tt.status {
				t.Fatalf("status %d, want %d: %s", res.status, tt.status, res.body)
			}
			e := apiErr(t, res)
			if e.Type != tt.typ || e.Param != tt.param {
				t.Errorf("error %+v, want type %s param %q", e, tt.typ, tt.param)
			}
			for _, m := range tt.msg {
				if !strings.Contains(e.Message, m) {
					t.Errorf("message %q lacks %q", e.Message, m)
				}
			}
		})
	}
	// Within budget: 2 s at 2 per second.
	submitAs(t, ts, "poor too", `{"model":"videogen-1","prompt":"p","seconds":"2"}`)
}

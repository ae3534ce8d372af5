package upstream

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"testing"
)

// TestSora follows a video as new-api's Sora adaptor does: the client's body
// forwarded, OpenAI's checks of it, the video object, its content behind
// the key.
func TestSora(t *testing.T) {
	t.Parallel()
	s := New(Sora)
	defer s.Close()
	if a := call(t, http.MethodPost, s.URL+"/v1/videos", "wrong", `{"model":"sora-2","prompt":"p"}`); a.status != http.StatusUnauthorized {
		t.Errorf("wrong key: %d %s", a.status, a.body)
	}
	for body, want := range map[string]string{
		`{"model":"sora-2","prompt":"p","metadata":{"ratio":"16:9"}}`: "Unknown parameter: 'metadata'.",
		`{"model":"sora-2","prompt":"p","seconds":"5"}`:               "Invalid value: '5'.",
		`{"model":"sora-2","prompt":"p","size":"640x480"}`:            "Invalid value: '640x480'.",
		`{"model":"sora-2","prompt":"p ` + RejectMarker + `"}`:        "blocked by our moderation system",
	} {
		a := call(t, http.MethodPost, s.URL+"/v1/videos", s.Key, body)
		e := decode[map[string]soraError](t, a)["error"]
		if a.status != http.StatusBadRequest || !bytes.Contains([]byte(e.Message), []byte(want)) {
			t.Errorf("%s: %d %s, want 400 %q", body, a.status, a.body, want)
		}
	}
	if s.Tasks() != 0 || len(s.Submissions()) != 4 {
		t.Fatalf("%d tasks, %d submissions after refusals; want 0 and 4", s.Tasks(), len(s.Submissions()))
	}
	v := decode[soraVideo](t, call(t, http.MethodPost, s.URL+"/v1/videos", s.Key, `{"model":"sora-2","prompt":"p","seconds":"8"}`))
	if v.ID == "" || v.Status != "queued" || v.Seconds != "8" || v.Size != SoraSize {
		t.Fatalf("submit: %+v", v)
	}
	content := s.URL + "/v1/videos/" + v.ID + "/content"
	if a := call(t, http.MethodGet, content, s.Key, ""); a.status != http.StatusNotFound {
		t.Errorf("content of a queued video: %d", a.status)
	}
	if err := s.Succeed(v.ID); err != nil {
		t.Fatal(err)
	}
	if got := decode[soraVideo](t, call(t, http.MethodGet, s.URL+"/v1/videos/"+v.ID, s.Key, "")); got.Status != "completed" || got.Progress != 100 {
		t.Errorf("after Succeed: %+v", got)
	}
	if a := call(t, http.MethodGet, content, "", ""); a.status != http.StatusUnauthorized {
		t.Errorf("content without the key: %d", a.status)
	}
	if a := call(t, http.MethodGet, content, s.Key, ""); a.status != http.StatusOK || !bytes.Equal(a.body, Clip(v.ID)) {
		t.Errorf("content: %d, %d bytes", a.status, len(a.body))
	}
	// OpenAI's SDK sends a form, which new-api forwards as it came.
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	for _, f := range [][2]string{{"model", "sora-2-pro"}, {"prompt", "r"}, {"seconds", "12"}, {"size", "1792x1024"},
		{"input_reference[image_url]", "https://img.example/a.png"}} {
		_ = mw.WriteField(f[0], f[1])
	}
	_ = mw.Close()
	a := callWith(t, http.MethodPost, s.URL+"/v1/videos", form.String(), "Content-Type", mw.FormDataContentType())
	if a.status != http.StatusUnauthorized {
		t.Errorf("form without the key: %d", a.status)
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, s.URL+"/v1/videos", bytes.NewReader(form.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+s.Key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	subs := s.Submissions()
	if last := subs[len(subs)-1]; res.StatusCode != http.StatusOK || last.TaskID == "" || last.Fields["size"] != "1792x1024" ||
		last.Fields["input_reference[image_url]"] != "https://img.example/a.png" || last.Model != "sora-2-pro" {
		t.Errorf("form: %d, submission %+v", res.StatusCode, last)
	}
	v2 := decode[soraVideo](t, call(t, http.MethodPost, s.URL+"/v1/videos", s.Key, `{"model":"sora-2","prompt":"q"}`))
	if err := s.Fail(v2.ID, "The video was blocked."); err != nil {
		t.Fatal(err)
	}
	if got := decode[soraVideo](t, call(t, http.MethodGet, s.URL+"/v1/videos/"+v2.ID, s.Key, "")); got.Status != "failed" ||
		got.Error == nil || got.Error.Message != "The video was blocked." || got.Seconds != SoraSeconds {
		t.Errorf("failed video: %+v", got)
	}
}

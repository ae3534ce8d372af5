package upstream

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// klingToken signs a token as new-api's Kling adaptor does.
func klingToken(access, secret string, exp time.Time) string {
	enc := base64.RawURLEncoding
	head := enc.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
	claims := enc.EncodeToString([]byte(fmt.Sprintf(`{"exp":%d,"iss":%q,"nbf":%d}`, exp.Unix(), access, time.Now().Unix()-5)))
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(head + "." + claims))
	return head + "." + claims + "." + enc.EncodeToString(mac.Sum(nil))
}

// TestKling follows a task as new-api's Kling adaptor does: a signed token,
// text2video, then the query whose top-level message is the query's own.
func TestKling(t *testing.T) {
	t.Parallel()
	s := New(Kling)
	defer s.Close()
	access, secret, _ := strings.Cut(s.Key, "|")
	token := klingToken(access, secret, time.Now().Add(30*time.Minute))
	for name, bad := range map[string]string{
		"wrong secret": klingToken(access, "other", time.Now().Add(time.Minute)),
		"wrong issuer": klingToken("other", secret, time.Now().Add(time.Minute)),
		"expired":      klingToken(access, secret, time.Now().Add(-time.Minute)),
		"the raw key":  s.Key,
	} {
		if a := call(t, http.MethodPost, s.URL+"/v1/videos/text2video", bad, `{"prompt":"p"}`); a.status != http.StatusUnauthorized {
			t.Errorf("%s: %d %s, want 401", name, a.status, a.body)
		}
	}
	body := `{"prompt":"a fox","mode":"std","duration":"5","aspect_ratio":"1:1","model_name":"kling-v1","model":"kling-v1","cfg_scale":0.5}`
	sub := decode[klingAnswer](t, call(t, http.MethodPost, s.URL+"/v1/videos/text2video", token, body))
	if sub.Code != 0 || sub.Data == nil || sub.Data.TaskID == "" || sub.Data.TaskStatus != "submitted" {
		t.Fatalf("submit: %+v", sub)
	}
	id := sub.Data.TaskID
	if subs := s.Submissions(); len(subs) != 1 || subs[0].Model != "kling-v1" || subs[0].Prompt != "a fox" || subs[0].GatewayID != id {
		t.Fatalf("submissions %+v", subs)
	}
	get := func() klingAnswer {
		return decode[klingAnswer](t, call(t, http.MethodGet, s.URL+"/v1/videos/text2video/"+id, token, ""))
	}
	if a := get(); a.Data.TaskStatus != "processing" || a.Data.TaskResult != nil {
		t.Fatalf("before Succeed: %+v", a.Data)
	}
	if err := s.Succeed(id); err != nil {
		t.Fatal(err)
	}
	a := get()
	if a.Message != "SUCCEED" || a.Data.TaskStatus != "succeed" || a.Data.TaskResult == nil || len(a.Data.TaskResult.Videos) != 1 ||
		a.Data.TaskResult.Videos[0].Duration != KlingDuration {
		t.Fatalf("after Succeed: %+v", a)
	}
	if clip := call(t, http.MethodGet, a.Data.TaskResult.Videos[0].URL, "", ""); clip.status != http.StatusOK || !bytes.Equal(clip.body, Clip(id)) {
		t.Errorf("clip: %d, %d bytes", clip.status, len(clip.body))
	}

	id2 := decode[klingAnswer](t, call(t, http.MethodPost, s.URL+"/v1/videos/text2video", token, body)).Data.TaskID
	if err := s.Fail(id2, "Failure to pass the risk control system"); err != nil {
		t.Fatal(err)
	}
	f := decode[klingAnswer](t, call(t, http.MethodGet, s.URL+"/v1/videos/text2video/"+id2, token, ""))
	if f.Message != "SUCCEED" || f.Data.TaskStatus != "failed" || f.Data.TaskStatusMsg != "Failure to pass the risk control system" {
		t.Fatalf("failed task: %+v", f)
	}
	r := call(t, http.MethodPost, s.URL+"/v1/videos/text2video", token, `{"prompt":"p `+RejectMarker+`","model_name":"kling-v1"}`)
	if r.status != http.StatusBadRequest || s.Tasks() != 2 || len(s.Submissions()) != 3 {
		t.Errorf("refused prompt: %d %s; %d tasks, %d submissions", r.status, r.body, s.Tasks(), len(s.Submissions()))
	}
}

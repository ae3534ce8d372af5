package client

import (
	"encoding/json"
	"strings"
	"testing"
)

// decodeSeeds are shared by the fuzzers: garbage, truncation, wrong types, unknown
// statuses, deep nesting and a huge string.
func decodeSeeds() []string {
	return []string{
		``,
		`null`,
		`garbage`,
		"\x00\xff\xfe",
		`{`,
		`{"task_id":"t","sta`,
		`{"task_id":"t","status":"running"}`,
		`{"task_id":"t","status":"succeeded","url":"https://cdn/x.mp4","format":"mp4"}`,
		`{"id":"t","status":"completed"}`,
		`{"task_id":"t","status":5}`,
		`{"task_id":["t"],"status":"running"}`,
		`{"task_id":"t","status":"paused"}`,
		`{"task_id":"t","status":"expired","url":"https://cdn/old.mp4"}`,
		`{"task_id":"t","status":"Cancelled_By_User","error":{"message":"m"}}`,
		`{"task_id":"t","status":"  "}`,
		`{"task_id":"t","status":"\u0000on\nhold\ud800"}`,
		`{"task_id":"t","status":"` + strings.Repeat("deleted", 100) + `"}`,
		`{"task_id":"t","status":"failed","error":{"message":"m","type":"x"}}`,
		`{"task_id":"t","status":"failed","error":"boom"}`,
		`{"task_id":"t","status":"failed","error":[1,2]}`,
		`{"task_id":"t","status":"failed","fail_reason":"r"}`,
		`{"task_id":"t","status":"running","metadata":{"content":[{"type":"image_url","image_url":{"url":"u"}}]}}`,
		`{"task_id":"t","status":"running","metadata":"x"}`,
		`{"task_id":"t"}`,
		`{"code":"success","message":"","data":{"task_id":"t","status":"SUCCESS","fail_reason":"https://cdn/x.mp4","progress":"100%","data":{"id":"t","duration":5,"ratio":"16:9"}}}`,
		`{"code":"success","data":{"task_id":"t","status":"FAILURE","fail_reason":"task failed","data":{"error":{"message":"m","code":"c"}}}}`,
		`{"code":"success","data":{"task_id":"t","status":"SUCCESS","fail_reason":"javascript:x","data":{"content":{"video_url":5},"duration":"x"}}}`,
		`{"code":"task_not_exist","message":"task_not_exist","data":null}`,
		`{"code":0,"data":{"code":1,"data":{}}}`,
		`{"object":"list","data":[{"id":"a","created":1.5e9}]}`,
		`{"data":{}}`,
		`{"data":[{"name":"x"}]}`,
		`{"models":["a","b"]}`,
		`["a",{"id":"b"},3]`,
		`{"error":{"message":"bad","type":"invalid_request_error","param":"model"}}`,
		`{"error":"plain"}`,
		`{"error":null}`,
		`{"message":5}`,
		`<html><title>502 Bad Gateway</title></html>`,
		`<<<>>>`,
		// Past encoding/json's nesting limit of 10000.
		strings.Repeat("[", 10001),
		strings.Repeat(`{"a":`, 10001),
		`{"task_id":"t","status":"failed","error":` + strings.Repeat("[", 10001),
		`{"task_id":"` + strings.Repeat("x", 1<<16) + `","status":"running"}`,
	}
}

func FuzzDecodeVideo(f *testing.F) {
	for _, s := range decodeSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// The path GetVideo takes for a 200 answer.
		v, err := decodeTask(data, taskContext{askedID: "asked"})
		if err != nil {
			if v != nil {
				t.Fatalf("decodeTask returned both %+v and %v", v, err)
			}
			if err.Error() == "" {
				t.Fatal("decodeTask error with an empty message")
			}
			return
		}
		if v == nil {
			t.Fatal("decodeTask returned neither a video nor an error")
		}
		if v.TaskID == "" {
			t.Fatalf("video without a task ID from %q", data)
		}
		// Any status string is data: it lands in a class and is kept as said.
		if !v.Status.Known() && v.Status != StatusUnknown {
			t.Fatalf("status %q is not a class", v.Status)
		}
		if v.RawStatus == "" || v.RawStatus != cleanRawStatus(v.RawStatus) && !strings.HasSuffix(v.RawStatus, "…") {
			t.Fatalf("raw status %q is not kept as a clean word", v.RawStatus)
		}
		if v.URL != "" && v.Status == StatusFailed && v.FailureReason == v.URL {
			t.Fatalf("the URL %q of a failed task is also its failure reason", v.URL)
		}
		// A submission's answer with a task ID is always a task in a known state.
		if sv, err := decodeTask(data, taskContext{submission: true}); err == nil && !sv.Status.Known() {
			t.Fatalf("submission answer %q read as status %q", data, sv.Status)
		}
		if (!v.Status.Final() || v.Status.Usable()) && v.FailureReason != "" {
			t.Fatalf("failure reason %q on a %s task", v.FailureReason, v.Status)
		}
		if v.Status.Gone() && !strings.Contains(v.FailureReason, v.RawStatus) {
			t.Fatalf("failure reason %q of a %s task does not name the status %q", v.FailureReason, v.Status, v.RawStatus)
		}
	})
}

func FuzzDecodeModels(f *testing.F) {
	for _, s := range decodeSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		models, err := decodeModels(data)
		if err != nil {
			if models != nil {
				t.Fatalf("decodeModels returned both %v and %v", models, err)
			}
			if err.Error() == "" {
				t.Fatal("decodeModels error with an empty message")
			}
			if len(err.Error()) > 2000 {
				t.Fatalf("decodeModels error is %d bytes long", len(err.Error()))
			}
			return
		}
		if models == nil {
			t.Fatal("decodeModels returned neither models nor an error")
		}
		for i, m := range models {
			if strings.TrimSpace(m.ID) == "" {
				t.Fatalf("model %d has a blank ID", i)
			}
		}
	})
}

func FuzzDecodeAPIError(f *testing.F) {
	statuses := []int{400, 401, 403, 404, 429, 500, 502, 503, 599, 999, 0, -1}
	types := []string{"application/json", "text/html; charset=utf-8", "", "text/plain"}
	for i, s := range decodeSeeds() {
		f.Add(statuses[i%len(statuses)], types[i%len(types)], []byte(s))
	}
	f.Fuzz(func(t *testing.T, status int, contentType string, data []byte) {
		e := decodeAPIError(status, contentType, data)
		if e == nil {
			t.Fatal("decodeAPIError returned nil")
		}
		if e.StatusCode != status {
			t.Fatalf("StatusCode = %d, want %d", e.StatusCode, status)
		}
		if strings.TrimSpace(e.Message) == "" {
			t.Fatalf("empty Message for status %d, body %q", status, data)
		}
		if e.Error() == "" {
			t.Fatal("empty Error()")
		}
		// A body that is not JSON is described, never dumped: bounded and free of tags.
		if !json.Valid(data) && !strings.ContainsAny(contentType, "<>") {
			if len(e.Message) > 1200+len(contentType) {
				t.Fatalf("Message for a non-JSON body is %d bytes long", len(e.Message))
			}
			if tagPattern.MatchString(e.Message) {
				t.Fatalf("Message %q keeps markup", e.Message)
			}
		}
	})
}

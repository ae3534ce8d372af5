package client

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

func boolPtr(b bool) *bool { return &b }

func TestSubmitVideoBody(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		req  VideoRequest
		want string
	}{
		{
			name: "minimal",
			req:  VideoRequest{Model: "veo-3", Prompt: "a cat surfing"},
			want: `{"model":"veo-3","prompt":"a cat surfing"}`,
		},
		{
			name: "empty metadata is omitted",
			req:  VideoRequest{Model: "veo-3", Prompt: "p", Seconds: "8", Metadata: &Metadata{}},
			want: `{"model":"veo-3","prompt":"p","seconds":"8"}`,
		},
		{
			name: "empty content list is omitted",
			req:  VideoRequest{Model: "m", Prompt: "p", Metadata: &Metadata{Content: []ContentEntry{}}},
			want: `{"model":"m","prompt":"p"}`,
		},
		{
			name: "callback only",
			req:  VideoRequest{Model: "m", Prompt: "p", Metadata: &Metadata{CallbackURL: "https://hooks.example.com/v"}},
			want: `{"model":"m","prompt":"p","metadata":{"callback_url":"https://hooks.example.com/v"}}`,
		},
		{
			name: "generate_audio false is sent",
			req:  VideoRequest{Model: "m", Prompt: "p", Metadata: &Metadata{GenerateAudio: boolPtr(false)}},
			want: `{"model":"m","prompt":"p","metadata":{"generate_audio":false}}`,
		},
		{
			name: "everything",
			req: VideoRequest{
				Model:   "seedance-pro",
				Prompt:  "@image1 walks towards @image2",
				Seconds: "10",
				Metadata: &Metadata{
					Ratio: "16:9", Resolution: "1080p", GenerateAudio: boolPtr(true),
					CallbackURL: "https://hooks.example.com/done?x=1",
					Content: []ContentEntry{
						NewContentEntry(ContentImage, "https://img.example.com/1.png"),
						NewContentEntry(ContentImage, "https://img.example.com/2.png"),
						NewContentEntry(ContentVideo, "https://vid.example.com/a.mp4"),
						NewContentEntry(ContentAudio, "https://aud.example.com/a.mp3"),
					},
				},
			},
			want: `{
				"model": "seedance-pro",
				"prompt": "@image1 walks towards @image2",
				"seconds": "10",
				"metadata": {
					"ratio": "16:9",
					"resolution": "1080p",
					"generate_audio": true,
					"callback_url": "https://hooks.example.com/done?x=1",
					"content": [
						{"type": "image_url", "image_url": {"url": "https://img.example.com/1.png"}, "role": "reference_image"},
						{"type": "image_url", "image_url": {"url": "https://img.example.com/2.png"}, "role": "reference_image"},
						{"type": "video_url", "video_url": {"url": "https://vid.example.com/a.mp4"}, "role": "reference_video"},
						{"type": "audio_url", "audio_url": {"url": "https://aud.example.com/a.mp3"}, "role": "reference_audio"}
					]
				}
			}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, s := newScriptServer(t, okReply(`{"task_id":"t1","status":"submitted"}`))
			c := newTestClient(t, srv.URL)
			if _, err := c.SubmitVideo(t.Context(), tt.req); err != nil {
				t.Fatalf("SubmitVideo: %v", err)
			}
			body := s.request(0).Body
			var got, want map[string]any
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatalf("server got a body that is not a JSON object: %s", body)
			}
			if err := json.Unmarshal([]byte(tt.want), &want); err != nil {
				t.Fatalf("bad want: %v", err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("body = %s\nwant    %s", body, tt.want)
			}
			if _, top := got["callback_url"]; top {
				t.Errorf("callback_url sent at the top level: %s", body)
			}
			if sec, present := got["seconds"]; present {
				if _, isString := sec.(string); !isString {
					t.Errorf("seconds sent as %T, want a string", sec)
				}
			}
		})
	}
}

// SubmitVideo must not modify the caller's request when it drops empty metadata.
func TestSubmitVideoLeavesRequestUntouched(t *testing.T) {
	t.Parallel()
	srv, _ := newScriptServer(t, okReply(`{"task_id":"t1","status":"submitted"}`))
	c := newTestClient(t, srv.URL)
	md := &Metadata{}
	req := VideoRequest{Model: "m", Prompt: "p", Metadata: md}
	if _, err := c.SubmitVideo(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	if req.Metadata != md {
		t.Fatal("the caller's request was modified")
	}
}

func TestSubmitVideoResponse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		body    string
		want    *Video
		wantErr string
	}{
		{name: "spec", body: `{"task_id":"vid_1","status":"submitted"}`, want: &Video{TaskID: "vid_1", Status: StatusSubmitted, RawStatus: "submitted"}},
		{name: "id and queued", body: `{"id":"vid_2","status":"queued","object":"video"}`, want: &Video{TaskID: "vid_2", Status: StatusSubmitted, RawStatus: "queued"}},
		{name: "task_id wins over id", body: `{"task_id":"a","id":"b","status":"submitted"}`, want: &Video{TaskID: "a", Status: StatusSubmitted, RawStatus: "submitted"}},
		{name: "no task id", body: `{"status":"submitted"}`, wantErr: "no task_id"},
		// A task ID in hand is a task: whatever the status says, it was just submitted.
		{name: "unknown status", body: `{"task_id":"x","status":"on_hold"}`, want: &Video{TaskID: "x", Status: StatusSubmitted, RawStatus: "on_hold"}},
		{name: "no status", body: `{"task_id":"x"}`, want: &Video{TaskID: "x", Status: StatusSubmitted}},
		{name: "blank status", body: `{"task_id":"x","status":" "}`, want: &Video{TaskID: "x", Status: StatusSubmitted}},
		{name: "running", body: `{"task_id":"x","status":"running"}`, want: &Video{TaskID: "x", Status: StatusRunning, RawStatus: "running"}},
		{name: "not json", body: `<html>ok</html>`, wantErr: "not the expected JSON"},
		{name: "wrong type", body: `{"task_id":5,"status":"submitted"}`, wantErr: "not the expected JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, _ := newScriptServer(t, okReply(tt.body))
			c := newTestClient(t, srv.URL)
			got, err := c.SubmitVideo(t.Context(), VideoRequest{Model: "m", Prompt: "p"})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
				if !strings.Contains(err.Error(), "POST /v1/video/generations") {
					t.Errorf("error %q does not name the call", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("SubmitVideo: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("SubmitVideo = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestNewContentEntry(t *testing.T) {
	t.Parallel()
	tests := []struct {
		contentType string
		want        string
	}{
		{ContentImage, `{"type":"image_url","image_url":{"url":"https://x/1"},"role":"reference_image"}`},
		{ContentVideo, `{"type":"video_url","video_url":{"url":"https://x/1"},"role":"reference_video"}`},
		{ContentAudio, `{"type":"audio_url","audio_url":{"url":"https://x/1"},"role":"reference_audio"}`},
	}
	for _, tt := range tests {
		t.Run(tt.contentType, func(t *testing.T) {
			t.Parallel()
			e := NewContentEntry(tt.contentType, "https://x/1")
			got, err := json.Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Fatalf("json = %s, want %s", got, tt.want)
			}
			if e.MediaURL() != "https://x/1" {
				t.Errorf("MediaURL() = %q", e.MediaURL())
			}
			var back ContentEntry
			if err := json.Unmarshal(got, &back); err != nil || !reflect.DeepEqual(back, e) {
				t.Errorf("round trip = %+v, %v; want %+v", back, err, e)
			}
		})
	}
	if (ContentEntry{}).MediaURL() != "" {
		t.Error("MediaURL of an empty entry is not empty")
	}
}

func TestGetVideoDecoding(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		body    string
		want    *Video
		wantErr []string
	}{
		{name: "submitted", body: `{"task_id":"t","status":"submitted"}`, want: &Video{TaskID: "t", Status: StatusSubmitted, RawStatus: "submitted"}},
		{name: "running", body: `{"task_id":"t","status":"running"}`, want: &Video{TaskID: "t", Status: StatusRunning, RawStatus: "running"}},
		{
			name: "succeeded",
			body: `{"task_id":"t","status":"succeeded","url":"https://cdn.example.com/t.mp4","format":"mp4"}`,
			want: &Video{TaskID: "t", Status: StatusSucceeded, RawStatus: "succeeded", URL: "https://cdn.example.com/t.mp4", Format: "mp4"},
		},
		{name: "failed without reason", body: `{"task_id":"t","status":"failed"}`, want: &Video{TaskID: "t", Status: StatusFailed, RawStatus: "failed"}},
		{name: "queued", body: `{"task_id":"t","status":"queued"}`, want: &Video{TaskID: "t", Status: StatusSubmitted, RawStatus: "queued"}},
		{name: "pending", body: `{"task_id":"t","status":"pending"}`, want: &Video{TaskID: "t", Status: StatusSubmitted, RawStatus: "pending"}},
		{name: "in_progress", body: `{"task_id":"t","status":"in_progress"}`, want: &Video{TaskID: "t", Status: StatusRunning, RawStatus: "in_progress"}},
		{name: "processing", body: `{"task_id":"t","status":"processing"}`, want: &Video{TaskID: "t", Status: StatusRunning, RawStatus: "processing"}},
		{name: "completed", body: `{"task_id":"t","status":"completed","url":"u"}`, want: &Video{TaskID: "t", Status: StatusSucceeded, RawStatus: "completed", URL: "u"}},
		{name: "success", body: `{"task_id":"t","status":"success"}`, want: &Video{TaskID: "t", Status: StatusSucceeded, RawStatus: "success"}},
		{name: "upper case", body: `{"task_id":"t","status":" SUCCEEDED "}`, want: &Video{TaskID: "t", Status: StatusSucceeded, RawStatus: "SUCCEEDED"}},
		{name: "failure", body: `{"task_id":"t","status":"failure"}`, want: &Video{TaskID: "t", Status: StatusFailed, RawStatus: "failure"}},
		{name: "error", body: `{"task_id":"t","status":"error"}`, want: &Video{TaskID: "t", Status: StatusFailed, RawStatus: "error"}},
		{name: "cancelled", body: `{"task_id":"t","status":"cancelled"}`, want: &Video{TaskID: "t", Status: StatusCancelled, RawStatus: "cancelled",
			FailureReason: `the service reports the task as "cancelled"`}},
		{name: "canceled with reason", body: `{"task_id":"t","status":"Canceled","message":"stopped by an operator"}`,
			want: &Video{TaskID: "t", Status: StatusCancelled, RawStatus: "Canceled",
				FailureReason: `the service reports the task as "Canceled": stopped by an operator`}},
		{name: "expired", body: `{"task_id":"t","status":"expired","url":"https://cdn.example.com/old.mp4"}`,
			want: &Video{TaskID: "t", Status: StatusExpired, RawStatus: "expired", URL: "https://cdn.example.com/old.mp4",
				FailureReason: `the service reports the task as "expired"`}},
		{name: "deleted", body: `{"task_id":"t","status":"deleted"}`, want: &Video{TaskID: "t", Status: StatusExpired, RawStatus: "deleted",
			FailureReason: `the service reports the task as "deleted"`}},
		{name: "unknown status is data", body: `{"task_id":"t","status":"paused"}`, want: &Video{TaskID: "t", Status: StatusUnknown, RawStatus: "paused"}},
		{name: "unknown status keeps no stale reason", body: `{"task_id":"t","status":"on_hold","fail_reason":"stale"}`,
			want: &Video{TaskID: "t", Status: StatusUnknown, RawStatus: "on_hold"}},
		{
			name: "error object",
			body: `{"task_id":"t","status":"failed","error":{"message":"prompt rejected by the safety filter","type":"content_policy"}}`,
			want: &Video{TaskID: "t", Status: StatusFailed, RawStatus: "failed", FailureReason: "prompt rejected by the safety filter (content_policy)"},
		},
		{
			name: "error object without type",
			body: `{"task_id":"t","status":"failed","error":{"message":"out of GPUs"}}`,
			want: &Video{TaskID: "t", Status: StatusFailed, RawStatus: "failed", FailureReason: "out of GPUs"},
		},
		{
			name: "error string",
			body: `{"task_id":"t","status":"failed","error":"upstream timeout"}`,
			want: &Video{TaskID: "t", Status: StatusFailed, RawStatus: "failed", FailureReason: "upstream timeout"},
		},
		{
			name: "fail_reason",
			body: `{"task_id":"t","status":"failed","fail_reason":"image could not be downloaded"}`,
			want: &Video{TaskID: "t", Status: StatusFailed, RawStatus: "failed", FailureReason: "image could not be downloaded"},
		},
		{
			name: "failure_reason",
			body: `{"task_id":"t","status":"failed","failure_reason":"bad ratio"}`,
			want: &Video{TaskID: "t", Status: StatusFailed, RawStatus: "failed", FailureReason: "bad ratio"},
		},
		{
			name: "message",
			body: `{"task_id":"t","status":"failed","message":"generic failure"}`,
			want: &Video{TaskID: "t", Status: StatusFailed, RawStatus: "failed", FailureReason: "generic failure"},
		},
		{
			name: "null error falls back to fail_reason",
			body: `{"task_id":"t","status":"failed","error":null,"fail_reason":"x"}`,
			want: &Video{TaskID: "t", Status: StatusFailed, RawStatus: "failed", FailureReason: "x"},
		},
		{
			name: "error object without message falls back",
			body: `{"task_id":"t","status":"failed","error":{"code":"E1"},"fail_reason":"y"}`,
			want: &Video{TaskID: "t", Status: StatusFailed, RawStatus: "failed", FailureReason: "y"},
		},
		{
			name: "no failure reason on success",
			body: `{"task_id":"t","status":"succeeded","fail_reason":"stale"}`,
			want: &Video{TaskID: "t", Status: StatusSucceeded, RawStatus: "succeeded"},
		},
		{
			name: "metadata echo",
			body: `{"task_id":"t","status":"running","metadata":{"ratio":"9:16","resolution":"720p","generate_audio":false,
				"callback_url":"https://hooks.example.com/x","content":[{"type":"image_url","image_url":{"url":"https://i/1"},"role":"reference_image"}]}}`,
			want: &Video{TaskID: "t", Status: StatusRunning, RawStatus: "running", Metadata: &Metadata{
				Ratio: "9:16", Resolution: "720p", GenerateAudio: boolPtr(false), CallbackURL: "https://hooks.example.com/x",
				Content: []ContentEntry{NewContentEntry(ContentImage, "https://i/1")},
			}},
		},
		{name: "id instead of task_id", body: `{"id":"vid_9","status":"running"}`, want: &Video{TaskID: "vid_9", Status: StatusRunning, RawStatus: "running"}},
		{name: "no id uses the requested one", body: `{"status":"running"}`, want: &Video{TaskID: "t", Status: StatusRunning, RawStatus: "running"}},
		{name: "unknown fields ignored, progress read", body: `{"task_id":"t","status":"running","progress":42,"object":"video"}`, want: &Video{TaskID: "t", Status: StatusRunning, RawStatus: "running", Progress: 0.42, HasProgress: true}},
		{name: "missing status", body: `{"task_id":"t"}`, wantErr: []string{"has no status", `task "t"`}},
		{name: "blank status", body: `{"task_id":"t","status":"  "}`, wantErr: []string{"has no status"}},
		{name: "numeric status", body: `{"task_id":"t","status":5}`, wantErr: []string{"not the expected JSON"}},
		{name: "array", body: `[]`, wantErr: []string{"not a task object", "[]"}},
		{name: "null", body: `null`, wantErr: []string{"not a task object"}},
		{name: "truncated", body: `{"task_id":"t","sta`, wantErr: []string{"not the expected JSON"}},
		{name: "empty", body: ``, wantErr: []string{"not the expected JSON"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, _ := newScriptServer(t, okReply(tt.body))
			c := newTestClient(t, srv.URL)
			got, err := c.GetVideo(t.Context(), "t")
			if tt.wantErr != nil {
				if err == nil {
					t.Fatalf("GetVideo = %+v, want an error", got)
				}
				for _, want := range tt.wantErr {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error = %q, want it to contain %q", err, want)
					}
				}
				if IsTransient(err) {
					t.Errorf("a malformed answer is reported as transient: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("GetVideo: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("GetVideo = %+v (metadata %+v)\nwant       %+v (metadata %+v)", got, got.Metadata, tt.want, tt.want.Metadata)
			}
		})
	}
}

func TestGetVideoNotFound(t *testing.T) {
	t.Parallel()
	srv, s := newScriptServer(t, reply{status: http.StatusNotFound, body: `{"error":{"message":"task not found","type":"not_found"}}`})
	c := newTestClient(t, srv.URL)
	_, err := c.GetVideo(t.Context(), "gone")
	if !IsNotFound(err) {
		t.Fatalf("error = %v, want a 404", err)
	}
	if !strings.Contains(err.Error(), "task not found") {
		t.Errorf("error %q lacks the service's message", err)
	}
	if s.hits() != 1 {
		t.Errorf("hits = %d, want 1", s.hits())
	}
}

// A request whose metadata holds one member, whichever it is, sends
// metadata: every field of Metadata is set alone in turn, so a member added
// to it later is covered without a list to keep up.
func TestMetadataWithOneMemberIsSent(t *testing.T) {
	t.Parallel()
	typ := reflect.TypeFor[Metadata]()
	for i := range typ.NumField() {
		md := &Metadata{}
		f := reflect.ValueOf(md).Elem().Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString("x")
		case reflect.Pointer:
			f.Set(reflect.New(f.Type().Elem()))
		case reflect.Slice:
			f.Set(reflect.MakeSlice(f.Type(), 1, 1))
		case reflect.Map:
			f.Set(reflect.MakeMap(f.Type()))
			f.SetMapIndex(reflect.ValueOf("seed"), reflect.ValueOf(json.RawMessage(`1`)))
		default:
			t.Fatalf("Metadata.%s is a %s, which this test does not know how to set", typ.Field(i).Name, f.Kind())
		}
		if md.isEmpty() {
			t.Errorf("metadata with only %s set is dropped from the request", typ.Field(i).Name)
		}
	}
	if !(&Metadata{}).isEmpty() || !(*Metadata)(nil).isEmpty() {
		t.Error("empty metadata would be sent")
	}
}

// TestVideoHasClip: only a succeeded task that names its clip's URL, or holds
// the clip itself, has one to hand out.
func TestVideoHasClip(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		v    Video
		want bool
	}{
		{Video{Status: StatusSucceeded, URL: "https://cdn.example.com/a.mp4"}, true},
		{Video{Status: StatusSucceeded, InlineClip: true}, true},
		{Video{Status: StatusSucceeded}, false},
		{Video{Status: StatusRunning, URL: "https://cdn.example.com/a.mp4"}, false},
		{Video{Status: StatusFailed, URL: "https://cdn.example.com/a.mp4"}, false},
		{Video{Status: StatusExpired, URL: "https://cdn.example.com/a.mp4"}, false},
	} {
		if got := tt.v.HasClip(); got != tt.want {
			t.Errorf("%+v: HasClip() = %v, want %v", tt.v, got, tt.want)
		}
	}
}

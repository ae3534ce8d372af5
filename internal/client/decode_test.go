package client

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// newAPIFixture reads one of new-api v0.10.0's answers from testdata/newapi:
// in front of a Doubao video channel (no prefix) or of the channel its prefix
// names (kling_, sora_, veo_), each captured from the gateway test's run
// against the real new-api and its upstreams' stand-ins.
func newAPIFixture(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "newapi", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

const (
	newAPITaskID  = "cgt-20261125010750-ea57e"
	newAPIClipURL = "https://ark-content-generation-cn-beijing.tos-cn-beijing.volces.com/doubao-seedance-1-0-pro/" +
		"cgt-20261125010750-ea57e.mp4?X-Tos-Algorithm=TOS4-HMAC-SHA256&X-Tos-Expires=86400&X-Tos-Signature=5f1c"
)

func TestSubmitVideoNewAPI(t *testing.T) {
	t.Parallel()
	srv, s := newScriptServer(t, okReply(newAPIFixture(t, "submit.json")))
	c := newTestClient(t, srv.URL)
	got, err := c.SubmitVideo(t.Context(), VideoRequest{Model: "doubao-seedance-1-0-pro-250528", Prompt: "p"})
	if err != nil {
		t.Fatalf("SubmitVideo: %v", err)
	}
	want := &Video{TaskID: newAPITaskID, Status: StatusSubmitted}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("SubmitVideo = %+v, want %+v", got, want)
	}
	if s.hits() != 1 {
		t.Errorf("hits = %d, want 1", s.hits())
	}
}

func TestGetVideoNewAPI(t *testing.T) {
	t.Parallel()
	tests := []struct {
		fixture string
		want    *Video
	}{
		{"task_not_start.json", &Video{TaskID: newAPITaskID, Status: StatusSubmitted, RawStatus: "NOT_START", HasProgress: true}},
		{"task_in_progress.json", &Video{TaskID: newAPITaskID, Status: StatusRunning, RawStatus: "IN_PROGRESS",
			Progress: 0.3, HasProgress: true}},
		{"task_success.json", &Video{
			TaskID: newAPITaskID, Status: StatusSucceeded, RawStatus: "SUCCESS", URL: newAPIClipURL,
			Made: &MadeParams{Ratio: "16:9", Resolution: "1080p", Seconds: "5"}, Progress: 1, HasProgress: true,
		}},
		{"task_failure.json", &Video{
			TaskID: newAPITaskID, Status: StatusFailed, RawStatus: "FAILURE", Progress: 1, HasProgress: true,
			FailureReason: "The request failed because the output video may contain sensitive information. " +
				"(OutputVideoSensitiveContentDetected)",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			t.Parallel()
			srv, _ := newScriptServer(t, okReply(newAPIFixture(t, tt.fixture)))
			c := newTestClient(t, srv.URL)
			got, err := c.GetVideo(t.Context(), newAPITaskID)
			if err != nil {
				t.Fatalf("GetVideo: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("GetVideo = %+v (made %+v)\nwant       %+v (made %+v)", got, got.Made, tt.want, tt.want.Made)
			}
		})
	}
}

// new-api's answers for its other video channels, as captured: what each
// upstream's record says is read, and no status word becomes a reason.
func TestNewAPIChannels(t *testing.T) {
	t.Parallel()
	const (
		kling = "CjikY21e213eb4329470ba"
		sora  = "video_1e5efe95714ae9771bf7fa2dc7110424"
		veo   = "bW9kZWxzL3Zlby0zLjAtZ2VuZXJhdGUtMDAxL29wZXJhdGlvbnMvMWM0M2I1ODBhZDRj"
	)
	soraMade := &MadeParams{Ratio: "9:16", Resolution: "720p", Seconds: "4"}
	tests := []struct {
		fixture string
		want    *Video
	}{
		{"kling_task_in_progress.json", &Video{TaskID: "CjikY21e7c9ff21009057f", Status: StatusSubmitted, RawStatus: "NOT_START", HasProgress: true}},
		{"kling_task_success.json", &Video{TaskID: kling, Status: StatusSucceeded, RawStatus: "SUCCESS",
			URL: "http://127.0.0.1:46339/clips/" + kling + ".mp4", Made: &MadeParams{Seconds: "5"}, Progress: 1, HasProgress: true}},
		{"kling_task_failure.json", &Video{TaskID: "CjikY2f5c78f6b52798836", Status: StatusFailed, RawStatus: "FAILURE",
			FailureReason: "Failure to pass the risk control system", Progress: 1, HasProgress: true}},
		{"sora_task_in_progress.json", &Video{TaskID: "video_308433619c24ef276f1b2af22f70c385", Status: StatusSubmitted,
			RawStatus: "NOT_START", Made: soraMade, HasProgress: true}},
		{"sora_task_success.json", &Video{TaskID: sora, Status: StatusSucceeded, RawStatus: "SUCCESS",
			URL: "http://127.0.0.1:36593/v1/videos/" + sora + "/content", Made: soraMade, Progress: 1, HasProgress: true}},
		{"sora_task_failure.json", &Video{TaskID: "video_c94c594cfc4717bc4639973ba2a1257c", Status: StatusFailed, RawStatus: "FAILURE",
			FailureReason: "The video was blocked by our moderation system. (moderation_blocked)", Made: soraMade,
			Progress: 1, HasProgress: true}},
		{"veo_task_in_progress.json", &Video{TaskID: "bW9kZWxzL3Zlby0zLjAtZ2VuZXJhdGUtMDAxL29wZXJhdGlvbnMvMmUwNmNhM2VmZjI2",
			Status: StatusRunning, RawStatus: "processing", Format: "mp4"}},
		{"veo_task_success.json", &Video{TaskID: veo, Status: StatusSucceeded, RawStatus: "succeeded", Format: "mp4",
			URL: "http://127.0.0.1:36593/v1/videos/" + veo + "/content"}},
		{"veo_task_failure.json", &Video{TaskID: "bW9kZWxzL3Zlby0zLjAtZ2VuZXJhdGUtMDAxL29wZXJhdGlvbnMvZTlhMWRlMGMzMzc2",
			Status: StatusFailed, RawStatus: "failed", Format: "mp4"}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			t.Parallel()
			got, err := decodeTask([]byte(newAPIFixture(t, tt.fixture)), taskContext{askedID: tt.want.TaskID})
			if err != nil {
				t.Fatalf("decodeTask: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("decodeTask = %+v (made %+v)\nwant         %+v (made %+v)", got, got.Made, tt.want, tt.want.Made)
			}
		})
	}
	for fixture, id := range map[string]string{
		"kling_submit.json": "CjikY29e61510bef339384", "sora_submit.json": "video_ef652f1b1a8ab768bc8c8e99d3846af9",
		"veo_submit.json": "bW9kZWxzL3Zlby0zLjAtZ2VuZXJhdGUtMDAxL29wZXJhdGlvbnMvNjgwY2FlM2ViMmFj",
	} {
		got, err := decodeTask([]byte(newAPIFixture(t, fixture)), taskContext{submission: true})
		if err != nil || got.TaskID != id || got.Status != StatusSubmitted {
			t.Errorf("%s: decodeTask = %+v, %v; want submitted task %s", fixture, got, err, id)
		}
	}
}

// Every shape decodeTask reads, and the answers it refuses, each with what it got.
func TestDecodeTask(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		body       string
		submission bool
		want       *Video
		wantErr    []string
	}{
		{
			name: "flat in an envelope",
			body: `{"code":"success","message":"","data":{"task_id":"t","status":"succeeded","url":"https://c/t.mp4","format":"mp4",
				"metadata":{"ratio":"16:9"}}}`,
			want: &Video{TaskID: "t", Status: StatusSucceeded, RawStatus: "succeeded", URL: "https://c/t.mp4", Format: "mp4",
				Metadata: &Metadata{Ratio: "16:9"}},
		},
		{
			name: "numeric code envelope",
			body: `{"code":0,"message":"ok","data":{"id":"t","status":"queued"}}`,
			want: &Video{TaskID: "t", Status: StatusSubmitted, RawStatus: "queued"},
		},
		{
			name: "new-api record without its envelope",
			body: `{"task_id":"t","status":"QUEUED","fail_reason":"","progress":"10%","data":{"id":"t"}}`,
			want: &Video{TaskID: "t", Status: StatusSubmitted, RawStatus: "QUEUED", Progress: 0.1, HasProgress: true},
		},
		{
			name: "new-api SUBMITTED",
			body: `{"code":"success","data":{"task_id":"t","status":"SUBMITTED","progress":"0%"}}`,
			want: &Video{TaskID: "t", Status: StatusSubmitted, RawStatus: "SUBMITTED", HasProgress: true},
		},
		{
			name: "url member wins over fail_reason",
			body: `{"code":"success","data":{"task_id":"t","status":"SUCCESS","url":"https://a/1.mp4","fail_reason":"https://b/2.mp4"}}`,
			want: &Video{TaskID: "t", Status: StatusSucceeded, RawStatus: "SUCCESS", URL: "https://a/1.mp4"},
		},
		{
			name: "fail_reason that is no http URL is not a clip",
			body: `{"code":"success","data":{"task_id":"t","status":"SUCCESS","fail_reason":"javascript:alert(1)"}}`,
			want: &Video{TaskID: "t", Status: StatusSucceeded, RawStatus: "SUCCESS"},
		},
		{
			name: "the upstream's video_url when fail_reason has none",
			body: `{"code":"success","data":{"task_id":"t","status":"SUCCESS","fail_reason":"","data":{"content":{"video_url":"https://u/v.mp4"}}}}`,
			want: &Video{TaskID: "t", Status: StatusSucceeded, RawStatus: "SUCCESS", URL: "https://u/v.mp4"},
		},
		{
			name: "made parameters in every spelling",
			body: `{"code":"success","data":{"task_id":"t","status":"IN_PROGRESS","data":{"ratio":"9:16","resolution":"720p",
				"duration":10.0,"generate_audio":false}}}`,
			want: &Video{TaskID: "t", Status: StatusRunning, RawStatus: "IN_PROGRESS",
				Made: &MadeParams{Ratio: "9:16", Resolution: "720p", Seconds: "10", GenerateAudio: boolPtr(false)}},
		},
		{
			name: "duration as a string of digits",
			body: `{"code":"success","data":{"task_id":"t","status":"SUCCESS","fail_reason":"https://c/x","data":{"duration":"8"}}}`,
			want: &Video{TaskID: "t", Status: StatusSucceeded, RawStatus: "SUCCESS", URL: "https://c/x", Made: &MadeParams{Seconds: "8"}},
		},
		{
			name: "odd upstream members are left unsaid",
			body: `{"code":"success","data":{"task_id":"t","status":"SUCCESS","data":{"duration":-3,"ratio":5,"generate_audio":"yes",
				"content":"x","error":"y"}}}`,
			want: &Video{TaskID: "t", Status: StatusSucceeded, RawStatus: "SUCCESS"},
		},
		{
			name: "upstream record that is not an object",
			body: `{"code":"success","data":{"task_id":"t","status":"FAILURE","fail_reason":"the upstream timed out","data":"nope"}}`,
			want: &Video{TaskID: "t", Status: StatusFailed, RawStatus: "FAILURE", FailureReason: "the upstream timed out"},
		},
		{
			name: "a status word is no reason",
			body: `{"code":"success","data":{"task_id":"t","status":"FAILURE","fail_reason":"task failed","data":{"error":{"message":"FAILED"}}}}`,
			want: &Video{TaskID: "t", Status: StatusFailed, RawStatus: "FAILURE"},
		},
		{
			name: "Kling: the reason is task_status_msg, not the query's SUCCEED",
			body: `{"code":"success","data":{"task_id":"k","status":"FAILURE","fail_reason":"SUCCEED","data":{"code":0,"message":"SUCCEED",
				"data":{"task_id":"k","task_status":"failed","task_status_msg":"Failure to pass the risk control system"}}}}`,
			want: &Video{TaskID: "k", Status: StatusFailed, RawStatus: "FAILURE", FailureReason: "Failure to pass the risk control system"},
		},
		{
			name: "Kling: no task_status_msg is no reason",
			body: `{"code":"success","data":{"task_id":"k","status":"FAILURE","fail_reason":"SUCCEED","data":{"code":0,"message":"SUCCEED",
				"data":{"task_id":"k","task_status":"failed"}}}}`,
			want: &Video{TaskID: "k", Status: StatusFailed, RawStatus: "FAILURE"},
		},
		{
			name: "Kling: the clip and its length in task_result",
			body: `{"code":"success","data":{"task_id":"k","status":"SUCCESS","fail_reason":"","data":{"code":0,"message":"SUCCEED",
				"data":{"task_id":"k","task_status":"succeed","task_result":{"videos":[{"id":"v","url":"https://k/v.mp4","duration":"5"}]}}}}}`,
			want: &Video{TaskID: "k", Status: StatusSucceeded, RawStatus: "SUCCESS", URL: "https://k/v.mp4", Made: &MadeParams{Seconds: "5"}},
		},
		{
			name: "OpenAI's video object: seconds and size",
			body: `{"code":"success","data":{"task_id":"video_1","status":"SUCCESS","fail_reason":"https://gw/v1/videos/video_1/content",
				"data":{"id":"video_1","object":"video","status":"completed","seconds":"8","size":"1280x720"}}}`,
			want: &Video{TaskID: "video_1", Status: StatusSucceeded, RawStatus: "SUCCESS", URL: "https://gw/v1/videos/video_1/content",
				Made: &MadeParams{Ratio: "16:9", Resolution: "720p", Seconds: "8"}},
		},
		{
			name: "an odd size is left unsaid",
			body: `{"code":"success","data":{"task_id":"v","status":"IN_PROGRESS","data":{"object":"video","size":"wide","seconds":"4"}}}`,
			want: &Video{TaskID: "v", Status: StatusRunning, RawStatus: "IN_PROGRESS", Made: &MadeParams{Seconds: "4"}},
		},
		{
			name: "Veo: the flat task's url of a failed task is its reason",
			body: `{"code":"success","data":{"error":null,"format":"mp4","metadata":null,"status":"failed","task_id":"b3A","url":"quota exceeded"}}`,
			want: &Video{TaskID: "b3A", Status: StatusFailed, RawStatus: "failed", Format: "mp4", FailureReason: "quota exceeded"},
		},
		{
			name: "Veo: a failed task without a reason",
			body: `{"code":"success","data":{"error":null,"format":"mp4","metadata":null,"status":"failed","task_id":"b3A","url":""}}`,
			want: &Video{TaskID: "b3A", Status: StatusFailed, RawStatus: "failed", Format: "mp4"},
		},
		{
			name: "upstream error without code",
			body: `{"code":"success","data":{"task_id":"t","status":"FAILURE","fail_reason":"task failed","data":{"error":{"message":"m"}}}}`,
			want: &Video{TaskID: "t", Status: StatusFailed, RawStatus: "FAILURE", FailureReason: "m"},
		},
		{
			name: "the task's error: its message, then its type and code",
			body: `{"task_id":"t","status":"failed","error":{"message":"blocked","type":"invalid_request_error","code":"moderation_blocked"}}`,
			want: &Video{TaskID: "t", Status: StatusFailed, RawStatus: "failed", FailureReason: "blocked (invalid_request_error, moderation_blocked)"},
		},
		{
			name: "the task's error without a message, after every other reason",
			body: `{"task_id":"t","status":"failed","error":{"message":"","code":"moderation_blocked"}}`,
			want: &Video{TaskID: "t", Status: StatusFailed, RawStatus: "failed", FailureReason: "moderation_blocked"},
		},
		{
			name: "an upstream error's numeric code",
			body: `{"code":"success","data":{"task_id":"t","status":"FAILURE","fail_reason":"task failed","data":{"error":{"code":3,"message":"m"}}}}`,
			want: &Video{TaskID: "t", Status: StatusFailed, RawStatus: "FAILURE", FailureReason: "m (3)"},
		},
		{
			name: "an upstream error's odd param hides nothing",
			body: `{"code":"success","data":{"task_id":"t","status":"FAILURE","data":{"error":{"code":"InvalidParameter","message":"m","param":7}}}}`,
			want: &Video{TaskID: "t", Status: StatusFailed, RawStatus: "FAILURE", FailureReason: "m (InvalidParameter)"},
		},
		{
			name: "the task's own error object comes first",
			body: `{"task_id":"t","status":"failed","error":{"message":"own"},"data":{"error":{"message":"upstream"}}}`,
			want: &Video{TaskID: "t", Status: StatusFailed, RawStatus: "failed", FailureReason: "own"},
		},
		{
			name: "a read's ID stands in inside an envelope",
			body: `{"code":"success","data":{"status":"NOT_START"}}`,
			want: &Video{TaskID: "asked", Status: StatusSubmitted, RawStatus: "NOT_START"},
		},
		{
			name:       "submission in an envelope without a status",
			body:       `{"code":"success","message":"","data":{"task_id":"t"}}`,
			submission: true,
			want:       &Video{TaskID: "t", Status: StatusSubmitted},
		},
		{
			name:       "submission without a task ID",
			body:       `{"code":"success","message":"","data":{"status":"submitted"}}`,
			submission: true,
			wantErr:    []string{"no task_id", `"status"`},
		},
		{
			name:    "error envelope with a 2xx",
			body:    `{"code":"task_not_exist","message":"task_not_exist","data":null}`,
			wantErr: []string{"envelope without a task", "task_not_exist"},
		},
		{
			name:    "read without a status names what it got",
			body:    `{"code":"success","data":{"task_id":"t","progress":"5%"}}`,
			wantErr: []string{"has no status", `"progress"`, `"task_id"`},
		},
		{
			name:    "something else entirely",
			body:    `{"object":"list","data":[]}`,
			wantErr: []string{"has no status", `"data"`, `"object"`},
		},
		{
			name:    "wrong type inside the envelope",
			body:    `{"code":"success","data":{"task_id":7,"status":"SUCCESS"}}`,
			wantErr: []string{"not the expected JSON", "task_id"},
		},
		{
			name:    "a long answer is quoted bounded",
			body:    `{"code":"x","message":"` + strings.Repeat("m", 5000) + `","data":[]}`,
			wantErr: []string{"more bytes"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tc := taskContext{askedID: "asked"}
			if tt.submission {
				tc = taskContext{submission: true}
			}
			got, err := decodeTask([]byte(tt.body), tc)
			if tt.wantErr != nil {
				if err == nil {
					t.Fatalf("decodeTask = %+v, want an error", got)
				}
				for _, want := range tt.wantErr {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error = %q, want it to contain %q", err, want)
					}
				}
				if len(err.Error()) > 1200 {
					t.Errorf("error is %d bytes long", len(err.Error()))
				}
				return
			}
			if err != nil {
				t.Fatalf("decodeTask: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("decodeTask = %+v (made %+v)\nwant         %+v (made %+v)", got, got.Made, tt.want, tt.want.Made)
			}
		})
	}
}

// Progress in the shapes services write it: new-api's percentage string,
// OpenAI's number from 0 to 100; anything else is no progress, not an error.
func TestReadProgress(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]float64{`"30%"`: 0.3, `" 7 % "`: 0.07, `"100%"`: 1, `"0%"`: 0, `42`: 0.42, `99.5`: 0.995, `"55"`: 0.55} {
		if got, ok := readProgress([]byte(raw)); !ok || got != want {
			t.Errorf("readProgress(%s) = %v, %v; want %v", raw, got, ok, want)
		}
	}
	for _, raw := range []string{``, `null`, `"soon"`, `-1`, `101`, `"NaN"`, `{"p":3}`, `"Inf%"`} {
		if got, ok := readProgress([]byte(raw)); ok {
			t.Errorf("readProgress(%s) = %v, want none", raw, got)
		}
	}
	v, err := decodeTask([]byte(`{"id":"video_1","object":"video","status":"in_progress","progress":37}`), taskContext{})
	if err != nil || !v.HasProgress || v.Progress != 0.37 {
		t.Errorf("an OpenAI video object at 37%% decodes to %+v, %v", v, err)
	}
}

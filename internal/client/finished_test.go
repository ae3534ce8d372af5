package client

import (
	"errors"
	"net/http"
	"testing"
	"testing/synctest"
	"time"
)

func TestFinishedVideo(t *testing.T) {
	t.Parallel()
	succeeded := okReply(`{"task_id":"task-1","status":"succeeded","url":"https://cdn.example.com/1.mp4"}`)
	tests := []struct {
		name       string
		replies    []reply
		wantStatus Status
		wantSeen   Status
		wantHits   int
		wantErr    func(error) bool
	}{
		{name: "finished when read", replies: []reply{succeeded}, wantStatus: StatusSucceeded, wantHits: 1},
		{name: "failed when read", replies: []reply{task("failed")}, wantStatus: StatusFailed, wantHits: 1},
		{name: "waited for", replies: []reply{task("running"), task("running"), succeeded},
			wantStatus: StatusSucceeded, wantSeen: StatusRunning, wantHits: 3},
		{name: "failed while waited for", replies: []reply{task("submitted"), task("failed")},
			wantStatus: StatusFailed, wantSeen: StatusSubmitted, wantHits: 2},
		{name: "not finished in time", replies: []reply{task("running")}, wantSeen: StatusRunning,
			wantErr: func(err error) bool {
				var we *WaitError
				return errors.As(err, &we) && we.Interrupted()
			}},
		{name: "unknown task", replies: []reply{errReply(http.StatusNotFound, "no such task")}, wantHits: 1,
			wantErr: IsNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				s := &script{t: t, replies: tt.replies}
				c := newTestClient(t, "http://service.invalid", WithMaxRetries(0),
					WithPollPolicy(PollPolicy{Fixed: time.Second}), WithHTTPClient(&http.Client{Transport: inMemory{s}}))
				v, seen, err := c.FinishedVideo(t.Context(), "task-1", 10*time.Second)
				switch {
				case tt.wantErr != nil:
					if !tt.wantErr(err) {
						t.Fatalf("error = %v (%T), not the one wanted", err, err)
					}
				case err != nil:
					t.Fatalf("FinishedVideo: %v", err)
				case v == nil || v.Status != tt.wantStatus:
					t.Fatalf("FinishedVideo = %+v, want status %q", v, tt.wantStatus)
				}
				if seen != tt.wantSeen {
					t.Errorf("seen = %q, want %q", seen, tt.wantSeen)
				}
				if tt.wantHits > 0 && s.hits() != tt.wantHits {
					t.Errorf("server hits = %d, want %d", s.hits(), tt.wantHits)
				}
			})
		})
	}
}

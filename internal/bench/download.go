package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// DownloadResult is one clip of DownloadBytes downloaded by the provider's
// videogen_video_file resource, and by `curl -o`, from the same loopback mock.
type DownloadResult struct {
	Bytes           int64     `json:"bytes"`
	ProviderSeconds float64   `json:"provider_seconds"` // Terraform's apply_start to apply_complete of the file resource
	ProviderPeakRSS int64     `json:"provider_peak_rss_bytes"`
	ProviderMiBps   float64   `json:"provider_mib_per_s"`
	ApplyWall       Duration  `json:"apply_wall"`
	CurlSeconds     float64   `json:"curl_seconds"` // exec to exit
	CurlPeakRSS     int64     `json:"curl_peak_rss_bytes"`
	CurlMiBps       float64   `json:"curl_mib_per_s"`
	Memory          MemResult `json:"provider_memory"`
}

func (d *DownloadResult) rows() []Row {
	name := fmt.Sprintf("Download a %s clip (videogen_video_file)", sizeLabel(d.Bytes))
	p, c := mib(d.ProviderPeakRSS), mib(d.CurlPeakRSS)
	ratio := Ratio(d.ProviderMiBps, d.CurlMiBps)
	return []Row{
		{Case: name, Figure: "Peak RSS of the provider process (peer: curl -o)", Unit: "MiB", Target: "< 64",
			Provider: p, Peer: ptr(c), Ratio: ratioPtr(p, c), Met: ptr(p < 64)},
		{Case: name, Figure: "Throughput (peer: curl -o)", Unit: "MiB/s", Target: "≥ 0.8 × curl",
			Provider: d.ProviderMiBps, Peer: ptr(d.CurlMiBps), Ratio: ratioPtr(d.ProviderMiBps, d.CurlMiBps), Met: ptr(ratio >= 0.8),
			Note: fmt.Sprintf("provider %.2f s, curl %.2f s", d.ProviderSeconds, d.CurlSeconds)},
	}
}

func sizeLabel(b int64) string {
	if b >= 1<<30 && b%(1<<30) == 0 {
		return fmt.Sprintf("%d GiB", b>>30)
	}
	return fmt.Sprintf("%d MiB", b>>20)
}

const videoFileConfig = `terraform {
  required_providers {
    videogen = {
      source = "videogen/videogen"
    }
  }
}

provider "videogen" {}

resource "videogen_video" "clip" {
  model  = %q
  prompt = "bench download clip 0 [mock:duration=0s]"
}

resource "videogen_video_file" "clip" {
  task_id = videogen_video.clip.task_id
  path    = "${path.module}/out/clip.mp4"
}
`

// Download applies a videogen_video and its videogen_video_file against a mock
// serving clips of DownloadBytes, sampling the provider's memory, then fetches
// the same clip with `curl -o`. Both files are removed afterwards.
func (r *Runner) Download(ctx context.Context) (*DownloadResult, error) {
	if _, err := os.Stat(filepath.Join(r.Env.Root, "internal", "provider", "video_file_resource.go")); err != nil {
		return nil, fmt.Errorf("%w: this checkout has no videogen_video_file resource", ErrSkipped)
	}
	size := r.Settings.DownloadBytes
	mock, err := r.Env.StartMock(ctx, "-clip-bytes", strconv.FormatInt(size, 10), "-duration", "0s")
	if err != nil {
		return nil, err
	}
	defer mock.Stop()
	dir, err := r.Env.Workspace("download", fmt.Sprintf(videoFileConfig, benchModel), nil)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(filepath.Join(dir, "out"))
	r.logf("download: the provider fetches a %s clip", sizeLabel(size))
	run, err := r.apply(ctx, dir, mock.URL, 10, 10*time.Minute, true)
	if err != nil {
		return nil, err
	}
	res := &DownloadResult{Bytes: size, ApplyWall: run.Wall}
	if run.Mem != nil {
		res.Memory = *run.Mem
		res.ProviderPeakRSS = run.Mem.ExePeakHWM
	}
	var start, end time.Time
	for _, ev := range run.Events {
		if ev.Hook.Resource.Addr != "videogen_video_file.clip" {
			continue
		}
		switch ev.Type {
		case "apply_start":
			start = ev.Timestamp
		case "apply_complete":
			end = ev.Timestamp
		}
	}
	if start.IsZero() || end.IsZero() {
		return nil, fmt.Errorf("terraform reported no start or end of videogen_video_file.clip")
	}
	if err := checkSize(filepath.Join(dir, "out", "clip.mp4"), size); err != nil {
		return nil, fmt.Errorf("the provider's download: %w", err)
	}
	_ = os.Remove(filepath.Join(dir, "out", "clip.mp4"))
	res.ProviderSeconds = end.Sub(start).Seconds()
	res.ProviderMiBps = mib(size) / res.ProviderSeconds

	l, err := mock.Ledger(ctx)
	if err != nil {
		return nil, err
	}
	if len(l.Tasks) != 1 {
		return nil, fmt.Errorf("the mock holds %d tasks, want 1", len(l.Tasks))
	}
	clipURL, err := taskURL(ctx, mock.URL, l.Tasks[0].TaskID)
	if err != nil {
		return nil, err
	}
	r.logf("download: curl -o fetches the same clip")
	out := filepath.Join(dir, "out", "curl.mp4")
	cctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	cmd := r.Env.Procs.Command(cctx, time.Second, "curl", "--silent", "--show-error", "--fail", "-o", out, clipURL)
	begin := time.Now()
	if err := r.Env.Procs.Start(cmd); err != nil {
		return nil, err
	}
	err = cmd.Wait()
	res.CurlSeconds = time.Since(begin).Seconds()
	r.Env.Procs.Done(cmd)
	if err != nil {
		return nil, fmt.Errorf("curl -o: %w", err)
	}
	if err := checkSize(out, size); err != nil {
		return nil, fmt.Errorf("curl's download: %w", err)
	}
	_ = os.Remove(out)
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		res.CurlPeakRSS = ru.Maxrss << 10 // kilobytes on Linux
	}
	res.CurlMiBps = mib(size) / res.CurlSeconds
	r.logf("download: provider %.0f MiB/s, peak RSS %.1f MiB; curl %.0f MiB/s, peak RSS %.1f MiB",
		res.ProviderMiBps, mib(res.ProviderPeakRSS), res.CurlMiBps, mib(res.CurlPeakRSS))
	return res, nil
}

// taskURL reads a task's current clip URL from the mock.
func taskURL(ctx context.Context, base, taskID string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/v1/video/generations/"+taskID, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+MockAPIKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var task struct {
		Status string `json:"status"`
		URL    string `json:"url"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&task); err != nil {
		return "", fmt.Errorf("reading task %s (HTTP %d): %w", taskID, resp.StatusCode, err)
	}
	if task.URL == "" {
		return "", fmt.Errorf("task %s has no clip URL (status %q, HTTP %d)", taskID, task.Status, resp.StatusCode)
	}
	return task.URL, nil
}

func checkSize(path string, want int64) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.Size() != want {
		return fmt.Errorf("%s has %d bytes, want %d", path, fi.Size(), want)
	}
	return nil
}

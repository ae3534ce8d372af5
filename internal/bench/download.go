package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// DownloadResult is a clip of DownloadBytes downloaded by the provider's
// videogen_video_file resource, and by `curl -o`, from the same loopback mock,
// DownloadRepeats times each, alternately.
type DownloadResult struct {
	Bytes           int64     `json:"bytes"`
	Runs            int       `json:"runs"`
	ProviderSeconds []float64 `json:"provider_seconds"` // Terraform's apply_start to apply_complete of the file resource
	CurlSeconds     []float64 `json:"curl_seconds"`     // exec to exit
	SyncSeconds     []float64 `json:"sync_seconds"`     // then `sync FILE` (an fsync), which the provider does itself
	ProviderPeakRSS int64     `json:"provider_peak_rss_bytes"`
	CurlPeakRSS     int64     `json:"curl_peak_rss_bytes"`
	ProviderMiBps   float64   `json:"provider_mib_per_s"` // from the median time
	CurlMiBps       float64   `json:"curl_mib_per_s"`
	CurlSyncMiBps   float64   `json:"curl_sync_mib_per_s"` // over the median of curl's plus sync's time
}

func (d *DownloadResult) rows() []Row {
	name := fmt.Sprintf("Download a %s clip (videogen_video_file), median of %d runs", sizeLabel(d.Bytes), d.Runs)
	p, c := mib(d.ProviderPeakRSS), mib(d.CurlPeakRSS)
	ratio := Ratio(d.ProviderMiBps, d.CurlMiBps)
	return []Row{
		{Case: name, Figure: "Peak RSS of the provider process, highest of the runs (peer: curl -o)", Unit: "MiB",
			Target: "< 64", Provider: p, Peer: ptr(c), Ratio: ratioPtr(p, c), Met: ptr(p < 64)},
		{Case: name, Figure: "Throughput (peer: curl -o)", Unit: "MiB/s", Target: "≥ 0.8 × curl",
			Provider: d.ProviderMiBps, Peer: ptr(d.CurlMiBps), Ratio: ratioPtr(d.ProviderMiBps, d.CurlMiBps), Met: ptr(ratio >= 0.8),
			Note: fmt.Sprintf("provider %.2f s, curl %.2f s", Median(d.ProviderSeconds), Median(d.CurlSeconds))},
		{Case: name, Figure: "Throughput (peer: curl -o, then sync of the file, as durable as the provider's)", Unit: "MiB/s",
			Target: "—", Provider: d.ProviderMiBps, Peer: ptr(d.CurlSyncMiBps), Ratio: ratioPtr(d.ProviderMiBps, d.CurlSyncMiBps)},
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
// the same clip with `curl -o`; DownloadRepeats times. Files are removed as
// soon as they are measured.
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
	res := &DownloadResult{Bytes: size, Runs: r.Settings.DownloadRepeats}
	for rep := 1; rep <= res.Runs; rep++ {
		seconds, rss, taskID, err := r.providerDownload(ctx, mock.URL, size)
		if err != nil {
			return nil, err
		}
		res.ProviderSeconds = append(res.ProviderSeconds, seconds)
		res.ProviderPeakRSS = max(res.ProviderPeakRSS, rss)
		clipURL, err := taskURL(ctx, mock.URL, taskID)
		if err != nil {
			return nil, err
		}
		var syncSeconds float64
		seconds, syncSeconds, rss, err = r.curlDownload(ctx, clipURL, size)
		if err != nil {
			return nil, err
		}
		res.CurlSeconds = append(res.CurlSeconds, seconds)
		res.SyncSeconds = append(res.SyncSeconds, syncSeconds)
		res.CurlPeakRSS = max(res.CurlPeakRSS, rss)
		r.logf("download %d: provider %.2f s (%.0f MiB/s), curl -o %.2f s (%.0f MiB/s)", rep,
			res.ProviderSeconds[rep-1], mib(size)/res.ProviderSeconds[rep-1], seconds, mib(size)/seconds)
	}
	res.ProviderMiBps = mib(size) / Median(res.ProviderSeconds)
	res.CurlMiBps = mib(size) / Median(res.CurlSeconds)
	withSync := make([]float64, len(res.CurlSeconds))
	for i := range withSync {
		withSync[i] = res.CurlSeconds[i] + res.SyncSeconds[i]
	}
	res.CurlSyncMiBps = mib(size) / Median(withSync)
	r.logf("download: provider %.0f MiB/s, peak RSS %.1f MiB; curl %.0f MiB/s, peak RSS %.1f MiB",
		res.ProviderMiBps, mib(res.ProviderPeakRSS), res.CurlMiBps, mib(res.CurlPeakRSS))
	return res, nil
}

// providerDownload applies the file resource from empty state and returns how
// long Terraform took from its start to its end, the provider's peak RSS and
// the task it downloaded.
func (r *Runner) providerDownload(ctx context.Context, mockURL string, size int64) (float64, int64, string, error) {
	dir, err := r.Env.Workspace("download", fmt.Sprintf(videoFileConfig, benchModel), nil)
	if err != nil {
		return 0, 0, "", err
	}
	defer os.RemoveAll(filepath.Join(dir, "out"))
	run, err := r.apply(ctx, dir, mockURL, 10, 10*time.Minute, true)
	if err != nil {
		return 0, 0, "", err
	}
	var start, end time.Time
	var taskID string
	for _, ev := range run.Events {
		switch {
		case ev.Hook.Resource.Addr == "videogen_video.clip" && ev.Type == "apply_complete":
			taskID = ev.Hook.IDValue
		case ev.Hook.Resource.Addr != "videogen_video_file.clip":
		case ev.Type == "apply_start":
			start = ev.Timestamp
		case ev.Type == "apply_complete":
			end = ev.Timestamp
		}
	}
	if start.IsZero() || end.IsZero() || taskID == "" {
		return 0, 0, "", errors.New("terraform reported no start or end of videogen_video_file.clip, or no task")
	}
	if err := checkSize(filepath.Join(dir, "out", "clip.mp4"), size); err != nil {
		return 0, 0, "", fmt.Errorf("the provider's download: %w", err)
	}
	var rss int64
	if run.Mem != nil {
		rss = run.Mem.ExePeakHWM
	}
	return end.Sub(start).Seconds(), rss, taskID, nil
}

// curlDownload fetches clipURL with `curl -o` and returns its time from exec to
// exit, the time `sync FILE` then takes to make the file durable, and curl's
// peak RSS from the kernel's accounting.
func (r *Runner) curlDownload(ctx context.Context, clipURL string, size int64) (curlSeconds, syncSeconds float64, rss int64, err error) {
	dir, err := os.MkdirTemp(r.Env.Work, "curl-")
	if err != nil {
		return 0, 0, 0, err
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "clip.mp4")
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	cmd := r.Env.Procs.Command(ctx, time.Second, "curl", "--silent", "--show-error", "--fail", "-o", out, clipURL)
	begin := time.Now()
	if err := r.Env.Procs.Start(cmd); err != nil {
		return 0, 0, 0, err
	}
	err = cmd.Wait()
	curlSeconds = time.Since(begin).Seconds()
	r.Env.Procs.Done(cmd)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("curl -o: %w", err)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss << 10 // kilobytes on Linux
	}
	begin = time.Now()
	if outText, err := r.Env.run(ctx, 5*time.Minute, dir, nil, "sync", out); err != nil {
		return 0, 0, 0, fmt.Errorf("sync %s: %w: %s", out, err, outText)
	}
	syncSeconds = time.Since(begin).Seconds()
	if err := checkSize(out, size); err != nil {
		return 0, 0, 0, fmt.Errorf("curl's download: %w", err)
	}
	return curlSeconds, syncSeconds, rss, nil
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

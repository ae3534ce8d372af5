package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/mockapi"
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
	size := r.Settings.DownloadBytes
	m, err := StartMock(0, size)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	c, err := client.New(m.URL, mockapi.DefaultAPIKey)
	if err != nil {
		return nil, err
	}
	res := &DownloadResult{Bytes: size, Runs: r.Settings.DownloadRepeats}
	for rep := 1; rep <= res.Runs; rep++ {
		seconds, rss, taskID, err := r.providerDownload(ctx, m, size)
		if err != nil {
			return nil, err
		}
		res.ProviderSeconds = append(res.ProviderSeconds, seconds)
		res.ProviderPeakRSS = max(res.ProviderPeakRSS, rss)
		task, err := c.GetVideo(ctx, taskID)
		if err != nil {
			return nil, err
		}
		var syncSeconds float64
		seconds, syncSeconds, rss, err = r.curlDownload(ctx, task.URL, size)
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
	return res, nil
}

// providerDownload applies the file resource from empty state and returns how
// long the CLI took from its start to its end, the provider's peak RSS and
// the task it downloaded.
func (r *Runner) providerDownload(ctx context.Context, m *acctest.Mock, size int64) (float64, int64, string, error) {
	w, err := r.Env.Workdir(ctx, "download", fmt.Sprintf(videoFileConfig, benchModel), m)
	if err != nil {
		return 0, 0, "", err
	}
	defer os.RemoveAll(filepath.Join(w.Dir, "out"))
	run, err := r.Env.Apply(ctx, w, ApplyOptions{Parallelism: 10, SampleMem: true})
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
		return 0, 0, "", errors.New("the CLI reported no start or end of videogen_video_file.clip, or no task")
	}
	if err := checkSize(filepath.Join(w.Dir, "out", "clip.mp4"), size); err != nil {
		return 0, 0, "", fmt.Errorf("the provider's download: %w", err)
	}
	return end.Sub(start).Seconds(), run.Mem.ProviderPeakHWM, taskID, nil
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
	cmd := exec.CommandContext(ctx, "curl", "--silent", "--show-error", "--fail", "-o", out, clipURL)
	begin := time.Now()
	if outText, err := cmd.CombinedOutput(); err != nil {
		return 0, 0, 0, fmt.Errorf("curl -o: %w: %s", err, outText)
	}
	curlSeconds = time.Since(begin).Seconds()
	rss = maxRSS(cmd.ProcessState)
	begin = time.Now()
	if outText, err := exec.CommandContext(ctx, "sync", out).CombinedOutput(); err != nil {
		return 0, 0, 0, fmt.Errorf("sync %s: %w: %s", out, err, outText)
	}
	syncSeconds = time.Since(begin).Seconds()
	if err := checkSize(out, size); err != nil {
		return 0, 0, 0, fmt.Errorf("curl's download: %w", err)
	}
	return curlSeconds, syncSeconds, rss, nil
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

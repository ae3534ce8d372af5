package bench

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
	"github.com/videogen/terraform-provider-videogen/internal/clipstore"
	"github.com/videogen/terraform-provider-videogen/internal/storetest"
)

// StoreResult is a clip of StoreBytes written to a real S3 server (versitygw
// on loopback) by the provider applying videogen_video_file with an s3://
// path (the clip streamed from the loopback mock into the store), by
// internal/clipstore in a process of its own reading a file of the bytes
// the provider stored, and by `curl --aws-sigv4 -T` of that file to the
// same server, StoreRepeats times each, alternately.
type StoreResult struct {
	Bytes           int64     `json:"bytes"`
	Runs            int       `json:"runs"`
	ProviderSeconds []float64 `json:"provider_seconds"` // Terraform's apply_start to apply_complete of the file resource
	StoreSeconds    []float64 `json:"store_seconds"`    // exec to exit of the writing process
	CurlSeconds     []float64 `json:"curl_seconds"`     // exec to exit
	ProviderPeakRSS int64     `json:"provider_peak_rss_bytes"`
	StorePeakRSS    int64     `json:"store_peak_rss_bytes"`
	CurlPeakRSS     int64     `json:"curl_peak_rss_bytes"`
	ProviderMiBps   float64   `json:"provider_mib_per_s"` // from the median time
	StoreMiBps      float64   `json:"store_mib_per_s"`
	CurlMiBps       float64   `json:"curl_mib_per_s"`
	StoreMeasuredBy string    `json:"store_measured_by"`
}

func (d *StoreResult) rows() []Row {
	name := fmt.Sprintf("Store a %s clip in S3 (versitygw), median of %d runs", sizeLabel(d.Bytes), d.Runs)
	p, c := mib(d.StorePeakRSS), mib(d.CurlPeakRSS)
	ratio := Ratio(d.StoreMiBps, d.CurlMiBps)
	pp := mib(d.ProviderPeakRSS)
	pratio := Ratio(d.ProviderMiBps, d.CurlMiBps)
	return []Row{
		{Case: name, Figure: "Peak RSS of the provider applying videogen_video_file to s3:// (peer: curl --aws-sigv4 -T)", Unit: "MiB",
			Target: "< 64", Provider: pp, Peer: ptr(c), Ratio: ratioPtr(pp, c), Met: ptr(pp < 64),
			Note: "the clip streamed from the loopback mock into the store"},
		{Case: name, Figure: "Throughput of the provider applying videogen_video_file to s3:// (peer: curl --aws-sigv4 -T of a file)", Unit: "MiB/s",
			Target: "≥ 0.8 × curl", Provider: d.ProviderMiBps, Peer: ptr(d.CurlMiBps), Ratio: ratioPtr(d.ProviderMiBps, d.CurlMiBps),
			Met:  ptr(pratio >= 0.8),
			Note: fmt.Sprintf("provider %.2f s (apply_start to apply_complete), curl %.2f s", Median(d.ProviderSeconds), Median(d.CurlSeconds))},
		{Case: name, Figure: "Peak RSS of the writing process, highest of the runs (peer: curl --aws-sigv4 -T)", Unit: "MiB",
			Target: "< 64", Provider: p, Peer: ptr(c), Ratio: ratioPtr(p, c), Met: ptr(p < 64), Note: d.StoreMeasuredBy},
		{Case: name, Figure: "Throughput (peer: curl --aws-sigv4 -T)", Unit: "MiB/s", Target: "≥ 0.8 × curl",
			Provider: d.StoreMiBps, Peer: ptr(d.CurlMiBps), Ratio: ratioPtr(d.StoreMiBps, d.CurlMiBps), Met: ptr(ratio >= 0.8),
			Note: fmt.Sprintf("store %.2f s, curl %.2f s", Median(d.StoreSeconds), Median(d.CurlSeconds))},
	}
}

// StoreWriteFlag, as the first argument of the bench's own program, makes it
// the writing process of the store case (StoreWriteMain) instead of the
// bench.
const StoreWriteFlag = "-store-write"

// StoreWriteMain writes the file args[1] to the destination URL args[0] with
// internal/clipstore, as the provider does, and prints its size and SHA-256.
// The store reads its credentials from the environment.
func StoreWriteMain(args []string) int {
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: videogen-bench -store-write URL FILE")
		return 2
	}
	ctx := context.Background()
	f, err := os.Open(args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer f.Close()
	s, err := clipstore.Open(ctx, args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer s.Close()
	fi, err := f.Stat()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	w, err := s.Write(ctx, f, clipstore.Meta{TaskID: "bench-store", Model: benchModel}, clipstore.WriteOptions{Size: fi.Size()})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("%d %s\n", w.Size, w.SHA256)
	return 0
}

// Store starts versitygw and stores a clip of StoreBytes StoreRepeats times
// each, alternately, with the provider, with the store package in a child
// process and with curl, each to a new key, removed once measured. The
// child and curl send the very bytes the provider stored first (the mock's
// clip, read back from the store into a file).
func (r *Runner) Store(ctx context.Context) (*StoreResult, error) {
	size := r.Settings.StoreBytes
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	root, err := storetest.RepoRoot(wd)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(r.Env.Work, "store-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	r.logf("store: starting versitygw (built into bin/tools on first use)")
	srv, err := storetest.Start(ctx, root, "s3", dir)
	if err != nil {
		return nil, err
	}
	defer srv.Stop()
	file := filepath.Join(dir, "clip.mp4")
	var sum string
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	c := srv.S3Client()
	m, err := StartMock(0, size)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	res := &StoreResult{Bytes: size, Runs: r.Settings.StoreRepeats,
		StoreMeasuredBy: "internal/clipstore's Write in a child process reading the file, its size known"}
	for rep := 1; rep <= res.Runs; rep++ {
		key := fmt.Sprintf("clips/provider-%d.mp4", rep)
		ps, prss, err := r.providerStore(ctx, m, srv, key, size)
		if err != nil {
			return nil, err
		}
		res.ProviderSeconds = append(res.ProviderSeconds, ps)
		res.ProviderPeakRSS = max(res.ProviderPeakRSS, prss)
		if sum == "" {
			// The others send the very bytes the provider stored.
			if sum, err = saveObject(ctx, c, srv.Bucket, key, file); err != nil {
				return nil, err
			}
		}
		if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(srv.Bucket), Key: aws.String(key)}); err != nil {
			return nil, err
		}
		key = fmt.Sprintf("clips/store-%d.mp4", rep)
		seconds, rss, err := r.storeWrite(ctx, self, srv, key, file, size, sum)
		if err != nil {
			return nil, err
		}
		res.StoreSeconds = append(res.StoreSeconds, seconds)
		res.StorePeakRSS = max(res.StorePeakRSS, rss)
		if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(srv.Bucket), Key: aws.String(key)}); err != nil {
			return nil, err
		}
		key = fmt.Sprintf("clips/curl-%d.mp4", rep)
		cs, crss, err := curlPut(ctx, srv, key, file)
		if err != nil {
			return nil, err
		}
		res.CurlSeconds = append(res.CurlSeconds, cs)
		res.CurlPeakRSS = max(res.CurlPeakRSS, crss)
		head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(srv.Bucket), Key: aws.String(key)})
		if err != nil {
			return nil, fmt.Errorf("curl's object: %w", err)
		}
		if aws.ToInt64(head.ContentLength) != size {
			return nil, fmt.Errorf("curl's object has %d bytes, want %d", aws.ToInt64(head.ContentLength), size)
		}
		if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(srv.Bucket), Key: aws.String(key)}); err != nil {
			return nil, err
		}
		r.logf("store %d: provider %.2f s (%.0f MiB/s, %.0f MiB RSS), clipstore %.2f s (%.0f MiB/s, %.0f MiB RSS), "+
			"curl --aws-sigv4 -T %.2f s (%.0f MiB/s, %.0f MiB RSS)", rep, ps, mib(size)/ps, mib(prss),
			seconds, mib(size)/seconds, mib(rss), cs, mib(size)/cs, mib(crss))
	}
	res.ProviderMiBps = mib(size) / Median(res.ProviderSeconds)
	res.StoreMiBps = mib(size) / Median(res.StoreSeconds)
	res.CurlMiBps = mib(size) / Median(res.CurlSeconds)
	return res, nil
}

// storeFileConfig is the download case's configuration with the file
// resource's path an object URL (%q).
var storeFileConfig = strings.Replace(videoFileConfig, `"${path.module}/out/clip.mp4"`, "%q", 1)

// providerStore applies a videogen_video and its videogen_video_file with an
// s3:// path from empty state and returns the file resource's apply time
// (apply_start to apply_complete) and the provider's peak RSS, after checking
// the object's size.
func (r *Runner) providerStore(ctx context.Context, m *acctest.Mock, srv *storetest.Server, key string, size int64) (float64, int64, error) {
	w, err := r.Env.Workdir(ctx, "store", fmt.Sprintf(storeFileConfig, benchModel, srv.URL(key)), m)
	if err != nil {
		return 0, 0, err
	}
	defer os.RemoveAll(w.Dir)
	run, err := r.Env.Apply(ctx, w, ApplyOptions{Parallelism: 10, SampleMem: true, Env: srv.Env})
	if err != nil {
		return 0, 0, err
	}
	var start, end time.Time
	for _, ev := range run.Events {
		switch {
		case ev.Hook.Resource.Addr != "videogen_video_file.clip":
		case ev.Type == "apply_start":
			start = ev.Timestamp
		case ev.Type == "apply_complete":
			end = ev.Timestamp
		}
	}
	if start.IsZero() || end.IsZero() {
		return 0, 0, errors.New("the CLI reported no start or end of videogen_video_file.clip")
	}
	head, err := srv.S3Client().HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(srv.Bucket), Key: aws.String(key)})
	if err != nil {
		return 0, 0, fmt.Errorf("the provider's object: %w", err)
	}
	if aws.ToInt64(head.ContentLength) != size {
		return 0, 0, fmt.Errorf("the provider's object has %d bytes, want %d", aws.ToInt64(head.ContentLength), size)
	}
	if run.Mem.ProviderPeakHWM == 0 {
		return 0, 0, errors.New("no provider process of the apply was seen to measure its memory")
	}
	return end.Sub(start).Seconds(), run.Mem.ProviderPeakHWM, nil
}

// storeWrite runs the bench's own program as the writing process and checks
// what it says it wrote.
func (r *Runner) storeWrite(ctx context.Context, self string, srv *storetest.Server, key, file string, size int64, sum string) (float64, int64, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, self, StoreWriteFlag, srv.URL(key), file) //nolint:gosec // G204: this program, on a file it wrote
	cmd.Env = append(os.Environ(), srv.Environ()...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	begin := time.Now()
	rss, err := runSampled(cmd)
	if err != nil {
		return 0, 0, fmt.Errorf("the writing process: %w: %s", err, stderr.String())
	}
	seconds := time.Since(begin).Seconds()
	if got, want := strings.TrimSpace(stdout.String()), fmt.Sprintf("%d %s", size, sum); got != want {
		return 0, 0, fmt.Errorf("the writing process wrote %q, want %q", got, want)
	}
	return seconds, rss, nil
}

// runSampled runs cmd and returns its peak RSS: the kernel's VmHWM of the
// process's own memory, read every few milliseconds until it exits. The
// rusage of a child of this process is no measure: Go starts a child sharing
// its own memory until the exec, and Linux counts that memory's peak as the
// child's (both children of this case reported the bench's 54 MiB).
func runSampled(cmd *exec.Cmd) (int64, error) {
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	var peak int64
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			if m, err := readMemStatus(cmd.Process.Pid); err == nil {
				peak = max(peak, m.hwm)
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	err := cmd.Wait()
	close(stop)
	<-done
	return peak, err
}

// curlPut uploads file with one signed PUT, the way a hand-written script
// would, and returns its time from exec to exit and its peak RSS. The key
// pair goes to curl on its standard input, not its command line. S3 servers
// require x-amz-content-sha256, which curl does not send by itself; the
// payload is left unsigned (curl would have to read the file twice).
func curlPut(ctx context.Context, srv *storetest.Server, key, file string) (float64, int64, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	//nolint:gosec // G204: curl on a file this case wrote, to the server it started
	cmd := exec.CommandContext(ctx, "curl", "--silent", "--show-error", "--fail", "-K", "-",
		"--aws-sigv4", "aws:amz:"+storetest.S3Region+":s3", "-H", "x-amz-content-sha256: UNSIGNED-PAYLOAD", "-T", file,
		srv.Endpoint+"/"+srv.Bucket+"/"+key)
	cmd.Stdin = strings.NewReader(fmt.Sprintf("user = \"%s:%s\"\n", srv.Env["AWS_ACCESS_KEY_ID"], srv.Env["AWS_SECRET_ACCESS_KEY"]))
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	begin := time.Now()
	rss, err := runSampled(cmd)
	if err != nil {
		return 0, 0, fmt.Errorf("curl --aws-sigv4 -T: %w: %s", err, out.String())
	}
	return time.Since(begin).Seconds(), rss, nil
}

// saveObject writes the object at key to path and returns its SHA-256,
// after checking it is the one the object's metadata records.
func saveObject(ctx context.Context, c *s3.Client, bucket, key, path string) (string, error) {
	out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		return "", fmt.Errorf("reading the provider's object back: %w", err)
	}
	defer out.Body.Close()
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(f, h), out.Body); err != nil {
		_ = f.Close()
		return "", fmt.Errorf("reading the provider's object back: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if want := out.Metadata[clipstore.MetaSHA256]; sum != want {
		return "", fmt.Errorf("the provider's object has SHA-256 %s; its metadata says %q", sum, want)
	}
	return sum, nil
}

package bench

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/videogen/terraform-provider-videogen/internal/acctest"
)

// cpuProfileVariable is the provider's switch for its CPU profile (main.go's
// cpuProfileEnv): a path prefix, to which each provider process adds its ID.
const cpuProfileVariable = "VIDEOGEN_CPUPROFILE"

// CPUProfile is what the provider's CPU profiles of one apply say, every
// process the CLI started (validate, plan, apply) together.
type CPUProfile struct {
	Dir   string   `json:"dir"`
	Files []string `json:"files"` // one per provider process
	// CPU is the CPU time the profiles sampled.
	CPU Duration `json:"cpu"`
	// Top and TopCum are `go tool pprof -top` by flat and by cumulative time.
	Top    []string `json:"top"`
	TopCum []string `json:"top_cum"`
}

// profileNodes is how many functions Top and TopCum list.
const profileNodes = 25

// ProfileApply returns the options that make the provider processes of one
// apply write their CPU profiles into dir under name, after removing those of
// an earlier run; the options' other environment variables stay. The path is made absolute: the providers run in the apply's
// working directory.
func ProfileApply(o ApplyOptions, dir, name string) (ApplyOptions, string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return o, "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return o, "", err
	}
	prefix := filepath.Join(dir, name)
	old, _ := filepath.Glob(prefix + ".*")
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return o, "", err
		}
	}
	// A copy: the caller's options may share their map with another apply.
	env := maps.Clone(o.Env)
	if env == nil {
		env = map[string]string{}
	}
	env[cpuProfileVariable] = prefix
	o.Env = env
	return o, prefix, nil
}

// ReadProfiles summarises the profiles written under prefix with `go tool
// pprof` (the Go toolchain of GO, else go on PATH), and writes the summary
// beside them as prefix.top.txt.
func ReadProfiles(ctx context.Context, binary, prefix string) (*CPUProfile, error) {
	files, err := filepath.Glob(prefix + ".[0-9]*")
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("the provider wrote no CPU profile at %s.<pid>", prefix)
	}
	p := &CPUProfile{Dir: filepath.Dir(prefix)}
	for _, f := range files {
		p.Files = append(p.Files, filepath.Base(f))
	}
	flat, err := pprofTop(ctx, binary, files)
	if err != nil {
		return nil, err
	}
	cum, err := pprofTop(ctx, binary, files, "-cum")
	if err != nil {
		return nil, err
	}
	p.Top, p.TopCum = flat, cum
	p.CPU = Duration(profileSamples(strings.Join(flat, "\n")))
	text := strings.Join(flat, "\n") + "\n\n" + strings.Join(cum, "\n") + "\n"
	if err := os.WriteFile(prefix+".top.txt", []byte(text), 0o644); err != nil { //nolint:gosec // results to read
		return nil, err
	}
	return p, nil
}

func pprofTop(ctx context.Context, binary string, files []string, flags ...string) ([]string, error) {
	goBin := acctest.GoBinary()
	args := append([]string{"tool", "pprof", "-top", "-nodecount=" + strconv.Itoa(profileNodes)}, flags...)
	args = append(append(args, binary), files...)
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, goBin, args...) //nolint:gosec // G204: the Go toolchain on the bench's own profiles
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go tool pprof: %w: %s", err, tail(stderr.String(), 500))
	}
	return strings.Split(strings.TrimRight(string(out), "\n"), "\n"), nil
}

var totalSamples = regexp.MustCompile(`Total samples = ([0-9.]+)(ms|s|mins|hrs)\b`)

// profileSamples reads the CPU time out of pprof's "Total samples = 1.23s"
// header, or 0.
func profileSamples(text string) time.Duration {
	m := totalSamples.FindStringSubmatch(text)
	if m == nil {
		return 0
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0
	}
	unit := map[string]time.Duration{"ms": time.Millisecond, "s": time.Second, "mins": time.Minute, "hrs": time.Hour}[m[2]]
	return time.Duration(v * float64(unit))
}

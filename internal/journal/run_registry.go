package journal

import (
	"context"
	"fmt"
	"sync"
)

// runRegistry holds the journals of this process whose run holds its lock, for EndRuns.
type runRegistry struct {
	mu       sync.Mutex
	journals []*Journal
}

var running runRegistry

func (r *runRegistry) add(j *Journal) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.journals = append(r.journals, j)
}

// EndRuns ends every run of this process normally (see End). The provider's
// main calls it once Terraform has shut the provider down: every task it
// submitted was answered to Terraform by then.
func EndRuns(ctx context.Context) error {
	running.mu.Lock()
	journals := running.journals
	running.journals = nil
	running.mu.Unlock()
	var errs []error
	for _, j := range journals {
		if err := j.End(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("ending the task journal's runs: %v", errs)
	}
	return nil
}

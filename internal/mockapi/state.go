package mockapi

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// stateVersion is the version of the state file's format; a file of another
// version is refused rather than half read.
const stateVersion = 1

// savedState is what Config.StateFile keeps across restarts: every task with
// what it takes to answer for it as before (its outcome, its cost, who owns
// it), the balances the tasks drew on, and the counters of the ledger, so that
// the ledger of a restarted mock is the ledger it had. Keys are kept as
// SHA-256 digests, never as themselves.
type savedState struct {
	Version   int              `json:"version"`
	Tasks     []savedTask      `json:"tasks"`
	Balances  map[string]int64 `json:"balances,omitempty"` // by key digest
	Requests  map[string]int   `json:"requests"`
	Responses map[string]int   `json:"responses"`
	Webhooks  []WebhookAttempt `json:"webhooks"`

	RangeRequests map[string]int `json:"range_requests,omitempty"`
}

type savedTask struct {
	ID              string          `json:"id"`
	Model           string          `json:"model"`
	Prompt          string          `json:"prompt"`
	Seconds         string          `json:"seconds,omitempty"`
	Metadata        json.RawMessage `json:"metadata,omitempty"`
	CallbackURL     string          `json:"callback_url,omitempty"`
	KeyDigest       string          `json:"key_sha256"`
	Cost            int64           `json:"cost"`
	Base            string          `json:"base"`
	HTML            bool            `json:"html,omitempty"`
	FailReason      string          `json:"fail_reason,omitempty"`
	Filtered        bool            `json:"filtered,omitempty"`
	StorageURI      string          `json:"storage_uri,omitempty"`
	SubmittedAt     time.Time       `json:"submitted_at"`
	SubmitStatus    int             `json:"submit_status"`
	RunningAt       time.Time       `json:"running_at"`
	FinalAt         time.Time       `json:"final_at"`
	Held            bool            `json:"held,omitempty"`
	Final           bool            `json:"final,omitempty"`
	FinalStatus     string          `json:"final_status,omitempty"`
	ErrMsg          string          `json:"error,omitempty"`
	Billed          bool            `json:"billed,omitempty"`
	Deleted         bool            `json:"deleted,omitempty"`
	DeletedStatus   string          `json:"deleted_status,omitempty"`
	GetCount        int             `json:"get_count"`
	GetTimes        []time.Time     `json:"get_times,omitempty"`
	FinalObservedAt *time.Time      `json:"final_observed_at,omitempty"`
}

func keyDigest(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// restoreState reads Config.StateFile, when it exists, into a new server.
// A task whose key the config no longer has keeps an owner without a balance;
// a task that was running finishes at the time it was due, or at once when
// that has passed. Clip URLs handed out before the restart were signed with
// the earlier run's key: they are refused, and the next read of the task gives
// a fresh one, as after ExpireURLs.
func (s *Server) restoreState() error {
	data, err := os.ReadFile(s.cfg.StateFile)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("mockapi: reading the state file: %w", err)
	}
	var st savedState
	if err := json.Unmarshal(data, &st); err != nil {
		return fmt.Errorf("mockapi: state file %s: %w", s.cfg.StateFile, err)
	}
	if st.Version != stateVersion {
		return fmt.Errorf("mockapi: state file %s has version %d; this mock reads version %d (remove the file to start afresh)",
			s.cfg.StateFile, st.Version, stateVersion)
	}
	byDigest := map[string]*keyState{}
	for _, ks := range s.keys {
		d := keyDigest(ks.Key.Key)
		byDigest[d] = ks
		if b, ok := st.Balances[d]; ok && ks.Balance != nil {
			*ks.Balance = b
		}
	}
	now := s.now()
	for _, saved := range st.Tasks {
		ks := byDigest[saved.KeyDigest]
		if ks == nil {
			ks = &keyState{}
		}
		t := &task{
			id: saved.ID, model: saved.Model, prompt: saved.Prompt, seconds: saved.Seconds,
			metadata: slices.Clone([]byte(saved.Metadata)), callbackURL: saved.CallbackURL, key: ks, cost: saved.Cost,
			base: saved.Base, html: saved.HTML, failReason: saved.FailReason, filtered: saved.Filtered, storageURI: saved.StorageURI, submittedAt: saved.SubmittedAt,
			submitStatus: saved.SubmitStatus, runningAt: saved.RunningAt, finalAt: saved.FinalAt, held: saved.Held,
			final: saved.Final, finalStatus: saved.FinalStatus, errMsg: saved.ErrMsg, billed: saved.Billed,
			deleted: saved.Deleted, deletedStatus: saved.DeletedStatus, getCount: saved.GetCount,
			getTimes: slices.Clone(saved.GetTimes), finalObservedAt: saved.FinalObservedAt,
		}
		if !t.final && !t.deleted && !t.held {
			t.timer = time.AfterFunc(max(0, t.finalAt.Sub(now)), func() { s.onTimer(t) })
		}
		s.tasks[t.id] = t
		s.order = append(s.order, t)
	}
	if st.Requests != nil {
		s.requests = st.Requests
	}
	if st.Responses != nil {
		s.responses = st.Responses
	}
	if st.RangeRequests != nil {
		s.rangeRequests = st.RangeRequests
	}
	s.webhooks = st.Webhooks
	return nil
}

// saveState writes the state file, when the config names one, atomically: a
// mock killed while writing leaves the previous state. Callers hold s.mu. The
// first error is kept for StateError; the mock goes on serving.
func (s *Server) saveState() {
	if s.cfg.StateFile == "" {
		return
	}
	st := savedState{
		Version: stateVersion, Requests: maps.Clone(s.requests), Responses: maps.Clone(s.responses),
		Webhooks: slices.Clone(s.webhooks), Balances: map[string]int64{}, RangeRequests: maps.Clone(s.rangeRequests),
	}
	for _, ks := range s.keys {
		if ks.Balance != nil {
			st.Balances[keyDigest(ks.Key.Key)] = *ks.Balance
		}
	}
	for _, t := range s.order {
		st.Tasks = append(st.Tasks, savedTask{
			ID: t.id, Model: t.model, Prompt: t.prompt, Seconds: t.seconds, Metadata: slices.Clone(t.metadata),
			CallbackURL: t.callbackURL, KeyDigest: keyDigest(t.key.Key.Key), Cost: t.cost, Base: t.base, HTML: t.html,
			FailReason: t.failReason, Filtered: t.filtered, StorageURI: t.storageURI, SubmittedAt: t.submittedAt,
			SubmitStatus: t.submitStatus, RunningAt: t.runningAt,
			FinalAt: t.finalAt, Held: t.held, Final: t.final, FinalStatus: t.finalStatus, ErrMsg: t.errMsg,
			Billed: t.billed, Deleted: t.deleted, DeletedStatus: t.deletedStatus, GetCount: t.getCount,
			GetTimes: slices.Clone(t.getTimes), FinalObservedAt: t.finalObservedAt,
		})
	}
	if err := writeStateFile(s.cfg.StateFile, st); err != nil && s.stateErr == nil {
		s.stateErr = err
	}
}

func writeStateFile(path string, st savedState) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".videogen-mock-state-*")
	if err != nil {
		return fmt.Errorf("mockapi: writing the state file: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(f.Name())
		return fmt.Errorf("mockapi: writing the state file: %w", err)
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("mockapi: writing the state file: %w", err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("mockapi: writing the state file: %w", err)
	}
	return nil
}

// StateError is the first failure to write Config.StateFile, nil when every
// write succeeded (or no file is kept).
func (s *Server) StateError() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stateErr
}

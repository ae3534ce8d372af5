// Package journal keeps the generation tasks that were submitted but that no
// Terraform state is known to hold yet, in a file several processes can share
// or in PostgreSQL, which fresh CI runners share.
//
// Terraform saves a resource's state only when the provider answers, and a
// remote backend uploads it only at the end of an apply or every 20 seconds or
// so. When Terraform or the provider is killed outright (SIGKILL, a cancelled
// CI job, the out-of-memory killer) after a task was submitted, no state may
// hold the task, and the next apply would submit and bill it again. The
// journal remembers each task by the fingerprint of its request and by the
// state it was created for, until a later run proves that a state holds it;
// the next apply of that state adopts a task that a killed run left behind
// instead of submitting the same request again.
//
// Every record names the run (one provider process's use of the journal) that
// wrote it. A run holds a lock for its lifetime that the operating system
// releases when the process dies (a file lock; in PostgreSQL, a session-level
// advisory lock), so others can tell a live run from a dead one without
// trusting clocks; a live run's task is never adopted. A run whose provider
// ended normally marks its tasks so, but that does not prove Terraform saved
// them (Terraform stops a provider as soon as its last resource is done, and
// may be killed before it uploads the state): its entries stay adoptable until
// a state is seen holding them, which every plan whose prior state holds one
// says before any apply adopts anything.
//
// It also notes each submission before it is sent, until its answer settles the
// outcome, so that one whose outcome stays unknown (the request may have reached
// the service, but no task ID came back, or the process was killed while it was in
// flight) makes the next plan that sends the same request say so before it does.
package journal

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"
)

// DefaultMaxAge is how long an entry is kept when its clip is never recorded: a
// task older than that is no longer worth waiting for in place of a new one.
const DefaultMaxAge = 7 * 24 * time.Hour

// Journal is one run's view of a store: the records of the state it works on.
// It is safe for concurrent use.
type Journal struct {
	store   store
	state   string
	run     string
	process string
	maxAge  time.Duration
	now     func() time.Time
	saved   savedState

	mu      sync.Mutex
	holding bool
	ended   bool

	// known holds the task IDs the journal held when Remove first read it,
	// and those this run added since, less those it removed: a plan of many
	// clips asks to remove each, and only another run of this state (which the
	// state lock keeps out) could add one. Nil until Remove reads the journal.
	// It may name a task the journal does not hold, never the reverse: IDs are
	// added in commit order (inside the change), and one leaves only after its
	// removal was written and only if no change added it again since, which
	// the value, the count of adds when it was added, tells.
	knownMu sync.Mutex
	known   map[string]uint64
	adds    uint64

	// proven holds the servers this run recorded as deduplicating: one
	// write per run and server, not one per submission.
	provenMu sync.Mutex
	proven   map[string]bool
}

func newJournal(s store, state string, maxAge time.Duration) *Journal {
	host, _ := os.Hostname()
	return &Journal{
		store: s, state: state, run: rand.Text(), process: fmt.Sprintf("process %d on %s", os.Getpid(), host),
		maxAge: maxAge, now: time.Now, saved: currentSavedState(),
	}
}

// Where names the journal for people: its file, or its URL without the password.
func (j *Journal) Where() string { return j.store.where() }

// ReadsSavedState reports whether the journal read the state as its backend
// saved it, which proves that a resource a plan does not read holds a task
// (see savedState): false for a backend it does not read, and for a read
// that failed.
func (j *Journal) ReadsSavedState(ctx context.Context) bool {
	return j.saved != nil && j.saved.heldTasks(ctx) != nil
}

// Shared reports whether the journal is the shared database of journal_url,
// which a plan or apply must be able to write before it submits anything.
func (j *Journal) Shared() bool {
	_, ok := j.store.(*pgStore)
	return ok
}

// holdRun takes this run's liveness lock before its first record, and registers
// the journal for End.
func (j *Journal) holdRun(ctx context.Context) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.holding {
		return nil
	}
	if j.ended {
		return fmt.Errorf("the task journal %s: this run has ended", j.Where())
	}
	if err := j.store.hold(ctx, j.run); err != nil {
		return err
	}
	j.holding = true
	running.add(j)
	return nil
}

// Sending notes a submission about to be sent, as unconfirmed: nothing is known
// of its outcome until the answer comes, and a process killed while it is in
// flight leaves the note for the next run to find. Sent or NotSent settles it;
// a submission whose outcome stays unknown is left as it is.
func (j *Journal) Sending(ctx context.Context, fingerprint string, at time.Time) (Ticket, error) {
	if err := j.holdRun(ctx); err != nil {
		return "", err
	}
	note := Unconfirmed{ID: rand.Text(), Fingerprint: fingerprint, SubmittedAt: at, State: j.state, Run: j.run}
	err := j.update(ctx, scope{notes: []string{note.ID}}, func(r *records) bool {
		r.putNote(note)
		return true
	})
	if err != nil {
		return "", err
	}
	return Ticket(note.ID), nil
}

// Sent replaces the note of a submission that was answered with its task, in
// one append, which is read whole or not at all: no moment leaves neither on
// disk. The entry is recorded as this run's, for the state it works on.
func (j *Journal) Sent(ctx context.Context, t Ticket, e Entry) error {
	if err := j.holdRun(ctx); err != nil {
		return err
	}
	e.State, e.Run, e.Process, e.RunEnded = j.state, j.run, j.process, false
	sc := scope{tasks: []string{e.TaskID}}
	if t != "" {
		sc.notes = []string{string(t)}
	}
	return j.update(ctx, sc, func(r *records) bool {
		dropNote(r, t)
		r.putEntry(e)
		j.knownMu.Lock()
		if j.known != nil {
			j.adds++
			j.known[e.TaskID] = j.adds
		}
		j.knownMu.Unlock()
		return true
	})
}

// Claim makes an adopted task this run's: while the run lives nobody else
// adopts it.
// A task no longer in the journal is recorded again.
func (j *Journal) Claim(ctx context.Context, e Entry) error { return j.Sent(ctx, "", e) }

// NotSent drops the note of a submission that provably created nothing.
func (j *Journal) NotSent(ctx context.Context, t Ticket) error {
	if t == "" {
		return nil
	}
	return j.update(ctx, scope{notes: []string{string(t)}}, func(r *records) bool { return dropNote(r, t) })
}

func dropNote(r *records, t Ticket) bool {
	if t == "" {
		return false
	}
	return r.dropNote(string(t))
}

// Remove forgets a task once a state is proven to hold it (or it can no longer
// be adopted), whichever state it was created for. Removing a task the journal
// does not hold writes nothing.
func (j *Journal) Remove(ctx context.Context, taskID string) error {
	j.knownMu.Lock()
	_, held := j.known[taskID]
	skip := j.known != nil && !held
	// The first Remove reads every entry, to know them all.
	sc := scope{tasks: []string{taskID}, all: j.known == nil}
	j.knownMu.Unlock()
	if skip {
		return nil
	}
	var added uint64
	err := j.update(ctx, sc, func(r *records) bool {
		j.knownMu.Lock()
		defer j.knownMu.Unlock()
		if j.known == nil {
			// Built once, so that a Remove costs the same however long the journal.
			j.known = make(map[string]uint64, len(r.Entries))
			for _, e := range r.Entries {
				j.known[e.TaskID] = 0
			}
		}
		added = j.known[taskID]
		return r.dropEntry(taskID)
	})
	if err != nil {
		// The task may still be in the journal: it stays known, and the next
		// Remove tries again.
		return err
	}
	j.knownMu.Lock()
	if a, ok := j.known[taskID]; ok && a == added {
		delete(j.known, taskID)
	}
	j.knownMu.Unlock()
	return nil
}

// Matching returns the unexpired entries of this state with this fingerprint
// that another run wrote, oldest first, each with its standing: the task of a
// live run is not adopted. An entry whose task the state as its backend saved
// it holds (see savedState) is removed instead: a state is proven to hold it.
func (j *Journal) Matching(ctx context.Context, fingerprint string) ([]Match, error) {
	var found []Entry
	err := j.update(ctx, scope{fingerprints: []string{fingerprint}, read: true}, func(r *records) bool {
		found = found[:0]
		for _, e := range r.Entries {
			if e.Fingerprint == fingerprint && !j.expired(e.SubmittedAt) && e.Run != j.run &&
				(e.State == "" || e.State == j.state) {
				found = append(found, e)
			}
		}
		return false
	})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(found, func(a, b Entry) int { return a.SubmittedAt.Compare(b.SubmittedAt) })
	out := make([]Match, 0, len(found))
	for _, e := range found {
		if j.saved != nil && j.saved.heldTasks(ctx)[e.TaskID] {
			// A removal that fails leaves it for the next plan; it is not
			// offered either way.
			_ = j.Remove(ctx, e.TaskID)
			continue
		}
		m := Match{Entry: e, Standing: Adoptable}
		switch alive, err := j.runAlive(ctx, e.Run); {
		case err != nil:
			return nil, err
		case e.Run == "":
			m.Standing = AdoptableOlder
		case e.RunEnded:
			m.Standing = AdoptableEnded
		case alive:
			m.Standing = RunAlive
		}
		out = append(out, m)
	}
	return out, nil
}

func (j *Journal) runAlive(ctx context.Context, run string) (bool, error) {
	if run == "" {
		return false, nil
	}
	return j.store.alive(ctx, run)
}

// Doubts returns, oldest first, the unexpired unconfirmed submissions of this
// request for this state that another run noted: each may have created a task
// that no state holds. The note of a run that is alive is none: its
// submission is in flight, or its outcome settled by the run (a provider
// alias of the same apply on the same service sends the same request).
func (j *Journal) Doubts(ctx context.Context, fingerprint string) ([]Unconfirmed, error) {
	return j.doubts(ctx, fingerprint, false)
}

// TakeDoubts returns the doubts that no earlier Create of this run said, and
// marks them said: the caller says them once, before it submits the same
// request again. They leave the journal when this run ends normally.
func (j *Journal) TakeDoubts(ctx context.Context, fingerprint string) ([]Unconfirmed, error) {
	return j.doubts(ctx, fingerprint, true)
}

func (j *Journal) doubts(ctx context.Context, fingerprint string, take bool) ([]Unconfirmed, error) {
	if take {
		// End, which drops the notes this run said, runs only for a run that holds its lock.
		if err := j.holdRun(ctx); err != nil {
			if IsUnreadable(err) || j.Shared() {
				return nil, err
			}
			// A journal that cannot be written: the doubts are still said,
			// unmarked, and the submission's own note fails and says so.
			return j.doubts(ctx, fingerprint, false)
		}
	}
	doubt := func(u Unconfirmed) bool {
		return u.Fingerprint == fingerprint && u.Run != j.run && (u.State == "" || u.State == j.state) &&
			!j.expired(u.SubmittedAt) && (!take || u.SaidBy != j.run)
	}
	var found []Unconfirmed
	err := j.update(ctx, scope{fingerprints: []string{fingerprint}, read: true}, func(r *records) bool {
		found = found[:0]
		for _, u := range r.Unconfirmed {
			if doubt(u) {
				found = append(found, u)
			}
		}
		return false
	})
	if take && err != nil && !IsUnreadable(err) && !j.Shared() {
		return j.doubts(ctx, fingerprint, false)
	}
	if err != nil {
		return nil, err
	}
	// Whether a run is alive is tested outside the journal's lock, as
	// Matching does: the test may wait on the store.
	dead := map[string]bool{}
	var out []Unconfirmed
	var deadIDs []string
	for _, u := range found {
		alive, err := j.runAlive(ctx, u.Run)
		if err != nil {
			return nil, err
		}
		if !alive {
			dead[u.ID] = true
			deadIDs = append(deadIDs, u.ID)
			out = append(out, u)
		}
	}
	if take && len(out) > 0 {
		err = j.update(ctx, scope{notes: deadIDs}, func(r *records) bool {
			out = out[:0]
			changed := false
			for _, u := range r.Unconfirmed {
				if !dead[u.ID] || !doubt(u) {
					continue
				}
				out = append(out, u)
				u.SaidBy = j.run
				r.putNote(u)
				changed = true
			}
			return changed
		})
		if err != nil && !IsUnreadable(err) && !j.Shared() {
			return j.doubts(ctx, fingerprint, false)
		}
		if err != nil {
			return nil, err
		}
	}
	slices.SortStableFunc(out, func(a, b Unconfirmed) int { return a.SubmittedAt.Compare(b.SubmittedAt) })
	return out, nil
}

// End ends the run normally: its tasks were answered to Terraform, which they
// are marked with (for the reason a later run gives), and the liveness lock is
// released. The notes of doubts this run said leave with it.
func (j *Journal) End(ctx context.Context) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if !j.holding {
		j.ended = true
		return nil
	}
	err := j.update(ctx, scope{runs: []string{j.run}}, func(r *records) bool {
		changed := false
		for _, e := range r.Entries {
			if e.Run == j.run && !e.RunEnded {
				e.RunEnded = true
				r.putEntry(e)
				changed = true
			}
		}
		said := r.dropNotesIf(func(u Unconfirmed) bool { return u.SaidBy == j.run })
		return changed || said
	})
	// Released even when the mark failed: a live lock would keep the tasks from
	// every later run, and a dead run's tasks are adopted, which is the safe side.
	j.store.release(j.run)
	j.holding, j.ended = false, true
	return err
}

// update is store.update that also drops the records older than maxAge.
func (j *Journal) update(ctx context.Context, sc scope, change func(*records) bool) error {
	return j.store.update(ctx, sc, func(r *records) bool {
		now := j.now()
		entries := r.dropEntriesIf(func(e Entry) bool { return now.Sub(e.SubmittedAt) > j.maxAge })
		notes := r.dropNotesIf(func(x Unconfirmed) bool { return now.Sub(x.SubmittedAt) > j.maxAge })
		servers := r.dropServersIf(func(sv Server) bool { return now.Sub(sv.ProvenAt) > j.maxAge })
		changed := change(r)
		return changed || entries || notes || servers
	})
}

func (j *Journal) expired(at time.Time) bool { return j.now().Sub(at) > j.maxAge }

// Deduplicating records that the service proved it deduplicates submissions
// by their Idempotency-Key (it echoed one). A record proven less than half
// of maxAge ago is kept as it is: the proof is renewed, not rewritten at
// every submission.
func (j *Journal) Deduplicating(ctx context.Context, service string) error {
	id := ServerID(service)
	j.provenMu.Lock()
	done := j.proven[id]
	j.provenMu.Unlock()
	if done {
		return nil
	}
	at := j.now()
	err := j.update(ctx, scope{servers: []string{id}}, func(r *records) bool {
		if sv, ok := r.server(id); ok && at.Sub(sv.ProvenAt) < j.maxAge/2 {
			return false
		}
		r.putServer(Server{ID: id, ProvenAt: at})
		return true
	})
	if err != nil {
		return err
	}
	j.provenMu.Lock()
	if j.proven == nil {
		j.proven = map[string]bool{}
	}
	j.proven[id] = true
	j.provenMu.Unlock()
	return nil
}

// KnownToDeduplicate returns when the service last proved that it
// deduplicates submissions by their Idempotency-Key, within maxAge; the zero
// time when it did not, or not since.
func (j *Journal) KnownToDeduplicate(ctx context.Context, service string) (time.Time, error) {
	id := ServerID(service)
	var at time.Time
	err := j.update(ctx, scope{servers: []string{id}, read: true}, func(r *records) bool {
		at = time.Time{}
		if sv, ok := r.server(id); ok && !j.expired(sv.ProvenAt) {
			at = sv.ProvenAt
		}
		return false
	})
	if err != nil {
		return time.Time{}, err
	}
	return at, nil
}

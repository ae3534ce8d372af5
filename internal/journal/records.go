package journal

import "crypto/rand"

// records is what a store holds. Changes go through its methods, which keep an
// index by ID and remember which records changed, so that a store can write
// only those (the file store appends them to its log).
type records struct {
	Entries     []Entry
	Unconfirmed []Unconfirmed

	entryAt map[string]int // task ID -> index in Entries; built on first use
	noteAt  map[string]int // note ID -> index in Unconfirmed
	changes []change
}

// change names a record that was put or dropped since the store last took
// the changes.
type change struct {
	note bool // an Unconfirmed, else an Entry
	id   string
}

func (r *records) index() {
	if r.entryAt != nil {
		return
	}
	r.entryAt = make(map[string]int, len(r.Entries))
	for i, e := range r.Entries {
		r.entryAt[e.TaskID] = i
	}
	r.noteAt = make(map[string]int, len(r.Unconfirmed))
	for i, u := range r.Unconfirmed {
		r.noteAt[u.ID] = i
	}
}

// putEntry adds the entry, or replaces the one with its task ID.
func (r *records) putEntry(e Entry) {
	r.index()
	if i, ok := r.entryAt[e.TaskID]; ok {
		r.Entries[i] = e
	} else {
		r.entryAt[e.TaskID] = len(r.Entries)
		r.Entries = append(r.Entries, e)
	}
	r.changes = append(r.changes, change{id: e.TaskID})
}

// dropEntry removes the entry of the task, and reports whether there was one.
// The last entry takes its place: callers order what they read themselves.
func (r *records) dropEntry(taskID string) bool {
	r.index()
	i, ok := r.entryAt[taskID]
	if !ok {
		return false
	}
	last := len(r.Entries) - 1
	r.Entries[i] = r.Entries[last]
	r.entryAt[r.Entries[i].TaskID] = i
	r.Entries = r.Entries[:last]
	delete(r.entryAt, taskID)
	r.changes = append(r.changes, change{id: taskID})
	return true
}

// putNote adds the note, or replaces the one with its ID.
func (r *records) putNote(u Unconfirmed) {
	r.index()
	if i, ok := r.noteAt[u.ID]; ok {
		r.Unconfirmed[i] = u
	} else {
		r.noteAt[u.ID] = len(r.Unconfirmed)
		r.Unconfirmed = append(r.Unconfirmed, u)
	}
	r.changes = append(r.changes, change{note: true, id: u.ID})
}

// dropNote removes the note with the ID, and reports whether there was one.
func (r *records) dropNote(id string) bool {
	r.index()
	i, ok := r.noteAt[id]
	if !ok {
		return false
	}
	last := len(r.Unconfirmed) - 1
	r.Unconfirmed[i] = r.Unconfirmed[last]
	r.noteAt[r.Unconfirmed[i].ID] = i
	r.Unconfirmed = r.Unconfirmed[:last]
	delete(r.noteAt, id)
	r.changes = append(r.changes, change{note: true, id: id})
	return true
}

// dropEntriesIf removes the entries drop reports, and reports whether it removed any.
func (r *records) dropEntriesIf(drop func(Entry) bool) bool {
	var ids []string
	for _, e := range r.Entries {
		if drop(e) {
			ids = append(ids, e.TaskID)
		}
	}
	for _, id := range ids {
		r.dropEntry(id)
	}
	return len(ids) > 0
}

// dropNotesIf removes the notes drop reports, and reports whether it removed any.
func (r *records) dropNotesIf(drop func(Unconfirmed) bool) bool {
	var ids []string
	for _, u := range r.Unconfirmed {
		if drop(u) {
			ids = append(ids, u.ID)
		}
	}
	for _, id := range ids {
		r.dropNote(id)
	}
	return len(ids) > 0
}

// loaded makes records of entries and notes as a file of an older format held
// them: a note that a provider before note IDs wrote gets one, and of two
// entries of one task the later wins.
func loaded(entries []Entry, notes []Unconfirmed) records {
	var r records
	r.index()
	for _, e := range entries {
		r.putEntry(e)
	}
	for _, u := range notes {
		if u.ID == "" {
			u.ID = rand.Text()
		}
		r.putNote(u)
	}
	r.changes = nil
	return r
}

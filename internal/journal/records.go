package journal

import "crypto/rand"

// records is what a store holds. Changes go through its methods, which keep an
// index by ID and remember which records changed, so that a store can write
// only those (the file store appends them to its log).
type records struct {
	Entries     []Entry
	Unconfirmed []Unconfirmed
	Servers     []Server

	entryAt  map[string]int // task ID -> index in Entries; built on first use
	noteAt   map[string]int // note ID -> index in Unconfirmed
	serverAt map[string]int // server ID -> index in Servers
	changes  []change
}

// change names a record that was put or dropped since the store last took
// the changes.
type change struct {
	note   bool // an Unconfirmed
	server bool // a Server; neither: an Entry
	id     string
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
	r.serverAt = make(map[string]int, len(r.Servers))
	for i, sv := range r.Servers {
		r.serverAt[sv.ID] = i
	}
}

// putEntry adds the entry, or replaces the one with its task ID.
func (r *records) putEntry(e Entry) {
	r.index()
	put(&r.Entries, r.entryAt, e.TaskID, e)
	r.changes = append(r.changes, change{id: e.TaskID})
}

// dropEntry removes the entry of the task, and reports whether there was one.
// The last entry takes its place: callers order what they read themselves.
func (r *records) dropEntry(taskID string) bool {
	r.index()
	if !drop(&r.Entries, r.entryAt, taskID, func(e Entry) string { return e.TaskID }) {
		return false
	}
	r.changes = append(r.changes, change{id: taskID})
	return true
}

// putNote adds the note, or replaces the one with its ID.
func (r *records) putNote(u Unconfirmed) {
	r.index()
	put(&r.Unconfirmed, r.noteAt, u.ID, u)
	r.changes = append(r.changes, change{note: true, id: u.ID})
}

// dropNote removes the note with the ID, and reports whether there was one.
func (r *records) dropNote(id string) bool {
	r.index()
	if !drop(&r.Unconfirmed, r.noteAt, id, func(u Unconfirmed) string { return u.ID }) {
		return false
	}
	r.changes = append(r.changes, change{note: true, id: id})
	return true
}

// server returns the record of the server with the ID.
func (r *records) server(id string) (Server, bool) {
	r.index()
	i, ok := r.serverAt[id]
	if !ok {
		return Server{}, false
	}
	return r.Servers[i], true
}

// putServer adds the server, or replaces the one with its ID.
func (r *records) putServer(sv Server) {
	r.index()
	put(&r.Servers, r.serverAt, sv.ID, sv)
	r.changes = append(r.changes, change{server: true, id: sv.ID})
}

// dropServer removes the server with the ID, and reports whether there was one.
func (r *records) dropServer(id string) bool {
	r.index()
	if !drop(&r.Servers, r.serverAt, id, func(sv Server) string { return sv.ID }) {
		return false
	}
	r.changes = append(r.changes, change{server: true, id: id})
	return true
}

// dropServersIf removes the servers drop reports, and reports whether it removed any.
func (r *records) dropServersIf(drop func(Server) bool) bool {
	return dropIf(r.Servers, drop, func(sv Server) string { return sv.ID }, r.dropServer)
}

// dropEntriesIf removes the entries drop reports, and reports whether it removed any.
func (r *records) dropEntriesIf(drop func(Entry) bool) bool {
	return dropIf(r.Entries, drop, func(e Entry) string { return e.TaskID }, r.dropEntry)
}

// dropNotesIf removes the notes drop reports, and reports whether it removed any.
func (r *records) dropNotesIf(drop func(Unconfirmed) bool) bool {
	return dropIf(r.Unconfirmed, drop, func(u Unconfirmed) string { return u.ID }, r.dropNote)
}

// put sets the item of id in items, whose index is at.
func put[T any](items *[]T, at map[string]int, id string, v T) {
	if i, ok := at[id]; ok {
		(*items)[i] = v
		return
	}
	at[id] = len(*items)
	*items = append(*items, v)
}

// drop removes the item of id from items, moving the last into its place.
func drop[T any](items *[]T, at map[string]int, id string, key func(T) string) bool {
	i, ok := at[id]
	if !ok {
		return false
	}
	last := len(*items) - 1
	(*items)[i] = (*items)[last]
	at[key((*items)[i])] = i
	*items = (*items)[:last]
	delete(at, id)
	return true
}

// dropIf removes, through remove, the items that match, and reports whether
// there were any.
func dropIf[T any](items []T, match func(T) bool, key func(T) string, remove func(string) bool) bool {
	var ids []string
	for _, v := range items {
		if match(v) {
			ids = append(ids, key(v))
		}
	}
	for _, id := range ids {
		remove(id)
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

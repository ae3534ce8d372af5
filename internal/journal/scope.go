package journal

// scope names the records a change reads and writes. The file store keeps
// the whole journal in memory and may hand a change more than its scope; the
// PostgreSQL store reads only the rows its scope names (and, while changing
// them, locks only those), so a change must neither depend on nor change a
// record outside its scope, and must give the same outcome when it is handed
// more, or run twice.
type scope struct {
	// all is every record.
	all bool
	// fingerprints are the entries and notes of these requests.
	fingerprints []string
	// tasks are entries by task ID, notes notes by ID.
	tasks, notes []string
	// runs are the entries these runs wrote and the notes they said.
	runs []string
	// servers are servers by ID.
	servers []string
	// read marks a change that reports no change but the records that
	// expired: a store may read without locking and keep none of its changes
	// (a later change drops the expired records for good).
	read bool
}

// union is one scope covering both; it is a read only when both are.
func (s scope) union(o scope) scope {
	return scope{
		all: s.all || o.all, read: s.read && o.read,
		fingerprints: append(s.fingerprints[:len(s.fingerprints):len(s.fingerprints)], o.fingerprints...),
		tasks:        append(s.tasks[:len(s.tasks):len(s.tasks)], o.tasks...),
		notes:        append(s.notes[:len(s.notes):len(s.notes)], o.notes...),
		runs:         append(s.runs[:len(s.runs):len(s.runs)], o.runs...),
		servers:      append(s.servers[:len(s.servers):len(s.servers)], o.servers...),
	}
}

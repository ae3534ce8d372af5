package journal

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/videogen/terraform-provider-videogen/internal/localfile"
)

// The journal at path is two files. The file at path itself says the format's
// version: older providers read it and refuse a version they do not know
// (version 1 and 2 files held every record in this one JSON object, rewritten
// whole on every change). The log is always <path>.log, named after the file
// rather than named in it, so that a journal moved or copied with its log
// under a new name reads its own log. It holds one JSON object a line: a
// header line with the version, then records, each the new value of one entry
// or note, or its removal, or a batch of such records; the journal is the
// header's records replayed in order. A change appends its records as one line
// in one write (a batch when there are several: one record for each entry or
// note it changed, so that their order within the line does not matter), and
// syncs the file before it returns: a line that a killed process wrote only in
// part has no line end, so an append is read whole or not at all, and the next
// writer cuts such a line off. Once the log holds many more records than the
// journal, a change rewrites it whole (compaction), atomically (through
// localfile.Write), under a header with a new random generation: the other
// processes, which find another generation in the header, read it again. The
// log is open only while the journal's lock is held, so that a compaction can
// replace it on Windows too, where a file another process holds open cannot be
// replaced; and it is opened to read and write, never to append: on Windows a
// file opened to append cannot be truncated, which cutting off a torn line
// needs, so a change writes at the offset where the last whole line ends,
// which is exact while the lock is held.
//
// Version 4 adds the record of a server that deduplicates (Server), which a
// version 3 reader would take for damage: a journal goes to version 4 only
// when it first holds one (its log compacted under a version 4 header, then
// the file at path), and stays version 3, which older providers still read,
// while it holds none.
type fileView struct {
	path, logPath string
	recs          records

	// stub is the file at path when it was read; nil when there was none.
	stub fs.FileInfo
	// legacy says that recs came from a version 1 or 2 file: the next change
	// writes them to a log, and then the file at path (migration).
	legacy bool

	// hasLog says that the log was there; generation is its header's.
	hasLog     bool
	generation string
	// version is the format the files are in (the newer of the file's and
	// the log header's, which differ only in the middle of a migration),
	// stubVersion the file's; 0 for files not there yet.
	version, stubVersion int
	// log is the log, open to read and write (never to append: see above)
	// while the journal's lock is held; nil otherwise.
	log *os.File
	// readOnly is why the log is open only to read (a read-only mount,
	// another user's file): the journal is read, and every change fails.
	readOnly error
	// offset is where the log's last whole line ends, size where the log
	// ended when last looked at: between them is a line written in part.
	offset, size int64
	// lines counts the log's records (those of a batch each), for
	// compaction; appends counts this view's appends, each synced before the
	// changes it holds return.
	lines, appends int
}

// fileVersion is the newest format of the journal's files this provider
// reads and writes; plainVersion the format it writes while the journal holds
// no Server, which providers before version 4 read too.
const (
	fileVersion  = 4
	plainVersion = 3
)

// file is what the file at path holds: the whole journal in version 1 and 2
// files, only the version from version 3 on. (The first version 3 files also
// named the log in a "log" field, which is not read: the log is <path>.log.)
type file struct {
	Version     int           `json:"version"`
	Entries     []Entry       `json:"entries,omitempty"`
	Unconfirmed []Unconfirmed `json:"unconfirmed,omitempty"`
}

// knownVersion reports whether a file or log header of version may be read
// (from version 3 on: a log has no older version).
func knownVersion(version int) bool { return version == plainVersion || version == fileVersion }

// logHeader is the first line of a log.
type logHeader struct {
	Version int `json:"version"`
	// Generation is new at every compaction.
	Generation string `json:"generation"`
}

// logRecord is one line of a log after its header, or one record of a batch:
// exactly one field is set, and a batch holds no batch.
type logRecord struct {
	Entry         *Entry       `json:"entry,omitempty"`
	Note          *Unconfirmed `json:"unconfirmed,omitempty"`
	RemovedTask   string       `json:"removed_task,omitempty"`
	RemovedNoteID string       `json:"removed_unconfirmed,omitempty"`
	// Server and RemovedServer: from version 4 on.
	Server        *Server `json:"server,omitempty"`
	RemovedServer string  `json:"removed_server,omitempty"`
	// Batch holds the records of one append that wrote several: on one line,
	// so that a kill during the write leaves all of them or none.
	Batch []logRecord `json:"batch,omitempty"`
}

// compactAfter is the number of records a log holds before a change may
// rewrite it; a rewrite also waits until the log holds twice as many records
// as the journal has entries and notes, so that its cost, which grows with the
// journal, is spread over at least as many changes. Tests lower it.
var compactAfter = 1024

// loadView reads the journal at path. Callers hold the journal's lock.
func loadView(path string) (*fileView, error) {
	v := &fileView{path: path, logPath: path + ".log"}
	stub, info, err := readWithInfo(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case errors.Is(err, errIsDir):
		// Not a journal, and nothing this provider wrote.
		return nil, fmt.Errorf("reading the task journal %s: %w", path, err)
	case err != nil:
		return nil, unreadable(fmt.Errorf("reading the task journal %s: %w: %s", path, err, accessAdvice))
	default:
		v.stub = info
		var f file
		if err := json.Unmarshal(stub, &f); err != nil {
			return nil, unreadable(fmt.Errorf("the task journal %s is not valid JSON (%w); delete it if no apply was cut off", path, err))
		}
		switch f.Version {
		case 1, 2:
			v.recs, v.legacy = loaded(f.Entries, f.Unconfirmed), true
			return v, nil
		case plainVersion, fileVersion:
			v.version, v.stubVersion = f.Version, f.Version
		default:
			return nil, newerVersion(path, f.Version)
		}
	}
	size, err := v.openLog()
	switch {
	case errors.Is(err, fs.ErrNotExist) && v.stub != nil:
		// The file says the tasks are in the log: reading none would forget
		// every task and bill it again.
		return nil, unreadable(fmt.Errorf("the task journal %s is version %d, whose tasks are in the log %s, which is missing: "+
			"restore %s beside it (a journal is moved or copied with its log, the log renamed with it); "+
			"or, if no apply was cut off, remove %s to start an empty journal",
			path, v.version, v.logPath, filepath.Base(v.logPath), filepath.Base(path)))
	case errors.Is(err, fs.ErrNotExist):
		return v, nil
	case err != nil:
		return nil, unreadable(fmt.Errorf("reading the task journal %s: %w: %s", v.logPath, err, accessAdvice))
	}
	v.hasLog, v.size = true, size
	return v, nil
}

// openLog opens the log and returns its size. A log that may only be read
// is opened to read, and readOnly says why. Callers hold the journal's lock.
func (v *fileView) openLog() (int64, error) {
	// Not O_APPEND: see fileView.
	log, err := os.OpenFile(v.logPath, os.O_RDWR, 0)
	v.readOnly = nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		var rerr error
		if log, rerr = os.Open(v.logPath); rerr == nil {
			v.readOnly = err
			err = nil
		}
	}
	if err != nil {
		return 0, err
	}
	info, err := log.Stat()
	if err != nil {
		_ = log.Close()
		return 0, err
	}
	v.log = log
	return info.Size(), nil
}

func readWithInfo(path string) ([]byte, fs.FileInfo, error) {
	f, err := os.Open(path) //nolint:gosec // G304: the journal path the user chose
	if err != nil {
		return nil, nil, err
	}
	defer f.Close() //nolint:errcheck // read only
	info, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if info.IsDir() {
		return nil, nil, errIsDir
	}
	data, err := io.ReadAll(f)
	return data, info, err
}

// errIsDir is a journal path that names a directory.
var errIsDir = errors.New("a directory, not a journal's file")

func newerVersion(path string, version int) error {
	return unreadable(fmt.Errorf("the task journal %s has version %d, which this provider (version %d) does not know: "+
		"a newer provider wrote it; upgrade the provider", path, version, fileVersion))
}

// current reports whether the files are those the view was read from, the log
// grown at most, and opens the log and notes its size for readLog. A process
// that compacted the log or migrated the journal replaced a file: the view is
// read again. Callers hold the journal's lock.
func (v *fileView) current() bool {
	stub, err := os.Stat(v.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if v.stub != nil {
			return false
		}
	case err != nil:
		return false
	case v.stub == nil || !os.SameFile(stub, v.stub) || stub.Size() != v.stub.Size() || !stub.ModTime().Equal(v.stub.ModTime()):
		return false
	}
	if v.legacy {
		return true
	}
	size, err := v.openLog()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return !v.hasLog
	case err != nil, !v.hasLog, size < v.offset:
		return false
	}
	// The header line is short: a generation this view did not read means the
	// log was compacted since.
	head := make([]byte, 256)
	n, err := v.log.ReadAt(head, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return false
	}
	end := bytes.IndexByte(head[:n], '\n')
	var h logHeader
	if end < 0 || json.Unmarshal(head[:end], &h) != nil || h.Generation != v.generation || h.Version != v.version {
		return false
	}
	v.size = size
	return true
}

// readLog reads the log's whole records from offset up to size: those that
// other processes appended since this one last read it. Callers hold the
// journal's lock.
func (v *fileView) readLog() error {
	if v.log == nil || v.size <= v.offset {
		return nil
	}
	buf := make([]byte, v.size-v.offset)
	n, err := v.log.ReadAt(buf, v.offset)
	if err != nil && !errors.Is(err, io.EOF) {
		return unreadable(fmt.Errorf("reading the task journal %s: %w", v.logPath, err))
	}
	buf = buf[:n]
	for {
		end := bytes.IndexByte(buf, '\n')
		if end < 0 {
			break
		}
		switch err := v.apply(buf[:end]); {
		case IsUnreadable(err):
			// A newer provider's log: upgrade, never delete it.
			return err
		case err != nil:
			return unreadable(fmt.Errorf("the task journal %s is damaged at byte %d (%w); delete it and %s if no apply was cut off",
				v.logPath, v.offset, err, filepath.Base(v.path)))
		}
		v.offset += int64(end) + 1
		buf = buf[end+1:]
	}
	v.recs.changes = nil
	return nil
}

// apply replays one line of the log: the header when it is the first.
func (v *fileView) apply(line []byte) error {
	if v.offset == 0 {
		var h logHeader
		if err := json.Unmarshal(line, &h); err != nil {
			return err
		}
		if !knownVersion(h.Version) {
			return newerVersion(v.logPath, h.Version)
		}
		v.generation, v.version = h.Generation, max(v.version, h.Version)
		return nil
	}
	var r logRecord
	if err := json.Unmarshal(line, &r); err != nil {
		return err
	}
	if r.Batch != nil {
		if r.Entry != nil || r.Note != nil || r.RemovedTask != "" || r.RemovedNoteID != "" || r.Server != nil || r.RemovedServer != "" {
			return errors.New("a batch that is also a record")
		}
		for _, b := range r.Batch {
			if b.Batch != nil {
				return errors.New("a batch within a batch")
			}
			if err := v.replay(b); err != nil {
				return err
			}
		}
		return nil
	}
	return v.replay(r)
}

// replay applies one record, which is not a batch.
func (v *fileView) replay(r logRecord) error {
	set := 0
	for _, ok := range []bool{r.Entry != nil, r.Note != nil, r.RemovedTask != "", r.RemovedNoteID != "", r.Server != nil, r.RemovedServer != ""} {
		if ok {
			set++
		}
	}
	switch {
	case set != 1:
		return errors.New("a record that is not one entry, note, server or removal")
	case r.Entry != nil:
		v.recs.putEntry(*r.Entry)
	case r.Note != nil:
		v.recs.putNote(*r.Note)
	case r.RemovedTask != "":
		v.recs.dropEntry(r.RemovedTask)
	case r.RemovedNoteID != "":
		v.recs.dropNote(r.RemovedNoteID)
	case r.Server != nil:
		v.recs.putServer(*r.Server)
	default:
		v.recs.dropServer(r.RemovedServer)
	}
	v.lines++
	return nil
}

// commit writes the records that changed: appended to the log, or the whole
// journal when there is no log to append to yet (a new or migrated journal)
// or the log is due for compaction. Callers hold the journal's lock.
func (v *fileView) commit() error {
	live := len(v.recs.Entries) + len(v.recs.Unconfirmed) + len(v.recs.Servers)
	if v.legacy || v.log == nil || v.offset == 0 || (v.lines >= compactAfter && v.lines > 2*live) || v.version < v.needs() {
		return v.compact()
	}
	seen := make(map[change]bool, len(v.recs.changes))
	var batch []logRecord
	for _, c := range v.recs.changes {
		if !seen[c] {
			seen[c] = true
			batch = append(batch, v.record(c))
		}
	}
	v.recs.changes = nil
	line := logRecord{Batch: batch}
	if len(batch) == 1 {
		line = batch[0]
	}
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(line); err != nil {
		return err
	}
	if v.stub == nil {
		// Before the append, which then fails or succeeds alone: the log is
		// there to name (a kill left it without the file at path).
		if err := v.writeStub(); err != nil {
			return err
		}
	}
	if v.size > v.offset {
		// A line a killed process wrote in part: the lock is ours, so its
		// writer is gone.
		if err := v.log.Truncate(v.offset); err != nil {
			return err
		}
	}
	_, err := v.log.WriteAt(buf.Bytes(), v.offset)
	if err == nil {
		err = syncLog(v.log)
	}
	if err != nil {
		// The change returns an error: the records must not stay, for
		// another process or the next change to read. When they cannot be
		// cut, the error says they may have been written.
		if terr := v.log.Truncate(v.offset); terr != nil {
			return fmt.Errorf("%w; the records may stay in the log all the same (cutting them: %w)", err, terr)
		}
		return err
	}
	v.offset += int64(buf.Len())
	v.size, v.lines, v.appends = v.offset, v.lines+len(batch), v.appends+1
	return nil
}

// syncLog syncs the log after an append. Tests make it fail.
var syncLog = (*os.File).Sync

// needs is the version the records need: version 4 once a server is
// recorded, so that older providers refuse the journal rather than take the
// record for damage.
func (v *fileView) needs() int {
	for _, c := range v.recs.changes {
		if c.server {
			return fileVersion
		}
	}
	if len(v.recs.Servers) > 0 {
		return fileVersion
	}
	return plainVersion
}

// record is the log's record of a change: the record's value, or its removal.
func (v *fileView) record(c change) logRecord {
	if c.server {
		if i, ok := v.recs.serverAt[c.id]; ok {
			return logRecord{Server: &v.recs.Servers[i]}
		}
		return logRecord{RemovedServer: c.id}
	}
	if c.note {
		if i, ok := v.recs.noteAt[c.id]; ok {
			return logRecord{Note: &v.recs.Unconfirmed[i]}
		}
		return logRecord{RemovedNoteID: c.id}
	}
	if i, ok := v.recs.entryAt[c.id]; ok {
		return logRecord{Entry: &v.recs.Entries[i]}
	}
	return logRecord{RemovedTask: c.id}
}

// compact writes the whole journal to a new log that replaces the old one
// atomically, then, for a new or migrated journal, the file at path that
// names it: until then a version 1 or 2 file there still holds the journal.
func (v *fileView) compact() error {
	// A journal once at version 4 stays there: a provider of version 3
	// beside it has already been refused.
	version := max(v.version, v.needs())
	v.recs.changes = nil
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	generation := rand.Text()
	if err := enc.Encode(logHeader{Version: version, Generation: generation}); err != nil {
		return err
	}
	for i := range v.recs.Entries {
		if err := enc.Encode(logRecord{Entry: &v.recs.Entries[i]}); err != nil {
			return err
		}
	}
	for i := range v.recs.Unconfirmed {
		if err := enc.Encode(logRecord{Note: &v.recs.Unconfirmed[i]}); err != nil {
			return err
		}
	}
	for i := range v.recs.Servers {
		if err := enc.Encode(logRecord{Server: &v.recs.Servers[i]}); err != nil {
			return err
		}
	}
	v.close()
	if _, err := localfile.Write(v.logPath, 0o600, 0o700, func(f *localfile.File) error {
		_, err := f.Write(buf.Bytes())
		return err
	}); err != nil {
		return err
	}
	v.hasLog, v.generation, v.version = true, generation, version
	v.offset, v.size = int64(buf.Len()), int64(buf.Len())
	v.lines = len(v.recs.Entries) + len(v.recs.Unconfirmed) + len(v.recs.Servers)
	if v.stub == nil || v.legacy || v.stubVersion != version {
		if err := v.writeStub(); err != nil {
			return err
		}
		v.legacy = false
	}
	return nil
}

// writeStub writes the file at path: the version.
func (v *fileView) writeStub() error {
	version := max(v.version, plainVersion)
	data, err := json.MarshalIndent(file{Version: version}, "", "  ")
	if err != nil {
		return err
	}
	if _, err := localfile.Write(v.path, 0o600, 0o700, func(f *localfile.File) error {
		_, err := f.Write(append(data, '\n'))
		return err
	}); err != nil {
		return err
	}
	v.stub, err = os.Stat(v.path)
	if err == nil {
		v.stubVersion = version
	}
	return err
}

// close closes the log, before the journal's lock is released.
func (v *fileView) close() {
	if v.log != nil {
		_ = v.log.Close()
		v.log = nil
	}
}

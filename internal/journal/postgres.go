package journal

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgStore keeps the journal in PostgreSQL, where fresh CI runners that share a
// state share it too: one row per record in a table of its own schema, created
// on first use. A change reads only the rows of its scope, and locks them
// (SELECT ... FOR UPDATE, in key order, so that two runners never wait for each
// other in a circle) in a transaction that writes only the rows it changed:
// concurrent runners cannot lose a record, and wait for each other only over
// the same records; a read locks nothing. The clips of a parallel apply queue
// their changes, and the goroutine that holds the session makes all that are
// waiting in one transaction (group commit): two round trips, however many.
// A run's liveness lock is a session-level advisory lock on the journal's
// connection, which the server releases when the session ends: when the
// process dies, the kernel closes its socket.
type pgStore struct {
	url      string
	redacted string
	secrets  []string

	// mu is held by the goroutine that uses the session.
	mu   sync.Mutex
	conn *pgx.Conn
	// queue holds the changes waiting for mu, made together by the
	// goroutine that gets it.
	queue changeQueue
	// runs are the runs whose advisory lock this session holds.
	runs map[string]bool
	// session is what this store knows of its sessions' ends, its reconnects
	// and the records its runs wrote (see pgSession).
	session pgSession
}

// pgConnectTimeout bounds a connection attempt when the URL sets no
// connect_timeout: an address that drops packets must fail the plan, not hang it.
const pgConnectTimeout = 15 * time.Second

// Schema and table of the journal; the role needs CREATE on the database the
// first time, and then only to read and write the table.
const (
	pgSchema = "videogen_journal"
	pgTable  = pgSchema + ".records"
	// pgIndex finds a request's records without reading the table.
	pgIndex = pgSchema + ".records_fingerprint"
)

// pgSetupLock serialises the creation of the schema and table: two runners
// creating them at once would otherwise collide in the catalog.
const pgSetupLock = 0x76696465 // "vide"

// NewPostgres returns the journal kept in the PostgreSQL database at rawURL
// (postgres:// or postgresql://), for the state state. It connects on first
// use. Every error and name it gives shows the URL without its password.
func NewPostgres(rawURL, state string, maxAge time.Duration) *Journal {
	return newJournal(&pgStore{url: rawURL, redacted: RedactURL(rawURL), secrets: urlSecrets(rawURL), runs: map[string]bool{}},
		state, maxAge)
}

// RedactURL returns a database URL without its password (in the user
// information or a password parameter); one that does not parse is not shown.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(a URL that does not parse)"
	}
	q := u.Query()
	redacted := false
	for k := range q {
		if isPasswordParam(k) {
			q.Set(k, "xxxxx")
			redacted = true
		}
	}
	if redacted {
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}

// isPasswordParam reports whether a connection parameter holds a password:
// pgx reads password and sslpassword (the client key's passphrase), and any
// other parameter so named is treated alike rather than shown.
func isPasswordParam(name string) bool {
	return strings.Contains(strings.ToLower(name), "password")
}

// urlSecrets lists the password of a URL as it may appear in a message:
// decoded and as written.
func urlSecrets(raw string) []string {
	u, err := url.Parse(raw)
	if err != nil {
		return []string{raw}
	}
	var out []string
	if p, ok := u.User.Password(); ok && p != "" {
		out = append(out, p, url.QueryEscape(p), url.PathEscape(p))
	}
	for k, vs := range u.Query() {
		if isPasswordParam(k) {
			for _, p := range vs {
				if p != "" {
					out = append(out, p, url.QueryEscape(p))
				}
			}
		}
	}
	return out
}

func (s *pgStore) where() string { return s.redacted }

// fail wraps an error of the database, with the password taken out of its text.
func (s *pgStore) fail(op string, err error) error {
	var done *pgError
	if errors.As(err, &done) {
		return err
	}
	msg := err.Error()
	for _, p := range s.secrets {
		if p != "" {
			msg = strings.ReplaceAll(msg, p, "xxxxx")
		}
	}
	return &pgError{msg: fmt.Sprintf("the task journal at %s: %s: %s", s.redacted, op, msg)}
}

// pgError is a database error whose text holds no password; it wraps nothing,
// so that no caller can reach the original text.
type pgError struct{ msg string }

func (e *pgError) Error() string { return e.msg }

// connect opens the session on first use and creates the schema and table.
// A session that ended (a server restarted or failed over, its
// idle_session_timeout, a pooler) is opened again, and this process's runs
// take their locks back (see reconnect). Callers hold s.mu.
func (s *pgStore) connect(ctx context.Context) error {
	if s.session.taken != nil {
		return s.session.taken
	}
	if s.conn != nil {
		if !s.conn.IsClosed() {
			return nil
		}
		s.conn = nil
		s.session.noteEnd(nil)
	}
	if len(s.runs) > 0 || s.session.ended != nil {
		return s.reconnect(ctx)
	}
	conn, err := s.dial(ctx)
	if err != nil {
		return err
	}
	s.conn = conn
	return nil
}

// dial opens a session, with the schema and table in place. Callers hold s.mu.
func (s *pgStore) dial(ctx context.Context) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(s.url)
	if err != nil {
		return nil, s.fail("reading the URL", err)
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = pgConnectTimeout
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, s.fail("connecting", err)
	}
	// Created only when missing: CREATE SCHEMA needs the CREATE privilege on
	// the database even when the schema is there, which a role granted only
	// the table's rights does not have.
	var exists, indexed bool
	err = conn.QueryRow(ctx, `SELECT to_regclass('`+pgTable+`') IS NOT NULL, to_regclass('`+pgIndex+`') IS NOT NULL`).
		Scan(&exists, &indexed)
	if err == nil && !exists {
		err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			for _, q := range []string{
				`SELECT pg_advisory_xact_lock(` + fmt.Sprint(pgSetupLock) + `)`,
				`CREATE SCHEMA IF NOT EXISTS ` + pgSchema,
				`CREATE TABLE IF NOT EXISTS ` + pgTable + ` (
				kind         text        NOT NULL,
				id           text        NOT NULL,
				fingerprint  text        NOT NULL,
				submitted_at timestamptz NOT NULL,
				state        text        NOT NULL DEFAULT '',
				run          text        NOT NULL DEFAULT '',
				process      text        NOT NULL DEFAULT '',
				run_ended    boolean     NOT NULL DEFAULT false,
				said_by      text        NOT NULL DEFAULT '',
				PRIMARY KEY (kind, id))`,
				pgCreateIndex,
			} {
				if _, err := tx.Exec(ctx, q); err != nil {
					return err
				}
			}
			return nil
		})
	} else if err == nil && !indexed {
		// A table an older provider created: indexed by its owner. Another
		// role may not, and the journal works without the index, reading
		// the table instead.
		err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(`+fmt.Sprint(pgSetupLock)+`)`); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, pgCreateIndex)
			return err
		})
		if isPrivilegeError(err) {
			err = nil
		}
	}
	if err != nil {
		_ = conn.Close(context.WithoutCancel(ctx))
		return nil, s.fail("creating the schema "+pgSchema, privilegeAdvice(err))
	}
	if set := keepaliveSettings(cfg); set != "" {
		if _, err := conn.Exec(ctx, set); err != nil {
			_ = conn.Close(context.WithoutCancel(ctx))
			return nil, s.fail("setting the session's keepalive", err)
		}
	}
	var idle string
	if err := conn.QueryRow(ctx, `SELECT current_setting('idle_session_timeout', true)`).Scan(&idle); err == nil {
		s.session.idle = parsePgDuration(idle)
	}
	return conn, nil
}

// pgKeepalive is the server's TCP keepalive of the journal's session, which
// holds its run's lock: a runner whose machine vanishes (a hosted runner
// reclaimed) sends no FIN, and the server keeps its session, and the lock,
// until keepalive gives up on it: two hours by the operating system's default,
// during which a fresh runner would take the dead run's tasks for a live
// run's and submit the clips again. Probed after 30 s idle, every 10 s, three
// times: the lock goes about a minute after the runner. A URL that sets one
// (as a parameter, or in options) keeps its own.
var pgKeepalive = [][2]string{{"tcp_keepalives_idle", "30"}, {"tcp_keepalives_interval", "10"}, {"tcp_keepalives_count", "3"}}

// keepaliveSettings is the statements that set pgKeepalive on a session of
// cfg, empty when its URL sets them all: SET, not startup parameters, which
// poolers such as PgBouncer refuse.
func keepaliveSettings(cfg *pgx.ConnConfig) string {
	var stmts []string
	for _, kv := range pgKeepalive {
		if _, set := cfg.RuntimeParams[kv[0]]; set || strings.Contains(cfg.RuntimeParams["options"], kv[0]) {
			continue
		}
		stmts = append(stmts, "SET "+kv[0]+" = "+kv[1])
	}
	return strings.Join(stmts, "; ")
}

// Record kinds of the table. A server (Server) is a row of its own kind, its
// ID the server's, its submitted_at when it proved it deduplicates, its
// fingerprint empty: no new column, and providers before it skip a kind they
// do not know (and never write or delete such a row), so an older provider
// shares the table unharmed.
const (
	kindTask   = "task"
	kindNote   = "unconfirmed"
	kindServer = "server"
)

type pgRow struct {
	kind, id, fingerprint, state, run, process, saidBy string
	submittedAt                                        time.Time
	runEnded                                           bool
}

func rowsOf(r *records) map[[2]string]pgRow {
	out := map[[2]string]pgRow{}
	for _, e := range r.Entries {
		out[[2]string{kindTask, e.TaskID}] = pgRow{kindTask, e.TaskID, e.Fingerprint, e.State, e.Run, e.Process,
			"", e.SubmittedAt, e.RunEnded}
	}
	for _, u := range r.Unconfirmed {
		out[[2]string{kindNote, u.ID}] = pgRow{kindNote, u.ID, u.Fingerprint, u.State, u.Run, "", u.SaidBy, u.SubmittedAt, false}
	}
	for _, sv := range r.Servers {
		out[[2]string{kindServer, sv.ID}] = pgRow{kind: kindServer, id: sv.ID, submittedAt: sv.ProvenAt}
	}
	return out
}

// pgCreateIndex creates pgIndex.
const pgCreateIndex = `CREATE INDEX IF NOT EXISTS records_fingerprint ON ` + pgTable + ` (fingerprint)`

// pgBatched starts the statements that the store sends in one round trip
// with the statement before or after them (BEGIN with the read, the writes
// with COMMIT): it shows in the server's statistics (pg_stat_statements),
// where the bench counts round trips as the statements less those so marked.
const pgBatched = "/* batched */ "

func (s *pgStore) update(ctx context.Context, sc scope, change func(*records) bool) error {
	return s.queue.make(&s.mu, sc, change, func(own *queuedChange, batch []*queuedChange) {
		s.commit(ctx, own, batch)
	})
}

// commit makes a batch of changes, in order, in one transaction, and gives
// each its outcome. When the context of own, this goroutine's change, ends,
// the others go back to the queue for the next goroutine that holds the
// session. Callers hold s.mu.
func (s *pgStore) commit(ctx context.Context, own *queuedChange, batch []*queuedChange) {
	sc := batch[0].sc
	for _, q := range batch[1:] {
		sc = sc.union(q.sc)
	}
	var seen, after map[[2]string]pgRow
	err := s.do(ctx, func(conn *pgx.Conn) error {
		var err error
		seen, after, err = s.change(ctx, conn, sc, batch)
		return err
	})
	if err != nil && ctx.Err() != nil {
		batch = s.queue.putBack(own, batch)
	}
	if err != nil {
		err = s.fail("writing", privilegeAdvice(err))
	} else {
		s.session.wrote(seen, after, s.runs)
	}
	for _, q := range batch {
		q.done <- err
	}
}

// pgColumns are the columns of a record, in scanRecords' order.
const pgColumns = `kind, id, fingerprint, submitted_at, state, run, process, run_ended, said_by`

// change runs the changes of a batch on the records of sc. A read reads
// them, and keeps nothing; otherwise they are read and locked in a
// transaction that writes what the changes changed. It returns the records
// it read and those after the changes (nil for a read).
func (s *pgStore) change(ctx context.Context, conn *pgx.Conn, sc scope, batch []*queuedChange) (seen, after map[[2]string]pgRow, err error) {
	where, args := pgWhere(sc)
	if sc.read {
		rows, err := conn.Query(ctx, `SELECT `+pgColumns+` FROM `+pgTable+where, args...)
		if err != nil {
			return nil, nil, err
		}
		r, err := scanRecords(rows)
		if err != nil {
			return nil, nil, err
		}
		for _, q := range batch {
			q.change(r)
		}
		return nil, nil, nil
	}
	defer func() {
		if err != nil && !conn.IsClosed() && conn.PgConn().TxStatus() != 'I' {
			rbCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), pgConnectTimeout)
			defer cancel()
			_, _ = conn.Exec(rbCtx, "rollback")
		}
	}()
	read := &pgx.Batch{}
	read.Queue(pgBatched + "begin")
	read.Queue(`SELECT `+pgColumns+` FROM `+pgTable+where+` ORDER BY kind, id FOR UPDATE`, args...)
	br := conn.SendBatch(ctx, read)
	var r *records
	if _, err = br.Exec(); err == nil {
		var rows pgx.Rows
		if rows, err = br.Query(); err == nil {
			r, err = scanRecords(rows)
		}
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, nil, err
	}
	seen = rowsOf(r)
	changed := false
	for _, q := range batch {
		if q.change(r) {
			changed = true
		}
	}
	write := &pgx.Batch{}
	after = seen
	if changed {
		after = rowsOf(r)
		for key := range seen {
			if _, ok := after[key]; !ok {
				write.Queue(pgBatched+`DELETE FROM `+pgTable+` WHERE kind = $1 AND id = $2`, key[0], key[1])
			}
		}
		for key, row := range after {
			if old, ok := seen[key]; ok && old == row {
				continue
			}
			write.Queue(pgBatched+`INSERT INTO `+pgTable+` (`+pgColumns+`)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
				ON CONFLICT (kind, id) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, submitted_at = EXCLUDED.submitted_at,
					state = EXCLUDED.state, run = EXCLUDED.run, process = EXCLUDED.process, run_ended = EXCLUDED.run_ended, said_by = EXCLUDED.said_by`,
				row.kind, row.id, row.fingerprint, row.submittedAt, row.state, row.run, row.process, row.runEnded,
				row.saidBy)
		}
	}
	write.Queue("commit")
	if err = conn.SendBatch(ctx, write).Close(); err != nil {
		return nil, nil, err
	}
	return seen, after, nil
}

// pgWhere is the WHERE clause of the rows of sc, and its arguments.
func pgWhere(sc scope) (string, []any) {
	if sc.all {
		return "", nil
	}
	var conds []string
	var args []any
	add := func(cond string, values []string) {
		if len(values) > 0 {
			args = append(args, values)
			conds = append(conds, strings.ReplaceAll(cond, "$n", fmt.Sprintf("$%d", len(args))))
		}
	}
	add(`fingerprint = ANY($n)`, sc.fingerprints)
	add(`(kind = '`+kindTask+`' AND id = ANY($n))`, sc.tasks)
	add(`(kind = '`+kindNote+`' AND id = ANY($n))`, sc.notes)
	add(`(kind = '`+kindTask+`' AND run = ANY($n)) OR (kind = '`+kindNote+`' AND said_by = ANY($n))`, sc.runs)
	add(`(kind = '`+kindServer+`' AND id = ANY($n))`, sc.servers)
	if len(conds) == 0 {
		return ` WHERE false`, nil
	}
	return ` WHERE ` + strings.Join(conds, ` OR `), args
}

// scanRecords reads rows of pgColumns into records.
func scanRecords(rows pgx.Rows) (*records, error) {
	defer rows.Close()
	r := &records{}
	for rows.Next() {
		var row pgRow
		if err := rows.Scan(&row.kind, &row.id, &row.fingerprint, &row.submittedAt, &row.state, &row.run,
			&row.process, &row.runEnded, &row.saidBy); err != nil {
			return nil, err
		}
		switch row.kind {
		case kindTask:
			r.Entries = append(r.Entries, Entry{TaskID: row.id, Fingerprint: row.fingerprint, SubmittedAt: row.submittedAt,
				State: row.state, Run: row.run, Process: row.process, RunEnded: row.runEnded})
		case kindNote:
			r.Unconfirmed = append(r.Unconfirmed, Unconfirmed{ID: row.id, Fingerprint: row.fingerprint,
				SubmittedAt: row.submittedAt, State: row.state, Run: row.run, SaidBy: row.saidBy})
		case kindServer:
			r.Servers = append(r.Servers, Server{ID: row.id, ProvenAt: row.submittedAt})
		}
	}
	return r, rows.Err()
}

// runKey is the advisory lock key of a run.
func runKey(run string) int64 {
	sum := sha256.Sum256([]byte("videogen-journal-run:" + run))
	return int64(binary.BigEndian.Uint64(sum[:8])) //nolint:gosec // a hash folded into the key space, overflow intended
}

func (s *pgStore) hold(ctx context.Context, run string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ok bool
	if err := s.do(ctx, func(conn *pgx.Conn) error {
		return conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, runKey(run)).Scan(&ok)
	}); err != nil {
		return s.fail("taking this run's lock", err)
	}
	if !ok {
		return s.fail("taking this run's lock", errors.New("another session holds it"))
	}
	s.runs[run] = true
	s.session.watch(s)
	return nil
}

func (s *pgStore) release(run string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.runs, run)
	if len(s.runs) == 0 {
		s.session.stopWatching()
	}
	if s.conn != nil && len(s.runs) == 0 {
		// Closing the session releases its locks.
		ctx, cancel := context.WithTimeout(context.Background(), pgConnectTimeout)
		defer cancel()
		_ = s.conn.Close(ctx)
		s.conn = nil
	}
}

// alive tries the run's advisory lock from this session, shared: the server
// released it when the run's session ended. The run holds it exclusive; a
// test takes it shared, so that two runners testing one dead run at once (a
// plan beside an apply) both find it dead: an exclusive test would find the
// other's lock and take the dead run for a live one, whose task is not
// adopted, and the clip would be submitted and billed again.
func (s *pgStore) alive(ctx context.Context, run string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.runs[run] {
		return true, nil
	}
	var free bool
	err := s.do(ctx, func(conn *pgx.Conn) error {
		if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock_shared($1)`, runKey(run)).Scan(&free); err != nil || !free {
			return err
		}
		_, err := conn.Exec(ctx, `SELECT pg_advisory_unlock_shared($1)`, runKey(run))
		return err
	})
	if err != nil {
		return false, s.fail("testing the lock of run "+run, err)
	}
	return !free, nil
}

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
// on first use. Every change runs in a transaction that locks the table against
// other writers (readers go on), so concurrent runners cannot lose a record. A
// run's liveness lock is a session-level advisory lock on the journal's
// connection, which the server releases when the session ends: when the
// process dies, the kernel closes its socket.
type pgStore struct {
	url      string
	redacted string
	secrets  []string

	mu   sync.Mutex
	conn *pgx.Conn
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
	var exists bool
	err = conn.QueryRow(ctx, `SELECT to_regclass('`+pgTable+`') IS NOT NULL`).Scan(&exists)
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
			} {
				if _, err := tx.Exec(ctx, q); err != nil {
					return err
				}
			}
			return nil
		})
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

// Record kinds of the table.
const (
	kindTask = "task"
	kindNote = "unconfirmed"
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
	return out
}

func (s *pgStore) update(ctx context.Context, change func(*records) bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var after map[[2]string]pgRow
	err := s.do(ctx, func(conn *pgx.Conn) error {
		var err error
		after, err = s.change(ctx, conn, change)
		return err
	})
	if err != nil {
		return s.fail("writing", privilegeAdvice(err))
	}
	s.session.wrote(after, s.runs)
	return nil
}

// change runs one change in a transaction; it returns the records after it
// (nil when nothing changed).
func (s *pgStore) change(ctx context.Context, conn *pgx.Conn, change func(*records) bool) (map[[2]string]pgRow, error) {
	var out map[[2]string]pgRow
	err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		// SHARE ROW EXCLUSIVE conflicts with itself: one writer at a time.
		if _, err := tx.Exec(ctx, `LOCK TABLE `+pgTable+` IN SHARE ROW EXCLUSIVE MODE`); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT kind, id, fingerprint, submitted_at, state, run, process, run_ended, said_by FROM `+pgTable)
		if err != nil {
			return err
		}
		r := &records{}
		for rows.Next() {
			var row pgRow
			if err := rows.Scan(&row.kind, &row.id, &row.fingerprint, &row.submittedAt, &row.state, &row.run,
				&row.process, &row.runEnded, &row.saidBy); err != nil {
				rows.Close()
				return err
			}
			switch row.kind {
			case kindTask:
				r.Entries = append(r.Entries, Entry{TaskID: row.id, Fingerprint: row.fingerprint, SubmittedAt: row.submittedAt,
					State: row.state, Run: row.run, Process: row.process, RunEnded: row.runEnded})
			case kindNote:
				r.Unconfirmed = append(r.Unconfirmed, Unconfirmed{ID: row.id, Fingerprint: row.fingerprint,
					SubmittedAt: row.submittedAt, State: row.state, Run: row.run, SaidBy: row.saidBy})
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		before := rowsOf(r)
		if !change(r) {
			return nil
		}
		after := rowsOf(r)
		for key := range before {
			if _, ok := after[key]; !ok {
				if _, err := tx.Exec(ctx, `DELETE FROM `+pgTable+` WHERE kind = $1 AND id = $2`, key[0], key[1]); err != nil {
					return err
				}
			}
		}
		for key, row := range after {
			if old, ok := before[key]; ok && old == row {
				continue
			}
			if _, err := tx.Exec(ctx, `INSERT INTO `+pgTable+` (kind, id, fingerprint, submitted_at, state, run, process, run_ended, said_by)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
				ON CONFLICT (kind, id) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, submitted_at = EXCLUDED.submitted_at,
					state = EXCLUDED.state, run = EXCLUDED.run, process = EXCLUDED.process, run_ended = EXCLUDED.run_ended, said_by = EXCLUDED.said_by`,
				row.kind, row.id, row.fingerprint, row.submittedAt, row.state, row.run, row.process, row.runEnded,
				row.saidBy); err != nil {
				return err
			}
		}
		out = after
		return nil
	})
	return out, err
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

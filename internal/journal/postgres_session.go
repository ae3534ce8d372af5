package journal

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// pgSession is what a pgStore knows of its sessions. A session ends under a
// run that goes on: the server restarts, fails over or ends it for its
// idle_session_timeout, a pooler closes it. Its advisory locks go with it, so
// that meanwhile another run that tests this run's lock finds it free, takes
// the run for a killed one and may adopt its tasks. The store opens a new
// session and takes its runs' locks back; then, before it writes anything,
// it reads back every record its runs wrote: one another run took over (an
// entry now another run's, a note whose doubt another run said and may have
// sent again) ends the run's submissions, with an error that names the tasks
// (taken), rather than go on as if nothing happened. A run that took its lock
// back first is alive to every later test, and keeps its tasks. While the
// store holds a run, a watcher looks at the session every pgWatchEvery (or
// within a third of the server's idle_session_timeout, which the look keeps
// from ending the session), so that the lock is back within that time of a
// restart, not only at the run's next change.
type pgSession struct {
	// ended says why the last session ended; nil while none has.
	ended error
	// taken is the error of a run whose records another run took over while
	// its lock was lost: every later change fails with it.
	taken error
	// idle is the server's idle_session_timeout; zero when it has none.
	idle time.Duration
	// mine maps each record this store's runs wrote to its run.
	mine map[[2]string]pgRow

	stop chan struct{}
}

// pgReconnectFor bounds how long a change waits for the database after its
// session ended (a restart, a failover), and pgReconnectEvery how often it
// tries meanwhile. Tests shorten them.
var (
	pgReconnectFor   = 2 * time.Minute
	pgReconnectEvery = 250 * time.Millisecond
	pgWatchEvery     = 5 * time.Second
)

// do runs op on the session, opened (again) first; when the session ends
// under op, op runs once more on a new one. A change may run twice: each
// change sets records to values, which a second run sets again. Callers hold
// s.mu.
func (s *pgStore) do(ctx context.Context, op func(*pgx.Conn) error) error {
	for attempt := 0; ; attempt++ {
		if err := s.connect(ctx); err != nil {
			return err
		}
		err := op(s.conn)
		if err == nil || !s.conn.IsClosed() || attempt > 0 || ctx.Err() != nil {
			return err
		}
		s.session.noteEnd(err)
		s.conn = nil
	}
}

// noteEnd records why a session ended, from the error that found it closed
// (nil: nothing said why).
func (p *pgSession) noteEnd(err error) {
	var pgErr *pgconn.PgError
	switch {
	case errors.As(err, &pgErr):
		p.ended = fmt.Errorf("the server ended the journal's session: %s (SQLSTATE %s)", pgErr.Message, pgErr.Code)
	case err != nil:
		p.ended = fmt.Errorf("the journal's session ended: %w", err)
	case p.ended == nil:
		p.ended = errors.New("the journal's session ended (the connection was closed)")
	}
}

// reconnect opens a new session after one ended, for up to pgReconnectFor,
// and takes this store's runs' locks back. Callers hold s.mu.
func (s *pgStore) reconnect(ctx context.Context) error {
	deadline := time.Now().Add(pgReconnectFor)
	for {
		err := s.reconnectOnce(ctx)
		if err == nil || s.session.taken != nil {
			return err
		}
		if time.Now().After(deadline) {
			return s.fail("connecting again", fmt.Errorf("%w; trying again for %s failed: %w (the database is down, "+
				"or this runner cannot reach it)", s.session.ended, pgReconnectFor, err))
		}
		select {
		case <-ctx.Done():
			return s.fail("connecting again", fmt.Errorf("%w; and then: %w", s.session.ended, err))
		case <-time.After(pgReconnectEvery):
		}
	}
}

// reconnectOnce opens a session, takes the runs' locks back, and checks that
// no other run took over their records meanwhile. Callers hold s.mu.
func (s *pgStore) reconnectOnce(ctx context.Context) error {
	conn, err := s.dial(ctx)
	if err != nil {
		return err
	}
	fail := func(err error) error {
		_ = conn.Close(context.WithoutCancel(ctx))
		return err
	}
	lockCtx, cancel := context.WithTimeout(ctx, pgConnectTimeout)
	defer cancel()
	for run := range s.runs {
		// Blocking: another run's test of this lock holds it shared for a moment.
		if _, err := conn.Exec(lockCtx, `SELECT pg_advisory_lock($1)`, runKey(run)); err != nil {
			return fail(s.fail("taking this run's lock again", err))
		}
	}
	if err := s.session.check(ctx, conn, s); err != nil {
		return fail(err)
	}
	s.conn = conn
	s.session.ended = nil
	return nil
}

// check reads back the records this store's runs wrote, and sets taken when
// another run took one over while the runs' locks were lost.
func (p *pgSession) check(ctx context.Context, conn *pgx.Conn, s *pgStore) error {
	if len(p.mine) == 0 {
		return nil
	}
	rows, err := conn.Query(ctx, `SELECT kind, id, run, process, said_by FROM `+pgTable)
	if err != nil {
		return s.fail("reading this run's records again", err)
	}
	var taken []string
	for rows.Next() {
		var kind, id, run, process, saidBy string
		if err := rows.Scan(&kind, &id, &run, &process, &saidBy); err != nil {
			rows.Close()
			return s.fail("reading this run's records again", err)
		}
		own, ok := p.mine[[2]string{kind, id}]
		switch {
		case !ok:
		case kind == kindTask && run != own.run && !s.runs[run]:
			taken = append(taken, fmt.Sprintf("task %s, now noted as taken over by %s", id, orUnknown(process)))
		case kind == kindNote && saidBy != "" && saidBy != own.saidBy && !s.runs[saidBy]:
			taken = append(taken, fmt.Sprintf("the submission noted as %s, which another run took for a doubt, and may "+
				"have sent again", id))
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return s.fail("reading this run's records again", err)
	}
	if len(taken) == 0 {
		return nil
	}
	slices.Sort(taken)
	p.taken = s.fail("taking this run's lock again", fmt.Errorf("%w; before this run took its lock back, another run "+
		"found the lock free, took this run for a killed one and took over what it submitted: %s. Both runs may now "+
		"wait for the same task, so this run submits nothing more: let the applies end, then apply again and "+
		"check that every clip holds a task of its own (a \"Task Held by Two Resources\" plan names any that "+
		"does not)", p.ended, strings.Join(taken, "; ")))
	return p.taken
}

func orUnknown(process string) string {
	if process == "" {
		return "another run"
	}
	return process
}

// wrote records which of the records a change saw (seen, before it; after,
// after it) are this store's runs'. A read (seen nil) tells nothing new.
func (p *pgSession) wrote(seen, after map[[2]string]pgRow, runs map[string]bool) {
	if seen == nil {
		return
	}
	if p.mine == nil {
		p.mine = map[[2]string]pgRow{}
	}
	for key := range seen {
		if _, ok := after[key]; !ok {
			delete(p.mine, key)
		}
	}
	for key, row := range after {
		if runs[row.run] {
			p.mine[key] = row
		} else {
			delete(p.mine, key)
		}
	}
}

// watch starts the watcher, once. Callers hold s.mu.
func (p *pgSession) watch(s *pgStore) {
	if p.stop != nil {
		return
	}
	stop := make(chan struct{})
	p.stop = stop
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(p.every(s)):
			}
			s.mu.Lock()
			select {
			case <-stop:
				s.mu.Unlock()
				return
			default:
			}
			ctx, cancel := context.WithTimeout(context.Background(), pgConnectTimeout)
			if s.conn != nil && !s.conn.IsClosed() {
				if err := s.conn.Ping(ctx); err != nil && s.conn.IsClosed() {
					p.noteEnd(err)
					s.conn = nil
				}
			}
			if s.conn == nil && p.taken == nil && len(s.runs) > 0 {
				// One try: a change that finds it closed tries for longer.
				_ = s.reconnectOnce(ctx)
			}
			cancel()
			s.mu.Unlock()
		}
	}()
}

// every is how long the watcher waits between looks. Callers need not hold s.mu.
func (p *pgSession) every(s *pgStore) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.idle > 0 && p.idle/3 < pgWatchEvery {
		return max(p.idle/3, 10*time.Millisecond)
	}
	return pgWatchEvery
}

// stopWatching ends the watcher. Callers hold s.mu.
func (p *pgSession) stopWatching() {
	if p.stop != nil {
		close(p.stop)
		p.stop = nil
	}
}

// isPrivilegeError reports whether a database error says the role lacks a privilege.
func isPrivilegeError(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "42501"
}

// privilegeAdvice adds what to do to a database error that says the role
// lacks a privilege.
func privilegeAdvice(err error) error {
	if !isPrivilegeError(err) {
		return err
	}
	return fmt.Errorf("%w: the role needs USAGE on the schema %s and SELECT, INSERT, UPDATE and DELETE on %s "+
		"(GRANT USAGE ON SCHEMA %s TO <role>; GRANT SELECT, INSERT, UPDATE, DELETE ON %s TO <role>), and CREATE on "+
		"the database only to create them on first use", err, pgSchema, pgTable, pgSchema, pgTable)
}

// parsePgDuration reads a duration setting as the server shows it ("0",
// "500ms", "10s", "5min", "1h", "1d"); zero when it is none or unknown.
func parsePgDuration(v string) time.Duration {
	v = strings.TrimSpace(v)
	i := strings.IndexFunc(v, func(r rune) bool { return r < '0' || r > '9' })
	if i == 0 {
		return 0
	}
	unit := ""
	if i > 0 {
		unit, v = v[i:], v[:i]
	}
	var n int64
	if _, err := fmt.Sscan(v, &n); err != nil {
		return 0
	}
	scale := map[string]time.Duration{"": time.Millisecond, "us": time.Microsecond, "ms": time.Millisecond,
		"s": time.Second, "min": time.Minute, "h": time.Hour, "d": 24 * time.Hour}[unit]
	return time.Duration(n) * scale
}

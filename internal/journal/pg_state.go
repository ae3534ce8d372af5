package journal

import (
	"context"
	"os"

	"github.com/jackc/pgx/v5"
)

// pgState is the savedState of a state Terraform's pg backend keeps: the row
// of its workspace in the backend's table, read with the backend's own
// connection string (its conn_str setting, else PG_CONN_STR, which Terraform
// passes on to the provider) once, the first time the journal offers a task:
// what matters is the state as it was before this run, which the state lock
// keeps every other run from changing meanwhile. A database it cannot reach or
// a state it cannot parse proves nothing; nothing it reads is ever shown.
type pgState struct {
	connStr, schema, workspace string

	readOnce
}

// pgStateTable is the table of the pg backend, in its schema.
const pgStateTable = "states"

// currentPgState is the pg backend b's state of the current workspace.
func currentPgState(b *recordedBackend) *pgState {
	s := &pgState{connStr: b.setting("conn_str"), schema: b.setting("schema_name"), workspace: workspace()}
	if s.connStr == "" {
		s.connStr = os.Getenv("PG_CONN_STR")
	}
	if s.schema == "" {
		s.schema = os.Getenv("PG_SCHEMA_NAME")
	}
	if s.schema == "" {
		s.schema = "terraform_remote_state"
	}
	return s
}

func (s *pgState) heldTasks(ctx context.Context) map[string]bool { return s.get(ctx, s.read) }

// read returns the tasks of the saved state; nil when it cannot tell.
func (s *pgState) read(ctx context.Context) map[string]bool {
	if s.connStr == "" {
		return nil
	}
	cfg, err := pgx.ParseConfig(s.connStr)
	if err != nil {
		return nil
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = pgConnectTimeout
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var data string
	table := pgx.Identifier{s.schema, pgStateTable}.Sanitize()
	if err := conn.QueryRow(ctx, `SELECT data FROM `+table+` WHERE name = $1`, s.workspace).Scan(&data); err != nil {
		return nil
	}
	return stateTasks([]byte(data))
}

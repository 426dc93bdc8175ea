// Package brain opens a migrated pgbrain database and reads and writes its
// pages and sources through the SQL API. Bulk import lives in internal/ingest.
package brain

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	pgvector "github.com/pgvector/pgvector-go/pgx"

	"github.com/pgbrain/pgbrain/client/migrate"
)

// Brain is an open connection pool to a migrated brain.
type Brain struct {
	Pool     *pgxpool.Pool
	Settings migrate.Settings
}

// ErrNotInitialized means the database has no brain schema yet.
var ErrNotInitialized = errors.New("this database holds no brain yet: run 'pgbrain init'")

// The database roles of sql/015 (docs/security.md, "Roles").
const (
	RoleOwner   = "pgbrain_owner"
	RoleWriter  = "pgbrain_writer"
	RoleReader  = "pgbrain_reader"
	RoleAgent   = "pgbrain_agent"
	RoleAuditor = "pgbrain_auditor"
)

// Access says how a pool's connections act once connected.
type Access struct {
	// Role is SET on every connection; "" keeps the connecting role (the
	// owner, who also runs migrations and index DDL). A role that does not
	// exist, or that the login may not SET (a brain migrated by a role that
	// could not create or grant roles), is skipped, except RoleAgent, which
	// is an error: agents must never run unrestricted.
	Role string
	// StatementTimeout, when set, is the statement_timeout of every
	// connection (a PostgreSQL interval such as "30s"; "0" turns it off).
	StatementTimeout string
}

// ErrNoAgentRole means the database has no pgbrain_agent role, so row
// security cannot restrict what an agent sees.
var ErrNoAgentRole = errors.New("the role pgbrain_agent does not exist in this cluster, so the database cannot restrict what agents see: " +
	"have a superuser run 'pgbrain migrate' (or SELECT brain.setup_roles()) on this database; see docs/security.md")

// Open connects to url as the connecting role and checks that the schema
// is current.
func Open(ctx context.Context, url string) (*Brain, error) {
	return OpenAs(ctx, url, Access{})
}

// OpenAs is Open with every connection switched to a.Role (SET ROLE) and
// given a.StatementTimeout, so a command holds only the privileges it needs.
func OpenAs(ctx context.Context, url string, a Access) (*Brain, error) {
	if scheme, _, ok := strings.Cut(url, "://"); ok && scheme != "postgres" && scheme != "postgresql" && !strings.ContainsAny(scheme, " =") {
		return nil, fmt.Errorf("the database URL has the scheme %q, but pgbrain needs PostgreSQL: %s", scheme, urlForms)
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parsing database URL: %w; %s", err, urlForms)
	}
	cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
		if err := setAccess(ctx, c, a); err != nil {
			return err
		}
		// The vector type only exists once the extension is installed.
		var ok bool
		if err := c.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_type WHERE typname = 'vector')`).Scan(&ok); err != nil || !ok {
			return err
		}
		return pgvector.RegisterTypes(ctx, c)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("opening database pool: %w", err)
	}
	b := &Brain{Pool: pool}
	if err := b.check(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return b, nil
}

// urlForms says how a database URL is written.
const urlForms = "a database URL is written postgres://USER:PASSWORD@HOST:5432/DBNAME, or as key=value pairs (host=HOST dbname=DBNAME)"

func setAccess(ctx context.Context, c *pgx.Conn, a Access) error {
	if a.Role != "" {
		var exists, member bool
		err := c.QueryRow(ctx, `SELECT to_regrole($1) IS NOT NULL,
			coalesce(pg_has_role(session_user, to_regrole($1), 'MEMBER'), false)`, a.Role).Scan(&exists, &member)
		if err != nil {
			return fmt.Errorf("looking up role %s: %w", a.Role, err)
		}
		switch {
		case !exists && a.Role == RoleAgent:
			return ErrNoAgentRole
		case !member && a.Role == RoleAgent:
			return fmt.Errorf("role %s may not act as %s, and serve never runs unrestricted: have a superuser run GRANT %s TO %s (docs/security.md)",
				c.Config().User, a.Role, a.Role, c.Config().User)
		case !exists || !member:
			// Nothing this login may drop to (roles missing, or not
			// granted to it): it runs as itself, the brain's owner, as
			// before roles existed; doctor reports the roles.
		default:
			// Role names are constants of this package, never user input.
			if _, err := c.Exec(ctx, `SET ROLE `+pgx.Identifier{a.Role}.Sanitize()); err != nil {
				return fmt.Errorf("switching to role %s: %w", a.Role, err)
			}
		}
	}
	if a.StatementTimeout != "" {
		if _, err := c.Exec(ctx, `SELECT set_config('statement_timeout', $1, false)`, a.StatementTimeout); err != nil {
			return fmt.Errorf("setting statement_timeout to %q (PGBRAIN_STATEMENT_TIMEOUT): %w", a.StatementTimeout, err)
		}
	}
	return nil
}

func (b *Brain) check(ctx context.Context) error {
	conn, err := b.Pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("connecting to the database: %w", connectError{err})
	}
	defer conn.Release()
	v, err := migrate.Version(ctx, conn.Conn())
	if err != nil {
		return err
	}
	latest, err := migrate.Latest()
	if err != nil {
		return err
	}
	switch {
	case v == 0:
		return ErrNotInitialized
	case v < latest:
		return fmt.Errorf("the brain schema is at version %d, this pgbrain needs %d: run 'pgbrain migrate'", v, latest)
	case v > latest:
		return fmt.Errorf("the brain schema is at version %d, newer than this pgbrain (%d): upgrade pgbrain", v, latest)
	}
	have, err := migrate.RecordedChecksum(ctx, conn.Conn())
	if err != nil {
		return err
	}
	same, err := migrate.SameFunctions(have)
	if err != nil {
		return err
	}
	if !same {
		return migrate.ErrFunctionsStale
	}
	s, _, err := migrate.ReadSettings(ctx, conn.Conn())
	if err != nil {
		return err
	}
	b.Settings = s
	return nil
}

// Close releases the pool.
func (b *Brain) Close() { b.Pool.Close() }

// AdvisoryHeld reports whether any session holds the bigint advisory lock
// key in this database. It reads pg_locks instead of trying the lock, so a
// check never stands in the way of the lock's real users.
func AdvisoryHeld(ctx context.Context, db interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, key int64) (bool, error) {
	var held bool
	err := db.QueryRow(ctx, `SELECT EXISTS (
		SELECT FROM pg_catalog.pg_locks
		WHERE locktype = 'advisory' AND granted AND objsubid = 1
		  AND database = (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database())
		  AND classid::bigint = ($1::bigint >> 32) & 4294967295
		  AND objid::bigint = $1::bigint & 4294967295)`, key).Scan(&held)
	if err != nil {
		return false, fmt.Errorf("reading pg_locks: %w", err)
	}
	return held, nil
}

// TryAdvisory takes the session-level advisory lock key on conn without
// waiting. ok is false when another session holds it. Otherwise release
// unlocks it, closing the connection if unlocking fails so that the lock
// cannot outlive its holder in the pool.
func TryAdvisory(ctx context.Context, conn *pgxpool.Conn, key int64) (release func(), ok bool, err error) {
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, key).Scan(&ok); err != nil || !ok {
		return nil, false, err
	}
	return func() {
		bg := context.WithoutCancel(ctx)
		if _, err := conn.Exec(bg, `SELECT pg_advisory_unlock($1)`, key); err != nil {
			_ = conn.Conn().Close(bg)
		}
	}, true, nil
}

package migrate

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// trigramMigration is the first migration that needs pg_trgm (020: the
// trigram index of page titles).
const trigramMigration = 20

// ErrNoTrigram reports that the server lacks pg_trgm, which migration 020
// installs for the trigram index of page titles.
var ErrNoTrigram = errors.New("the pg_trgm extension is not available on this server: it is one of PostgreSQL's contrib modules; install them on the server (the postgresql-contrib package on distributions that package them apart; Debian's postgresql-NN and the official images include them)")

// checkTrigram refuses, before any migration runs, a server or role with
// which migration 020 could not create or use pg_trgm, so a brain is
// never left half upgraded by a missing contrib module or privilege.
func checkTrigram(ctx context.Context, conn *pgx.Conn) error {
	var installed, available, usable, canCreate bool
	var schema *string
	var role string
	err := conn.QueryRow(ctx, `SELECT
		EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'),
		EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm'),
		coalesce((SELECT has_schema_privilege(e.extnamespace, 'USAGE') FROM pg_extension e WHERE e.extname = 'pg_trgm'), false),
		(SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'),
		has_database_privilege(current_database(), 'CREATE'),
		current_user`).Scan(&installed, &available, &usable, &schema, &canCreate, &role)
	if err != nil {
		return fmt.Errorf("checking the pg_trgm extension: %w", err)
	}
	switch {
	case installed && !usable:
		return fmt.Errorf("the pg_trgm extension is installed in schema %q, which role %s may not use: GRANT USAGE ON SCHEMA %s TO %s, as the schema's owner", deref(schema), role, pgx.Identifier{deref(schema)}.Sanitize(), pgx.Identifier{role}.Sanitize())
	case installed:
		return nil
	case !available:
		return ErrNoTrigram
	case !canCreate:
		return fmt.Errorf("the pg_trgm extension is not installed in this database and role %s may not create it: run CREATE EXTENSION pg_trgm in it as the database's owner or a superuser, or GRANT CREATE ON DATABASE to %s", role, pgx.Identifier{role}.Sanitize())
	}
	return nil
}

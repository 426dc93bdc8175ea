package migrate

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// ErrNoTrigram reports that the server lacks pg_trgm, which migration 020
// installs for the trigram index of page titles.
var ErrNoTrigram = errors.New("the pg_trgm extension is not available on this server: it ships with PostgreSQL's contrib modules (the postgresql-contrib package on some distributions; part of postgresql-NN on Debian and in the official images), or ask a superuser to run CREATE EXTENSION pg_trgm")

// checkTrigram refuses, before any migration runs, a server on which
// migration 020 could not create pg_trgm, so a brain is never left half
// upgraded by a missing contrib module.
func checkTrigram(ctx context.Context, conn *pgx.Conn) error {
	var ok bool
	err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm')
		OR EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm')`).Scan(&ok)
	if err != nil {
		return fmt.Errorf("checking the pg_trgm extension: %w", err)
	}
	if !ok {
		return ErrNoTrigram
	}
	return nil
}

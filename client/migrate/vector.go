package migrate

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// MinVector is the oldest pgvector release the brain's SQL works with
// (sparsevec, halfvec casts and iterative HNSW scans came in 0.7 and 0.8).
const MinVector = "0.8.0"

// checkVector refuses a server whose pgvector is missing or older than
// MinVector, before any migration runs, and returns the schema that holds
// (or, once migration 001 creates it, will hold) the extension, quoted for
// use in a search_path.
func checkVector(ctx context.Context, conn *pgx.Conn) (string, error) {
	var installed, available, schema *string
	err := conn.QueryRow(ctx, `SELECT
		(SELECT e.extversion FROM pg_extension e WHERE e.extname = 'vector'),
		(SELECT default_version FROM pg_available_extensions WHERE name = 'vector'),
		coalesce((SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
		          WHERE e.extname = 'vector'), current_schema())`).Scan(&installed, &available, &schema)
	if err != nil {
		return "", fmt.Errorf("checking the pgvector extension: %w", err)
	}
	if err := vectorVersionOK(deref(installed), deref(available)); err != nil {
		return "", err
	}
	if schema == nil {
		return "", errors.New("the database has no schema to create the vector extension in (search_path names none that exists): set search_path, or CREATE EXTENSION vector in a schema first")
	}
	return pgx.Identifier{*schema}.Sanitize(), nil
}

// vectorVersionOK judges the installed (or else the available) pgvector.
func vectorVersionOK(installed, available string) error {
	switch {
	case installed != "":
		if !atLeast(installed, MinVector) {
			return fmt.Errorf("this database has pgvector %s, but pgbrain needs %s or later: install pgvector %s+ on the server (make setup does so for the embedded cluster), then run ALTER EXTENSION vector UPDATE as its owner or a superuser", installed, MinVector, MinVector)
		}
	case available == "":
		return ErrNoVector
	case !atLeast(available, MinVector):
		return fmt.Errorf("this server offers pgvector %s, but pgbrain needs %s or later: install pgvector %s+ on the server (make setup does so for the embedded cluster)", available, MinVector, MinVector)
	}
	return nil
}

// atLeast compares dotted version numbers ("0.10.1" > "0.8.0"); a suffix
// after the numbers ("0.8.0-dev") is ignored.
func atLeast(v, min string) bool {
	a, b := versionParts(v), versionParts(min)
	for i := 0; i < len(a) || i < len(b); i++ {
		var x, y int
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return x > y
		}
	}
	return true
}

func versionParts(v string) []int {
	var out []int
	for _, p := range strings.Split(v, ".") {
		end := 0
		for end < len(p) && p[end] >= '0' && p[end] <= '9' {
			end++
		}
		n, err := strconv.Atoi(p[:end])
		if err != nil {
			break
		}
		out = append(out, n)
		if end < len(p) {
			break
		}
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

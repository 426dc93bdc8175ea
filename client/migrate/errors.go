package migrate

import (
	"errors"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// isMissingVector recognises the server's answer to CREATE EXTENSION vector
// when the extension files are not installed.
func isMissingVector(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code == "0A000" && strings.Contains(pgErr.Message, "vector") ||
			pgErr.Code == "58P01" && strings.Contains(pgErr.Message, "vector")
	}
	return false
}

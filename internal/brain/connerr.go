package brain

import (
	"errors"
	"strings"
	"syscall"
)

// connectError is a failed connection as pgx reports it, with the lines
// pgx repeats dropped (it tries each address with and without TLS, and a
// refused port fails both the same way) and a hint when nothing listens.
type connectError struct{ err error }

func (e connectError) Unwrap() error { return e.err }

func (e connectError) Error() string {
	lines := strings.Split(e.err.Error(), "\n")
	seen := map[string]bool{}
	kept := lines[:0]
	for _, l := range lines {
		if seen[l] {
			continue
		}
		seen[l] = true
		kept = append(kept, l)
	}
	msg := strings.Join(kept, "\n")
	if errors.Is(e.err, syscall.ECONNREFUSED) || errors.Is(e.err, syscall.ENOENT) {
		msg += "\nno PostgreSQL is listening there: start it, or point --database-url (DATABASE_URL, PGBRAIN_DATABASE_URL) at a running one; without either pgbrain starts its own embedded cluster"
	}
	return msg
}

package brain

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// connectError is a failed connection as pgx reports it, with the lines
// pgx repeats dropped (it tries each address with and without TLS, and a
// refused port fails both the same way) and a hint when nothing listens.
type connectError struct{ err error }

func (e connectError) Unwrap() error { return e.err }

func (e connectError) Error() string {
	lines := strings.Split(e.err.Error(), "\n")
	kept := lines[:0]
	for _, l := range lines {
		// (a line the one before already says: "hostname resolving
		// error: lookup h: no such host", then "lookup h: no such host")
		if slices.ContainsFunc(kept, func(k string) bool { return strings.Contains(k, strings.TrimSpace(l)) }) {
			continue
		}
		kept = append(kept, l)
	}
	msg := strings.Join(kept, "\n")
	var dns *net.DNSError
	var pg *pgconn.PgError
	switch {
	case errors.Is(e.err, syscall.ECONNREFUSED) || errors.Is(e.err, syscall.ENOENT):
		if dir := embeddedDir(e.err); dir != "" {
			msg += fmt.Sprintf("\nthis is the socket of pgbrain's embedded cluster in %s, which is stopped: start it with 'pgbrain db start' "+
				"(PGBRAIN_HOME set as when it was made), or leave out --database-url and pgbrain starts it itself", dir)
		} else {
			msg += "\nno PostgreSQL is listening there: start it, or point --database-url (DATABASE_URL, PGBRAIN_DATABASE_URL) at a running one; without either pgbrain starts its own embedded cluster"
		}
	case errors.As(e.err, &dns) && dns.IsNotFound:
		msg += fmt.Sprintf("\nthe host %q is not known: check the host in --database-url (DATABASE_URL, PGBRAIN_DATABASE_URL)", dns.Name)
	case errors.As(e.err, &pg) && pg.Code == "3D000":
		msg += "\nthe server runs but has no such database: create it (createdb DBNAME, or CREATE DATABASE), then run 'pgbrain init'; or point --database-url at an existing one"
	case errors.As(e.err, &pg) && (pg.Code == "28P01" || pg.Code == "28000"):
		msg += "\nthe server refused the user name or the password; check both in --database-url (or in PGPASSWORD and ~/.pgpass)"
	}
	return msg
}

// embeddedDir returns the cluster directory when the failed connection was
// to the socket directory of a pgbrain embedded cluster (DIR/run beside
// DIR/data, as internal/pgcluster lays it out), else "".
func embeddedDir(err error) string {
	var ce *pgconn.ConnectError
	if !errors.As(err, &ce) || ce.Config == nil || !filepath.IsAbs(ce.Config.Host) || filepath.Base(ce.Config.Host) != "run" {
		return ""
	}
	dir := filepath.Dir(ce.Config.Host)
	if _, err := os.Stat(filepath.Join(dir, "data", "PG_VERSION")); err != nil {
		return ""
	}
	return dir
}

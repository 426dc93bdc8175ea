package brain

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/pgbrain/pgbrain/testdb"
)

// A server that is not there is reported once, with what to do, and the
// cause stays inspectable.
func TestOpenWhereNothingListensSaysSoOnce(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	for _, url := range []string{
		fmt.Sprintf("postgres://nobody@%s/none?connect_timeout=5", addr),
		"postgres://nobody@/none?host=" + t.TempDir(),
	} {
		_, err := Open(context.Background(), url)
		if err == nil {
			t.Fatalf("Open(%s) succeeded with nothing listening", url)
		}
		msg := err.Error()
		if !strings.Contains(msg, "no PostgreSQL is listening there") || !strings.Contains(msg, "--database-url") {
			t.Errorf("Open(%s): %q does not say that nothing listens and what to do", url, msg)
		}
		lines := strings.Split(msg, "\n")
		for i := range lines {
			for j := i + 1; j < len(lines); j++ {
				if lines[i] == lines[j] {
					t.Errorf("Open(%s): line %q is printed twice in %q", url, lines[i], msg)
				}
			}
		}
		if !errors.Is(err, syscall.ECONNREFUSED) && !errors.Is(err, syscall.ENOENT) {
			t.Errorf("Open(%s): %v no longer wraps the dial error", url, err)
		}
	}
}

// A stopped embedded cluster is named as such, with the command that
// starts it: its socket directory (DIR/run beside DIR/data) is there, the
// socket is not.
func TestOpenOfAStoppedEmbeddedClusterNamesDbStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, p := range []string{filepath.Join(dir, "run"), filepath.Join(dir, "data")} {
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "data", "PG_VERSION"), []byte("15\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(context.Background(), "postgresql:///brain?host="+filepath.Join(dir, "run")+"&user=pgbrain&sslmode=disable")
	if err == nil {
		t.Fatal("Open succeeded with the embedded cluster stopped")
	}
	if msg := err.Error(); !strings.Contains(msg, "pgbrain db start") || !strings.Contains(msg, dir) {
		t.Errorf("Open of a stopped embedded cluster: %q does not name 'pgbrain db start' and %s", msg, dir)
	}
}

// Each way a database URL can be wrong is named with its fix: a scheme
// that is not PostgreSQL's (without repeating the URL, which may hold a
// password), text that is no URL, a database or a user the server does
// not have, a host nobody knows.
func TestOpenNamesWhatIsWrongWithTheURL(t *testing.T) {
	t.Parallel()
	good, err := url.Parse(testdb.New(t))
	if err != nil {
		t.Fatal(err)
	}
	withPath := func(db string) string { u := *good; u.Path = "/" + db; return u.String() }
	withUser := func(user string) string {
		u := *good
		u.User = url.User(user)
		if q := u.Query(); q.Has("user") {
			q.Set("user", user)
			u.RawQuery = q.Encode()
		}
		return u.String()
	}
	for _, tc := range []struct{ url, want, not string }{
		{"mysql://x:s3cr3tpw@y/z", `the scheme "mysql", but pgbrain needs PostgreSQL`, "s3cr3tpw"},
		{"not a url", "a database URL is written postgres://", ""},
		{withPath("no_such_database_here"), "has no such database: create it", ""},
		{withUser("no_such_role_here"), "refused the user name or the password", ""},
		{"postgres://u@no-such-host.invalid/x?connect_timeout=5", `the host "no-such-host.invalid" is not known`, ""},
	} {
		_, err := Open(context.Background(), tc.url)
		if err == nil {
			t.Fatalf("Open(%s) succeeded", tc.url)
		}
		if msg := err.Error(); !strings.Contains(msg, tc.want) || tc.not != "" && strings.Contains(msg, tc.not) {
			t.Errorf("Open(%s): %q, want it to say %q", tc.url, msg, tc.want)
		}
	}
}

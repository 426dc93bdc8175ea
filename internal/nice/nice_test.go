package nice

import (
	"context"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

// backendNice is the nice value of conn's server process, read from /proc.
func backendNice(t *testing.T, conn *pgx.Conn) (int, int) {
	t.Helper()
	var pid int
	if err := conn.QueryRow(context.Background(), `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	n, err := Nice(pid)
	if err != nil {
		t.Fatalf("reading the nice value of backend %d: %v", pid, err)
	}
	return pid, n
}

// kernelHasAutogroups reports whether this kernel schedules by autogroup,
// where every process shows its group in /proc/<pid>/autogroup.
func kernelHasAutogroups() bool {
	_, err := os.Stat("/proc/self/autogroup")
	return err == nil
}

// backendAutogroup is the nice value of the autogroup of server process
// pid; it fails the test when the kernel has autogroups and the process
// does not lead one of its own (PostgreSQL's server processes call
// setsid), and returns ok false when the kernel has none.
func backendAutogroup(t *testing.T, pid int) (int, bool) {
	t.Helper()
	if !kernelHasAutogroups() {
		return 0, false
	}
	st, err := readStat(pid)
	if err != nil {
		t.Fatal(err)
	}
	n, ok := autogroupNice(pid, st)
	if !ok {
		t.Fatalf("process %d (session %d) has no autogroup of its own on a kernel with autogroups", pid, st.session)
	}
	return n, true
}

// TestLower lowers a real backend of the test cluster (which runs on this
// machine, over a unix socket), and checks that a refusal by the system
// leaves the priority and the connection as they were. The cluster runs at
// the test's own nice value (0, or 19 under nice -n 19): the backend ends
// at Level or that value, whichever is lower priority, and its autogroup
// at Level.
func TestLower(t *testing.T) {
	ctx := context.Background()
	eperm := func(pid, n int) error { return syscall.EPERM }
	for _, tc := range []struct {
		name    string
		set     func(pid, n int) error // nil: the real system call
		wantErr error
		lowered bool
	}{
		{"lowered", nil, nil, true},
		{"refused", eperm, syscall.EPERM, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := dbtest.Open(t)
			conn, err := b.Pool.Acquire(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Release()
			// A pool's connection is never put back at a lower priority, so
			// close this one at the end rather than handing it on.
			defer conn.Conn().Close(ctx)
			pid, base := backendNice(t, conn.Conn())
			group, _ := backendAutogroup(t, pid)
			wantNice, wantGroup := base, group
			if tc.lowered {
				wantNice, wantGroup = max(base, Level), Level
			}
			calls := 0
			set := func(pid, n int) error {
				calls++
				if tc.set != nil {
					return tc.set(pid, n)
				}
				return setpriority(pid, n)
			}
			err = lower(ctx, conn.Conn(), Level, set)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("lower: %v, want %v", err, tc.wantErr)
			}
			if calls != 1 {
				t.Fatalf("setpriority called %d times, want 1", calls)
			}
			if _, n := backendNice(t, conn.Conn()); n != wantNice {
				t.Fatalf("backend %d runs at nice %d after lower, want %d", pid, n, wantNice)
			}
			// A backend leads a session of its own, so with autogroups its
			// autogroup is lowered too, or nice orders nothing against
			// other backends.
			if g, ok := backendAutogroup(t, pid); ok && g != wantGroup {
				t.Fatalf("backend %d's autogroup runs at nice %d after lower, want %d", pid, g, wantGroup)
			}
			// The connection still works, in or out of a transaction.
			var got int
			if err := pgx.BeginFunc(ctx, conn.Conn(), func(tx pgx.Tx) error {
				return tx.QueryRow(ctx, `SELECT count(*) FROM brain.pages`).Scan(&got)
			}); err != nil {
				t.Fatalf("the connection after lower: %v", err)
			}
			// A second call finds the backend already low and leaves it.
			if tc.set == nil {
				if err := lower(ctx, conn.Conn(), Level, set); err != nil || calls != 1 {
					t.Fatalf("lowering again: %v, setpriority called %d times, want 1", err, calls)
				}
			}
		})
	}
}

// TestBrainLowersOnlyItsOwnPool opens a low-priority pool beside a brain's
// own: every connection of the former runs at Level (or the server's own
// nice value, if lower priority) with its autogroup at Level, the latter's
// as the server started them, and a refusing hook leaves the pool working
// at the usual priority.
func TestBrainLowersOnlyItsOwnPool(t *testing.T) {
	ctx := context.Background()
	b := dbtest.Open(t)
	for _, tc := range []struct {
		name    string
		lower   func(context.Context, *pgx.Conn) error
		lowered bool
	}{
		{"lowered", nil, true},
		{"refused", func(context.Context, *pgx.Conn) error { return syscall.EPERM }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			own, err := b.Pool.Acquire(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer own.Release()
			ownPid, base := backendNice(t, own.Conn())
			group, _ := backendAutogroup(t, ownPid)
			wantNice, wantGroup := base, group
			if tc.lowered {
				wantNice, wantGroup = max(base, Level), Level
			}
			low, err := Brain(ctx, b, tc.lower)
			if err != nil {
				t.Fatal(err)
			}
			defer low.Pool.Close()
			var conns []*pgx.Conn
			for i := 0; i < 3; i++ {
				c, err := low.Pool.Acquire(ctx)
				if err != nil {
					t.Fatalf("connecting through the low-priority pool: %v", err)
				}
				defer c.Release()
				conns = append(conns, c.Conn())
			}
			for _, c := range conns {
				pid, n := backendNice(t, c)
				if n != wantNice {
					t.Fatalf("low pool backend %d at nice %d, want %d", pid, n, wantNice)
				}
				if g, ok := backendAutogroup(t, pid); ok && g != wantGroup {
					t.Fatalf("low pool backend %d's autogroup at nice %d, want %d", pid, g, wantGroup)
				}
			}
			if _, n := backendNice(t, own.Conn()); n != base {
				t.Fatalf("the brain's own backend %d runs at nice %d, want %d as before", ownPid, n, base)
			}
			if g, ok := backendAutogroup(t, ownPid); ok && g != group {
				t.Fatalf("the brain's own backend %d's autogroup at nice %d, want %d as before", ownPid, g, group)
			}
		})
	}
}

func TestParseStat(t *testing.T) {
	for _, tc := range []struct {
		line    string
		want    stat
		wantErr string
	}{
		{"4242 (postgres) S 4200 4200 4200 0 -1 4194560 283 0 0 0 1 0 0 0 30 10 1 0 987654 227323904 4512 18446744073709551615",
			stat{comm: "postgres", nice: 10, startTicks: 987654, session: 4200}, ""},
		// comm may hold spaces and parentheses; the fields follow the last ')'.
		{"7 (a) b (c)) R 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 -5 1 0 42 0 0",
			stat{comm: "a) b (c)", nice: -5, startTicks: 42, session: 7}, ""},
		{"7 (x) R 1 2", stat{}, "fields"},
		{"no parentheses", stat{}, "unreadable"},
		{"7 (x) R 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 ten 1 0 42", stat{}, "nice"},
	} {
		got, err := parseStat(tc.line)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("parseStat(%q) = %+v, %v; want an error about %s", tc.line, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("parseStat(%q) = %+v, %v; want %+v", tc.line, got, err, tc.want)
		}
	}
}

// FuzzParseStat: any line either parses or is refused, never panics, and a
// parsed comm is what sits between the first '(' and the last ')'.
func FuzzParseStat(f *testing.F) {
	f.Add("4242 (postgres) S 4200 4200 4200 0 -1 4194560 283 0 0 0 1 0 0 0 30 10 1 0 987654 227323904 4512")
	f.Add("1 ()) R 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20")
	f.Fuzz(func(t *testing.T, s string) {
		st, err := parseStat(s)
		if err != nil {
			return
		}
		if !strings.Contains(s, "("+st.comm+")") {
			t.Fatalf("comm %q is not in %q", st.comm, s)
		}
	})
}

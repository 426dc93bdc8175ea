package nice

import (
	"context"
	"os"
	"strconv"
	"syscall"
	"testing"

	"github.com/pgbrain/pgbrain/internal/dbtest"
)

// TestLowerNeverRaises: a backend, or its autogroup, that already runs at
// a lower priority than Level (a server started under nice 19 leaves each
// backend at 19 and its new autogroup at 0) keeps it; only the other one
// is lowered. Nice values are at least the server's own (the test cluster
// inherits the test's).
func TestLowerNeverRaises(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name                string
		nice, group         int // set before Lower; -1: left as it is
		wantNice, wantGroup int
	}{
		{"process already lower", 15, -1, 15, Level},
		{"autogroup already lower", -1, 15, -1, 15},
		{"both already lower", 12, 17, 12, 17},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := dbtest.Open(t)
			conn, err := b.Pool.Acquire(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Release()
			defer conn.Conn().Close(ctx) // never hand a lowered backend back to the pool
			pid, base := backendNice(t, conn.Conn())
			if tc.wantNice < 0 {
				tc.wantNice = max(base, Level)
			}
			if tc.nice >= 0 {
				tc.nice, tc.wantNice = max(tc.nice, base), max(tc.wantNice, base)
				if err := syscall.Setpriority(syscall.PRIO_PROCESS, pid, tc.nice); err != nil {
					t.Fatal(err)
				}
			}
			_, groups := backendAutogroup(t, pid)
			if tc.group >= 0 {
				if !groups {
					t.Fatal("this kernel has no autogroups (/proc/self/autogroup is missing), which this case needs")
				}
				if err := os.WriteFile("/proc/"+strconv.Itoa(pid)+"/autogroup", []byte(strconv.Itoa(tc.group)), 0); err != nil {
					t.Fatal(err)
				}
			}
			if err := lower(ctx, conn.Conn(), Level, setpriority); err != nil {
				t.Fatalf("lower: %v", err)
			}
			if _, n := backendNice(t, conn.Conn()); n != tc.wantNice {
				t.Errorf("backend %d at nice %d after lower, want %d", pid, n, tc.wantNice)
			}
			if g, ok := backendAutogroup(t, pid); ok && g != tc.wantGroup {
				t.Errorf("backend %d's autogroup at nice %d after lower, want %d", pid, g, tc.wantGroup)
			}
			var one int
			if err := conn.QueryRow(ctx, `SELECT 1`).Scan(&one); err != nil {
				t.Fatalf("the connection after lower: %v", err)
			}
		})
	}
}

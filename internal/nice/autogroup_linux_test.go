package nice

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

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

// TestSetAutogroupWaitsOutTheRateLimit: the kernel refuses an unprivileged
// process's autogroup writes that come within 100 ms of another one
// (EAGAIN), as a pool's connections and a build's workers do; the write is
// tried again rather than leaving that process's group at full priority.
// Other refusals are returned at once.
func TestSetAutogroupWaitsOutTheRateLimit(t *testing.T) {
	if !kernelHasAutogroups() {
		t.Fatal("this kernel has no autogroups (/proc/self/autogroup is missing), which this test needs")
	}
	for _, tc := range []struct {
		name      string
		refusals  int // EAGAINs before the write goes through
		other     error
		wantErr   error
		wantCalls int
		wantGroup int // -1: as it was
	}{
		{"through at once", 0, nil, nil, 1, 7},
		{"rate-limited twice", 2, nil, nil, 3, 7},
		{"rate-limited throughout", 1 << 30, nil, syscall.EAGAIN, autogroupTries, -1},
		{"not permitted", 0, syscall.EPERM, syscall.EPERM, 1, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A process of ours leading a session, so with an autogroup of its own.
			cmd := exec.Command("sleep", "60")
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
			}()
			pid := cmd.Process.Pid
			st, err := readStat(pid)
			if err != nil {
				t.Fatal(err)
			}
			before, ok := autogroupNice(pid, st)
			if !ok || before >= 7 {
				t.Fatalf("a new session's autogroup: nice %d (own group: %v), want one below 7", before, ok)
			}
			if tc.wantGroup < 0 {
				tc.wantGroup = before
			}
			calls := 0
			err = setAutogroupWith(pid, 7, func(pid, nice int) error {
				calls++
				if tc.other != nil {
					return tc.other
				}
				if calls <= tc.refusals {
					return syscall.EAGAIN
				}
				return writeAutogroup(pid, nice)
			}, time.Millisecond)
			if !errors.Is(err, tc.wantErr) || (err == nil) != (tc.wantErr == nil) {
				t.Fatalf("setAutogroupWith: %v, want %v", err, tc.wantErr)
			}
			if calls != tc.wantCalls {
				t.Errorf("%d writes, want %d", calls, tc.wantCalls)
			}
			st, err = readStat(pid)
			if err != nil {
				t.Fatal(err)
			}
			if g, ok := autogroupNice(pid, st); !ok || g != tc.wantGroup {
				t.Errorf("autogroup of process %d at nice %d (own group: %v), want %d", pid, g, ok, tc.wantGroup)
			}
		})
	}
}

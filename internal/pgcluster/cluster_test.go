package pgcluster_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgbrain/pgbrain/internal/pgcluster"
)

func newCluster(t *testing.T) *pgcluster.Cluster {
	t.Helper()
	c, _ := newClusterAt(t)
	return c
}

// newClusterAt makes a cluster in a home of its own on a memory file
// system when there is one (pgcluster.TestHome): initdb writes about a
// thousand files, which on ext4 cost most of its CPU.
func newClusterAt(t *testing.T) (*pgcluster.Cluster, string) {
	t.Helper()
	home, err := pgcluster.TestHome("pgbrain-cluster-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	c, err := pgcluster.New(pgcluster.Options{Home: home, Profile: pgcluster.Ephemeral})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Destroy(context.Background()); err != nil {
			t.Errorf("destroy: %v", err)
		}
	})
	return c, home
}

func query(t *testing.T, url string) int {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	defer conn.Close(ctx)
	var pid int
	if err := conn.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	return pid
}

func TestLifecycle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newCluster(t)
	if st := c.Status(ctx); st.Initialized || st.Running {
		t.Fatalf("fresh cluster status = %+v, want neither initialised nor running", st)
	}
	url, err := c.Ensure(ctx)
	if err != nil {
		t.Fatal(err)
	}
	query(t, url)
	st := c.Status(ctx)
	if !st.Initialized || !st.Running || st.PID == 0 {
		t.Fatalf("status after start = %+v", st)
	}
	// Unix socket only: no TCP listener, socket directory closed to others.
	var listen string
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, `SHOW listen_addresses`).Scan(&listen); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	if listen != "" {
		t.Errorf("listen_addresses = %q, want empty", listen)
	}
	if fi, err := os.Stat(c.SocketDir()); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("socket dir mode = %v, %v; want 0700", fi.Mode().Perm(), err)
	}
	if err := c.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if st := c.Status(ctx); st.Running {
		t.Fatalf("still running after stop: %+v", st)
	}
	// Started again on demand, data intact.
	url, err = c.Ensure(ctx)
	if err != nil {
		t.Fatal(err)
	}
	query(t, url)
}

func TestStalePidAfterCrashIsRecovered(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newCluster(t)
	if _, err := c.Ensure(ctx); err != nil {
		t.Fatal(err)
	}
	pid := c.Status(ctx).PID
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Wait for the killed server's children to notice and exit.
	deadline := time.Now().Add(20 * time.Second)
	for c.Status(ctx).Running && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if _, err := os.Stat(filepath.Join(c.DataDir(), "postmaster.pid")); err != nil {
		t.Fatalf("the crash should have left postmaster.pid behind: %v", err)
	}
	var url string
	var err error
	for time.Now().Before(deadline) {
		if url, err = c.Ensure(ctx); err == nil {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("restart after crash: %v", err)
	}
	query(t, url)
	if got := c.Status(ctx).PID; got == pid || got == 0 {
		t.Fatalf("server pid after recovery = %d (crashed one was %d)", got, pid)
	}
}

func TestConcurrentFirstUseInitialisesOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, home := newClusterAt(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			// Separate Cluster values, as separate processes would have.
			other, err := pgcluster.New(pgcluster.Options{Home: home, Profile: pgcluster.Ephemeral})
			if err != nil {
				errs[i] = err
				return
			}
			if other.Dir() != c.Dir() {
				errs[i] = errors.New("cluster dirs differ: " + other.Dir() + " vs " + c.Dir())
				return
			}
			_, errs[i] = other.Ensure(ctx)
		}(i)
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Ensure %d: %v", i, err)
		}
	}
	log, err := os.ReadFile(c.LogFile())
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(log), "database system is ready to accept connections"); n != 1 {
		t.Fatalf("server started %d times, want once:\n%s", n, log)
	}
}

func TestMissingBinariesSayWhatToDo(t *testing.T) {
	t.Parallel()
	_, err := pgcluster.New(pgcluster.Options{Home: t.TempDir(), BinDir: "/nonexistent/bin"})
	if !errors.Is(err, pgcluster.ErrNoBinaries) || !strings.Contains(err.Error(), "make setup") {
		t.Fatalf("err = %v, want ErrNoBinaries mentioning 'make setup'", err)
	}
}

// Not parallel: the descriptor it leaves open on purpose would reach the
// initdb and pg_ctl that parallel tests start meanwhile.
//
// A descriptor the caller inherited without close-on-exec (a shell's
// `exec 9>file`, the write end of a pipe feeding `pgbrain serve`) must not
// be held by the server the cluster starts, or the pipe never reaches end
// of input while PostgreSQL runs.
func TestServerHoldsNoInheritedDescriptor(t *testing.T) {
	ctx := context.Background()
	c := newCluster(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	// os.Pipe sets close-on-exec; clear it, as a shell's descriptors are.
	if _, _, errno := syscall.Syscall(syscall.SYS_FCNTL, w.Fd(), syscall.F_SETFD, 0); errno != 0 {
		t.Fatal(errno)
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(int(w.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	pipe := "pipe:[" + strconv.FormatUint(st.Ino, 10) + "]"
	if _, err := c.Ensure(ctx); err != nil {
		t.Fatal(err)
	}
	pid := c.Status(ctx).PID
	if pid == 0 {
		t.Fatal("no server pid after start")
	}
	fds, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "fd"))
	if err != nil {
		t.Fatalf("reading the server's descriptors: %v", err)
	}
	for _, fd := range fds {
		if target, _ := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "fd", fd.Name())); target == pipe {
			t.Errorf("the server (pid %d) holds the caller's pipe as descriptor %s", pid, fd.Name())
		}
	}
}

// Package nice lowers the CPU priority of the PostgreSQL server process
// behind a connection, so that bulk work (an import's writers and index
// build, `pgbrain embed`) yields the CPU to other sessions' interactive
// queries on a machine with few cores. It only acts when the server process
// demonstrably runs on this machine and belongs to the connection, and it
// never fails the work: every refusal is returned for the caller to ignore
// or mention.
package nice

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgbrain/pgbrain/internal/brain"
)

// Level is the nice value bulk connections get: well below interactive
// sessions (0), while still getting CPU time on an idle machine.
const Level = 10

// Reasons for leaving a server process alone.
var (
	// ErrNotLocal: the server is reached over a network address that is
	// not loopback, or its process is not visible in /proc here.
	ErrNotLocal = errors.New("the server process does not run on this machine")
	// ErrPooled: the connection goes through a pooler (such as
	// PgBouncer), so its server process may serve other clients.
	ErrPooled = errors.New("the connection goes through a pooler, so its server process is shared")
)

// Lower sets the server process behind conn to nice Level when it runs on
// this machine, belongs to conn alone and runs at a higher priority. It
// returns nil when the process runs at Level or lower priority afterwards,
// and otherwise why it was left alone (ErrNotLocal, ErrPooled, or the
// system's refusal such as EPERM). conn is usable either way: Lower runs
// one read-only query outside any transaction.
func Lower(ctx context.Context, conn *pgx.Conn) error {
	return lower(ctx, conn, Level, setpriority)
}

// lower is Lower with the level and the system call as parameters, so a
// test can make the system refuse.
func lower(ctx context.Context, conn *pgx.Conn, level int, set func(pid, nice int) error) error {
	pid, err := localBackend(ctx, conn)
	if err != nil {
		return err
	}
	st, err := readStat(pid)
	if err != nil {
		return fmt.Errorf("%w: reading /proc/%d/stat: %v", ErrNotLocal, pid, err)
	}
	if lowEnough(pid, st, level) {
		return nil
	}
	if err := set(pid, level); err != nil {
		return fmt.Errorf("setting the server process %d to nice %d: %w", pid, level, err)
	}
	return nil
}

// localBackend returns the pid of conn's server process after checking that
// it is a process of this machine serving conn alone: the connection is a
// unix socket or loopback TCP; the pid the server reports is the one the
// protocol's startup gave (a pooler makes up its own); the server sees our
// end of the socket (a pooler in between is another client); and
// /proc/<pid> is a postgres process started when the server says this
// backend started (not a process of another pid namespace).
func localBackend(ctx context.Context, conn *pgx.Conn) (int, error) {
	nc := conn.PgConn().Conn()
	var (
		pid, port            int
		clientPort, servPort *int
		started              time.Time
	)
	if err := conn.QueryRow(ctx, `
		SELECT pg_backend_pid(), inet_client_port(), inet_server_port(),
		       current_setting('port')::int,
		       (SELECT backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid())`).Scan(
		&pid, &clientPort, &servPort, &port, &started); err != nil {
		return 0, fmt.Errorf("asking the server for its process id: %w", err)
	}
	if uint32(pid) != conn.PgConn().PID() {
		return 0, ErrPooled
	}
	switch ra := nc.RemoteAddr().(type) {
	case *net.UnixAddr:
		// The server listens on <dir>/.s.PGSQL.<port>; a pooler's socket
		// names its own port.
		if clientPort != nil || !strings.HasSuffix(ra.Name, ".s.PGSQL."+strconv.Itoa(port)) {
			return 0, ErrPooled
		}
	case *net.TCPAddr:
		if !ra.IP.IsLoopback() {
			return 0, ErrNotLocal
		}
		la, ok := nc.LocalAddr().(*net.TCPAddr)
		if !ok || clientPort == nil || servPort == nil || *clientPort != la.Port || *servPort != ra.Port {
			return 0, ErrPooled
		}
	default:
		return 0, ErrNotLocal
	}
	if _, err := sameProcess(pid, started); err != nil {
		return 0, err
	}
	return pid, nil
}

// sameProcess checks that process pid of this machine is a postgres process
// that started when the server says its process pid started, and returns
// its stat.
func sameProcess(pid int, started time.Time) (stat, error) {
	st, err := readStat(pid)
	if err != nil {
		return st, fmt.Errorf("%w: %v", ErrNotLocal, err)
	}
	if st.comm != "postgres" && st.comm != "postmaster" {
		return st, fmt.Errorf("%w: process %d here is %q, not postgres", ErrNotLocal, pid, st.comm)
	}
	boot, err := bootTime()
	if err != nil {
		return st, fmt.Errorf("%w: %v", ErrNotLocal, err)
	}
	// /proc counts start times in clock ticks since boot, at the kernel's
	// fixed USER_HZ of 100 a second.
	local := boot.Add(time.Duration(st.startTicks) * 10 * time.Millisecond)
	if d := local.Sub(started); d < -2*time.Second || d > 2*time.Second {
		return st, fmt.Errorf("%w: process %d here started at %s, the server's process at %s", ErrNotLocal, pid, local.UTC(), started.UTC())
	}
	return st, nil
}

// FollowWorkers gives the parallel workers that the server starts for the
// session behind conn (a CREATE INDEX's build workers) that session's own
// lowered priority, until stop is called: the postmaster starts them at the
// usual priority, and on two cores a build's two workers otherwise take
// the CPU from the interactive queries that Lower gave it to. It checks
// conn's server process now (call it before conn starts the work) and does
// nothing when that process is not lowered or not on this machine. Workers
// are looked up through pool every interval; a worker that is not
// verifiably the server's process here is left alone. stop returns once
// nothing runs any more, also after ctx ends.
func FollowWorkers(ctx context.Context, conn *pgx.Conn, pool *pgxpool.Pool, interval time.Duration) (stop func()) {
	return follow(ctx, conn, pool, interval, setpriority)
}

// follow is FollowWorkers with the system call as a parameter, so a test
// can see which processes it lowers.
func follow(ctx context.Context, conn *pgx.Conn, pool *pgxpool.Pool, interval time.Duration, set func(pid, nice int) error) (stop func()) {
	leader, err := localBackend(ctx, conn)
	if err != nil {
		return func() {}
	}
	st, err := readStat(leader)
	if err != nil {
		return func() {}
	}
	level := loweredTo(leader, st)
	if level <= 0 {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		followWorkers(ctx, pool, leader, level, interval, set)
	}()
	return func() {
		cancel()
		<-done
	}
}

// loweredTo is the priority Lower left process pid at: its nice value, or
// its own autogroup's when that is smaller. A server started under nice
// has every process's nice raised but each backend's new autogroup at 0:
// that session was not lowered (--no-nice), and its workers keep theirs.
func loweredTo(pid int, st stat) int {
	level := st.nice
	if g, ok := autogroupNice(pid, st); ok && g < level {
		level = g
	}
	return level
}

func followWorkers(ctx context.Context, pool *pgxpool.Pool, leader, level int, interval time.Duration, set func(pid, nice int) error) {
	// A worker is its pid and start: a pid the kernel hands on to a later
	// worker is a new one.
	type worker struct {
		pid     int
		started time.Time
	}
	done := map[worker]bool{}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		rows, err := pool.Query(ctx, `SELECT pid, backend_start FROM pg_stat_activity WHERE leader_pid = $1 AND pid <> $1`, leader)
		if err == nil {
			for rows.Next() {
				var w worker
				if rows.Scan(&w.pid, &w.started) != nil || done[w] {
					continue
				}
				done[w] = true
				if st, err := sameProcess(w.pid, w.started); err == nil && !lowEnough(w.pid, st, level) {
					_ = set(w.pid, level) // never fails the build; see Lower
				}
			}
			rows.Close()
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// stat is what Lower needs from /proc/<pid>/stat.
type stat struct {
	comm       string
	nice       int
	startTicks int64
	session    int // the session leader's pid
}

func readStat(pid int) (stat, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return stat{}, err
	}
	return parseStat(string(b))
}

// parseStat reads proc(5)'s stat line: "pid (comm) state ppid ...", where
// comm may itself hold spaces and parentheses, so the fields start after
// the last ')'. nice is field 19 and starttime field 22.
func parseStat(s string) (stat, error) {
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return stat{}, fmt.Errorf("unreadable process stat %q", s)
	}
	f := strings.Fields(s[end+1:])
	// f[0] is field 3 (state).
	if len(f) < 20 {
		return stat{}, fmt.Errorf("process stat has %d fields, want at least 22", len(f)+2)
	}
	nice, err := strconv.Atoi(f[16])
	if err != nil {
		return stat{}, fmt.Errorf("process stat nice %q: %w", f[16], err)
	}
	start, err := strconv.ParseInt(f[19], 10, 64)
	if err != nil {
		return stat{}, fmt.Errorf("process stat starttime %q: %w", f[19], err)
	}
	session, err := strconv.Atoi(f[3])
	if err != nil {
		return stat{}, fmt.Errorf("process stat session %q: %w", f[3], err)
	}
	return stat{comm: s[open+1 : end], nice: nice, startTicks: start, session: session}, nil
}

// Autogroups. With the kernel's autogroup scheduling (Debian's default), the
// CPU is first shared evenly between sessions, and a process's nice value
// only orders it against processes of its own session. PostgreSQL starts
// every server process in a session of its own (setsid), so a lowered
// backend still got half the CPU against an interactive one: its
// autogroup's nice, /proc/<pid>/autogroup, must be lowered too. That is
// done only for a process that leads its own session, whose autogroup
// holds nothing else; a server whose processes share a session with the
// postmaster keeps its autogroup as it is.

// autogroupNice is the nice value of process pid's own autogroup; ok is
// false when the process does not lead its session or the system has no
// autogroups.
func autogroupNice(pid int, st stat) (nice int, ok bool) {
	if st.session != pid {
		return 0, false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/autogroup")
	if err != nil {
		return 0, false
	}
	// "/autogroup-123 nice 0"
	f := strings.Fields(string(b))
	if len(f) != 3 || f[1] != "nice" {
		return 0, false
	}
	n, err := strconv.Atoi(f[2])
	if err != nil {
		return 0, false
	}
	return n, true
}

// lowEnough reports whether process pid runs at level or lower priority,
// its own autogroup included.
func lowEnough(pid int, st stat, level int) bool {
	if st.nice < level {
		return false
	}
	if n, ok := autogroupNice(pid, st); ok && n < level {
		return false
	}
	return true
}

// setAutogroup lowers process pid's own autogroup to nice; nothing when it
// has none (see autogroupNice) or already runs at nice or a higher value:
// writing a smaller one would raise the whole session's priority, which the
// kernel lets any owner do.
func setAutogroup(pid, nice int) error {
	return setAutogroupWith(pid, nice, writeAutogroup, autogroupWait)
}

// The kernel takes one autogroup write every 100 ms from an unprivileged
// process, machine-wide, and refuses the others with EAGAIN; a pool's
// connections, or a build's workers, start together. So a refused write
// is tried again, for up to about a second.
const (
	autogroupWait  = 110 * time.Millisecond
	autogroupTries = 10
)

// setAutogroupWith is setAutogroup with the write and the wait between
// tries as parameters, so a test can make the kernel refuse.
func setAutogroupWith(pid, nice int, write func(pid, nice int) error, wait time.Duration) error {
	st, err := readStat(pid)
	if err != nil {
		return err
	}
	if cur, ok := autogroupNice(pid, st); !ok || cur >= nice {
		return nil
	}
	for try := 1; ; try++ {
		err := write(pid, nice)
		if err == nil {
			return nil
		}
		if !errors.Is(err, syscall.EAGAIN) || try == autogroupTries {
			return fmt.Errorf("setting the autogroup of process %d to nice %d: %w", pid, nice, err)
		}
		time.Sleep(wait)
	}
}

func writeAutogroup(pid, nice int) error {
	return os.WriteFile("/proc/"+strconv.Itoa(pid)+"/autogroup", []byte(strconv.Itoa(nice)), 0)
}

// bootTime is the btime line of /proc/stat.
func bootTime() (time.Time, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return time.Time{}, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			sec, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return time.Time{}, fmt.Errorf("/proc/stat btime %q: %w", v, err)
			}
			return time.Unix(sec, 0), nil
		}
	}
	return time.Time{}, errors.New("/proc/stat has no btime line")
}

// Nice is the nice value of process pid, read from /proc.
func Nice(pid int) (int, error) {
	st, err := readStat(pid)
	return st.nice, err
}

// Brain returns a brain like b on a pool of its own whose every connection
// is passed to lower once connected (Lower when lower is nil). Its refusals
// are ignored: the work runs at the usual priority then. The pool is
// separate because an unprivileged process cannot raise a priority again,
// so these connections must never go back to b's pool and serve queries.
// Close it with Close.
func Brain(ctx context.Context, b *brain.Brain, lower func(context.Context, *pgx.Conn) error) (*brain.Brain, error) {
	if lower == nil {
		lower = Lower
	}
	cfg := b.Pool.Config()
	after := cfg.AfterConnect
	cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
		if after != nil {
			if err := after(ctx, c); err != nil {
				return err
			}
		}
		_ = lower(ctx, c) // never fails the work; see Lower for the reasons
		return nil
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("opening the low-priority connection pool: %w", err)
	}
	return &brain.Brain{Pool: pool, Settings: b.Settings}, nil
}

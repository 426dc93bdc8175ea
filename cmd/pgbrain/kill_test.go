package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgbrain/pgbrain/internal/ingest"
	"github.com/pgbrain/pgbrain/testdb"
)

// startCLI runs the binary against url in the background.
func startCLI(t *testing.T, bin, url string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"--database-url", url, "--home", t.TempDir()}, args...)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd
}

// waitFor polls the database until cond (a boolean SQL expression) holds,
// or fails the test if the command ends first or a minute passes.
func waitFor(t *testing.T, conn *pgx.Conn, cmd *exec.Cmd, what, cond string) {
	t.Helper()
	exited := make(chan struct{})
	if cmd != nil {
		go func() {
			for cmd.ProcessState == nil {
				if _, err := cmd.Process.Wait(); err != nil {
					break
				}
			}
			close(exited)
		}()
	}
	deadline := time.Now().Add(time.Minute)
	for {
		var ok bool
		if err := conn.QueryRow(context.Background(), `SELECT `+cond).Scan(&ok); err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		if ok {
			return
		}
		select {
		case <-exited:
			t.Fatalf("the command ended before %s", what)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s within a minute", what)
		}
	}
}

// killCLI kills the command at once and waits until the server has ended
// its sessions (their advisory locks are gone).
func killCLI(t *testing.T, conn *pgx.Conn, cmd *exec.Cmd) {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, conn, nil, "the killed command's sessions to end", `NOT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory'
		AND database = (SELECT oid FROM pg_database WHERE datname = current_database()))`)
}

type doctorJSON struct {
	VectorIndex     string   `json:"vector_index"`
	VectorIndexBusy bool     `json:"vector_index_busy"`
	Warnings        []string `json:"warnings"`
	Fixed           []string `json:"fixed"`
	EmbedRun        *struct {
		Running    bool  `json:"running"`
		DonePageID int64 `json:"done_page_id"`
		LastPageID int64 `json:"last_page_id"`
	} `json:"embed_all_run"`
}

func doctorNow(t *testing.T, url string, args ...string) doctorJSON {
	t.Helper()
	out, errOut, code := pgbrain(t, url, "", append([]string{"--home", t.TempDir(), "doctor", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("doctor %v: code %d, %s", args, code, errOut)
	}
	var d doctorJSON
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, out)
	}
	return d
}

type queryJSON struct {
	Results []struct {
		SourceID   string `json:"source_id"`
		VectorRank *int   `json:"vector_rank"`
	} `json:"results"`
	Meta struct {
		VectorEnabled bool   `json:"vector_enabled"`
		VectorIndex   string `json:"vector_index"`
	} `json:"meta"`
}

// queryNow searches the base source and reports how many results the
// vector arm ranked.
func queryNow(t *testing.T, url string) (queryJSON, int) {
	t.Helper()
	out, errOut, code := pgbrain(t, url, "", "query", "--json", "--source", "default", "library")
	if code != 0 {
		t.Fatalf("query: code %d, %s", code, errOut)
	}
	var q queryJSON
	if err := json.Unmarshal([]byte(out), &q); err != nil {
		t.Fatalf("query --json: %v\n%s", err, out)
	}
	ranked := 0
	for _, r := range q.Results {
		if r.VectorRank != nil {
			ranked++
		}
	}
	return q, ranked
}

// debianPages is testdb.DebianPages, read once per test binary for each n:
// reading and parsing apt-cache dumpavail costs about a CPU-second.
// Callers must not change the map.
func debianPages(t *testing.T, n int) map[string]string {
	t.Helper()
	debianMemo.Lock()
	defer debianMemo.Unlock()
	if p, ok := debianMemo.pages[n]; ok {
		return p
	}
	p := testdb.DebianPages(t, n)
	if debianMemo.pages == nil {
		debianMemo.pages = map[int]map[string]string{}
	}
	debianMemo.pages[n] = p
	return p
}

var debianMemo struct {
	sync.Mutex
	pages map[int]map[string]string
}

// brainWithIncoming imports base Debian package pages into source default
// and writes bulk more into a directory, for a bulk import into source
// incoming.
func brainWithIncoming(t *testing.T, base, bulk int) (string, string, *pgx.Conn) {
	t.Helper()
	url := testdb.New(t)
	pages := debianPages(t, base+bulk)
	names := make([]string, 0, len(pages))
	for name := range pages {
		names = append(names, name)
	}
	sort.Strings(names)
	d1, d2 := t.TempDir(), t.TempDir()
	for i, name := range names {
		dir := d1
		if i >= base {
			dir = d2
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(pages[name]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, errOut, code := pgbrain(t, url, "", "import", d1); code != 0 {
		t.Fatalf("importing the base pages: %s", errOut)
	}
	if _, errOut, code := pgbrain(t, url, "", "sources", "add", "incoming", "Incoming"); code != 0 {
		t.Fatalf("sources add: %s", errOut)
	}
	return url, d2, connect(t, url)
}

func vectorCounts(t *testing.T, conn *pgx.Conn, source string) (with, without int) {
	t.Helper()
	if err := conn.QueryRow(context.Background(), `SELECT count(c.embedding), count(*) - count(c.embedding)
		FROM brain.chunks c JOIN brain.pages p ON p.id = c.page_id WHERE p.source_id = $1`, source).Scan(&with, &without); err != nil {
		t.Fatal(err)
	}
	return with, without
}

// TestKilledImportLeavesASearchableBrain kills `pgbrain import` (SIGKILL)
// while its bulk load holds the vector index suspended, and while it
// rebuilds the index (its build's session terminated too, as a server
// restart would): each time the brain still answers searches, keyword-only
// and saying so, with every stored vector kept; doctor names the problem;
// `doctor --fix` brings vector search back; a new import completes.
func TestKilledImportLeavesASearchableBrain(t *testing.T) {
	t.Parallel()
	bin := pgbrainBinary(t)
	// The bulk is large enough to suspend the vector index (at least
	// ingest.DefaultBulkThreshold pages, and more than the brain holds),
	// and its index build long enough to be caught in progress; each page
	// more costs time in both imports of each case.
	const base, bulk = 100, 1300
	if bulk < ingest.DefaultBulkThreshold || bulk <= base {
		t.Fatalf("a bulk of %d pages into a brain of %d is no bulk load (threshold %d)", bulk, base, ingest.DefaultBulkThreshold)
	}
	tests := []struct {
		name       string
		killWhen   string // SQL condition
		terminate  bool   // also end the index build's session
		wantStatus string // doctor's vector_index after the kill
	}{
		{"mid-import", `EXISTS (SELECT 1 FROM brain.vector_index_state WHERE state = 'suspended')
			AND (SELECT count(*) FROM brain.pages WHERE source_id = 'incoming') > 200`, false, "suspended"},
		// Once the build is under way its catalog entry is committed, so
		// ending it leaves an INVALID index.
		{"mid-rebuild", `EXISTS (SELECT 1 FROM pg_stat_progress_create_index WHERE datname = current_database()
			AND phase LIKE 'building index%')`, true, "invalid"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			url, dir, conn := brainWithIncoming(t, base, bulk)
			withBefore, _ := vectorCounts(t, conn, "default")
			cmd := startCLI(t, bin, url, "import", dir, "--source", "incoming", "--writers", "1")
			waitFor(t, conn, cmd, "the moment to kill the import", tc.killWhen)
			if tc.terminate {
				// The server would finish the build for the dead client;
				// ending its session is what a crash or restart does.
				var n int
				if err := conn.QueryRow(context.Background(), `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_progress_create_index
					WHERE datname = current_database()`).Scan(&n); err != nil || n != 1 {
					t.Fatalf("terminating the index build: %d sessions, %v", n, err)
				}
			}
			killCLI(t, conn, cmd)

			q, ranked := queryNow(t, url)
			if len(q.Results) == 0 || q.Meta.VectorEnabled || ranked != 0 || q.Meta.VectorIndex == "ready" {
				t.Errorf("search after the kill: %d results, meta %+v, %d vector-ranked; want keyword-only results flagged", len(q.Results), q.Meta, ranked)
			}
			if with, without := vectorCounts(t, conn, "default"); with != withBefore || without != 0 {
				t.Errorf("base source: %d chunks with vectors, %d without; want %d and 0", with, without, withBefore)
			}
			d := doctorNow(t, url)
			if d.VectorIndex != tc.wantStatus || d.VectorIndexBusy || !strings.Contains(strings.Join(d.Warnings, "\n"), "doctor --fix") {
				t.Errorf("doctor after the kill: %+v; want vector_index %s, not busy, a warning naming doctor --fix", d, tc.wantStatus)
			}
			d = doctorNow(t, url, "--fix")
			if d.VectorIndex != "ready" || len(d.Fixed) == 0 || !strings.Contains(d.Fixed[0], "rebuilt") {
				t.Errorf("doctor --fix: %+v; want the index rebuilt and ready", d)
			}
			if q, ranked := queryNow(t, url); !q.Meta.VectorEnabled || ranked == 0 || q.Meta.VectorIndex != "ready" {
				t.Errorf("search after doctor --fix: meta %+v, %d vector-ranked; want vector search back", q.Meta, ranked)
			}
			if _, errOut, code := pgbrain(t, url, "", "import", dir, "--source", "incoming"); code != 0 {
				t.Fatalf("import after the kill: %s", errOut)
			}
			if with, without := vectorCounts(t, conn, "incoming"); without != 0 || with == 0 {
				t.Errorf("incoming after the second import: %d chunks with vectors, %d without", with, without)
			}
		})
	}
}

// TestKilledEmbedAllKeepsVectors kills `pgbrain embed --all` (SIGKILL)
// part-way: no chunk lost its vector, search still uses vectors, doctor
// reports the interrupted run, and `doctor --fix` finishes it.
func TestKilledEmbedAllKeepsVectors(t *testing.T) {
	t.Parallel()
	bin := pgbrainBinary(t)
	url, _, conn := brainWithIncoming(t, 1500, 0)
	ctx := context.Background()
	// Vectors the local embedder would no longer give, as after a change
	// of its arithmetic, so each batch really rewrites rows.
	if _, err := conn.Exec(ctx, `UPDATE brain.chunks SET embedding = brain.embed_local('outdated vector ' || id)`); err != nil {
		t.Fatal(err)
	}
	cmd := startCLI(t, bin, url, "embed", "--all", "--json")
	waitFor(t, conn, cmd, "embed --all part-way", `EXISTS (SELECT 1 FROM brain.embed_runs WHERE finished_at IS NULL
		AND done_page_id > 0 AND done_page_id < last_page_id / 2)`)
	killCLI(t, conn, cmd)

	counts := func() (fresh, old, none int) {
		// Each chunk's vector is computed once (MATERIALIZED: pulled up,
		// the expression would be evaluated in both filters).
		if err := conn.QueryRow(ctx, `WITH c AS MATERIALIZED (SELECT embedding AS e, brain.embed_tsvector(tsv) AS v FROM brain.chunks)
			SELECT count(*) FILTER (WHERE e = v), count(*) FILTER (WHERE e <> v), count(*) FILTER (WHERE e IS NULL)
			FROM c`).Scan(&fresh, &old, &none); err != nil {
			t.Fatal(err)
		}
		return
	}
	if fresh, old, none := counts(); none != 0 || fresh == 0 || old == 0 {
		t.Fatalf("after the kill: %d chunks new, %d old, %d without a vector; want both kinds and none without", fresh, old, none)
	}
	// The vector arm still answers, from old and new vectors alike. (Right
	// after every chunk was rewritten twice it may return fewer than 10:
	// the HNSW scan meets the rows' dead versions until VACUUM.)
	var nearest int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM brain.vector_search(brain.embed_local('library'), 10)`).Scan(&nearest); err != nil {
		t.Fatal(err)
	}
	if q, _ := queryNow(t, url); !q.Meta.VectorEnabled || q.Meta.VectorIndex != "ready" || len(q.Results) == 0 || nearest == 0 {
		t.Errorf("search after the kill: meta %+v, %d results, vector arm %d rows; want vector search", q.Meta, len(q.Results), nearest)
	}
	d := doctorNow(t, url)
	if d.EmbedRun == nil || d.EmbedRun.Running || !strings.Contains(strings.Join(d.Warnings, "\n"), "embed --all") {
		t.Fatalf("doctor after the kill: %+v; want the interrupted run reported", d)
	}
	d = doctorNow(t, url, "--fix")
	if d.EmbedRun != nil || !strings.Contains(strings.Join(d.Fixed, "\n"), "embed --all: finished") {
		t.Fatalf("doctor --fix: %+v; want the run finished", d)
	}
	if fresh, old, none := counts(); none != 0 || old != 0 || fresh == 0 {
		t.Fatalf("after doctor --fix: %d new, %d old, %d without", fresh, old, none)
	}
}

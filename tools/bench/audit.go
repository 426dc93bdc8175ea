package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgbrain/pgbrain/internal/audit"
)

// benchAudit measures what the audit log adds per tool call (one serve
// process with it, one with --no-audit, same calls interleaved), then how
// fast the hash chain takes rows from concurrent writers, each on its own
// connection, and checks the chain afterwards.
func benchAudit(ctx context.Context, env *benchEnv) error {
	abCalls, writers, perWriter, pages := 500, 4, 2000, 400
	if env.quick {
		abCalls, perWriter, pages = 50, 200, 150
	}
	dir, bin, url, _, err := serveFixture(ctx, env, "audit", pages)
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	home := filepath.Join(dir, "home")
	on, err := startServe(ctx, bin, url, home, nil, "--no-events")
	if err != nil {
		return err
	}
	off, err := startServe(ctx, bin, url, home, nil, "--no-events", "--no-audit")
	if err != nil {
		closeAll([]*serveProc{on})
		return err
	}
	timings, err := serveAB(ctx, abCalls, on, off)
	if cerr := closeAll([]*serveProc{on, off}); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	var audited int
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM brain.audit_log`).Scan(&audited); err != nil {
		return err
	}
	if want := abCalls + abWarmup; audited != want {
		return fmt.Errorf("%d audit rows after %d audited calls", audited, want)
	}
	printAB(env, fmt.Sprintf("audit: on vs off, one serve process each, %d calls per mode, interleaved", abCalls),
		"audit", timings[0], timings[1], 1.10)

	// Concurrent writers on the chain.
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	start := time.Now()
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := pgx.Connect(ctx, url)
			if err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
				return
			}
			defer c.Close(context.WithoutCancel(ctx))
			aw := audit.NewWriter(c, nil)
			for i := 0; i < perWriter; i++ {
				if _, err := aw.Record(ctx, benchEntry(fmt.Sprintf("bench-writer-%d", w), i)); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("concurrent audit writers: %w", err)
	}
	rows := writers * perWriter
	verify, err := checkChain(ctx, conn, audited+rows, "the connection writers")
	if err != nil {
		return err
	}
	asyncElapsed, err := benchAsyncWriter(ctx, url, writers, perWriter)
	if err != nil {
		return err
	}
	if _, err := checkChain(ctx, conn, audited+2*rows, "the background writer"); err != nil {
		return err
	}
	fmt.Fprintf(env.out, "## audit: chain inserts, %d writers x %d rows\n\n", writers, perWriter)
	fmt.Fprintln(env.out, "| writer | rows | seconds | rows/s | chain rows | verify problems | verify ms |")
	fmt.Fprintln(env.out, "|---|---:|---:|---:|---:|---:|---:|")
	fmt.Fprintf(env.out, "| Record, one connection each | %d | %.2f | %.0f | %d | %d | %.1f |\n", rows, elapsed.Seconds(),
		float64(rows)/elapsed.Seconds(), audited+rows, 0, float64(verify.Microseconds())/1000)
	fmt.Fprintf(env.out, "| background (serve's), batched | %d | %.2f | %.0f | %d | %d | |\n\n", rows, asyncElapsed.Seconds(),
		float64(rows)/asyncElapsed.Seconds(), audited+2*rows, 0)
	return nil
}

// checkChain fails unless brain.audit_log holds want rows and
// brain.audit_verify(true) finds no problem; it returns how long the
// verification took. after names the writers that just finished.
func checkChain(ctx context.Context, conn *pgx.Conn, want int, after string) (time.Duration, error) {
	var total, bad int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM brain.audit_log`).Scan(&total); err != nil {
		return 0, err
	}
	if total != want {
		return 0, fmt.Errorf("%d audit rows after %s, want %d", total, after, want)
	}
	start := time.Now()
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM brain.audit_verify(true)`).Scan(&bad); err != nil {
		return 0, err
	}
	verify := time.Since(start)
	if bad != 0 {
		return 0, fmt.Errorf("brain.audit_verify(true) reports %d problems after %s", bad, after)
	}
	return verify, nil
}

// benchEntry is the i-th audit entry a bench writer records.
func benchEntry(session string, i int) audit.Entry {
	tools := []string{"search", "query", "get_page", "list_pages"}
	return audit.Entry{SessionID: session, Caller: "pgbrain-bench",
		Tool: tools[i%len(tools)], Status: "success", CostClass: "search"}
}

// benchAsyncWriter queues writers x perWriter entries from as many
// goroutines into one background writer, serve's, and returns how long
// queueing and draining them took.
func benchAsyncWriter(ctx context.Context, url string, writers, perWriter int) (time.Duration, error) {
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		return 0, err
	}
	defer pool.Close()
	var errs bytes.Buffer
	aw := audit.NewAsync(audit.NewWriter(pool, &errs), audit.AsyncOptions{})
	start := time.Now()
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < perWriter; i++ {
				_, _ = aw.Record(ctx, benchEntry(fmt.Sprintf("bench-async-%d", w), i))
			}
		}()
	}
	wg.Wait()
	closeCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := aw.Close(closeCtx); err != nil {
		return 0, fmt.Errorf("draining the background audit writer: %w", err)
	}
	if errs.Len() > 0 {
		return 0, fmt.Errorf("background audit writer: %s", errs.String())
	}
	return time.Since(start), nil
}

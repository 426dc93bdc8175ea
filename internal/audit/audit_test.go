package audit_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgbrain/pgbrain/internal/audit"
	"github.com/pgbrain/pgbrain/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func entry(i int) audit.Entry {
	e := audit.Entry{SessionID: "sess-" + strconv.Itoa(i%3), Caller: "client/1.0", Tool: "query", Status: audit.StatusSuccess, CostClass: "search"}
	switch i % 4 {
	case 1:
		e.Status, e.PIICategories = audit.StatusEmpty, []string{"contact"}
	case 2:
		e.Status, e.RefusalReason, e.PIICategories, e.CostClass = audit.StatusRefused, "pii_blocked", []string{"payment_card", "contact"}, "refused"
	case 3:
		e.Tool, e.Status = "get_page", audit.StatusError
	}
	return e
}

func record(t *testing.T, w *audit.Writer, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		if _, err := w.Record(context.Background(), entry(i)); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
	}
}

func verify(t *testing.T, q audit.Querier, s audit.Scope) []audit.Problem {
	t.Helper()
	p, err := audit.Verify(context.Background(), q, s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFingerprintMatchesSQL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := connect(t, testdb.New(t))
	w := audit.NewWriter(conn, nil)
	cases := []audit.Entry{
		{SessionID: "s", Tool: "query", Status: "success", CostClass: "search"},
		{SessionID: "s", Tool: "query", Status: "empty", CostClass: "search"},
		{SessionID: "s", Tool: "query", Status: "success", CostClass: "search", PIICategories: []string{"location", "contact"}},
		{SessionID: "s", Tool: "query", Status: "success", CostClass: "search", PIICategories: []string{" contact", "location", "contact"}},
		{SessionID: "s", Tool: "get_page", Status: "refused", RefusalReason: "pii_blocked", CostClass: "refused", PIICategories: []string{"payment_card"}},
		{SessionID: "s", Tool: "get_page", Status: "error", CostClass: "cheap"},
	}
	seen := map[string]int{}
	for i, e := range cases {
		goFP := audit.Fingerprint(e)
		var reason any
		if e.RefusalReason != "" {
			reason = e.RefusalReason
		}
		var sqlFP string
		if err := conn.QueryRow(ctx, `SELECT brain.audit_fingerprint($1, $2, $3, $4, $5)`,
			e.Tool, e.Status, reason, e.PIICategories, e.CostClass).Scan(&sqlFP); err != nil {
			t.Fatal(err)
		}
		fp, err := w.Record(ctx, e)
		if err != nil {
			t.Fatal(err)
		}
		var stored string
		if err := conn.QueryRow(ctx, `SELECT fingerprint FROM brain.audit_log WHERE id = $1`, i+1).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		if goFP != sqlFP || fp != sqlFP || stored != sqlFP {
			t.Errorf("case %d: Go %s, Record %s, SQL %s, stored %s: all must be equal", i, goFP, fp, sqlFP, stored)
		}
		seen[goFP] = i
	}
	// Cases 2 and 3 differ only in category order, spacing and duplicates;
	// every other pair differs structurally and must not collide.
	if audit.Fingerprint(cases[2]) != audit.Fingerprint(cases[3]) {
		t.Error("category order or duplicates changed the fingerprint")
	}
	if len(seen) != len(cases)-1 {
		t.Errorf("%d distinct fingerprints for %d structurally distinct cases", len(seen), len(cases)-1)
	}
}

// canonical is docs/audit.md's byte form, written independently of the SQL.
func canonical(r audit.Row) []byte {
	var b []byte
	f := func(v *string) {
		if v == nil {
			b = append(b, 0xff, 0xff, 0xff, 0xff)
			return
		}
		b = binary.BigEndian.AppendUint32(b, uint32(len(*v)))
		b = append(b, *v...)
	}
	s := func(v string) { f(&v) }
	s("pgbrain.audit.row.v1")
	s(strconv.FormatInt(r.ID, 10))
	s(r.OccurredAt.UTC().Format("2006-01-02T15:04:05.000000Z"))
	s(r.SessionID)
	s(r.Caller)
	s(r.Tool)
	s(r.Status)
	f(r.RefusalReason)
	s(strings.Join(r.PIICategories, ","))
	s(r.CostClass)
	s(r.Fingerprint)
	s(strconv.Itoa(r.FingerprintVersion))
	return b
}

func TestChainMatchesDocumentedForm(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := connect(t, testdb.New(t))
	if p := verify(t, conn, audit.Scope{Full: true}); len(p) != 0 {
		t.Fatalf("empty log: %v", p)
	}
	record(t, audit.NewWriter(conn, nil), 12)
	rows, err := audit.List(ctx, conn, audit.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 12 {
		t.Fatalf("%d rows, want 12", len(rows))
	}
	prev := strings.Repeat("00", 32)
	for i, r := range rows {
		if r.ID != int64(i+1) {
			t.Fatalf("row %d has id %d", i, r.ID)
		}
		if r.PrevHash != prev {
			t.Fatalf("row %d prev_hash %s, want %s", r.ID, r.PrevHash, prev)
		}
		p, _ := hex.DecodeString(prev)
		sum := sha256.Sum256(append(p, canonical(r)...))
		if got := hex.EncodeToString(sum[:]); got != r.ChainHash {
			t.Fatalf("row %d: documented form gives %s, database stored %s", r.ID, got, r.ChainHash)
		}
		prev = r.ChainHash
	}
	if p := verify(t, conn, audit.Scope{Full: true}); len(p) != 0 {
		t.Fatalf("valid chain reported: %v", p)
	}
	id, head, err := audit.Head(ctx, conn)
	if err != nil || id != 12 || head != prev {
		t.Fatalf("head = %d %s %v, want 12 %s", id, head, err, prev)
	}
}

func TestAppendOnlyForEveryRole(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := connect(t, testdb.New(t))
	record(t, audit.NewWriter(conn, nil), 3)
	stmts := []string{
		`UPDATE brain.audit_log SET caller = 'x' WHERE id = 2`,
		`UPDATE brain.audit_log SET caller = 'x' WHERE false`,
		`DELETE FROM brain.audit_log WHERE id = 3`,
		`DELETE FROM brain.audit_log`,
		`TRUNCATE brain.audit_log`,
		`INSERT INTO brain.audit_log (id, session_id, tool_name, status, cost_class, fingerprint, prev_hash, chain_hash)
		 SELECT 1, 's', 'query', 'success', 'x', fingerprint, prev_hash, chain_hash FROM brain.audit_log WHERE id = 1
		 ON CONFLICT (id) DO UPDATE SET caller = 'forged'`,
	}
	for _, mode := range []string{"origin", "replica"} {
		for _, sql := range stmts {
			tx, err := conn.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tx.Exec(ctx, "SET LOCAL session_replication_role = "+mode); err != nil {
				t.Fatal(err)
			}
			_, err = tx.Exec(ctx, sql)
			_ = tx.Rollback(ctx)
			var pgErr *pgconn.PgError
			if !errors.As(err, &pgErr) || !strings.Contains(pgErr.Message, "append-only") {
				t.Errorf("%s, %s: err = %v, want the append-only refusal", mode, sql, err)
			}
		}
	}
	if p := verify(t, conn, audit.Scope{Full: true}); len(p) != 0 {
		t.Fatalf("chain changed: %v", p)
	}
}

// tamper runs sql as a superuser who has switched the guards off.
func tamper(t *testing.T, conn *pgx.Conn, sql string) {
	t.Helper()
	ctx := context.Background()
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	for _, s := range []string{
		`ALTER TABLE brain.audit_log DISABLE TRIGGER audit_log_00_append_only`,
		`ALTER TABLE brain.audit_log DISABLE TRIGGER audit_log_10_chain`,
		sql,
		`ALTER TABLE brain.audit_log ENABLE ALWAYS TRIGGER audit_log_00_append_only`,
		`ALTER TABLE brain.audit_log ENABLE ALWAYS TRIGGER audit_log_10_chain`,
	} {
		if _, err := tx.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestVerifyNamesTamperedRows(t *testing.T) {
	t.Parallel()
	type want struct {
		id      int64
		problem string
	}
	cases := []struct {
		name string
		sql  string
		want []want
	}{
		{"edit a column", `UPDATE brain.audit_log SET caller = 'someone-else' WHERE id = 4`,
			[]want{{4, "hash_mismatch"}}},
		{"edit the time", `UPDATE brain.audit_log SET occurred_at = occurred_at - interval '1 day' WHERE id = 2`,
			[]want{{2, "hash_mismatch"}}},
		{"hide a refusal", `UPDATE brain.audit_log SET status = 'success', refusal_reason = NULL WHERE id = 3`,
			[]want{{3, "fingerprint_mismatch"}, {3, "hash_mismatch"}}},
		{"edit and rehash one row", `UPDATE brain.audit_log a SET caller = 'x',
			chain_hash = sha256(a.prev_hash || brain.audit_canonical_row(ROW(a.id, a.occurred_at, a.session_id, 'x',
			  a.tool_name, a.status, a.refusal_reason, a.pii_categories, a.cost_class, a.fingerprint,
			  a.fingerprint_version, a.prev_hash, a.chain_hash)::brain.audit_log)) WHERE id = 5`,
			[]want{{6, "broken_link"}}},
		{"delete a row", `DELETE FROM brain.audit_log WHERE id = 4`,
			[]want{{5, "broken_link"}, {5, "missing_rows"}}},
		{"delete the first row", `DELETE FROM brain.audit_log WHERE id = 1`,
			[]want{{2, "broken_link"}, {2, "missing_rows"}}},
		{"delete the newest row", `DELETE FROM brain.audit_log WHERE id = 8`, nil},
		{"insert a forged row", `INSERT INTO brain.audit_log (id, occurred_at, session_id, caller, tool_name, status, cost_class, fingerprint, fingerprint_version, prev_hash, chain_hash)
			SELECT 9, now(), 'forged', '', 'query', 'success', 'search', fingerprint, 1, chain_hash, chain_hash FROM brain.audit_log WHERE id = 8`,
			[]want{{9, "fingerprint_mismatch"}, {9, "hash_mismatch"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			conn := connect(t, testdb.New(t))
			record(t, audit.NewWriter(conn, nil), 8)
			tamper(t, conn, tc.sql)
			var got []want
			for _, p := range verify(t, conn, audit.Scope{Full: true}) {
				got = append(got, want{p.ID, p.Problem})
				if !strings.Contains(p.Detail, " ") {
					t.Errorf("row %d %s has no detail", p.ID, p.Problem)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("verify found %v, want %v", got, tc.want)
			}
		})
	}
}

func TestVerifyScope(t *testing.T) {
	t.Parallel()
	conn := connect(t, testdb.New(t))
	record(t, audit.NewWriter(conn, nil), 10)
	tamper(t, conn, `UPDATE brain.audit_log SET cost_class = 'cheap' WHERE id = 3`)
	cases := []struct {
		scope audit.Scope
		found bool
	}{
		{audit.Scope{Full: true}, true},
		{audit.Scope{SinceID: 3}, true},
		{audit.Scope{SinceID: 4}, false}, // row 4 links to row 3's stored hash, which is unchanged
		{audit.Scope{}, true},            // the default window covers all ten rows
		{audit.Scope{Full: true, SinceID: 9}, true},
	}
	for _, tc := range cases {
		p := verify(t, conn, tc.scope)
		if (len(p) > 0) != tc.found {
			t.Errorf("%+v: problems %v, want found=%v", tc.scope, p, tc.found)
		}
		for _, x := range p {
			if x.ID != 3 {
				t.Errorf("%+v: blamed row %d, want 3", tc.scope, x.ID)
			}
		}
	}
}

func TestConcurrentWritersFormOneChain(t *testing.T) {
	t.Parallel()
	const writers, perWriter = 24, 20
	ctx := context.Background()
	url := testdb.New(t)
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for i := 0; i < writers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			conn, err := pgx.Connect(ctx, url)
			if err != nil {
				errs <- err
				return
			}
			defer conn.Close(ctx)
			w := audit.NewWriter(conn, nil)
			for j := 0; j < perWriter; j++ {
				if _, err := w.Record(ctx, entry(i*perWriter+j)); err != nil {
					errs <- err
					return
				}
			}
			// A rolled-back insert must leave no gap.
			tx, err := conn.Begin(ctx)
			if err != nil {
				errs <- err
				return
			}
			if _, err := audit.NewWriter(tx, nil).Record(ctx, entry(i)); err != nil {
				errs <- err
			}
			_ = tx.Rollback(ctx)
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	conn := connect(t, url)
	var n, maxID int64
	if err := conn.QueryRow(ctx, `SELECT count(*), max(id) FROM brain.audit_log`).Scan(&n, &maxID); err != nil {
		t.Fatal(err)
	}
	if n != writers*perWriter || maxID != n {
		t.Fatalf("%d rows with max id %d, want %d contiguous", n, maxID, writers*perWriter)
	}
	if p := verify(t, conn, audit.Scope{Full: true}); len(p) != 0 {
		t.Fatalf("concurrent writers broke the chain: %v", p[:min(len(p), 5)])
	}
}

func TestMultiRowInsertChains(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := connect(t, testdb.New(t))
	if _, err := conn.Exec(ctx, `INSERT INTO brain.audit_log (session_id, tool_name, status, cost_class)
		SELECT 's', 'query', 'success', 'search' FROM generate_series(1, 50)`); err != nil {
		t.Fatal(err)
	}
	if p := verify(t, conn, audit.Scope{Full: true}); len(p) != 0 {
		t.Fatalf("multi-row insert broke the chain: %v", p)
	}
}

func TestConstraints(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := connect(t, testdb.New(t))
	ok := audit.Entry{SessionID: "s-1", Tool: "query", Status: "success", CostClass: "search"}
	cases := []struct {
		name   string
		modify func(*audit.Entry)
		fails  bool
	}{
		{"valid", func(*audit.Entry) {}, false},
		{"refused without reason", func(e *audit.Entry) { e.Status = "refused" }, true},
		{"reason without refusal", func(e *audit.Entry) { e.RefusalReason = "pii_blocked" }, true},
		{"unknown status", func(e *audit.Entry) { e.Status = "ok" }, true},
		{"unknown category", func(e *audit.Entry) { e.PIICategories = []string{"emails"} }, true},
		{"empty session", func(e *audit.Entry) { e.SessionID = "" }, true},
		{"session with spaces", func(e *audit.Entry) { e.SessionID = "who is alice" }, true},
		{"long session", func(e *audit.Entry) { e.SessionID = strings.Repeat("a", 129) }, true},
		{"caller with newline", func(e *audit.Entry) { e.Caller = "a\nb" }, true},
		{"long caller", func(e *audit.Entry) { e.Caller = strings.Repeat("a", 257) }, true},
		{"tool with text", func(e *audit.Entry) { e.Tool = "query who is alice" }, true},
		{"empty cost class", func(e *audit.Entry) { e.CostClass = "" }, true},
	}
	for _, tc := range cases {
		e := ok
		tc.modify(&e)
		_, err := audit.NewWriter(conn, nil).Record(ctx, e)
		if (err != nil) != tc.fails {
			t.Errorf("%s: err = %v, want failure %v", tc.name, err, tc.fails)
		}
	}
}

func TestWriterReportsOncePerKind(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := connect(t, testdb.New(t))
	var stderr bytes.Buffer
	w := audit.NewWriter(conn, &stderr)
	bad := audit.Entry{SessionID: "s", Tool: "query", Status: "ok", CostClass: "search"}
	for i := 0; i < 3; i++ {
		fp, err := w.Record(ctx, bad)
		if err == nil || fp != audit.Fingerprint(bad) {
			t.Fatalf("bad status: fp %q err %v; want the fingerprint and an error", fp, err)
		}
	}
	if n := strings.Count(stderr.String(), "\n"); n != 1 {
		t.Fatalf("three identical failures printed %d lines:\n%s", n, stderr.String())
	}
	_, _ = w.Record(ctx, audit.Entry{SessionID: "", Tool: "query", Status: "success", CostClass: "search"})
	if n := strings.Count(stderr.String(), "\n"); n != 2 {
		t.Fatalf("a second kind of failure printed %d lines in all, want 2:\n%s", n, stderr.String())
	}
	if _, err := w.Record(ctx, audit.Entry{SessionID: "s", Tool: "query", Status: "success", CostClass: "search"}); err != nil {
		t.Fatalf("a good entry after failures: %v", err)
	}
	if !strings.Contains(stderr.String(), "brain.audit_log") {
		t.Errorf("report does not name the table: %s", stderr.String())
	}
}

func TestRoles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := connect(t, testdb.New(t))
	record(t, audit.NewWriter(conn, nil), 2)
	as := func(role string, f func(tx pgx.Tx) error) error {
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx)
		if _, err := tx.Exec(ctx, "SET LOCAL ROLE "+role); err != nil {
			t.Fatal(err)
		}
		return f(tx)
	}
	exec := func(sql string) func(pgx.Tx) error {
		return func(tx pgx.Tx) error { _, err := tx.Exec(ctx, sql); return err }
	}
	cases := []struct {
		role    string
		name    string
		f       func(pgx.Tx) error
		allowed bool
	}{
		{"pgbrain_audit_writer", "record", func(tx pgx.Tx) error {
			_, err := audit.NewWriter(tx, nil).Record(ctx, entry(2))
			return err
		}, true},
		{"pgbrain_audit_writer", "select", exec(`SELECT * FROM brain.audit_log`), false},
		{"pgbrain_audit_writer", "set chain_hash", exec(`INSERT INTO brain.audit_log (session_id, tool_name, status, cost_class, chain_hash) VALUES ('s', 'q', 'success', 'x', '\x00')`), false},
		{"pgbrain_audit_writer", "update", exec(`UPDATE brain.audit_log SET caller = ''`), false},
		{"pgbrain_auditor", "list", func(tx pgx.Tx) error { _, err := audit.List(ctx, tx, audit.Filter{}); return err }, true},
		{"pgbrain_auditor", "verify", func(tx pgx.Tx) error { _, err := audit.Verify(ctx, tx, audit.Scope{Full: true}); return err }, true},
		{"pgbrain_auditor", "insert", exec(`INSERT INTO brain.audit_log (session_id, tool_name, status, cost_class) VALUES ('s', 'q', 'success', 'x')`), false},
	}
	for _, tc := range cases {
		err := as(tc.role, tc.f)
		if (err == nil) != tc.allowed {
			t.Errorf("%s %s: err = %v, want allowed=%v", tc.role, tc.name, err, tc.allowed)
		}
	}
}

func TestResolveSince(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := connect(t, testdb.New(t))
	record(t, audit.NewWriter(conn, nil), 5)
	rows, err := audit.List(ctx, conn, audit.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	third := rows[2]
	// A bare prefix of digits only is read as a row id, so the bare-hash
	// case takes at least 12 characters and as many more as it needs to
	// hold a letter (a 12-digit prefix comes up once in about 280 runs).
	bare := third.ChainHash[:12]
	for n := 12; strings.Trim(bare, "0123456789") == "" && n < len(third.ChainHash); n++ {
		bare = third.ChainHash[:n+1]
	}
	cases := []struct {
		in   string
		want int64
		bad  bool
	}{
		{"3", 3, false},
		{"hash:" + third.ChainHash[:10], 3, false},
		{bare, 3, false},
		{third.OccurredAt.Format(time.RFC3339Nano), 3, false},
		{"1h", 1, false},
		{"2000-01-01", 1, false},
		{"2999-01-01", 6, false}, // after the newest row: selects nothing
		{"yesterday", 0, true},
		{"hash:zz", 0, true},
	}
	for _, tc := range cases {
		got, err := audit.ResolveSince(ctx, conn, tc.in, time.Now())
		if (err != nil) != tc.bad || (!tc.bad && got != tc.want) {
			t.Errorf("ResolveSince(%q) = %d, %v; want %d (error %v)", tc.in, got, err, tc.want, tc.bad)
		}
	}
	list, err := audit.List(ctx, conn, audit.Filter{SinceID: 2, Status: audit.StatusRefused})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].ID != 3 || list[0].RefusalReason == nil || *list[0].RefusalReason != "pii_blocked" {
		t.Fatalf("refused rows since 2 = %+v, want only row 3", list)
	}
}

package search

import (
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Under row security a non-leakproof operator (tsvector @@, pgvector <=>)
// is not pushed below the policy, which would cost the keyword arm its GIN
// index. The arms run as the tables' owner for that reason; this test
// captures every nested plan of one brain.search call made as
// pgbrain_agent (auto_explain, logged to the client) and requires the GIN
// and HNSW indexes in them, and the policy applied where text is read.
func TestAgentSearchPlansUseTheIndexes(t *testing.T) {
	t.Parallel()
	_, url, common := debianBrain(t)
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	q := strings.Join(common[60:63], " ")
	plansOf := func(role string) string {
		t.Helper()
		var notices []string
		cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { notices = append(notices, n.Message) }
		conn, err := pgx.ConnectConfig(ctx(t), cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx(t))
		for _, stmt := range []string{
			`LOAD 'auto_explain'`,
			`SET auto_explain.log_min_duration = 0`,
			`SET auto_explain.log_nested_statements = on`,
			`SET auto_explain.log_level = notice`,
			`SET client_min_messages = notice`,
			`SET ROLE ` + role,
		} {
			if _, err := conn.Exec(ctx(t), stmt); err != nil {
				t.Fatalf("%s: %v (auto_explain ships with PostgreSQL's server package)", stmt, err)
			}
		}
		rows, err := conn.Query(ctx(t), `SELECT slug FROM brain.search($1, vector_fill_only => false) WHERE slug IS NOT NULL`, q)
		if err != nil {
			t.Fatal(err)
		}
		got, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 {
			t.Fatalf("%s found nothing for %q", role, q)
		}
		return strings.Join(notices, "\n")
	}
	owner := plansOf("NONE") // the connecting superuser: no row security
	agent := plansOf("pgbrain_agent")
	gin := regexp.MustCompile(`Bitmap Index Scan on chunks_tsv_gin`)
	hnsw := regexp.MustCompile(`Index Scan using chunks_embedding_hnsw`)
	for _, want := range []*regexp.Regexp{gin, hnsw,
		// The text is read through the agent's policy (its subplan on page_pii).
		regexp.MustCompile(`(?s)page_pii.*agent_visible`),
	} {
		if !want.MatchString(agent) {
			t.Errorf("no %q in the plans of the agent's search:\n%s", want, agent)
		}
	}
	// The arms plan alike for the agent and for the owner.
	for _, re := range []*regexp.Regexp{gin, hnsw} {
		if a, o := len(re.FindAllString(agent, -1)), len(re.FindAllString(owner, -1)); a != o {
			t.Errorf("%q appears %d times in the agent's plans, %d in the owner's", re, a, o)
		}
	}
	if strings.Contains(owner, "agent_visible") {
		t.Errorf("the owner's plans apply the agent policy:\n%s", owner)
	}
}

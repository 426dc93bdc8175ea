package search

import (
	"encoding/json"
	"testing"
)

// sqlSearchMeta is brain.search's meta for a call made in plain SQL.
func sqlSearchMeta(t *testing.T, db Querier, sql string, args ...any) map[string]any {
	t.Helper()
	rows, err := db.Query(ctx(t), sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	defer rows.Close()
	var m map[string]any
	n := 0
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			t.Fatal(err)
		}
		var one map[string]any
		if err := json.Unmarshal(raw, &one); err != nil {
			t.Fatal(err)
		}
		if m != nil && !jsonSame(m, one) {
			t.Fatalf("%s: meta differs between rows: %v vs %v", sql, m, one)
		}
		m = one
		n++
	}
	if n == 0 {
		t.Fatalf("%s: no row; brain.search always returns at least the meta row", sql)
	}
	return m
}

func jsonSame(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// clientMeta is the part of the Go client's Meta that comes from SQL.
func clientMeta(t *testing.T, r *Response) map[string]any {
	t.Helper()
	var parser, scan any = r.Meta.Parser, nil
	if len(r.Meta.KeywordScan) > 0 {
		scan = r.Meta.KeywordScan
	}
	var skipped any
	if r.Meta.VectorSkipped != nil {
		skipped = *r.Meta.VectorSkipped
	}
	return map[string]any{"detail_resolved": *r.Meta.DetailResolved, "vector_enabled": r.Meta.VectorEnabled,
		"vector_ran": r.Meta.VectorRan, "vector_skipped": skipped, "parser": parser, "keyword_scan": scan,
		"keyword_weight": r.Meta.KeywordWeight, "vector_weight": r.Meta.VectorWeight, "rrf_k": r.Meta.RRFK,
		"vector_index": r.Meta.VectorIndex}
}

func pick(m map[string]any) map[string]any {
	out := map[string]any{}
	for _, k := range []string{"detail_resolved", "vector_enabled", "vector_ran", "vector_skipped", "parser", "keyword_scan",
		"keyword_weight", "vector_weight", "rrf_k", "vector_index"} {
		out[k] = m[k]
	}
	return out
}

// TestMetaFromSQLIsWhatTheClientReports: the Go client (which the CLI and
// MCP print) reports exactly brain.search's meta, including a DBA's
// search.vector_weight = 0 and an empty result.
func TestMetaFromSQLIsWhatTheClientReports(t *testing.T) {
	t.Parallel()
	db := fixtureBrain(t)
	tests := []struct {
		name, q, detail string
		dbaZeroVector   bool
		wantEnabled     bool
		wantSkipped     any
	}{
		{"keyword fills, vector only fills", "zebra quartz", "", false, true, nil},
		{"auto detail high", "when was zebra added", "", false, true, nil},
		{"phrase and negation", `"zebra meadow" -quartz`, "low", false, true, nil},
		{"nothing matches", "zzyzzx", "", false, true, nil},
		{"DBA turned the vector arm off", "zebra", "", true, false, "weight_zero"},
		{"negation alone has nothing to look for", "-zebra", "", false, false, "no_terms"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.dbaZeroVector {
				if _, err := db.Exec(ctx(t), `INSERT INTO brain.config VALUES ('search.vector_weight', '0')`); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { db.Exec(ctx(t), `DELETE FROM brain.config WHERE key = 'search.vector_weight'`) })
			}
			want := pick(sqlSearchMeta(t, db, `SELECT meta FROM brain.search($1, detail => nullif($2, ''))`, tc.q, tc.detail))
			r, err := Hybrid(ctx(t), db, tc.q, nil, Options{Detail: tc.detail}, Tuning{})
			if err != nil {
				t.Fatal(err)
			}
			got := clientMeta(t, r)
			if !jsonSame(got, want) {
				t.Errorf("client meta %v\nSQL meta    %v", got, want)
			}
			if r.Meta.VectorEnabled != tc.wantEnabled {
				t.Errorf("vector_enabled = %v, want %v", r.Meta.VectorEnabled, tc.wantEnabled)
			}
			if tc.wantSkipped != nil && (r.Meta.VectorSkipped == nil || *r.Meta.VectorSkipped != tc.wantSkipped) {
				t.Errorf("vector_skipped = %v, want %v", r.Meta.VectorSkipped, tc.wantSkipped)
			}
			// search: keyword only, detail medium, vector weight 0.
			wantK := pick(sqlSearchMeta(t, db, `SELECT meta FROM brain.search($1, detail => 'medium', vector_weight => 0, embed => false)`, tc.q))
			k, err := Keyword(ctx(t), db, tc.q, Options{}, Tuning{})
			if err != nil {
				t.Fatal(err)
			}
			if got := clientMeta(t, k); !jsonSame(got, wantK) {
				t.Errorf("search: client meta %v\nSQL meta            %v", got, wantK)
			}
			if k.Meta.VectorEnabled {
				t.Error("search reported vector_enabled")
			}
		})
	}
}

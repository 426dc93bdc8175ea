package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// Flag mistakes are usage errors (exit 2) that spell flags as the help does
// and point at the flag that was probably meant. No database is needed:
// flags are parsed before a command connects.
func TestFlagMistakesNameTheFlagAsTheHelpSpellsIt(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"search", "--limt", "3", "q"}, "pgbrain: search: unknown flag --limt; did you mean --limit? (see 'pgbrain search --help')"},
		{[]string{"search", "--lmiit", "3", "q"}, "unknown flag --lmiit; did you mean --limit?"},
		{[]string{"search", "--zzzzzz", "q"}, `pgbrain: search: unknown flag --zzzzzz; a query that starts with '-' goes after --, as in: pgbrain search -- "--recurse" (see 'pgbrain search --help')`},
		{[]string{"import", "--zzzzzz", "dir"}, "pgbrain: import: unknown flag --zzzzzz; an argument that starts with '-' goes after -- (see 'pgbrain import --help')"},
		{[]string{"search", "--limit", "x", "q"}, `invalid value "x" for flag --limit:`},
		{[]string{"search", "--limit"}, "flag needs an argument: --limit"},
		{[]string{"import", "--force=maybe", "dir"}, `invalid boolean value "maybe" for --force:`},
		{[]string{"--hme", "x", "list"}, "pgbrain: unknown flag --hme; did you mean --home? (see 'pgbrain --help')"},
		{[]string{"eval", "gate", "--basline", "b.ndjson"}, "pgbrain: eval gate: unknown flag --basline; did you mean --baseline? (see 'pgbrain eval gate --help')"},
		// A name in another script, or with '_', is named whole.
		{[]string{"search", "--lím", "3", "q"}, "pgbrain: search: unknown flag --lím; a query that"},
		{[]string{"search", "--lim_it", "3", "q"}, "unknown flag --lim_it; did you mean --limit?"},
		{[]string{"search", "--límit", "3", "q"}, "unknown flag --límit; did you mean --limit?"},
	}
	for _, tc := range cases {
		var out, errOut bytes.Buffer
		code := run(context.Background(), append([]string{"pgbrain"}, tc.args...), strings.NewReader(""), &out, &errOut)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (usage)", tc.args, code)
		}
		if !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("%v: stderr %q, want it to contain %q", tc.args, errOut.String(), tc.want)
		}
		if strings.Contains(errOut.String(), " -limt") || strings.Contains(errOut.String(), "not defined") {
			t.Errorf("%v: stderr %q still has the single-dash wording", tc.args, errOut.String())
		}
		if out.Len() != 0 {
			t.Errorf("%v: stdout %q, want nothing", tc.args, out.String())
		}
	}
}

func TestEditDistanceCountsSwapsAsOneEdit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"limit", "limit", 0}, {"limt", "limit", 1}, {"lmiit", "limit", 1}, {"", "ab", 2},
		{"source", "sorce", 1}, {"json", "jsno", 1}, {"東京", "東都", 1}, {"abc", "xyz", 3},
	} {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestClosestFlagOnlySuggestsNearNames(t *testing.T) {
	t.Parallel()
	flags := searchCommand().Flags
	for typed, want := range map[string]string{"limt": "limit", "nope": "", "sorce": "source", "jsno": "json", "x": ""} {
		if got := closestFlag(typed, flags); got != want {
			t.Errorf("closestFlag(%q) = %q, want %q", typed, got, want)
		}
	}
}

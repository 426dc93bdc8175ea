package refusal_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/pgbrain/pgbrain/internal/classify"
	"github.com/pgbrain/pgbrain/internal/dbtest"
	"github.com/pgbrain/pgbrain/internal/ingest"
	"github.com/pgbrain/pgbrain/internal/refusal"
	"github.com/pgbrain/pgbrain/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

func TestFromFlag(t *testing.T) {
	cases := []struct {
		name    string
		csv     string
		set     bool
		block   string
		err     string
		warning bool
	}{
		{"not set: the floor", "", false, "credential,government_id,payment_card", "", false},
		{"widened", "health, contact", true, "contact,credential,government_id,health,payment_card", "", false},
		{"floor names repeated", "payment_card,credential", true, "credential,government_id,payment_card", "", false},
		{"empty disables", "", true, "", "", true},
		{"only commas disable", " , ", true, "", "", true},
		{"unknown name", "health,emails", true, "", `unknown PII category "emails"`, false},
		{"wrong case", "Health", true, "", "demographic_protected", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var warn bytes.Buffer
			p, err := refusal.FromFlag(tc.csv, tc.set, &warn)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "--pii-block") {
					t.Fatalf("err = %v, want one naming --pii-block and containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(p.Block, ","); got != tc.block {
				t.Errorf("Block = %s, want %s", got, tc.block)
			}
			if (warn.Len() > 0) != tc.warning {
				t.Errorf("warning %q, want one: %v", warn.String(), tc.warning)
			}
		})
	}
}

func TestBlocks(t *testing.T) {
	floor, err := refusal.FromFlag("", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		policy  refusal.Policy
		touched []string
		want    string
	}{
		{floor, nil, ""},
		{floor, []string{"contact", "health"}, ""},
		{floor, []string{"payment_card", "contact", "credential", "credential"}, "credential,payment_card"},
		{refusal.Policy{}, []string{"payment_card"}, ""},
		{refusal.Policy{Block: []string{"contact", "credential"}}, []string{"location", "contact"}, "contact"},
	}
	for _, tc := range cases {
		if got := strings.Join(tc.policy.Blocks(tc.touched), ","); got != tc.want {
			t.Errorf("%v.Blocks(%v) = %s, want %s", tc.policy.Block, tc.touched, got, tc.want)
		}
	}
}

func TestPageCategories(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := dbtest.Open(t)
	put := func(slug, body string) int64 {
		if _, err := ingest.PutPage(ctx, b, slug, []byte(body), ingest.Options{}); err != nil {
			t.Fatal(err)
		}
		p, err := b.GetPage(ctx, "default", slug)
		if err != nil {
			t.Fatal(err)
		}
		return p.ID
	}
	alice := put("alice", "# Alice\n\nalice@widgetworks.io\n")
	card := put("card", "# Card\n\n4111 1111 1111 1111\n")
	plain := put("plain", "# Plain\n\nrelease v1.2.3 on 2024-01-01\n")
	if _, err := classify.Set(ctx, b.Pool, "default", "plain", []string{"location"}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		ids  []int64
		want string
	}{
		{nil, ""},
		{[]int64{alice}, "contact"},
		{[]int64{card, alice}, "contact,payment_card"},
		{[]int64{plain, alice, card}, "contact,location,payment_card"},
		{[]int64{999999}, ""},
	}
	for _, tc := range cases {
		got, err := refusal.PageCategories(ctx, b.Pool, tc.ids)
		if err != nil {
			t.Fatal(err)
		}
		if got == nil || strings.Join(got, ",") != tc.want {
			t.Errorf("PageCategories(%v) = %#v, want [%s]", tc.ids, got, tc.want)
		}
	}
}

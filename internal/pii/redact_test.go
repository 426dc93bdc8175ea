package pii

import (
	"slices"
	"testing"
)

func TestFindForRedaction(t *testing.T) {
	tests := []struct {
		text string
		want []string // kind:matched text, in order
	}{
		// What FindKinds finds for the six kinds.
		{"mail alice@example.com", []string{"email:alice@example.com"}},
		{"call (415) 555-0132", []string{"phone:(415) 555-0132"}},
		{"SSN 123-45-6789", []string{"ssn:123-45-6789"}},
		{"card 4111 1111 1111 1111", []string{"card:4111 1111 1111 1111"}},
		{"Bearer abcDEF1234567890xyz", []string{"bearer_token:abcDEF1234567890xyz"}},
		{jwtHS256, []string{"jwt:" + jwtHS256}},
		// Query mode widens each kind.
		{"ring 020 7946 0958", []string{"phone:020 7946 0958"}},
		{"call 555-123-4567", []string{"phone:555-123-4567"}},
		{"call me at 555-0199", []string{"phone:555-0199"}},
		{"(+44) 20 7946 0958", []string{"phone:(+44) 20 7946 0958"}},
		{"ssn 000 12 3456", []string{"ssn:000 12 3456"}},
		{"4242.4242.4242.4242", []string{"card:4242.4242.4242.4242"}},
		{"4111\u00a01111\u00a01111\u00a01111", []string{"card:4111\u00a01111\u00a01111\u00a01111"}},
		{"josé@ejemplo.es", []string{"email:josé@ejemplo.es"}},
		{"q=bob%40example.com", []string{"email:bob%40example.com"}},
		{"Bearer mF_9.B5f-4.1JqM", []string{"bearer_token:mF_9.B5f-4.1JqM"}},
		{"eyJhbGci.eyJzdWIi.c2ln", []string{"jwt:eyJhbGci.eyJzdWIi.c2ln"}},
		// Credentials, as the page scan finds them and wider.
		{"password: hunter2", []string{"secret:hunter2"}},
		{"token=abc", []string{"secret:abc"}},
		{"export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", []string{"secret:wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}},
		{"key AKIAIOSFODNN7EXAMPLE", []string{"api_key:AKIAIOSFODNN7EXAMPLE"}},
		{"key akiaiosfodnn7example", []string{"api_key:akiaiosfodnn7example"}},
		{"why does GHP_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 fail", []string{"api_key:GHP_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"}},
		{"pk_live_51H8abcdEFGH", []string{"api_key:pk_live_51H8abcdEFGH"}},
		{"postgres://bob:s3cr3t@db/x", []string{"url_password:s3cr3t"}},
		{"IBAN de89 3704 0044 0532 0130 00", []string{"iban:de89 3704 0044 0532 0130 00"}},
		{"IBAN GB82 WEST 1234 5698 7654 32", []string{"iban:GB82 WEST 1234 5698 7654 32"}},
		{"passport no. X1234567", []string{"passport:X1234567"}},
		// Kept: semver build metadata, other kinds, look-alikes.
		{"1.0.0+20130313144700", nil},
		{"from 192.168.1.20 at 221B Baker Street, password reset", nil},
		{"password: ********, token: ${TOKEN}", nil},
		{"order ORD-12345678, ISBN 978-0-306-40615-7, 2024-01-15", nil},
	}
	for _, tt := range tests {
		var got []string
		for _, m := range FindForRedaction(tt.text) {
			got = append(got, m.Kind+":"+tt.text[m.Start:m.End])
			if !slices.Contains(redactionKinds[:], m.Kind) || m.Category != kinds[m.Kind].category {
				t.Errorf("FindForRedaction(%q) labelled a match %s/%s", tt.text, m.Kind, m.Category)
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("FindForRedaction(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestRedactionKinds(t *testing.T) {
	got := RedactionKinds()
	want := []string{KindEmail, KindPhone, KindSSN, KindCard, KindJWT, KindBearer,
		KindAPIKey, KindPrivateKey, KindSecret, KindURLPassword,
		KindIBAN, KindBankAccount, KindPassport, KindDriversLicense, KindNationalID}
	if !slices.Equal(got, want) {
		t.Errorf("RedactionKinds() = %v, want %v", got, want)
	}
	got[0] = "changed"
	if RedactionKinds()[0] != KindEmail {
		t.Error("RedactionKinds returned shared storage")
	}
}

// TestRedactionCoversTheRefusalFloor: every kind the page classifier files
// under a category that is refused to agents (credential, payment_card,
// government_id) is one the scrubber removes, so no shape the classifier
// knows can reach a log through a query.
func TestRedactionCoversTheRefusalFloor(t *testing.T) {
	for kind, info := range kinds {
		if slices.Contains(RefusalFloor(), info.category) && !slices.Contains(redactionKinds[:], kind) {
			t.Errorf("kind %s (%s) is classified on pages but not redacted from queries", kind, info.category)
		}
	}
}

// TestRedactionCoversFind: on text holding one of each credential, card,
// government and bank shape, every byte Find files under those kinds is
// inside a FindForRedaction match.
func TestRedactionCoversFind(t *testing.T) {
	texts := []string{
		"password=hunter2 and DB_PASSWORD: 's3cr3t!' and \"api_key\": \"abcd1234efgh5678\"",
		"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		"OPENAI_API_KEY sk-proj-abc123def456ghi789jkl012 ghp_abcdefghijklmnopqrstuvwxyz0123456789",
		"AKIA1234567890ABCDEF xoxb-1234567890-abcdef glpat-abcdefghij0123456789 sk_live_abcdefghij0123456789",
		"github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz npm_abcdefghijklmnopqrstuvwxyz0123456789",
		"key:\n" + pemKey + "\ndone",
		"postgres://bob:s3cr3t@db/x",
		"IBAN GB82 WEST 1234 5698 7654 32 or DE89370400440532013000",
		"passport number 123456789, driver's license D1234567, EIN 12-3456789",
		"national insurance AB 12 34 56 C, bank account 12345678",
		"card 4111 1111 1111 1111, SSN 123-45-6789",
	}
	for _, text := range texts {
		red := FindForRedaction(text)
		for _, m := range Find(text) {
			if !slices.Contains(RefusalFloor(), m.Category) && m.Kind != KindIBAN && m.Kind != KindBankAccount {
				continue
			}
			covered := false
			for _, r := range red {
				if r.Start <= m.Start && m.End <= r.End {
					covered = true
				}
			}
			if !covered {
				t.Errorf("in %q, Find reports %s %q, which FindForRedaction leaves", text, m.Kind, text[m.Start:m.End])
			}
		}
	}
}

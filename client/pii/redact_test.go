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
		// Kept: semver build metadata, other kinds, look-alikes.
		{"1.0.0+20130313144700", nil},
		{"from 192.168.1.20 at 221B Baker Street, password=hunter2", nil},
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
	want := []string{KindEmail, KindPhone, KindSSN, KindCard, KindJWT, KindBearer}
	if !slices.Equal(got, want) {
		t.Errorf("RedactionKinds() = %v, want %v", got, want)
	}
	got[0] = "changed"
	if RedactionKinds()[0] != KindEmail {
		t.Error("RedactionKinds returned shared storage")
	}
}

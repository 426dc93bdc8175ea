package scrub

import (
	"fmt"
	"strings"
	"testing"
)

// A value quoted with %q keeps its secrets' shape hidden behind escapes;
// Message reads it unquoted.
func TestMessageReadsQuotedValues(t *testing.T) {
	for _, tc := range []struct{ value, secret string }{
		{`{"api_key": "9a8b7c6d5e4f3a2b1c0dzz"}`, "9a8b7c6d5e4f3a2b1c0dzz"},
		{`DB_PASSWORD="Pg_Passw0rd_77"`, "Pg_Passw0rd_77"},
		{`{"client_secret": "0a1b2c3d4e5f6a7b"}`, "0a1b2c3d4e5f6a7b"},
		{"-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkg4LVWM9nuwNSk3yBy", "MHcCAQEEIBkg4LVWM9nuwNSk3yBy"},
		{"mail\tcarol@example.org", "carol@example.org"},
	} {
		msg := fmt.Sprintf("source %q does not exist: create it with: pgbrain sources add x", tc.value)
		got := Message(msg)
		if strings.Contains(got, tc.secret) {
			t.Errorf("Message(%s) = %s: the secret is still there", msg, got)
		}
		if !strings.HasPrefix(got, `source "`) || !strings.HasSuffix(got, `" does not exist: create it with: pgbrain sources add x`) {
			t.Errorf("Message(%s) = %s: the message around the value changed", msg, got)
		}
	}
	for _, kept := range []string{`source "work notes" does not exist`, `a "quoted \"word\"" stays`, `unbalanced "quote \" here`} {
		if got := Message(kept); got != kept {
			t.Errorf("Message(%q) = %q, want it unchanged", kept, got)
		}
	}
}

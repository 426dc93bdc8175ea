package scrub

import (
	"bytes"
	"fmt"
	"testing"
)

func TestWriter(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	if NewWriter(w) != w {
		t.Error("wrapping a scrub.Writer again made a new one")
	}
	msg := "pgbrain: serve: search: searching for \"card 4111 1111 1111 1111 password: hunter2\": connection refused\n"
	n, err := fmt.Fprint(w, msg)
	if err != nil || n != len(msg) {
		t.Fatalf("Fprint = %d, %v; want %d, nil", n, err, len(msg))
	}
	want := "pgbrain: serve: search: searching for \"card [REDACTED] password: [REDACTED]\": connection refused\n"
	if buf.String() != want {
		t.Errorf("wrote %q, want %q", buf.String(), want)
	}
}

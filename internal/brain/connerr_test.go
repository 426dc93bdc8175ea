package brain

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"
	"testing"
)

// A server that is not there is reported once, with what to do, and the
// cause stays inspectable.
func TestOpenWhereNothingListensSaysSoOnce(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	for _, url := range []string{
		fmt.Sprintf("postgres://nobody@%s/none?connect_timeout=5", addr),
		"postgres://nobody@/none?host=" + t.TempDir(),
	} {
		_, err := Open(context.Background(), url)
		if err == nil {
			t.Fatalf("Open(%s) succeeded with nothing listening", url)
		}
		msg := err.Error()
		if !strings.Contains(msg, "no PostgreSQL is listening there") || !strings.Contains(msg, "--database-url") {
			t.Errorf("Open(%s): %q does not say that nothing listens and what to do", url, msg)
		}
		lines := strings.Split(msg, "\n")
		for i := range lines {
			for j := i + 1; j < len(lines); j++ {
				if lines[i] == lines[j] {
					t.Errorf("Open(%s): line %q is printed twice in %q", url, lines[i], msg)
				}
			}
		}
		if !errors.Is(err, syscall.ECONNREFUSED) && !errors.Is(err, syscall.ENOENT) {
			t.Errorf("Open(%s): %v no longer wraps the dial error", url, err)
		}
	}
}

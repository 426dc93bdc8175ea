package capture

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgbrain/pgbrain/internal/scrub"
)

// Reasons a capture failed: the closed enum of
// brain.eval_capture_failures.reason.
const (
	ReasonDBDown            = "db_down"
	ReasonRLSReject         = "rls_reject"
	ReasonCheckViolation    = "check_violation"
	ReasonScrubberException = "scrubber_exception"
	ReasonOther             = "other"
)

// Reasons lists every reason in a stable order (doctor prints them so).
var Reasons = []string{ReasonDBDown, ReasonRLSReject, ReasonCheckViolation, ReasonScrubberException, ReasonOther}

// classify maps an insert error to a reason and the SQLSTATE, if any.
func classify(err error) (reason, sqlstate string) {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		code := pgErr.Code
		switch {
		case strings.HasPrefix(code, "23"): // integrity constraint violations
			return ReasonCheckViolation, code
		case code == "42501": // insufficient privilege, including RLS policies
			return ReasonRLSReject, code
		case strings.HasPrefix(code, "08"), code == "57P01", code == "57P02", code == "57P03", code == "53300":
			return ReasonDBDown, code
		}
		return ReasonOther, code
	}
	var connErr *pgconn.ConnectError
	var netErr net.Error
	switch {
	case errors.As(err, &connErr), errors.As(err, &netErr),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, context.DeadlineExceeded), pgconn.Timeout(err), pgconn.SafeToRetry(err):
		return ReasonDBDown, ""
	}
	return ReasonOther, ""
}

// maxMessage bounds the stored summary (the column allows 1000 characters).
const maxMessage = 500

// summarize describes err without the statement's arguments, which hold the
// query text: a server error's Detail (the failing row) is left out.
func summarize(err error) string {
	var pgErr *pgconn.PgError
	msg := err.Error()
	if errors.As(err, &pgErr) {
		msg = fmt.Sprintf("%s (SQLSTATE %s)", pgErr.Message, pgErr.Code)
	}
	// Stored and printed: an error may quote the query it failed on.
	return truncate(cleanText(scrub.Scrub(msg)), maxMessage)
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

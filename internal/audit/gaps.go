package audit

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/pgbrain/pgbrain/internal/events"
)

// AuditOffMarker is in the server_start message of a serve session that
// writes no audit rows (--no-audit), so its calls are not counted as gaps.
const AuditOffMarker = "(audit off)"

// SessionCalls is what the events file says about one serve session.
type SessionCalls struct {
	SessionID string
	Calls     int  // tool_call events seen
	Stopped   bool // a server_stop event was seen
	AuditOff  bool
}

// SessionsFromEvents reads events files (the active one and its rotated
// copy; missing files are skipped) and counts each session's tool calls.
// The events file is lossy, so a count is a lower bound of the calls made.
func SessionsFromEvents(paths ...string) ([]SessionCalls, error) {
	by := map[string]*SessionCalls{}
	for _, p := range paths {
		f, err := os.Open(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading events %s: %w", p, err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			ev, err := events.Parse(sc.Bytes())
			if err != nil {
				continue
			}
			s := by[ev.ServerSessionID]
			if s == nil {
				s = &SessionCalls{SessionID: ev.ServerSessionID}
				by[ev.ServerSessionID] = s
			}
			switch {
			case ev.Kind == events.KindToolCall:
				s.Calls++
			case ev.EventSubtype == events.SubtypeServerStop:
				s.Stopped = true
			case ev.EventSubtype == events.SubtypeServerStart && strings.Contains(ev.Message, AuditOffMarker):
				s.AuditOff = true
			}
		}
		err = sc.Err()
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("reading events %s: %w", p, err)
		}
	}
	out := make([]SessionCalls, 0, len(by))
	for _, s := range by {
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].SessionID < out[j].SessionID })
	return out, nil
}

// SessionGaps reports every stopped, audited session that made more tool
// calls (by the events file) than the audit log has rows for: calls whose
// rows never arrived. pending is the number of rows still in the spool,
// which may account for some of them.
func SessionGaps(ctx context.Context, q Querier, sessions []SessionCalls, pending int) ([]Problem, error) {
	var out []Problem
	for _, s := range sessions {
		if !s.Stopped || s.AuditOff || s.Calls == 0 {
			continue
		}
		var rows int
		if err := q.QueryRow(ctx, `SELECT count(*) FROM brain.audit_log WHERE session_id = $1`, s.SessionID).Scan(&rows); err != nil {
			return nil, fmt.Errorf("counting the audit rows of session %s: %w", s.SessionID, err)
		}
		if rows >= s.Calls {
			continue
		}
		detail := fmt.Sprintf("serve session %s stopped after %d tool calls (events file), but the audit log has %d rows for it", s.SessionID, s.Calls, rows)
		if pending > 0 {
			detail += fmt.Sprintf("; %d rows wait in the audit spool ('pgbrain audit flush' chains them)", pending)
		}
		out = append(out, Problem{Problem: "missing_session_rows", Detail: detail})
	}
	return out, nil
}

package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
)

// Go's flag package names a flag with one dash (-limt) whatever the user
// typed, while pgbrain's help and docs spell long flags with two. A name is
// whatever the user typed up to '=' (any script, '_' included), so it ends
// at a space, a colon or a quote in the message.
var flagName = regexp.MustCompile(`(flag provided but not defined: |flag needs an argument: |for flag |value "[^"]*" for )-([^\s:"=-][^\s:"=]+)`)

var undefinedFlag = regexp.MustCompile(`flag provided but not defined: -+([^\s:"=]+)`)

// dashArgHint is added when what looked like a flag may be text that
// starts with a dash: a query such as "--recurse", or a pasted page.
func dashArgHint(cmd string) string {
	if cmd == "search" || cmd == "query" {
		return fmt.Sprintf("; a query that starts with '-' goes after --, as in: pgbrain %s -- \"--recurse\"", cmd)
	}
	return "; an argument that starts with '-' goes after --"
}

// maxEchoedFlag bounds how much of an unknown "flag" a message repeats: a
// pasted page is taken for one.
const maxEchoedFlag = 60

// flagMessage rewrites a flag parsing error of command cmd ("" for pgbrain
// itself) in the spelling of the help (--limit), and for an unknown flag
// names the closest one flags has, or, when none is close, says how to pass
// text that starts with a dash.
func flagMessage(err error, cmd string, flags []cli.Flag) string {
	raw := err.Error()
	if rest, ok := strings.CutPrefix(raw, "bad flag syntax: "); ok {
		return "not a flag: " + strconv.Quote(abbreviateFlag(rest)) + dashArgHint(cmd)
	}
	if typed, ok := strings.CutPrefix(raw, "flag provided but not defined: "); ok &&
		(strings.ContainsAny(typed, " \t\n") || len(typed) > maxEchoedFlag) {
		return "unknown flag " + strconv.Quote(abbreviateFlag(typed)) + dashArgHint(cmd)
	}
	msg := flagName.ReplaceAllString(raw, "$1--$2")
	m := undefinedFlag.FindStringSubmatch(raw)
	if m == nil {
		return msg
	}
	msg = strings.Replace(msg, "flag provided but not defined:", "unknown flag", 1)
	if near := closestFlag(m[1], flags); near != "" {
		return msg + fmt.Sprintf("; did you mean --%s?", near)
	}
	return msg + dashArgHint(cmd)
}

// abbreviateFlag keeps the first maxEchoedFlag characters of s.
func abbreviateFlag(s string) string {
	if r := []rune(s); len(r) > maxEchoedFlag {
		return string(r[:maxEchoedFlag-3]) + "..."
	}
	return s
}

// closestFlag is the name among flags fewest edits away from typed (a typo,
// a swapped pair), if that is at most one edit per three characters, or "".
// One-letter aliases are left out: any short typo is near them.
func closestFlag(typed string, flags []cli.Flag) string {
	var names []string
	for _, f := range flags {
		for _, name := range f.Names() {
			if len(name) >= 2 {
				names = append(names, name)
			}
		}
	}
	return closest(typed, names)
}

// commandNotFoundMessage names an unknown command, the closest command of
// the group it was typed in, and that group's help.
func commandNotFoundMessage(c *cli.Context, name string) string {
	cmds, help := c.App.Commands, "pgbrain --help"
	if c.Command != nil && len(c.Command.Subcommands) > 0 {
		cmds = c.Command.Subcommands
		if path := commandPath(c); path != "" {
			help = "pgbrain " + path + " --help"
		}
	}
	msg := fmt.Sprintf("pgbrain: unknown command %q", name)
	if s := closestCommand(name, cmds); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	return msg + fmt.Sprintf(" (see '%s')", help)
}

// closestCommand is the command name or alias nearest to typed, or "" when
// none is close (the bound of closest).
func closestCommand(typed string, cmds []*cli.Command) string {
	var names []string
	for _, c := range cmds {
		names = append(names, c.Names()...)
	}
	return closest(typed, names)
}

// closest is the name fewest edits away from typed, if that is at most one
// edit per three characters of typed, or "" (the first of equals wins).
func closest(typed string, names []string) string {
	best, bestD := "", max(1, len([]rune(typed))/3)+1
	for _, name := range names {
		if d := editDistance(typed, name); d < bestD {
			best, bestD = name, d
		}
	}
	return best
}

// editDistance counts insertions, deletions, substitutions and swaps of
// adjacent characters (optimal string alignment) between a and b.
func editDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}

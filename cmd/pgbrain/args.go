package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// interspersed moves a command's flags in front of its positional arguments,
// so `pgbrain get SLUG --json` works like `pgbrain get --json SLUG`
// (urfave/cli stops reading flags at the first positional argument).
// A global flag (--database-url, --home) may come after the command too.
// Everything after `--` stays positional. For commands whose argument is
// free text (search, query), a word such as `-draft` that is no flag of the
// command is query text (the query grammar's negation), not a usage error.
func interspersed(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	out := []string{args[0]}
	i := 1
	flags := app.Flags
	cmds := app.Commands
	var last *cli.Command
	var globalArgs, flagArgs, positional []string
	// moveGlobal takes a global flag written after the command (`pgbrain
	// query X --database-url U`) to go back in front of it.
	moveGlobal := func(a string) bool {
		if last == nil || !isFlag(a) || !knownFlag(app.Flags, a) || knownFlag(flags, a) {
			return false
		}
		globalArgs = append(globalArgs, a)
		if needsValue(app.Flags, a) && i+1 < len(args) {
			globalArgs = append(globalArgs, args[i+1])
			i++
		}
		return true
	}
	// Global flags, then the command path.
	for i < len(args) {
		a := args[i]
		if moveGlobal(a) {
			i++
			continue
		}
		if isFlag(a) && !queryWord(last, flags, a) {
			out = append(out, a)
			if needsValue(flags, a) && i+1 < len(args) {
				out = append(out, args[i+1])
				i++
			}
			i++
			continue
		}
		cmd := findCommand(cmds, a)
		if cmd == nil {
			break
		}
		out = append(out, a)
		flags, cmds, last = cmd.Flags, cmd.Subcommands, cmd
		i++
	}
	for ; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			positional = append(positional, args[i+1:]...)
			i = len(args)
		case queryWord(last, flags, a):
			positional = append(positional, a)
		case moveGlobal(a):
		case isFlag(a):
			flagArgs = append(flagArgs, a)
			if needsValue(flags, a) && i+1 < len(args) {
				flagArgs = append(flagArgs, args[i+1])
				i++
			}
		default:
			positional = append(positional, a)
		}
	}
	if len(globalArgs) > 0 {
		out = append(append([]string{out[0]}, globalArgs...), out[1:]...)
	}
	out = append(out, flagArgs...)
	if len(positional) > 0 {
		out = append(out, "--")
		out = append(out, positional...)
	}
	return out
}

func isFlag(a string) bool { return len(a) > 1 && a[0] == '-' && a != "--" }

// needsValue reports whether flag a (without an inline =value) consumes the
// next argument.
func needsValue(flags []cli.Flag, a string) bool {
	name, _, inline := strings.Cut(strings.TrimLeft(a, "-"), "=")
	if inline {
		return false
	}
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				if bf, ok := f.(*cli.BoolFlag); ok && bf != nil {
					return false
				}
				return true
			}
		}
	}
	return false
}

// queryWord reports whether a, given to cmd, is query text that looks like
// a flag: a single-dash word that names no flag of search or query.
func queryWord(cmd *cli.Command, flags []cli.Flag, a string) bool {
	return cmd != nil && (cmd.Name == "search" || cmd.Name == "query") &&
		isFlag(a) && !strings.HasPrefix(a, "--") && !knownFlag(flags, a)
}

// knownFlag reports whether a names one of flags (or help).
func knownFlag(flags []cli.Flag, a string) bool {
	name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
	if name == "h" || name == "help" {
		return true
	}
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				return true
			}
		}
	}
	return false
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

// oneArgument reports whether the command was given exactly one argument
// that is not blank: an empty one (a shell variable that expanded to
// nothing) is a usage error, not a lookup of nothing.
func oneArgument(c *cli.Context) bool {
	return c.NArg() == 1 && strings.TrimSpace(c.Args().First()) != ""
}

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/pgbrain/pgbrain/internal/brain"
	"github.com/pgbrain/pgbrain/internal/markdown"
)

func getCommand() *cli.Command {
	return &cli.Command{
		Name:      "get",
		Usage:     "print a page's markdown exactly as stored",
		ArgsUsage: "SLUG (or SOURCE:SLUG, as search prints it)",
		Flags:     []cli.Flag{sourceFlag, &cli.BoolFlag{Name: "json", Usage: "print the page with its metadata as JSON"}},
		Action: func(c *cli.Context) error {
			if !oneArgument(c) {
				return usageError("get: give exactly one slug")
			}
			source, slug, err := sourceAndSlug(c, c.Args().First())
			if err != nil {
				return err
			}
			return hideTypedSlug(withBrain(c, brain.RoleReader, func(ctx context.Context, b *brain.Brain) error {
				p, err := b.GetPage(ctx, source, markdown.NormalizeSlug(slug))
				if errors.Is(err, brain.ErrPageNotFound) {
					// A source that is not there is the likelier mistake.
					if ok, serr := b.SourceExists(ctx, source); serr == nil && !ok {
						return fmt.Errorf("%w: source %q does not exist: 'pgbrain sources list' shows the sources", err, source)
					}
					// The page is in another source: name it, in the form
					// search prints.
					ns := markdown.NormalizeSlug(slug)
					if others, oerr := b.SourcesHolding(ctx, ns); oerr == nil && len(others) > 0 {
						holds := "source " + strconv.Quote(others[0]) + " holds it"
						if len(others) > 1 {
							holds = "sources " + strings.Join(quoteAll(others), ", ") + " hold it"
						}
						return fmt.Errorf("%w; %s: pgbrain get %s", err, holds, pageName(others[0], ns))
					}
				}
				if errors.Is(err, brain.ErrPageNotFound) {
					// A file name typed as it is on disk ("C#", "Notes/My
					// Page", "people/alice.md"): say which slug that file
					// imports as.
					name, typedExt := slug, len(slug) >= 3 && strings.EqualFold(slug[len(slug)-3:], ".md")
					if typedExt {
						name = slug[:len(slug)-3]
					}
					if typedExt || !markdown.ValidSlug(markdown.NormalizeSlug(slug)) {
						s, ok := markdown.SuggestSlug(name)
						if !ok {
							// A name with no letter or digit ("!!!"), as a
							// file of it imports: x and a hash.
							s, ok = fileSlugOf(name)
						}
						if ok && s != markdown.NormalizeSlug(slug) {
							// A file whose name collided with another's
							// ("notes.md" beside "Notes.md") is stored
							// under its suffixed slug.
							// ("C#" typed for C#.md is its file too: the
							// suffix comes from the file's path.)
							file := path.Clean(slug)
							if !typedExt {
								file += ".md"
							}
							// The import's suffixes: from the path, then
							// from the path and "#2" to "#9" when the first
							// was another file's own name. Which file a
							// stored one came from is not recorded, so
							// every one that exists is named.
							var found []string
							for n := 1; n < 10; n++ {
								key := file
								if n > 1 {
									key = fmt.Sprintf("%s#%d", file, n)
								}
								x := markdown.SuffixSlug(s, key)
								if x == s {
									break
								}
								_, e := b.GetPage(ctx, source, x)
								if e == nil {
									found = append(found, strconv.Quote(x))
								} else if !errors.Is(e, brain.ErrPageNotFound) {
									return fmt.Errorf("%w (looking up %q for a hint failed too: %v)", err, x, e)
								}
							}
							if len(found) > 0 {
								return fmt.Errorf("%w; did you mean %s? (a file %s imports under such a slug when another file's name maps to %q too)", err, strings.Join(found, " or "), file, s)
							}
							_, e := b.GetPage(ctx, source, s)
							if e == nil {
								return fmt.Errorf("%w; did you mean %q? (a file named %s.md imports under that slug)", err, s, name)
							}
							if !errors.Is(e, brain.ErrPageNotFound) {
								return fmt.Errorf("%w (looking up %q for a hint failed too: %v)", err, s, e)
							}
							return fmt.Errorf("%w; a file named %s.md imports as %q, or with a suffix when another file maps there too: 'pgbrain list' shows the slugs", err, name, s)
						}
					}
				}
				if err != nil {
					return err
				}
				if c.Bool("json") {
					return json.NewEncoder(c.App.Writer).Encode(p)
				}
				_, err = io.WriteString(c.App.Writer, p.Body)
				return err
			}), c.Args().First())
		},
	}
}

// sourceIDRE is a source id as brain.sources accepts it.
var sourceIDRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,62}$`)

// sourceAndSlug reads SOURCE:SLUG, the form search and query print for a
// page outside the default source. A slug never holds ':', so the split is
// unambiguous; a --source that names another source is a usage error.
func sourceAndSlug(c *cli.Context, arg string) (string, string, error) {
	source := c.String("source")
	prefix, slug, ok := strings.Cut(arg, ":")
	// Only a source id before the colon and a slug right after it:
	// "password: hunter2" or "Authorization: Token x" is text typed by
	// mistake, not SOURCE:SLUG, and is looked up (and reported) whole.
	if !ok || !sourceIDRE.MatchString(prefix) || slug == "" || strings.TrimLeft(slug, " \t") != slug {
		return source, arg, nil
	}
	if c.IsSet("source") && source != prefix {
		return "", "", usageError("%s: %q names source %q but --source is %q; give one of them", c.Command.Name, arg, prefix, source)
	}
	return prefix, slug, nil
}

// fileSlugOf is the slug a file named name + ".md" imports as, for a name
// SuggestSlug does not suggest.
func fileSlugOf(name string) (string, bool) {
	s, err := markdown.FileSlug(name + ".md")
	return s, err == nil
}

// quoteAll quotes each of ss.
func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

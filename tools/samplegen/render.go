package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/doc"
	"go/doc/comment"
	"go/format"
	"go/printer"
	"go/token"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// renderer writes the pages of one package.
type renderer struct {
	pkg    *loadedPackage
	fset   *token.FileSet
	hist   *apiHistory
	path   string
	hub    bool // package has its own type and function pages
	parser *comment.Parser
}

func (r *renderer) frontmatter(b *strings.Builder, title, typ string) {
	top, _, _ := strings.Cut(r.path, "/")
	fmt.Fprintf(b, "---\ntitle: %q\ntype: %s\ntags: [stdlib, %s]\nimport_path: %q\n---\n\n# %s\n\n", title, typ, top, r.path, title)
}

// packagePage renders the whole package like `go doc -all`. A hub package
// keeps its package page short: its functions get a one-line synopsis and
// its types list their method signatures, because the full text lives on
// the type and function pages.
func (r *renderer) packagePage() string {
	d := r.pkg.doc
	var b strings.Builder
	r.frontmatter(&b, r.path, "package")
	r.docText(&b, d.Doc, 2)
	r.examples(&b, d.Examples, 2, "")
	r.values(&b, "Constants", d.Consts, 2)
	r.values(&b, "Variables", d.Vars, 2)
	if len(d.Funcs) > 0 {
		b.WriteString("## Functions\n\n")
		for _, f := range d.Funcs {
			fmt.Fprintf(&b, "### func %s\n\n", f.Name)
			r.code(&b, funcDecl(f))
			if r.hub {
				r.paragraph(&b, d.Synopsis(f.Doc))
				continue
			}
			r.docText(&b, f.Doc, 4)
			r.examples(&b, f.Examples, 4, f.Name)
		}
	}
	if len(d.Types) > 0 {
		b.WriteString("## Types\n\n")
		for _, t := range d.Types {
			fmt.Fprintf(&b, "### type %s\n\n", t.Name)
			r.code(&b, t.Decl)
			r.docText(&b, t.Doc, 4)
			if r.hub {
				var sigs []string
				for _, f := range t.Funcs {
					sigs = append(sigs, r.node(funcDecl(f)))
				}
				for _, m := range t.Methods {
					sigs = append(sigs, r.node(funcDecl(m)))
				}
				if len(sigs) > 0 {
					fence(&b, "go", strings.Join(sigs, "\n"))
				}
				continue
			}
			r.examples(&b, t.Examples, 4, t.Name)
			r.values(&b, "", t.Consts, 4)
			r.values(&b, "", t.Vars, 4)
			for _, f := range t.Funcs {
				fmt.Fprintf(&b, "#### func %s\n\n", f.Name)
				r.code(&b, funcDecl(f))
				r.docText(&b, f.Doc, 5)
				r.examples(&b, f.Examples, 5, f.Name)
			}
			for _, m := range t.Methods {
				fmt.Fprintf(&b, "#### method %s.%s\n\n", t.Name, m.Name)
				r.code(&b, funcDecl(m))
				r.docText(&b, m.Doc, 5)
				r.examples(&b, m.Examples, 5, t.Name+"."+m.Name)
			}
		}
	}
	r.timeline(&b, r.hist.packageTimeline(r.path))
	return finish(&b)
}

// typePage renders one exported type with everything go/doc attaches to it.
func (r *renderer) typePage(t *doc.Type) string {
	var b strings.Builder
	title := r.path + "." + t.Name
	r.frontmatter(&b, title, "type")
	r.code(&b, t.Decl)
	r.docText(&b, t.Doc, 2)
	r.examples(&b, t.Examples, 2, t.Name)
	r.values(&b, "Constants", t.Consts, 2)
	r.values(&b, "Variables", t.Vars, 2)
	if len(t.Funcs) > 0 {
		b.WriteString("## Functions\n\n")
		for _, f := range t.Funcs {
			fmt.Fprintf(&b, "### func %s\n\n", f.Name)
			r.code(&b, funcDecl(f))
			r.docText(&b, f.Doc, 4)
			r.examples(&b, f.Examples, 4, f.Name)
		}
	}
	if len(t.Methods) > 0 {
		b.WriteString("## Methods\n\n")
		for _, m := range t.Methods {
			fmt.Fprintf(&b, "### method %s.%s\n\n", t.Name, m.Name)
			r.code(&b, funcDecl(m))
			r.docText(&b, m.Doc, 4)
			r.examples(&b, m.Examples, 4, t.Name+"."+m.Name)
		}
	}
	members := append(r.hist.fieldKeys(r.path, t.Name), r.hist.methodKeys(r.path, t.Name)...)
	for _, f := range t.Funcs {
		members = append(members, "func "+f.Name)
	}
	for _, vs := range [][]*doc.Value{t.Consts, t.Vars} {
		for _, v := range vs {
			kind := "const "
			if v.Decl.Tok == token.VAR {
				kind = "var "
			}
			for _, n := range v.Names {
				members = append(members, kind+n)
			}
		}
	}
	r.timeline(&b, r.hist.memberTimeline(r.path, title, "type "+t.Name, members))
	return finish(&b)
}

// funcPage renders one package-level function.
func (r *renderer) funcPage(f *doc.Func) string {
	var b strings.Builder
	title := r.path + "." + f.Name
	r.frontmatter(&b, title, "function")
	r.code(&b, funcDecl(f))
	r.docText(&b, f.Doc, 2)
	r.examples(&b, f.Examples, 2, f.Name)
	r.timeline(&b, r.hist.memberTimeline(r.path, title, "func "+f.Name, nil))
	return finish(&b)
}

func (r *renderer) values(b *strings.Builder, section string, vs []*doc.Value, level int) {
	if len(vs) == 0 {
		return
	}
	if section != "" {
		fmt.Fprintf(b, "%s %s\n\n", strings.Repeat("#", level), section)
	}
	for _, v := range vs {
		r.code(b, v.Decl)
		r.docText(b, v.Doc, level+1)
	}
}

func (r *renderer) timeline(b *strings.Builder, entries []timelineEntry) {
	if len(entries) == 0 {
		return
	}
	b.WriteString("## Timeline\n\n")
	for _, e := range entries {
		b.WriteString(e.String())
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

// funcDecl returns the declaration without its doc comment and body, which
// is what a signature block should show.
func funcDecl(f *doc.Func) *ast.FuncDecl {
	d := *f.Decl
	d.Doc = nil
	d.Body = nil
	return &d
}

func (r *renderer) code(b *strings.Builder, n ast.Node) {
	if g, ok := n.(*ast.GenDecl); ok {
		c := *g
		c.Doc = nil
		n = &c
	}
	fence(b, "go", r.node(n))
}

func (r *renderer) node(n ast.Node) string {
	var buf bytes.Buffer
	if err := format.Node(&buf, r.fset, n); err != nil {
		// A declaration go/doc produced from parsed source always prints;
		// failing here means a bug in this generator, not bad input.
		panic(fmt.Sprintf("print %s node: %v", r.path, err))
	}
	return buf.String()
}

// docText converts a doc comment to markdown. Doc links become plain text:
// the names read naturally and URLs would only add noise to search.
func (r *renderer) docText(b *strings.Builder, text string, level int) {
	if strings.TrimSpace(text) == "" {
		return
	}
	if r.parser == nil {
		r.parser = r.pkg.doc.Parser()
	}
	level = min(level, 6)
	for _, blk := range r.parser.Parse(text).Content {
		switch x := blk.(type) {
		case *comment.Paragraph:
			r.paragraph(b, inline(x.Text))
		case *comment.Heading:
			fmt.Fprintf(b, "%s %s\n\n", strings.Repeat("#", level), inline(x.Text))
		case *comment.Code:
			fence(b, "", x.Text)
		case *comment.List:
			for _, it := range x.Items {
				marker := "-"
				if it.Number != "" {
					marker = it.Number + "."
				}
				for i, c := range it.Content {
					p, ok := c.(*comment.Paragraph)
					if !ok {
						continue
					}
					if i == 0 {
						fmt.Fprintf(b, "%s %s\n", marker, inline(p.Text))
					} else {
						fmt.Fprintf(b, "  %s\n", inline(p.Text))
					}
				}
			}
			b.WriteString("\n")
		}
	}
}

// Text that markdown would read as a heading, list item or quote when it
// starts a line, and that doc comments meant as prose.
var (
	markStartRE    = regexp.MustCompile(`^(#|[-+*>] )`)
	numberedItemRE = regexp.MustCompile(`^(\d+)([.)] )`)
)

func (r *renderer) paragraph(b *strings.Builder, s string) {
	s = strings.TrimSpace(s)
	if s == "" {
		return
	}
	if markStartRE.MatchString(s) {
		s = `\` + s
	} else {
		s = numberedItemRE.ReplaceAllString(s, `$1\$2`)
	}
	b.WriteString(s)
	b.WriteString("\n\n")
}

// inline flattens comment text to one line of markdown, so every paragraph
// is a single line that later tools can split into sentences.
func inline(ts []comment.Text) string {
	var b strings.Builder
	for _, t := range ts {
		switch x := t.(type) {
		case comment.Plain:
			b.WriteString(string(x))
		case comment.Italic:
			b.WriteString(string(x))
		case *comment.Link:
			if x.Auto {
				b.WriteString(x.URL)
			} else {
				fmt.Fprintf(&b, "[%s](%s)", inline(x.Text), x.URL)
			}
		case *comment.DocLink:
			b.WriteString(inline(x.Text))
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// fence writes a fenced code block, lengthening the fence when the code
// itself contains backtick runs.
func fence(b *strings.Builder, lang, code string) {
	code = strings.TrimRight(code, "\n")
	if strings.TrimSpace(code) == "" {
		return
	}
	f := "```"
	for strings.Contains(code, f) {
		f += "`"
	}
	fmt.Fprintf(b, "%s%s\n%s\n%s\n\n", f, lang, code, f)
}

func (r *renderer) examples(b *strings.Builder, exs []*doc.Example, level int, owner string) {
	level = min(level, 6)
	for _, ex := range exs {
		title := "Example"
		if owner != "" {
			title += " " + owner
		}
		if ex.Suffix != "" {
			title += " (" + upperFirst(ex.Suffix) + ")"
		}
		fmt.Fprintf(b, "%s %s\n\n", strings.Repeat("#", level), title)
		r.docText(b, ex.Doc, min(level+1, 6))
		fence(b, "go", r.exampleCode(ex))
		if out := strings.TrimRight(ex.Output, "\n"); out != "" {
			b.WriteString("Output:\n\n")
			fence(b, "", out)
		}
	}
}

// exampleCode prints an example's body with its comments, minus the
// "// Output:" comment whose content is shown separately.
func (r *renderer) exampleCode(ex *doc.Example) string {
	var comments []*ast.CommentGroup
	for _, c := range ex.Comments {
		t := strings.ToLower(strings.TrimSpace(c.Text()))
		if strings.HasPrefix(t, "output:") || strings.HasPrefix(t, "unordered output:") {
			continue
		}
		comments = append(comments, c)
	}
	var buf bytes.Buffer
	cfg := printer.Config{Mode: printer.UseSpaces | printer.TabIndent, Tabwidth: 8}
	if err := cfg.Fprint(&buf, r.fset, &printer.CommentedNode{Node: ex.Code, Comments: comments}); err != nil {
		panic(fmt.Sprintf("print %s example %s: %v", r.path, ex.Name, err))
	}
	s := buf.String()
	if _, ok := ex.Code.(*ast.BlockStmt); !ok {
		return s
	}
	// Show the statements of the example function, not its braces.
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(strings.TrimPrefix(s, "{"), "}")
	lines := strings.Split(strings.Trim(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, "\t")
	}
	return strings.Join(lines, "\n")
}

func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

// finish trims trailing blank lines so every page ends with one newline.
func finish(b *strings.Builder) string {
	return strings.TrimRight(b.String(), "\n") + "\n"
}

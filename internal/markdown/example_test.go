package markdown_test

import (
	"fmt"

	"github.com/pgbrain/pgbrain/internal/markdown"
)

func Example() {
	slug, err := markdown.SlugFromPath(`People\Alice Example.md`)
	if err != nil {
		panic(err)
	}
	file := "---\ntags: founder, acme\n---\n# Alice Example\n\nFounded Acme in 2019.\n\n## Timeline\n\n- 2019-04-01: founded Acme\n"
	page, err := markdown.Parse(slug, []byte(file))
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s | %s | %s | %q\n", page.Slug, page.Title, page.Type, page.Tags)
	for _, c := range markdown.ChunkPage(page, markdown.ChunkOptions{}) {
		fmt.Printf("%d %s %q\n", c.Index, c.Source, c.Text)
	}
	// Output:
	// people/alice-example | Alice Example | people | ["founder" "acme"]
	// 0 compiled_truth "# Alice Example\n\nFounded Acme in 2019."
	// 1 timeline "- 2019-04-01: founded Acme"
}

func ExampleParse_error() {
	_, err := markdown.Parse("notes/x", []byte("---\ntitle: ok\nbad: [\n---\nbody\n"))
	fmt.Println(err)
	// Output:
	// frontmatter: yaml: line 3: did not find expected node content; fix the YAML between the "---" lines
}

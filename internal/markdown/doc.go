// Package markdown turns one markdown file into what pgbrain stores: a slug
// derived from the file's path, the parsed frontmatter, the page body split
// into its compiled-truth and timeline parts, and the chunks that get
// indexed for keyword and vector search.
//
// Everything here is a pure function of its inputs; reading files, talking
// to the database and embedding chunks belong to other packages.
package markdown

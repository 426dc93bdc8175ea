package main

import (
	"slices"
	"strings"

	"github.com/pgbrain/pgbrain/internal/markdown"
	"github.com/pgbrain/pgbrain/internal/scrub"
)

// derivedError is an error whose message no longer repeats what the user
// typed in a derived form; the chain (exit codes, errors.Is) is kept.
type derivedError struct {
	msg string
	err error
}

func (e *derivedError) Error() string { return e.msg }
func (e *derivedError) Unwrap() error { return e.err }

// hideDerived keeps a message from repeating what the user typed in a form
// the scrubber cannot recognise: stderr is scrubbed, but "password=hunter2"
// typed as a slug comes back as the slug "password-hunter2", and
// AKIAIOSFODNN7EXAMPLE lower-cased. When typed holds something the
// scrubber redacts, each of forms found in s is replaced with the marker.
func hideDerived(s, typed string, forms ...string) string {
	if scrub.Scrub(typed) == typed {
		return s
	}
	// The longest first, so a form inside another is not cut out of it.
	forms = slices.DeleteFunc(slices.Clone(forms), func(f string) bool { return f == "" || f == typed })
	slices.SortFunc(forms, func(a, b string) int { return len(b) - len(a) })
	for _, f := range forms {
		s = strings.ReplaceAll(s, f, scrub.Redacted)
	}
	return s
}

// slugForms are the forms a typed slug or file name takes in messages: its
// slug, the slug a file of that name imports as, and its lower case.
func slugForms(typed string) []string {
	forms := []string{markdown.NormalizeSlug(typed), strings.ToLower(typed)}
	name := strings.TrimSuffix(strings.TrimSuffix(typed, ".md"), ".MD")
	if s, ok := markdown.SuggestSlug(name); ok {
		forms = append(forms, s)
	}
	return forms
}

// hideTypedSlug is hideDerived for an error about the slug typed.
func hideTypedSlug(err error, typed string) error {
	if err == nil {
		return nil
	}
	if msg := hideDerived(err.Error(), typed, slugForms(typed)...); msg != err.Error() {
		return &derivedError{msg: msg, err: err}
	}
	return err
}

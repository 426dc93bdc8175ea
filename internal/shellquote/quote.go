// Package shellquote writes a word the way a POSIX shell reads it back, so
// a command a message suggests can be pasted as it is.
package shellquote

import "strings"

// Quote returns s unchanged when it holds only characters no shell treats
// specially, and otherwise in single quotes, a quote inside it closing
// them, escaped, and opening them again.
func Quote(s string) string {
	safe := s != ""
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("/._+-", c)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

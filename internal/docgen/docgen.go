// Package docgen keeps a generated part of a Markdown page — a table made
// from a results file — equal to what its generator makes: the part sits
// between two marker comments, and a test compares it (or, with -update,
// rewrites it).
package docgen

import (
	"fmt"
	"os"
	"strings"
)

// Replace returns doc with the text between the markers begin and end
// replaced by part; an error when the markers are missing or out of order.
func Replace(doc, begin, end, part string) (string, error) {
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		return "", fmt.Errorf("the markers %q and %q are missing or out of order", begin, end)
	}
	return doc[:i+len(begin)] + "\n" + part + doc[j:], nil
}

// Sync compares the generated part of the page at path with part: it
// returns the page as it is and as it should be, and with update writes the
// latter (want == got then).
func Sync(path, begin, end, part string, update bool) (got, want string, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", "", err
	}
	if want, err = Replace(string(b), begin, end, part); err != nil {
		return "", "", fmt.Errorf("%s: %w", path, err)
	}
	if update && want != string(b) {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			return "", "", err
		}
		return want, want, nil
	}
	return string(b), want, nil
}

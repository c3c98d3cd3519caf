package scenarios

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Error is one problem found in a scenario, located in its source: a file position, or the
// --set override that supplied the value.
type Error struct {
	File     string `json:"file,omitempty"`
	Line     int    `json:"line,omitempty"`
	Col      int    `json:"col,omitempty"`
	Override string `json:"override,omitempty"` // "--set key" (or a sweep's label) when an override gave the value
	Path     string `json:"path"`               // dotted path of the field, e.g. faults[0].at
	Message  string `json:"message"`
	Hint     string `json:"hint,omitempty"`
	// root marks a problem that stops further checking (the document too large, a node
	// with more NIs than the model holds): it is listed first, as the others may follow
	// from it.
	root bool
}

// Error formats the problem as `file:line:col: path: message (hint)`, or
// `--set key: message (hint)` for a value given by an override (`--set key: path: ...` when
// the problem is deeper inside the overridden value).
func (e *Error) Error() string {
	var b strings.Builder
	switch {
	case e.Override != "":
		b.WriteString(e.Override)
	case e.Line > 0 && e.Col > 0:
		fmt.Fprintf(&b, "%s:%d:%d", e.File, e.Line, e.Col)
	case e.Line > 0:
		fmt.Fprintf(&b, "%s:%d", e.File, e.Line)
	default:
		b.WriteString(e.File)
	}
	if e.Path != "" && e.Override != "--set "+e.Path {
		b.WriteString(": " + e.Path)
	}
	b.WriteString(": " + e.Message)
	if e.Hint != "" {
		b.WriteString(" (" + e.Hint + ")")
	}
	return b.String()
}

// ErrorList is every problem found in one scenario, in source order. It is the error type
// Load returns.
type ErrorList []*Error

// Error joins the problems one per line.
func (l ErrorList) Error() string {
	s := make([]string, len(l))
	for i, e := range l {
		s[i] = e.Error()
	}
	return strings.Join(s, "\n")
}

// MaxErrors is how many problems Load lists; the rest are counted in a last line.
const MaxErrors = 20

// sorted orders the list with root causes first, then by override, line, column and path,
// drops exact duplicates and keeps the first MaxErrors, counting the others in a last entry.
func (l ErrorList) sorted() ErrorList {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i], l[j]
		if a.root != b.root {
			return a.root
		}
		if (a.Override != "") != (b.Override != "") {
			return a.Override == ""
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		return a.Path < b.Path
	})
	out := l[:0]
	for _, e := range l {
		if len(out) > 0 && *e == *out[len(out)-1] {
			continue
		}
		out = append(out, e)
	}
	return out.capped(MaxErrors)
}

// capped keeps the first n problems and replaces the rest by one entry counting them.
func (l ErrorList) capped(n int) ErrorList {
	if len(l) <= n {
		return l
	}
	more := &Error{File: l[0].File, Message: fmt.Sprintf("and %d more errors", len(l)-n), Hint: "fix the ones above first; only the first " + strconv.Itoa(n) + " are listed"}
	return append(l[:n:n], more)
}

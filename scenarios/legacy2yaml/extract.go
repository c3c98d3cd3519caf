package legacy2yaml

// assignment is the bodies of one parameter found in a text, in the order written.
type assignment struct {
	name   Param
	bodies []text
}

func add(found []assignment, name Param, body text) []assignment {
	for i := range found {
		if found[i].name == name {
			found[i].bodies = append(found[i].bodies, body)
			return found
		}
	}
	return append(found, assignment{name: name, bodies: []text{body}})
}

func has(found []assignment, name Param) bool {
	for _, a := range found {
		if a.name == name {
			return true
		}
	}
	return false
}

// merge appends more's bodies to found's, parameter by parameter.
func merge(found, more []assignment) []assignment {
	for _, a := range more {
		for _, b := range a.bodies {
			found = add(found, a.name, b)
		}
	}
	return found
}

// paramAt is the parameter whose name starts at i, if any.
func paramAt(t text, i int) (Param, int, bool) {
	for _, p := range []Param{IP2Nets, Routes, Networks} {
		if t.hasPrefix(i, string(p)) {
			return p, i + len(p), true
		}
	}
	return "", 0, false
}

// extractParams finds the parameter assignments in t as the script's extract_param_values
// does: first every quoted
// one, NAME = 'BODY' or NAME = "BODY" (the body ends at the next quote of the same kind and
// may span lines; NAME may end a longer word), scanning on after each; then, for a parameter
// found quoted nowhere, the first unquoted one, NAME=BODY, whose body ends where what
// follows is white space then WORD=, or ';' or the text's end after white space, and holds
// no ';' or newline.
func extractParams(t text) []assignment {
	var found []assignment
	for i := 0; i < t.len(); {
		if name, j, ok := paramAt(t, i); ok {
			j = t.skipSpace(j)
			if j < t.len() && t.r[j] == '=' {
				j = t.skipSpace(j + 1)
				if j < t.len() && (t.r[j] == '\'' || t.r[j] == '"') {
					if k := t.index(t.r[j], j+1); k >= 0 {
						found = add(found, name, t.slice(j+1, k))
						i = k + 1
						continue
					}
				}
			}
		}
		i++
	}
	for i := 0; i < t.len(); {
		name, j, ok := paramAt(t, i)
		if !ok {
			i++
			continue
		}
		if end, start, ok := unquotedBody(t, j); ok {
			if !has(found, name) {
				found = add(found, name, t.slice(start, end).strip())
			}
			i = end
			continue
		}
		i++
	}
	return found
}

// unquotedBody matches `\s*=\s*` then the body at j: it returns the body's start and end.
// The body's first character is no quote, ';' or newline; the white space after '=' gives
// back characters as a regular expression backtracks, so that a body may start with white
// space when a quote follows it.
func unquotedBody(t text, j int) (end, start int, ok bool) {
	j = t.skipSpace(j)
	if j >= t.len() || t.r[j] != '=' {
		return 0, 0, false
	}
	after := j + 1
	for s := t.skipSpace(after); s >= after; s-- {
		if s >= t.len() {
			continue
		}
		if c := t.r[s]; c == '\'' || c == '"' || c == ';' || c == '\n' {
			continue
		}
		for e := s + 1; e <= t.len(); e++ {
			if bodyEnds(t, e) {
				return e, s, true
			}
			if e < t.len() && (t.r[e] == '\n' || t.r[e] == ';') {
				break
			}
		}
	}
	return 0, 0, false
}

// bodyEnds is the lookahead that ends an unquoted body at e: white space then a word and
// '=' (the next assignment), or white space then ';', or white space then the end.
func bodyEnds(t text, e int) bool {
	k := t.skipSpace(e)
	if k == t.len() || t.r[k] == ';' {
		return true
	}
	if k == e {
		return false
	}
	w := k
	for w < t.len() && isWord(t.r[w]) {
		w++
	}
	if w == k {
		return false
	}
	w = t.skipSpace(w)
	return w < t.len() && t.r[w] == '='
}

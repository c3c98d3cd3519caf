package legacy2yaml

import (
	"unicode"
	"unicode/utf8"
)

// Pos is a place in an input: its 1-based line and column (columns count characters).
type Pos struct{ Line, Col int }

// text is a run of characters, each with the place in its input it came from, so that a
// refusal found after joining, splitting and trimming still names where the user wrote it.
type text struct {
	r  []rune
	at []Pos
	// end is where the text ends in its input (the place of an empty text).
	end Pos
}

// newText reads an input. A file is read as Python's text mode reads it (universal: "\r\n"
// and a lone "\r" are newlines); the argument and standard input are taken as given, as the
// script reads them. Text that is not UTF-8 is refused at its first bad byte.
func newText(s string, universal bool) (text, Pos, bool) {
	var t text
	line, col := 1, 1
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 {
			return text{}, Pos{line, col}, false
		}
		here := Pos{line, col}
		i += n
		if universal && r == '\r' {
			if i < len(s) && s[i] == '\n' {
				i++
			}
			r = '\n'
		}
		t.r = append(t.r, r)
		t.at = append(t.at, here)
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	t.end = Pos{line, col}
	return t, Pos{}, true
}

func (t text) String() string { return string(t.r) }
func (t text) len() int       { return len(t.r) }

// pos is where character i came from (the text's end when i is past it).
func (t text) pos(i int) Pos {
	if i < len(t.r) {
		return t.at[i]
	}
	return t.end
}

// slice is t[i:j].
func (t text) slice(i, j int) text {
	return text{r: t.r[i:j], at: t.at[i:j], end: t.pos(j)}
}

// isSpace is Python's str.isspace for one character: what its str.strip(), str.split()
// and the \s of its regular expressions treat as white space.
func isSpace(r rune) bool { return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f }

// isWord is the \w of Python's regular expressions on str.
func isWord(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) }

func isAlpha(r rune) bool { return r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' }
func isDigit(r rune) bool { return r >= '0' && r <= '9' }
func isAlnum(r rune) bool { return isAlpha(r) || isDigit(r) }

// strip drops white space at both ends (str.strip()).
func (t text) strip() text { return t.lstrip().rstrip() }

func (t text) lstrip() text {
	i := 0
	for i < len(t.r) && isSpace(t.r[i]) {
		i++
	}
	return t.slice(i, len(t.r))
}

func (t text) rstrip() text {
	j := len(t.r)
	for j > 0 && isSpace(t.r[j-1]) {
		j--
	}
	return t.slice(0, j)
}

// index is the first i >= from with t.r[i] == c, or -1.
func (t text) index(c rune, from int) int {
	for i := from; i < len(t.r); i++ {
		if t.r[i] == c {
			return i
		}
	}
	return -1
}

// hasPrefix says whether the text at i starts with s.
func (t text) hasPrefix(i int, s string) bool {
	for _, c := range s {
		if i >= len(t.r) || t.r[i] != c {
			return false
		}
		i++
	}
	return true
}

// contains says whether s occurs in the text.
func (t text) contains(s string) bool {
	for i := range t.r {
		if t.hasPrefix(i, s) {
			return true
		}
	}
	return false
}

// skipSpace is the first i >= from that is not white space.
func (t text) skipSpace(from int) int {
	for from < len(t.r) && isSpace(t.r[from]) {
		from++
	}
	return from
}

// split cuts the text at every character sep accepts (re.split on a character class),
// keeping empty pieces.
func (t text) split(sep func(rune) bool) []text {
	var out []text
	start := 0
	for i, c := range t.r {
		if sep(c) {
			out = append(out, t.slice(start, i))
			start = i + 1
		}
	}
	return append(out, t.slice(start, len(t.r)))
}

// fields is str.split(): the runs of non-space characters.
func (t text) fields() []text {
	var out []text
	for i := 0; i < len(t.r); {
		i = t.skipSpace(i)
		j := i
		for j < len(t.r) && !isSpace(t.r[j]) {
			j++
		}
		if j > i {
			out = append(out, t.slice(i, j))
		}
		i = j
	}
	return out
}

// normalize replaces every backslash-newline with one space placed at the backslash, then
// strips the ends (the script's normalize).
func (t text) normalize() text {
	var out text
	for i := 0; i < len(t.r); i++ {
		if t.r[i] == '\\' && i+1 < len(t.r) && t.r[i+1] == '\n' {
			out.r = append(out.r, ' ')
			out.at = append(out.at, t.at[i])
			i++
			continue
		}
		out.r = append(out.r, t.r[i])
		out.at = append(out.at, t.at[i])
	}
	out.end = t.end
	return out.strip()
}

// concat joins texts as they are placed.
func concat(parts ...text) text {
	var out text
	for _, p := range parts {
		out.r = append(out.r, p.r...)
		out.at = append(out.at, p.at...)
		out.end = p.end
	}
	return out
}

// char is a one-character text at p.
func char(c rune, p Pos) text { return text{r: []rune{c}, at: []Pos{p}, end: p} }

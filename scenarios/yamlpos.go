package scenarios

import (
	"bytes"
	"fmt"
	"io"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// locateBudget bounds the bytes syntaxPos parses again to find an error's column: a large
// file is located from one parse (the line and about the column) instead.
const locateBudget = 8 << 20

// firstYAMLError is the error parseYAML meets first in r: in its one document, or in a
// second one after it. It is "" when r holds at most two documents that parse.
func firstYAMLError(r io.Reader) string {
	dec := yaml.NewDecoder(r)
	for i := 0; i < 2; i++ {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			if err == io.EOF {
				return ""
			}
			return err.Error()
		}
	}
	return ""
}

// byteReader hands out its data one byte per Read, counting them.
type byteReader struct {
	data []byte
	n    int
}

func (b *byteReader) Read(p []byte) (int, error) {
	if b.n >= len(b.data) || len(p) == 0 {
		return 0, io.EOF
	}
	p[0] = b.data[b.n]
	b.n++
	return 1, nil
}

// syntaxPos finds the 0-based byte offset of the syntax error msg (as firstYAMLError
// returns it) in data. yaml.v3 names at best the line where the enclosing construct began
// (one less for a parser error) and no column. Fed one byte at a time, the parser stops
// reading at the problem, give or take the token it was reading: that bounds the search.
// The problem is where the shortest prefix of data that fails with the same message ends,
// as the parser reads its input in order. A prefix that merely leaves a flow collection
// open fails like one that closes it wrongly; with the closer yaml.v3 expected appended,
// only the second still fails, so that is tried first.
func syntaxPos(data []byte, msg string, fromLine int) int {
	br := &byteReader{data: data}
	firstYAMLError(br)
	if len(data) == 0 {
		return 0
	}
	hi := min(max(br.n, 1), len(data))
	if c := closerFor(msg); c != "" {
		if off, ok := prefixSearch(data, msg, c, fromLine, hi); ok {
			return off
		}
	}
	if off, ok := prefixSearch(data, msg, "", fromLine, hi); ok {
		return off
	}
	return hi - 1
}

// closerFor is what closes the flow collection a message says is not closed, or "".
func closerFor(msg string) string {
	switch {
	case strings.HasSuffix(msg, "expected ',' or ']'"):
		return "]"
	case strings.HasSuffix(msg, "expected ',' or '}'"):
		return "}"
	}
	return ""
}

// prefixSearch finds the shortest prefix of data[:hi] that, with suffix appended, fails
// with msg: halving over whole lines from fromLine (1-based, 0 if unknown; no prefix ending
// before it holds the problem), then over the line. It gives up (false) when data[:hi]
// does not fail so or finding the line would parse more than locateBudget bytes; past the
// budget within the line it returns the end of the part not yet ruled out.
func prefixSearch(data []byte, msg, suffix string, fromLine, hi int) (int, bool) {
	spent := 0
	fails := func(k int) bool {
		spent += k
		return firstYAMLError(io.MultiReader(bytes.NewReader(data[:k]), strings.NewReader(suffix))) == msg
	}
	ends := lineEnds(data[:hi])
	lo := min(max(fromLine-2, 0), len(ends)-1)
	if (bits.Len(uint(len(ends)-lo))+1)*hi > locateBudget || !fails(hi) {
		return 0, false
	}
	last := len(ends) - 1
	for lo < last {
		if mid := (lo + last) / 2; fails(ends[mid]) {
			last = mid
		} else {
			lo = mid + 1
		}
	}
	a, b := 0, ends[last] // data[:a] parses, data[:b] fails
	if last > 0 {
		a = ends[last-1]
	}
	for a+1 < b && spent+b <= locateBudget {
		mid := (a + b) / 2
		for mid > a+1 && !utf8.RuneStart(data[mid]) {
			mid--
		}
		if fails(mid) {
			b = mid
		} else {
			a = mid
		}
	}
	return b - 1, true
}

// badChar returns the offset and description of the first character YAML refuses (a
// control character or a byte that is not UTF-8), or -1.
func badChar(data []byte) (int, string) {
	for off := 0; off < len(data); {
		r, size := utf8.DecodeRune(data[off:])
		switch {
		case r == utf8.RuneError && size <= 1:
			return off, fmt.Sprintf("byte 0x%02X is not UTF-8", data[off])
		case r == 0:
			return off, "a NUL byte (0x00) is not allowed"
		case r < 0x20 && r != '\t' && r != '\n' && r != '\r', r >= 0x7F && r < 0xA0 && r != 0x85, r == 0xFFFE, r == 0xFFFF:
			return off, "control character " + strconv.QuoteRune(r) + " is not allowed"
		}
		off += size
	}
	return -1, ""
}

// lineEnds lists the offset just past each line of data (its newline included).
func lineEnds(data []byte) []int {
	var ends []int
	for i, c := range data {
		if c == '\n' {
			ends = append(ends, i+1)
		}
	}
	if len(ends) == 0 || ends[len(ends)-1] != len(data) {
		ends = append(ends, len(data))
	}
	return ends
}

// lineCol turns a byte offset of data into a 1-based line and a 1-based column counted in
// characters.
func lineCol(data []byte, off int) (line, col int) {
	off = min(off, len(data))
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	return bytes.Count(data[:start], []byte("\n")) + 1, utf8.RuneCount(data[start:off]) + 1
}

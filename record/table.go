package record

import (
	"bufio"
	"io"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// table writes CSV rows with the exact bytes encoding/csv.Writer writes (comma separator,
// "\n" line ends, a field quoted when it holds a comma, quote, CR or LF, starts with a space
// or is `\.`), without building a []string per row: numbers are appended in place with
// strconv.Append*, and each row goes into one reused buffer. A run writes hundreds of
// thousands of message rows, and what it allocates the collector has to chase while the
// other workers of a sweep run.
type table struct {
	w   *bufio.Writer
	row []byte // the row being built; reused
	tmp []byte // a joined field being built; reused
	n   int    // fields in row so far
}

func newTable(w io.Writer) *table {
	return &table{w: bufio.NewWriterSize(w, 64<<10), row: make([]byte, 0, 256)}
}

// sep starts a new field.
func (t *table) sep() {
	if t.n > 0 {
		t.row = append(t.row, ',')
	}
	t.n++
}

// str appends a text field, quoted as encoding/csv would.
func (t *table) str(s string) {
	t.sep()
	if !needsQuotes(s) {
		t.row = append(t.row, s...)
		return
	}
	t.row = appendQuoted(t.row, s)
}

// join appends the elements of parts separated by sep as one text field.
func (t *table) join(parts []string, sep byte) {
	t.tmp = t.tmp[:0]
	for i, p := range parts {
		if i > 0 {
			t.tmp = append(t.tmp, sep)
		}
		t.tmp = append(t.tmp, p...)
	}
	t.sep()
	if !needsQuotes(t.tmp) {
		t.row = append(t.row, t.tmp...)
		return
	}
	t.row = appendQuoted(t.row, t.tmp)
}

// int, uint and float append numbers (never quoted: they hold no special character and do
// not start with a space).
func (t *table) int(v int64) {
	t.sep()
	t.row = strconv.AppendInt(t.row, v, 10)
}

func (t *table) uint(v uint64) {
	t.sep()
	t.row = strconv.AppendUint(t.row, v, 10)
}

// float appends v in the shortest form that reads back exactly (as FormatFloat).
func (t *table) float(v float64) {
	t.sep()
	t.row = strconv.AppendFloat(t.row, v, 'g', -1, 64)
}

// end terminates the row and hands it to the buffered writer.
func (t *table) end() error {
	t.row = append(t.row, '\n')
	_, err := t.w.Write(t.row)
	t.row, t.n = t.row[:0], 0
	return err
}

// needsQuotes is encoding/csv's rule for a comma separator.
func needsQuotes[T string | []byte](f T) bool {
	if len(f) == 0 {
		return false
	}
	if len(f) == 2 && f[0] == '\\' && f[1] == '.' {
		return true
	}
	for i := 0; i < len(f); i++ {
		switch f[i] {
		case '\n', '\r', '"', ',':
			return true
		}
	}
	if f[0] < utf8.RuneSelf {
		return unicode.IsSpace(rune(f[0]))
	}
	r1, _ := utf8.DecodeRuneInString(string(f[:min(len(f), utf8.UTFMax)]))
	return unicode.IsSpace(r1)
}

// appendQuoted appends f in quotes with its quotes doubled (CR and LF kept as they are, as
// encoding/csv does without UseCRLF).
func appendQuoted[T string | []byte](b []byte, f T) []byte {
	b = append(b, '"')
	for i := 0; i < len(f); i++ {
		if f[i] == '"' {
			b = append(b, '"')
		}
		b = append(b, f[i])
	}
	return append(b, '"')
}

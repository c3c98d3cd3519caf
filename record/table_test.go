package record

import (
	"bytes"
	"encoding/csv"
	"math"
	"strconv"
	"testing"
)

// csvRow is what encoding/csv writes for fields (the format the files had before table).
func csvRow(t testing.TB, fields []string) string {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	if err := w.Write(fields); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	return b.String()
}

func tableRow(t testing.TB, fields []string, joined []string) string {
	var b bytes.Buffer
	tb := newTable(&b)
	for _, f := range fields {
		tb.str(f)
	}
	if joined != nil {
		tb.join(joined, ';')
	}
	if err := tb.end(); err != nil {
		t.Fatal(err)
	}
	if err := tb.w.Flush(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

var trickyFields = []string{
	"", "plain", "10.0.0.1@o2ib>10.0.0.2@o2ib", "a,b", `say "hi"`, "line\nbreak", "cr\rhere",
	" leading space", "\tleading tab", "trailing space ", `\.`, `\.x`, `.\`, "\u00a0nbsp first",
	"\u2003em space first", "é", "\x85next line", "\xff invalid", ";", `"`, ",",
}

// TestTableMatchesEncodingCSV checks that table writes every kind of field byte for byte as
// encoding/csv did, so results files keep their bytes.
func TestTableMatchesEncodingCSV(t *testing.T) {
	for _, f := range trickyFields {
		for _, row := range [][]string{{f}, {f, "x"}, {"x", f}, {f, f}} {
			if got, want := tableRow(t, row, nil), csvRow(t, row); got != want {
				t.Errorf("fields %q: table wrote %q, encoding/csv %q", row, got, want)
			}
		}
		for _, parts := range [][]string{{f}, {f, "b"}, {"a", f}, {}} {
			joined := ""
			for i, p := range parts {
				if i > 0 {
					joined += ";"
				}
				joined += p
			}
			if got, want := tableRow(t, []string{"x"}, parts), csvRow(t, []string{"x", joined}); got != want {
				t.Errorf("joined %q: table wrote %q, encoding/csv %q", parts, got, want)
			}
		}
	}
}

func TestTableNumbers(t *testing.T) {
	var b bytes.Buffer
	tb := newTable(&b)
	tb.int(-42)
	tb.uint(math.MaxUint64)
	tb.float(1.0 / 3)
	tb.float(math.Inf(-1))
	tb.float(1e21)
	if err := tb.end(); err != nil {
		t.Fatal(err)
	}
	_ = tb.w.Flush()
	want := csvRow(t, []string{"-42", strconv.FormatUint(math.MaxUint64, 10), FormatFloat(1.0 / 3), FormatFloat(math.Inf(-1)), FormatFloat(1e21)})
	if b.String() != want {
		t.Fatalf("got %q, want %q", b.String(), want)
	}
}

// FuzzTableMatchesEncodingCSV compares table and encoding/csv on arbitrary fields.
func FuzzTableMatchesEncodingCSV(f *testing.F) {
	for _, s := range trickyFields {
		f.Add(s, "x")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		row := []string{a, b}
		if got, want := tableRow(t, row, nil), csvRow(t, row); got != want {
			t.Fatalf("fields %q: table wrote %q, encoding/csv %q", row, got, want)
		}
		if got, want := tableRow(t, nil, row), csvRow(t, []string{a + ";" + b}); got != want {
			t.Fatalf("joined %q: table wrote %q, encoding/csv %q", row, got, want)
		}
	})
}

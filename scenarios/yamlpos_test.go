package scenarios

import (
	"fmt"
	"strings"
	"testing"
)

// TestSyntaxErrorLocations checks that YAML syntax errors, control characters and bytes that
// are not UTF-8 are reported at their own line and column (yaml.v3 alone gives the line
// where the enclosing construct began, one less for a parser error, or no line at all).
func TestSyntaxErrorLocations(t *testing.T) {
	head := "duration: 60s\nnodes:\n  client:\n    nis: [o2ib0]\n"
	var big strings.Builder
	big.WriteString(head + "faults:\n")
	big.WriteString(strings.Repeat("  - at: 1s\n    action: link_down\n    ni: client:0\n", 60000))
	var many strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&many, "y%d: 1\n", i)
	}
	cases := []struct{ name, data, want string }{
		{"bad indent", head + "   server: {}\n", "f.yaml:5:4: YAML syntax: did not find expected key (line this key up with the keys above it, or indent it under one)"},
		{"unclosed flow map", head + "  server: {\n", "f.yaml:5:11: YAML syntax: did not find expected node content (give a value here, or close what is open)"},
		{"unclosed quote", head + "  server: \"abc\n", "f.yaml:5:11: YAML syntax: found unexpected end of stream (close the quote)"},
		{"mapping in a value", head + "  server: a: b\n", "f.yaml:5:12: YAML syntax: mapping values are not allowed in this context (quote a value that contains ': ', or start a new line for a nested key)"},
		{"wrong closing bracket", head + "  server: {a: 1]\n", "f.yaml:5:16: YAML syntax: did not find expected ',' or '}' (close the mapping with }, or separate its entries with commas)"},
		{"sequence in a mapping", head + "  - x\n", "f.yaml:5:3: YAML syntax: did not find expected key (line this key up with the keys above it, or indent it under one)"},
		{"unknown anchor", "duration: 60s\nx: *nope\n", "f.yaml:2:8: YAML syntax: unknown anchor 'nope' referenced (define the anchor with &name before an alias *name refers to it)"},
		// yaml.v3 gives no line for this one: the search starts at the top of the file.
		{"unknown anchor after 3000 lines", "duration: 60s\n" + many.String() + "x: *nope\n", "f.yaml:3002:8: YAML syntax: unknown anchor 'nope' referenced (define the anchor with &name before an alias *name refers to it)"},
		{"second document", "duration: 60s\n---\nx: [\n", "f.yaml:3:4: YAML syntax: did not find expected node content (give a value here, or close what is open)"},
		{"tab", head + "\tserver: {}\n", "f.yaml:5:1: YAML syntax: found character that cannot start any token (indent with spaces; YAML does not allow tabs)"},
		{"NUL in a value", head[:len(head)-8] + "o2\x00ib0]\n", "f.yaml:4:12: YAML syntax: a NUL byte (0x00) is not allowed (the file must be UTF-8 text; a binary or UTF-16 file without a byte-order mark is not)"},
		{"NUL in a comment", "duration: 60s\n# a \x00\n", "f.yaml:2:5: YAML syntax: a NUL byte (0x00) is not allowed (the file must be UTF-8 text; a binary or UTF-16 file without a byte-order mark is not)"},
		{"bell", "duration: 60s\nname: a\x07b\n", `f.yaml:2:8: YAML syntax: control character '\a' is not allowed (the file must be UTF-8 text; a binary or UTF-16 file without a byte-order mark is not)`},
		{"not UTF-8", "duration: 60s\nnodes:\n  cli\xffent: {}\n", "f.yaml:3:6: YAML syntax: byte 0xFF is not UTF-8 (the file must be UTF-8 text; a binary or UTF-16 file without a byte-order mark is not)"},
		{"NUL deep in a large file", big.String() + "  - at: 1s\n    action: link\x00_down\n", "f.yaml:180007:17: YAML syntax: a NUL byte (0x00) is not allowed (the file must be UTF-8 text; a binary or UTF-16 file without a byte-order mark is not)"},
		// Past the re-parse budget the last byte the parser read locates the problem: the
		// right line, the column where the parser gave up.
		{"bracket deep in a large file", big.String() + "  - at: 1s\n    action: [link_down\n", "f.yaml:180007:23: YAML syntax: did not find expected ',' or ']' (close the list with ], or separate its items with commas)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Load("f.yaml", []byte(c.data))
			if err == nil {
				t.Fatal("loaded without error")
			}
			if got := err.Error(); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

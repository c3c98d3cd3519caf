package scenarios

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Load reads one scenario from data (file names it in messages), applies the overrides to
// its YAML tree, decodes it strictly, fills in defaults, expands node groups, assigns NIDs,
// imports lnetctl sections and validates everything. On failure the error is an ErrorList
// holding every problem found, each located. It never panics.
func Load(file string, data []byte, overrides ...Override) (s *Scenario, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, ErrorList{{File: file, Message: fmt.Sprintf("internal error while loading: %v", r), Hint: "please report this scenario"}}
		}
	}()
	root, errs := parseYAML(file, data)
	if errs != nil {
		return nil, errs
	}
	origins := map[*yaml.Node]string{}
	if errs := applyOverrides(root, origins, overrides); len(errs) > 0 {
		return nil, errs
	}
	d := newDecoder(file, origins)
	d.src = bytes.Split(data, []byte("\n"))
	s = &Scenario{}
	s.setDefaults()
	d.decode(root, reflect.ValueOf(s).Elem(), "", fieldOpts{})
	if root.Kind != yaml.MappingNode || d.aborted {
		return nil, d.errs.sorted()
	}
	newResolver(d, s).run()
	if len(d.errs) > 0 {
		return nil, d.errs.sorted()
	}
	s.Hash, err = s.canonicalHash()
	if err != nil {
		return nil, ErrorList{{File: file, Message: err.Error()}}
	}
	s.Ignored = ignoredSummary(d.ignored)
	return s, nil
}

// LoadFile reads and loads the scenario file at path.
func LoadFile(path string, overrides ...Override) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		msg := err.Error()
		var pe *fs.PathError
		if errors.As(err, &pe) {
			msg = pe.Err.Error()
		}
		return nil, ErrorList{{File: path, Message: "cannot read the file: " + msg}}
	}
	return Load(path, data, overrides...)
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parseYAML parses exactly one YAML document and returns its top node.
func parseYAML(file string, data []byte) (*yaml.Node, ErrorList) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF {
			return nil, ErrorList{{File: file, Line: 1, Message: "the scenario is empty", Hint: "a scenario needs at least duration and nodes"}}
		}
		return nil, ErrorList{yamlSyntaxError(file, data, err)}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err != io.EOF {
		line := extra.Line
		if err != nil {
			return nil, ErrorList{yamlSyntaxError(file, data, err)}
		}
		return nil, ErrorList{{File: file, Line: line, Message: "only one YAML document is allowed per scenario file", Hint: "remove the '---' separator"}}
	}
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		root := doc.Content[0]
		if root.Kind != yaml.MappingNode {
			return nil, ErrorList{{File: file, Line: root.Line, Col: root.Column, Message: "a scenario must be a mapping of fields (seed, duration, fabric, nodes, ...)"}}
		}
		return root, nil
	}
	return nil, ErrorList{{File: file, Line: 1, Message: "the scenario is empty"}}
}

// yamlSyntaxError locates a yaml.v3 error at its real line and column (see syntaxPos),
// naming a control character or a byte that is not UTF-8 when that is the problem.
func yamlSyntaxError(file string, data []byte, err error) *Error {
	msg, line := err.Error(), 0
	text := msg
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		text = m[2]
	} else {
		text = strings.TrimPrefix(msg, "yaml: ")
	}
	e := &Error{File: file, Message: "YAML syntax: " + text}
	off, bad := badChar(data)
	if off >= 0 && isReaderError(text) {
		e.Message, e.Hint = "YAML syntax: "+bad, "the file must be UTF-8 text; a binary or UTF-16 file without a byte-order mark is not"
	} else {
		off = syntaxPos(data, msg, line)
	}
	e.Line, e.Col = lineCol(data, off)
	lines := bytes.Split(data, []byte("\n"))
	if e.Hint == "" && e.Line <= len(lines) && bytes.Contains(lines[e.Line-1], []byte("\t")) {
		e.Hint = "indent with spaces; YAML does not allow tabs"
	}
	for _, h := range syntaxHints {
		if e.Hint == "" && strings.Contains(text, h[0]) {
			e.Hint = h[1]
		}
	}
	return e
}

// syntaxHints name the usual fix for yaml.v3's syntax messages.
var syntaxHints = [][2]string{
	{"did not find expected key", "line this key up with the keys above it, or indent it under one"},
	{"did not find expected ',' or ']'", "close the list with ], or separate its items with commas"},
	{"did not find expected ',' or '}'", "close the mapping with }, or separate its entries with commas"},
	{"did not find expected node content", "give a value here, or close what is open"},
	{"mapping values are not allowed", "quote a value that contains ': ', or start a new line for a nested key"},
	{"found unexpected end of stream", "close the quote"},
	{"cannot start any token", "quote a value that starts with @ or `"},
	{"unknown anchor", "define the anchor with &name before an alias *name refers to it"},
	{"did not find expected '-' indicator", "line this item's - up with the items above it"},
}

// isReaderError reports whether a yaml.v3 message is about the characters of the input
// rather than its structure.
func isReaderError(text string) bool {
	return strings.Contains(text, "control characters") || strings.Contains(text, "UTF-8")
}

// Canonical returns the scenario's canonical form: indented JSON of the loaded scenario with
// every default filled in, members and NIDs included, and name and description left out
// (they do not change what is simulated). Two files that mean the same thing (key order,
// units, defaults written or not, comments, wording) have the same canonical form.
func (s *Scenario) Canonical() ([]byte, error) {
	c := *s
	c.Name, c.Description = "", ""
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", " ")
	if err := enc.Encode(&c); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

package scenarios

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"reflect"
	"regexp"
	"strconv"

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
	c, err := s.Canonical()
	if err != nil {
		return nil, ErrorList{{File: file, Message: err.Error()}}
	}
	sum := sha256.Sum256(c)
	s.Hash = hex.EncodeToString(sum[:])
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

func yamlSyntaxError(file string, data []byte, err error) *Error {
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		line, _ := strconv.Atoi(m[1])
		e := &Error{File: file, Line: line, Message: "YAML syntax: " + m[2]}
		lines := bytes.Split(data, []byte("\n"))
		if line >= 1 && line <= len(lines) && bytes.Contains(lines[line-1], []byte("\t")) {
			e.Hint = "indent with spaces; YAML does not allow tabs"
		}
		return e
	}
	return &Error{File: file, Line: 1, Message: "YAML syntax: " + err.Error()}
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

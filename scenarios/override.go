package scenarios

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/lnetsim/lnetsim/sim"
)

// Override replaces one scenario field, addressed by path, before the scenario is decoded:
// `--set lnet.retry_count=3`, a sweep axis value. Path segments are mapping keys separated by
// dots, with [i] for list elements: lnet.retry_count, faults[0].at, nodes.client.count.
// Value is any YAML value (a scalar, a flow list or mapping).
type Override struct {
	Path  string
	Value *yaml.Node
	// Origin names where the override came from in error messages, in place of a file
	// position (default "--set <path>"; a sweep may say "sweep.yaml:7:5").
	Origin string
}

// origin is the label errors about this override's values carry.
func (o Override) origin() string {
	if o.Origin != "" {
		return o.Origin
	}
	return "--set " + o.Path
}

// ParseSet reads a `--set key=value` argument. The value is parsed as YAML, so
// `nodes.client.nis=[o2ib0,o2ib1]` sets a list; an empty value sets null.
func ParseSet(arg string) (Override, error) {
	key, val, ok := strings.Cut(arg, "=")
	key = strings.TrimSpace(key)
	if !ok || key == "" {
		return Override{}, fmt.Errorf("--set %s: expected key=value, e.g. --set lnet.retry_count=3", arg)
	}
	if _, err := splitPath(key); err != nil {
		return Override{}, fmt.Errorf("--set %s: %v", key, err)
	}
	n, err := ValueNode(val)
	if err != nil {
		return Override{}, fmt.Errorf("--set %s: %v", key, err)
	}
	return Override{Path: key, Value: n}, nil
}

// CheckPath reports whether p is a scenario path as --set takes it before its '=': dotted
// field names with [i] list indexes, no '=' and no surrounding space (a sweep axis names its
// path alone, and writes path=value for --set later).
func CheckPath(p string) error {
	if strings.Contains(p, "=") || strings.TrimSpace(p) != p {
		return fmt.Errorf("%q is not a scenario path: it holds '=' or surrounding space", p)
	}
	_, err := splitPath(p)
	return err
}

// PathUnit returns the unit of the scenario field at path for an axis label: "s" for times
// (durations, timeouts, intervals: a bare number in a `unit:"s"` field is seconds), "" for
// other fields and for paths that name no field.
func PathUnit(path string) string {
	segs, err := splitPath(path)
	if err != nil {
		return ""
	}
	t := reflect.TypeFor[Scenario]()
	for _, s := range segs {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch {
		case s.key == "" && t.Kind() == reflect.Slice, s.key != "" && t.Kind() == reflect.Map:
			t = t.Elem()
		case s.key != "" && t.Kind() == reflect.Struct:
			f, ok := yamlField(t, s.key)
			if !ok {
				return ""
			}
			t = f.Type
		default:
			return ""
		}
	}
	if t == reflect.TypeFor[sim.Time]() {
		return "s"
	}
	return ""
}

// yamlField finds the field of struct t that YAML key name decodes into, looking through
// ,inline fields.
func yamlField(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if opts == "inline" && f.Type.Kind() == reflect.Struct {
			if g, ok := yamlField(f.Type, name); ok {
				return g, true
			}
			continue
		}
		if tag == name && f.IsExported() {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// ValueNode parses a YAML value (as written after `key=` or in a sweep axis) into a node.
func ValueNode(val string) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(val), &doc); err != nil {
		return nil, fmt.Errorf("value %q is not valid YAML", val)
	}
	if len(doc.Content) == 0 {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}, nil
	}
	return doc.Content[0], nil
}

// pathSeg is one step of an override path: a mapping key, or a list index when key is "".
type pathSeg struct {
	key   string
	index int
}

// splitPath parses a.b[0].c into segments.
func splitPath(p string) ([]pathSeg, error) {
	var segs []pathSeg
	for _, part := range strings.Split(p, ".") {
		key, rest, _ := strings.Cut(part, "[")
		if key == "" && (len(segs) == 0 || rest == "") {
			return nil, fmt.Errorf("empty field name in path %q", p)
		}
		if key != "" {
			segs = append(segs, pathSeg{key: key})
		}
		for rest != "" {
			num, after, ok := strings.Cut(rest, "]")
			i, err := strconv.Atoi(num)
			if !ok || err != nil || i < 0 {
				return nil, fmt.Errorf("bad list index in path %q (write name[0])", p)
			}
			segs = append(segs, pathSeg{index: i})
			if after == "" {
				break
			}
			if !strings.HasPrefix(after, "[") {
				return nil, fmt.Errorf("unexpected %q in path %q", after, p)
			}
			rest = after[1:]
		}
	}
	return segs, nil
}

// applyOverrides sets each override's value in the tree rooted at root (a mapping), marking
// the new nodes in origins so later errors name the override.
func applyOverrides(root *yaml.Node, origins map[*yaml.Node]string, ovs []Override) ErrorList {
	var errs ErrorList
	for _, o := range ovs {
		if err := ApplyOverride(root, o); err != nil {
			errs = append(errs, &Error{Override: o.origin(), Path: o.Path, Message: err.Error()})
			continue
		}
		markOrigin(o.Value, o.origin(), origins)
		markCreated(root, o.origin(), origins, 0)
	}
	return errs
}

// markCreated marks the nodes an override created (keys and intermediate mappings, which
// have no position) as coming from it.
func markCreated(n *yaml.Node, origin string, origins map[*yaml.Node]string, depth int) {
	if n == nil || depth > 64 {
		return
	}
	if n.Line == 0 {
		if _, ok := origins[n]; !ok {
			origins[n] = origin
		}
	}
	for _, c := range n.Content {
		markCreated(c, origin, origins, depth+1)
	}
}

func markOrigin(n *yaml.Node, origin string, origins map[*yaml.Node]string) {
	if n == nil {
		return
	}
	origins[n] = origin
	for _, c := range n.Content {
		markOrigin(c, origin, origins)
	}
}

// ApplyOverride sets o.Value at o.Path in the YAML tree rooted at root (the scenario's top
// mapping). Missing mapping keys are created; a list index must exist (or be the list's
// length, to append). Sweeps use it to build each run's scenario.
func ApplyOverride(root *yaml.Node, o Override) error {
	segs, err := splitPath(o.Path)
	if err != nil {
		return err
	}
	if o.Value == nil {
		return fmt.Errorf("no value")
	}
	cur := root
	for i, s := range segs {
		last := i == len(segs)-1
		for cur.Kind == yaml.AliasNode {
			cur = cur.Alias
		}
		if s.key != "" {
			if isNull(cur) {
				*cur = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: cur.Line, Column: cur.Column}
			}
			if cur.Kind != yaml.MappingNode {
				return fmt.Errorf("%s is not a mapping, cannot set %q in it", describePrefix(segs[:i]), s.key)
			}
			found := false
			for j := 0; j+1 < len(cur.Content); j += 2 {
				if cur.Content[j].Value == s.key {
					if last {
						cur.Content[j+1] = o.Value
					} else {
						cur = cur.Content[j+1]
					}
					found = true
					break
				}
			}
			if !found {
				k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s.key}
				var v *yaml.Node
				switch {
				case last:
					v = o.Value
				case segs[i+1].key == "":
					return fmt.Errorf("%s has no list %q to index", describePrefix(segs[:i]), s.key)
				default:
					v = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
				}
				cur.Content = append(cur.Content, k, v)
				cur = v
			}
			continue
		}
		if cur.Kind != yaml.SequenceNode {
			return fmt.Errorf("%s is not a list", describePrefix(segs[:i]))
		}
		switch {
		case s.index < len(cur.Content):
			if last {
				cur.Content[s.index] = o.Value
			} else {
				cur = cur.Content[s.index]
			}
		case s.index == len(cur.Content):
			v := o.Value
			if !last {
				v = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			}
			cur.Content = append(cur.Content, v)
			cur = v
		default:
			return fmt.Errorf("%s has %d elements; index %d is out of range", describePrefix(segs[:i]), len(cur.Content), s.index)
		}
	}
	return nil
}

func describePrefix(segs []pathSeg) string {
	if len(segs) == 0 {
		return "the scenario"
	}
	var b strings.Builder
	for _, s := range segs {
		if s.key != "" {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.key)
		} else {
			fmt.Fprintf(&b, "[%d]", s.index)
		}
	}
	return b.String()
}

// String writes the override as `path=value` with the value in YAML flow style, the form
// ParseSet reads back; sweeps can use it in run ids and reports.
func (o Override) String() string {
	if o.Value == nil {
		return o.Path + "="
	}
	flow := *o.Value
	setFlow(&flow)
	b, err := yaml.Marshal(&flow)
	if err != nil {
		return o.Path + "=?"
	}
	return o.Path + "=" + strings.TrimSpace(string(b))
}

// setFlow turns on flow style for n (a copy) and, by copying, for its children.
func setFlow(n *yaml.Node) {
	n.Style |= yaml.FlowStyle
	n.HeadComment, n.LineComment, n.FootComment = "", "", ""
	kids := make([]*yaml.Node, len(n.Content))
	for i, c := range n.Content {
		cc := *c
		setFlow(&cc)
		kids[i] = &cc
	}
	n.Content = kids
}

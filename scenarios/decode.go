package scenarios

import (
	"encoding"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/lnetsim/lnetsim/scenarios/units"
	"github.com/lnetsim/lnetsim/sim"
)

// maxNodes bounds the work one document can cause (alias expansion included).
const maxNodes = 200_000

// loc is where a value came from: a position in the file, or a --set override.
type loc struct {
	line, col int
	override  string
}

// decoder walks a yaml.Node tree into the typed schema, strictly, recording every problem
// (with its location) instead of stopping at the first, and recording where each path's value
// was written so later checks can point at it.
type decoder struct {
	file    string
	origins map[*yaml.Node]string // nodes supplied by --set, with the override key
	errs    ErrorList
	pos     map[string]loc      // path -> location of its value
	keys    map[string][]string // mapping path -> keys present, in order
	bad     map[string]bool     // paths whose value could not be decoded
	visited int
	depth   int
	aborted bool            // decoding stopped early (too large or too deep): checks past it would mislead
	src     [][]byte        // the source's lines, to locate text inside block scalars
	ignored []string        // paths of accepted lnetctl keys the model has no use for
	empty   map[string]bool // paths written with no value (key: alone, or null)
}

// maxDepth bounds nesting (a self-referencing alias would otherwise recurse forever).
const maxDepth = 32

func newDecoder(file string, origins map[*yaml.Node]string) *decoder {
	return &decoder{file: file, origins: origins, pos: map[string]loc{}, keys: map[string][]string{}, bad: map[string]bool{}, empty: map[string]bool{}}
}

// nodeDecoder is implemented by schema types that accept more than one YAML shape (e.g. a
// scalar shorthand or a full mapping).
type nodeDecoder interface {
	decodeYAML(d *decoder, n *yaml.Node, path string)
}

// defaulter is implemented by schema types whose zero value is not the kernel's default;
// setDefaults runs before the element is decoded, so unset fields keep the default.
type defaulter interface {
	setDefaults()
}

func (d *decoder) locOf(n *yaml.Node) loc {
	if o, ok := d.origins[n]; ok {
		return loc{override: o}
	}
	return loc{line: n.Line, col: n.Column}
}

func (d *decoder) newError(l loc, path, hint, msg string) *Error {
	return &Error{File: d.file, Line: l.line, Col: l.col, Override: l.override, Path: path, Message: msg, Hint: hint}
}

// errorf records a problem located at node n.
func (d *decoder) errorf(n *yaml.Node, path, hint, format string, args ...any) {
	d.bad[path] = true
	d.errs = append(d.errs, d.newError(d.locOf(n), path, hint, fmt.Sprintf(format, args...)))
}

// abort records a problem that stops decoding: it is listed first and nothing is checked
// after it, as every later check would see values that were never read.
func (d *decoder) abort(n *yaml.Node, path, hint, format string, args ...any) {
	d.errorf(n, path, hint, format, args...)
	d.errs[len(d.errs)-1].root = true
	d.aborted = true
}

// errorAt records a problem about path, located where path (or its nearest written parent)
// appears in the source. A path whose value already failed to decode gets no second error.
func (d *decoder) errorAt(path, hint, format string, args ...any) {
	if d.bad[path] {
		return
	}
	d.errs = append(d.errs, d.newError(d.lookup(path), path, hint, fmt.Sprintf(format, args...)))
}

// has reports whether path was written in the source (or by an override).
func (d *decoder) has(path string) bool {
	_, ok := d.pos[path]
	return ok
}

// lookup finds the location of path, walking up to its parents when it was not written.
func (d *decoder) lookup(path string) loc {
	for p := path; ; {
		if l, ok := d.pos[p]; ok {
			return l
		}
		i := strings.LastIndexAny(p, ".[")
		if i <= 0 {
			if l, ok := d.pos[""]; ok {
				return l
			}
			return loc{}
		}
		p = p[:i]
	}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

var (
	timeType            = reflect.TypeOf(sim.Time(0))
	textUnmarshalerType = reflect.TypeOf((*encoding.TextUnmarshaler)(nil)).Elem()
	nodeDecoderType     = reflect.TypeOf((*nodeDecoder)(nil)).Elem()
)

// fieldOpts are per-field decoding options from struct tags.
type fieldOpts struct {
	seconds bool // unit:"s": a plain integer is a number of seconds
}

// resolve follows aliases and counts work.
func (d *decoder) resolve(n *yaml.Node) (*yaml.Node, bool) {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	d.visited++
	if d.visited == maxNodes {
		d.abort(n, "", "split the scenario or avoid deep alias expansion", "document too large: more than %d values", maxNodes)
	}
	return n, n != nil && d.visited < maxNodes
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// describe names what a node holds, for "got ..." in messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if len(n.Value) > 40 {
			return strconv.Quote(n.Value[:40] + "...")
		}
		return strconv.Quote(n.Value)
	}
	return "an unsupported value"
}

// decode stores node n into v (addressable), recording path's location.
func (d *decoder) decode(n *yaml.Node, v reflect.Value, path string, opts fieldOpts) {
	n, ok := d.resolve(n)
	if !ok {
		return
	}
	d.depth++
	defer func() { d.depth-- }()
	if d.depth > maxDepth {
		d.abort(n, path, "an alias may refer to itself", "nested too deeply")
		d.visited = maxNodes // stop here: every further value would be as deep
		return
	}
	d.pos[path] = d.locOf(n)
	if isNull(n) {
		d.empty[path] = true
		return // an empty value keeps the default
	}
	if v.CanAddr() && v.Addr().Type().Implements(nodeDecoderType) {
		v.Addr().Interface().(nodeDecoder).decodeYAML(d, n, path)
		return
	}
	t := v.Type()
	switch {
	case t == timeType:
		d.decodeTime(n, v, path, opts)
		return
	case v.CanAddr() && v.Addr().Type().Implements(textUnmarshalerType):
		if n.Kind != yaml.ScalarNode {
			d.errorf(n, path, "", "expected a single value, got %s", describe(n))
			return
		}
		if err := v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(n.Value)); err != nil {
			d.errorf(n, path, "", "%v", err)
		}
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(t.Elem()))
			if df, ok := v.Interface().(defaulter); ok {
				df.setDefaults()
			}
		}
		d.decode(n, v.Elem(), path, opts)
	case reflect.Struct:
		d.decodeStruct(n, v, path)
	case reflect.Slice:
		d.decodeSlice(n, v, path, opts)
	case reflect.Map:
		d.decodeMap(n, v, path, opts)
	case reflect.String:
		if n.Kind != yaml.ScalarNode {
			d.errorf(n, path, "", "expected a single value, got %s", describe(n))
			return
		}
		v.SetString(n.Value)
	case reflect.Bool:
		d.decodeBool(n, v, path)
	case reflect.Int, reflect.Int64, reflect.Int32:
		d.decodeInt(n, v, path)
	case reflect.Uint64, reflect.Uint32, reflect.Uint:
		d.decodeUint(n, v, path)
	case reflect.Float64:
		d.decodeFloat(n, v, path)
	default:
		d.errorf(n, path, "", "this field cannot be set from a scenario file")
	}
}

func (d *decoder) scalar(n *yaml.Node, path, want string) (string, bool) {
	if n.Kind != yaml.ScalarNode {
		d.errorf(n, path, "", "expected %s, got %s", want, describe(n))
		return "", false
	}
	return n.Value, true
}

func (d *decoder) decodeTime(n *yaml.Node, v reflect.Value, path string, opts fieldOpts) {
	s, ok := d.scalar(n, path, "a duration")
	if !ok {
		return
	}
	var t sim.Time
	var err error
	if opts.seconds {
		t, err = units.ParseSeconds(s)
	} else {
		t, err = units.ParseDuration(s)
	}
	if err != nil {
		d.timeError(n, path, s, opts, err)
		return
	}
	if opts.seconds && t%sim.Second != 0 {
		// The kernel keeps these tunables (and fault rule intervals and latencies) as
		// integer seconds; the model would truncate, so 500ms would silently mean 0.
		d.errorf(n, path, "the kernel keeps it in whole seconds, e.g. 1 or 2s", "%s is not a whole number of seconds", s)
		return
	}
	v.SetInt(int64(t))
}

// timeError reports a duration that did not parse; a negative one (which would parse
// without its sign) is told to be positive rather than to be written with a unit.
func (d *decoder) timeError(n *yaml.Node, path, s string, opts fieldOpts, err error) {
	if abs, neg := strings.CutPrefix(strings.TrimSpace(s), "-"); neg {
		parse := units.ParseDuration
		if opts.seconds {
			parse = units.ParseSeconds
		}
		if _, perr := parse(abs); perr == nil {
			d.errorf(n, path, "e.g. "+abs, "must be positive, got %s", s)
			return
		}
	}
	d.errorf(n, path, "", "%v", err)
}

func (d *decoder) decodeBool(n *yaml.Node, v reflect.Value, path string) {
	s, ok := d.scalar(n, path, "true or false")
	if !ok {
		return
	}
	switch strings.ToLower(s) {
	case "true", "1", "yes", "on":
		v.SetBool(true)
	case "false", "0", "no", "off":
		v.SetBool(false)
	default:
		d.errorf(n, path, "", "expected true or false (or 1/0 as lnetctl prints), got %s", describe(n))
	}
}

func (d *decoder) decodeInt(n *yaml.Node, v reflect.Value, path string) {
	s, ok := d.scalar(n, path, "an integer")
	if !ok {
		return
	}
	i, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), intBase(s), 64)
	if err != nil || v.OverflowInt(i) {
		hint := ""
		if _, ferr := strconv.ParseFloat(s, 64); ferr == nil {
			hint = "a whole number is needed"
		}
		if err != nil && strings.Contains(err.Error(), "range") || err == nil {
			d.errorf(n, path, hint, "%s is out of range", s)
			return
		}
		d.errorf(n, path, hint, "expected an integer, got %s", describe(n))
		return
	}
	v.SetInt(i)
}

// intBase is 0 (prefix decides) for 0x, 0o and 0b numbers and 10 otherwise, so a leading
// zero never means octal.
func intBase(s string) int {
	t := strings.TrimLeft(s, "+-")
	if len(t) > 2 && t[0] == '0' && strings.ContainsRune("xXoObB", rune(t[1])) {
		return 0
	}
	return 10
}

func (d *decoder) decodeUint(n *yaml.Node, v reflect.Value, path string) {
	s, ok := d.scalar(n, path, "a non-negative integer")
	if !ok {
		return
	}
	i, err := strconv.ParseUint(strings.ReplaceAll(s, "_", ""), intBase(s), 64)
	if err != nil || v.OverflowUint(i) {
		d.errorf(n, path, "", "expected a non-negative integer, got %s", describe(n))
		return
	}
	v.SetUint(i)
}

func (d *decoder) decodeFloat(n *yaml.Node, v reflect.Value, path string) {
	s, ok := d.scalar(n, path, "a number")
	if !ok {
		return
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		d.errorf(n, path, "", "expected a number, got %s", describe(n))
		return
	}
	v.SetFloat(f)
}

func (d *decoder) decodeSlice(n *yaml.Node, v reflect.Value, path string, opts fieldOpts) {
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, path, "write a list: [a, b] or one '- item' per line", "expected a list, got %s", describe(n))
		return
	}
	out := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, c := range n.Content {
		e := out.Index(i)
		if df, ok := e.Addr().Interface().(defaulter); ok {
			df.setDefaults()
		}
		d.decode(c, e, index(path, i), opts)
	}
	v.Set(out)
}

// mappingPairs checks that n is a mapping with scalar, unique keys and returns its pairs.
func (d *decoder) mappingPairs(n *yaml.Node, path string) (keys []*yaml.Node, vals []*yaml.Node) {
	if n.Kind != yaml.MappingNode {
		d.errorf(n, path, "", "expected a mapping (key: value lines), got %s", describe(n))
		return nil, nil
	}
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			d.errorf(k, path, "", "keys must be plain names, got %s", describe(k))
			continue
		}
		if first, dup := seen[k.Value]; dup {
			d.errorf(k, join(path, k.Value), "remove one of them", "key %q given twice (first at line %d)", k.Value, first.Line)
			continue
		}
		seen[k.Value] = k
		keys, vals = append(keys, k), append(vals, val)
	}
	return keys, vals
}

func (d *decoder) decodeMap(n *yaml.Node, v reflect.Value, path string, opts fieldOpts) {
	keys, vals := d.mappingPairs(n, path)
	if n.Kind != yaml.MappingNode {
		return
	}
	if v.IsNil() {
		v.Set(reflect.MakeMap(v.Type()))
	}
	et := v.Type().Elem()
	for i, k := range keys {
		p := join(path, k.Value)
		d.keys[path] = append(d.keys[path], k.Value)
		e := reflect.New(et).Elem()
		if old := v.MapIndex(reflect.ValueOf(k.Value)); old.IsValid() {
			e.Set(old)
		}
		if et.Kind() == reflect.Pointer && e.IsNil() {
			e.Set(reflect.New(et.Elem()))
			if df, ok := e.Interface().(defaulter); ok {
				df.setDefaults()
			}
		} else if df, ok := e.Addr().Interface().(defaulter); ok && !v.MapIndex(reflect.ValueOf(k.Value)).IsValid() {
			df.setDefaults()
		}
		d.decode(vals[i], e, p, opts)
		v.SetMapIndex(reflect.ValueOf(k.Value), e)
	}
}

// structField is one settable field of a schema struct.
type structField struct {
	name  string
	index []int
	opts  fieldOpts
}

type structInfo struct {
	fields []structField
	byName map[string]*structField
}

var structCache sync.Map // reflect.Type -> *structInfo

// fieldsOf lists the yaml-tagged fields of t, following ",inline" embedding, with alias names
// from `alias:"..."` tags.
func fieldsOf(t reflect.Type) *structInfo {
	if si, ok := structCache.Load(t); ok {
		return si.(*structInfo)
	}
	si := &structInfo{byName: map[string]*structField{}}
	var walk func(t reflect.Type, idx []int)
	walk = func(t reflect.Type, idx []int) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag := f.Tag.Get("yaml")
			if tag == "-" || !f.IsExported() {
				continue
			}
			name, rest, _ := strings.Cut(tag, ",")
			fidx := append(append([]int(nil), idx...), i)
			if rest == "inline" {
				walk(f.Type, fidx)
				continue
			}
			if name == "" {
				continue
			}
			sf := structField{name: name, index: fidx, opts: fieldOpts{seconds: f.Tag.Get("unit") == "s"}}
			si.fields = append(si.fields, sf)
			for _, a := range strings.Split(f.Tag.Get("alias"), ",") {
				if a != "" {
					si.byName[a] = &si.fields[len(si.fields)-1]
				}
			}
		}
	}
	walk(t, nil)
	for i := range si.fields {
		si.byName[si.fields[i].name] = &si.fields[i]
	}
	// Aliases were recorded before the slice stopped growing; re-point them.
	for k, f := range si.byName {
		for i := range si.fields {
			if si.fields[i].name == f.name {
				si.byName[k] = &si.fields[i]
			}
		}
	}
	structCache.Store(t, si)
	return si
}

func (d *decoder) decodeStruct(n *yaml.Node, v reflect.Value, path string) {
	keys, vals := d.mappingPairs(n, path)
	si := fieldsOf(v.Type())
	for i, k := range keys {
		f, ok := si.byName[k.Value]
		if !ok {
			hint, best := suggest(k.Value, si)
			d.errorf(k, join(path, k.Value), hint, "unknown field %q", k.Value)
			if best != "" {
				// A misspelt section explains whatever its absence causes (no node named
				// ...): listed first; and "best is required" would only repeat it.
				d.errs[len(d.errs)-1].root = path == ""
				d.bad[join(path, best)] = true
			}
			continue
		}
		d.keys[path] = append(d.keys[path], f.name)
		d.decode(vals[i], v.FieldByIndex(f.index), join(path, f.name), f.opts)
	}
}

// suggest names the closest known field (returned as best too), or lists them all when
// there are few.
func suggest(key string, si *structInfo) (hint, best string) {
	bestD := 3
	names := make([]string, 0, len(si.fields))
	for _, f := range si.fields {
		names = append(names, f.name)
		if dd := editDistance(strings.ToLower(key), f.name); dd < bestD {
			best, bestD = f.name, dd
		}
	}
	if best != "" {
		return "did you mean " + best + "?", best
	}
	sort.Strings(names)
	if len(names) <= 16 {
		return "known fields: " + strings.Join(names, ", "), ""
	}
	return "", ""
}

// editDistance is the Levenshtein distance between a and b (short strings only).
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 99
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

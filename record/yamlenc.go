package record

import (
	"cmp"
	"encoding"
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// yamlWriter writes the block YAML yaml.v3 writes (yaml.Marshal's bytes) for the values
// counters.yaml holds: maps with string keys, structs (yaml tags, omitempty), slices, strings,
// numbers, bools and nil, at yaml.v3's indentation (4, a mapping or sequence in a sequence
// item 2 past its dash). It is eight times faster than yaml.v3, whose emitter keeps every event
// of a document (the counters of a 1000-node cluster took 1.8 s, 40% of the run). What it
// cannot write as yaml.v3 would, it refuses (errYAMLFallback) and the caller marshals with
// yaml.v3: anything with a Marshaler, time values, yaml.Node, inline or flow fields, keys that
// are not strings, multi-line strings, single scalars that yaml.v3 renders over more than
// one line, and strings whose rendering depends on their depth (U+2028 or U+2029 inside
// quotes). How yaml.v3 renders a string (plain, quoted, which quotes) and orders a map's keys
// is not re-implemented: both are asked of yaml.v3 once per distinct string or key set.
type yamlWriter struct {
	out    []byte
	vals   map[string]string // a string's rendering as a value
	keys   map[string]string // a string's rendering as a mapping key
	orders map[string][]string
	fields map[reflect.Type][]yamlField
	types  map[reflect.Type]typeTraits
	sig    []string

	lastType   reflect.Type // the type traits answered last, and its answer
	lastTraits typeTraits
	lastStruct reflect.Type // the struct type entries listed last, and its fields
	lastFields []yamlField
	spare      [][]entry // entry lists of mappings written, for the next ones
}

// takeEntries returns an empty entry list with room for n, reused when one is spare.
func (w *yamlWriter) takeEntries(n int) []entry {
	if k := len(w.spare); k > 0 {
		es := w.spare[k-1]
		w.spare = w.spare[:k-1]
		if cap(es) >= n {
			return es[:0]
		}
	}
	return make([]entry, 0, n)
}

// giveEntries hands back a list takeEntries returned once its mapping is written.
func (w *yamlWriter) giveEntries(es []entry) { w.spare = append(w.spare, es) }

// typeTraits is what kindOf and yamlIsZero ask of a type, answered once per type: the
// method-set searches of reflect.Type.Implements cost more than writing a counter.
type typeTraits struct {
	fallback bool // yaml.v3 treats it specially in a way not re-implemented here
	text     bool // an encoding.TextMarshaler: written as its text
	zeroer   bool // a yaml.IsZeroer
}

func (w *yamlWriter) traits(t reflect.Type) typeTraits {
	if t == w.lastType {
		return w.lastTraits // runs of values of one type (a struct's counters) skip the map
	}
	tr, ok := w.types[t]
	if !ok {
		tr = typeTraits{
			fallback: t == durationType || t == timeType || t == nodeType || t.Implements(yamlMarshalerType) ||
				(t.Kind() == reflect.Pointer && (t.Elem() == timeType || t.Elem() == nodeType)),
			text:   t.Implements(textMarshalerType),
			zeroer: t.Implements(isZeroerType),
		}
		if w.types == nil {
			w.types = map[reflect.Type]typeTraits{}
		}
		w.types[t] = tr
	}
	w.lastType, w.lastTraits = t, tr
	return tr
}

var errYAMLFallback = errors.New("record: value needs yaml.v3")

var (
	yamlMarshalerType = reflect.TypeFor[yaml.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	isZeroerType      = reflect.TypeFor[yaml.IsZeroer]()
	durationType      = reflect.TypeFor[time.Duration]()
	timeType          = reflect.TypeFor[time.Time]()
	nodeType          = reflect.TypeFor[yaml.Node]()
)

// fastYAML renders v as yaml.Marshal(v) would, or returns errYAMLFallback.
func fastYAML(v any) ([]byte, error) {
	w := &yamlWriter{vals: map[string]string{}, keys: map[string]string{}, orders: map[string][]string{},
		fields: map[reflect.Type][]yamlField{}}
	in := reflect.ValueOf(v)
	kind, err := w.kindOf(&in)
	if err != nil {
		return nil, err
	}
	if kind != yamlMapping || in.Kind() != reflect.Map || in.Len() == 0 {
		return nil, errYAMLFallback // only non-empty top-level maps are written here
	}
	es, err := w.entries(in)
	if err != nil {
		return nil, err
	}
	if err := w.mapping(es, -1, false); err != nil {
		return nil, err
	}
	return w.out, nil
}

type yamlKind int

const (
	yamlScalar yamlKind = iota
	yamlMapping
	yamlSequence
)

// kindOf follows pointers and interfaces as yaml.v3 does (checking each type it meets for
// the interfaces yaml.v3 treats specially), leaves *v at the value to write and says what
// it is. A nil pointer or interface is a scalar (null); a TextMarshaler becomes its text.
func (w *yamlWriter) kindOf(v *reflect.Value) (yamlKind, error) {
	for {
		if !v.IsValid() {
			return yamlScalar, nil
		}
		t := v.Type()
		if v.Kind() == reflect.Interface {
			if v.IsNil() {
				return yamlScalar, nil
			}
			*v = v.Elem()
			continue
		}
		if v.Kind() == reflect.Pointer && v.IsNil() {
			return yamlScalar, nil
		}
		tr := w.traits(t)
		if tr.fallback {
			return 0, errYAMLFallback
		}
		if tr.text {
			text, err := v.Interface().(encoding.TextMarshaler).MarshalText()
			if err != nil {
				return 0, errYAMLFallback
			}
			*v = reflect.ValueOf(string(text))
			return yamlScalar, nil
		}
		switch v.Kind() {
		case reflect.Pointer:
			*v = v.Elem()
			continue
		case reflect.Map:
			if k := t.Key().Kind(); k != reflect.String && !isIntKind(k) && !isUintKind(k) {
				return 0, errYAMLFallback
			}
			return yamlMapping, nil
		case reflect.Struct:
			return yamlMapping, nil
		case reflect.Slice, reflect.Array:
			return yamlSequence, nil
		case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
			reflect.Float32, reflect.Float64:
			return yamlScalar, nil
		}
		return 0, errYAMLFallback
	}
}

// scalar appends v's rendering (after kindOf).
func (w *yamlWriter) scalar(v reflect.Value) error {
	if !v.IsValid() || (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) && v.IsNil() {
		w.out = append(w.out, "null"...)
		return nil
	}
	switch v.Kind() {
	case reflect.String:
		s := v.String()
		r, ok := w.vals[s]
		if !ok {
			b, err := yaml.Marshal(map[string]string{"k": s})
			if err != nil {
				return errYAMLFallback
			}
			line, ok := strings.CutPrefix(string(b), "k: ")
			if !ok || strings.IndexByte(line, '\n') != len(line)-1 {
				return errYAMLFallback
			}
			r = line[:len(line)-1]
			// yaml.v3 breaks a quoted scalar at U+2028/U+2029 and indents the next line
			// to the scalar's depth: the rendering must not depend on where it stands.
			if nb, err := yaml.Marshal(map[string]map[string]string{"a": {"k": s}}); err != nil || string(nb) != "a:\n    k: "+line {
				return errYAMLFallback
			}
			w.vals[s] = r
		}
		w.out = append(w.out, r...)
	case reflect.Bool:
		w.out = strconv.AppendBool(w.out, v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		w.out = strconv.AppendInt(w.out, v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		w.out = strconv.AppendUint(w.out, v.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		prec := 64
		if v.Kind() == reflect.Float32 {
			prec = 32
		}
		s := strconv.FormatFloat(v.Float(), 'g', -1, prec)
		switch s {
		case "+Inf":
			s = ".inf"
		case "-Inf":
			s = "-.inf"
		case "NaN":
			s = ".nan"
		}
		w.out = append(w.out, s...)
	default:
		return errYAMLFallback
	}
	return nil
}

// key appends a mapping key's rendering followed by ':'.
func (w *yamlWriter) key(s string) error {
	r, err := w.renderKey(s)
	if err != nil {
		return err
	}
	w.out = append(w.out, r...)
	w.out = append(w.out, ':')
	return nil
}

// renderKey returns how yaml.v3 writes s as a mapping key.
func (w *yamlWriter) renderKey(s string) (string, error) {
	r, ok := w.keys[s]
	if !ok {
		b, err := yaml.Marshal(map[string]int{s: 0})
		if err != nil {
			return "", errYAMLFallback
		}
		line, ok := strings.CutSuffix(string(b), ": 0\n")
		if !ok || strings.IndexByte(line, '\n') >= 0 {
			return "", errYAMLFallback
		}
		r = line
		if nb, err := yaml.Marshal(map[string]map[string]int{"a": {s: 0}}); err != nil || string(nb) != "a:\n    "+line+": 0\n" {
			return "", errYAMLFallback // the rendering depends on the depth (see scalar)
		}
		w.keys[s] = r
	}
	return r, nil
}

// childIndent is yaml_emitter_increase_indent for a block collection: 2 past the dash for a
// collection that is a sequence item, else the next multiple of 4 (0 at the top).
func childIndent(parent int, seqItem bool) int {
	if parent < 0 {
		return 0
	}
	if seqItem {
		return parent + 2
	}
	return 4 * ((parent + 4) / 4)
}

// spaces holds the indentation pad appends from: one copy per line instead of a byte at a
// time (counters.yaml of a few hundred nodes has hundreds of thousands of lines).
const spaces = "                                                                "

func (w *yamlWriter) pad(n int) {
	for n > len(spaces) {
		w.out = append(w.out, spaces...)
		n -= len(spaces)
	}
	w.out = append(w.out, spaces[:n]...)
}

// entry is one key and value of a mapping, in writing order.
type entry struct {
	key string
	val reflect.Value
	raw bool // key is already rendered (an integer key, a struct field's name)
}

// entries lists a map's or struct's entries as yaml.v3 writes them: a map's keys in
// yaml.v3's order, a struct's exported fields in declaration order under their yaml names,
// omitempty fields left out when yaml.v3's isZero holds.
func (w *yamlWriter) entries(v reflect.Value) ([]entry, error) {
	if v.Kind() == reflect.Map {
		kt := v.Type().Key()
		if kt.Implements(textMarshalerType) || kt.Implements(yamlMarshalerType) {
			return nil, errYAMLFallback
		}
		if isIntKind(kt.Kind()) || isUintKind(kt.Kind()) {
			return intKeyEntries(v), nil
		}
		keys := v.MapKeys()
		w.sig = w.sig[:0]
		for _, k := range keys {
			w.sig = append(w.sig, k.String())
		}
		slices.Sort(w.sig)
		// The cache key spells every key with its length: a plain join made the empty map
		// and the map with the one key "" (or keys holding the separator) share an order.
		var sb strings.Builder
		for _, k := range w.sig {
			sb.WriteString(strconv.Itoa(len(k)))
			sb.WriteByte(':')
			sb.WriteString(k)
		}
		sig := sb.String()
		order, ok := w.orders[sig]
		if !ok {
			var err error
			if order, err = yamlKeyOrder(w.sig); err != nil {
				return nil, err
			}
			w.orders[sig] = order
		}
		es := w.takeEntries(len(order))
		for _, k := range order {
			es = append(es, entry{key: k, val: v.MapIndex(reflect.ValueOf(k).Convert(v.Type().Key()))})
		}
		return es, nil
	}
	t := v.Type()
	fields, ok := w.lastFields, t == w.lastStruct
	if !ok {
		fields, ok = w.fields[t]
	}
	if !ok {
		var err error
		if fields, err = structFields(v.Type()); err != nil {
			return nil, err
		}
		// Each field's key is rendered once per type, not once per value written (a key
		// that yaml.v3 renders in a way not handled here sends the whole document to
		// yaml.v3 whether or not the field is written: same bytes either way).
		for i := range fields {
			if fields[i].rendered, err = w.renderKey(fields[i].key); err != nil {
				return nil, err
			}
		}
		w.fields[v.Type()] = fields
	}
	w.lastStruct, w.lastFields = t, fields
	es := w.takeEntries(len(fields))
	for _, f := range fields {
		fv := v.FieldByIndex(f.index)
		if f.omitEmpty {
			z, err := w.yamlIsZero(fv)
			if err != nil {
				return nil, err
			}
			if z {
				continue
			}
		}
		es = append(es, entry{key: f.rendered, val: fv, raw: true})
	}
	return es, nil
}

// intKeyEntries lists an integer-keyed map's entries as yaml.v3 writes them: keys in
// ascending numeric order (its keyList compares numbers by value), each written plain in
// decimal.
func intKeyEntries(v reflect.Value) []entry {
	keys := v.MapKeys()
	signed := isIntKind(v.Type().Key().Kind())
	slices.SortFunc(keys, func(a, b reflect.Value) int {
		if signed {
			return cmp.Compare(a.Int(), b.Int())
		}
		return cmp.Compare(a.Uint(), b.Uint())
	})
	es := make([]entry, len(keys))
	for i, k := range keys {
		var key string
		if signed {
			key = strconv.FormatInt(k.Int(), 10)
		} else {
			key = strconv.FormatUint(k.Uint(), 10)
		}
		es[i] = entry{key: key, val: v.MapIndex(k), raw: true}
	}
	return es
}

func isIntKind(k reflect.Kind) bool {
	return k == reflect.Int || k == reflect.Int8 || k == reflect.Int16 || k == reflect.Int32 || k == reflect.Int64
}

func isUintKind(k reflect.Kind) bool {
	return k == reflect.Uint || k == reflect.Uint8 || k == reflect.Uint16 || k == reflect.Uint32 || k == reflect.Uint64 || k == reflect.Uintptr
}

// yamlKeyOrder asks yaml.v3 in which order it writes a map with these keys.
func yamlKeyOrder(keys []string) ([]string, error) {
	stub := make(map[string]int, len(keys))
	for _, k := range keys {
		stub[k] = 0
	}
	b, err := yaml.Marshal(stub)
	if err != nil {
		return nil, errYAMLFallback
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil || len(doc.Content) != 1 || len(doc.Content[0].Content) != 2*len(keys) {
		return nil, errYAMLFallback
	}
	order := make([]string, len(keys))
	for i := range order {
		order[i] = doc.Content[0].Content[2*i].Value
	}
	if !slices.Equal(slices.Sorted(slices.Values(order)), keys) {
		return nil, errYAMLFallback
	}
	return order, nil
}

type yamlField struct {
	index     []int // field path: more than one step through ,inline structs
	key       string
	rendered  string // key as yaml.v3 writes it (set by entries)
	omitEmpty bool
}

// structFields is yaml.v3's getStructInfo for the structs written here: exported fields in
// order under their yaml names, ,inline struct fields spliced in place. Flow fields, inline
// maps or pointers and untagged embedded fields fall back.
func structFields(t reflect.Type) ([]yamlField, error) {
	var out []yamlField
	seen := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.PkgPath != "" && !f.Anonymous {
			continue
		}
		tag := f.Tag.Get("yaml")
		if tag == "" && !strings.Contains(string(f.Tag), ":") {
			tag = string(f.Tag)
		}
		if tag == "-" {
			continue
		}
		yf := yamlField{index: []int{i}}
		inline := false
		name, flags, _ := strings.Cut(tag, ",")
		if flags != "" {
			for _, fl := range strings.Split(flags, ",") {
				switch fl {
				case "omitempty":
					yf.omitEmpty = true
				case "inline":
					inline = true
				default:
					return nil, errYAMLFallback
				}
			}
		}
		if inline {
			if f.Type.Kind() != reflect.Struct || f.PkgPath != "" {
				return nil, errYAMLFallback
			}
			inner, err := structFields(f.Type)
			if err != nil {
				return nil, err
			}
			for _, g := range inner {
				if seen[g.key] {
					return nil, errYAMLFallback
				}
				seen[g.key] = true
				g.index = append([]int{i}, g.index...)
				out = append(out, g)
			}
			continue
		}
		if f.Anonymous {
			return nil, errYAMLFallback
		}
		yf.key = name
		if name == "" {
			yf.key = strings.ToLower(f.Name)
		}
		if seen[yf.key] {
			return nil, errYAMLFallback
		}
		seen[yf.key] = true
		out = append(out, yf)
	}
	return out, nil
}

// yamlIsZero is yaml.v3's isZero (omitempty); an IsZeroer falls back.
func (w *yamlWriter) yamlIsZero(v reflect.Value) (bool, error) {
	if w.traits(v.Type()).zeroer {
		return false, errYAMLFallback
	}
	switch v.Kind() {
	case reflect.String:
		return v.Len() == 0, nil
	case reflect.Interface, reflect.Pointer:
		return v.IsNil(), nil
	case reflect.Slice, reflect.Map:
		return v.Len() == 0, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0, nil
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0, nil
	case reflect.Bool:
		return !v.Bool(), nil
	case reflect.Struct:
		t := v.Type()
		for i := t.NumField() - 1; i >= 0; i-- {
			if t.Field(i).PkgPath != "" {
				continue
			}
			z, err := w.yamlIsZero(v.Field(i))
			if err != nil || !z {
				return false, err
			}
		}
		return true, nil
	}
	return false, nil
}

// mapping writes a non-empty mapping's entries; its parent collection is at indent parent;
// seqItem: it is a sequence item, its first key already follows the "- ".
func (w *yamlWriter) mapping(es []entry, parent int, seqItem bool) error {
	ind := childIndent(parent, seqItem)
	for i, e := range es {
		if i > 0 || !seqItem {
			w.pad(ind)
		}
		if e.raw {
			w.out = append(w.out, e.key...)
			w.out = append(w.out, ':')
		} else if err := w.key(e.key); err != nil {
			return err
		}
		if err := w.value(e.val, ind, false); err != nil {
			return err
		}
	}
	return nil
}

// value writes what follows a "key:" (seqItem false) or a "-" (seqItem true) of a
// collection at indent ind, through the end of its last line.
func (w *yamlWriter) value(v reflect.Value, ind int, seqItem bool) error {
	kind, err := w.kindOf(&v)
	if err != nil {
		return err
	}
	switch kind {
	case yamlMapping:
		es, err := w.entries(v)
		if err != nil {
			return err
		}
		defer w.giveEntries(es)
		if len(es) == 0 {
			w.out = append(w.out, " {}\n"...)
			return nil
		}
		if seqItem {
			w.out = append(w.out, ' ')
		} else {
			w.out = append(w.out, '\n')
		}
		return w.mapping(es, ind, seqItem)
	case yamlSequence:
		if v.Len() == 0 {
			w.out = append(w.out, " []\n"...)
			return nil
		}
		if seqItem {
			w.out = append(w.out, ' ')
		} else {
			w.out = append(w.out, '\n')
		}
		return w.sequence(v, ind, seqItem)
	}
	w.out = append(w.out, ' ')
	if err := w.scalar(v); err != nil {
		return err
	}
	w.out = append(w.out, '\n')
	return nil
}

// sequence writes a non-empty sequence whose parent collection is at indent parent.
func (w *yamlWriter) sequence(v reflect.Value, parent int, seqItem bool) error {
	ind := childIndent(parent, seqItem)
	for i := range v.Len() {
		if i > 0 || !seqItem {
			w.pad(ind)
		}
		w.out = append(w.out, '-')
		if err := w.value(v.Index(i), ind, true); err != nil {
			return err
		}
	}
	return nil
}

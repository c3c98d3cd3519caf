package record

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/lnetsim/lnetsim/model/lnet"
)

// fuzzStruct has the struct features counters.yaml's show types use: tags, omitempty,
// pointers, nested slices and maps.
type fuzzStruct struct {
	Name  string         `yaml:"name"`
	Opt   string         `yaml:"opt,omitempty"`
	N     int64          `yaml:"n,omitempty"`
	F     float64        `yaml:"f"`
	Sub   *fuzzStruct    `yaml:"sub,omitempty"`
	Nil   *fuzzStruct    `yaml:"nil"`
	List  []any          `yaml:"list"`
	M     map[string]any `yaml:"m,omitempty"`
	Plain bool
}

// yamlGen builds a value from fuzz input: the bytes choose shapes and numbers, the strings
// come from a pool split out of the fuzz string.
type yamlGen struct {
	b    []byte
	strs []string
	n    int // values built, to bound the size
}

func (g *yamlGen) byte() byte {
	if len(g.b) == 0 {
		return 0
	}
	c := g.b[0]
	g.b = g.b[1:]
	return c
}

func (g *yamlGen) u64() uint64 {
	var v uint64
	for range 8 {
		v = v<<8 | uint64(g.byte())
	}
	return v
}

func (g *yamlGen) str() string { return g.strs[int(g.byte())%len(g.strs)] }

func (g *yamlGen) mapping(depth int) map[string]any {
	m := map[string]any{}
	for n := int(g.byte() % 5); n > 0; n-- {
		m[g.str()] = g.value(depth + 1)
	}
	return m
}

func (g *yamlGen) value(depth int) any {
	g.n++
	kind := g.byte() % 20
	if depth > 5 || g.n > 200 {
		kind %= 7 // scalars only
	}
	switch kind {
	case 0:
		return g.str()
	case 1:
		return int(int64(g.u64()))
	case 2:
		return g.u64()
	case 3:
		return math.Float64frombits(g.u64())
	case 4:
		return float32(math.Float64frombits(g.u64()))
	case 5:
		return g.byte()%2 == 0
	case 6:
		return nil
	case 7, 8:
		return g.mapping(depth)
	case 9, 10:
		var l []any
		for n := int(g.byte() % 4); n > 0; n-- {
			l = append(l, g.value(depth+1))
		}
		return l
	case 11:
		m := map[string]int{}
		for n := int(g.byte() % 4); n > 0; n-- {
			m[g.str()] = int(int8(g.byte()))
		}
		return m
	case 12:
		var l []string
		for n := int(g.byte() % 4); n > 0; n-- {
			l = append(l, g.str())
		}
		return l
	case 13:
		return g.fuzzStruct(depth)
	case 14:
		return &fuzzStruct{Name: g.str(), List: []any{g.value(depth + 1)}}
	case 15:
		return lnet.NetShow{NetType: g.str(), NIs: []lnet.NIShow{{NID: g.str(), Status: g.str()}}}
	case 16:
		return [][]string{{g.str()}, {}, nil}
	case 17: // lnet.NIShow's interfaces: map[int]string
		m := map[int]string{}
		for n := int(g.byte() % 4); n > 0; n-- {
			m[int(int64(g.u64()))] = g.str()
		}
		return m
	case 18:
		m := map[uint32]any{}
		for n := int(g.byte() % 4); n > 0; n-- {
			m[uint32(g.u64())] = g.value(depth + 1)
		}
		return m
	default:
		var p *int
		if g.byte()%2 == 0 {
			v := int(int16(g.byte()))
			p = &v
		}
		return map[string]*int{g.str(): p}
	}
}

func (g *yamlGen) fuzzStruct(depth int) fuzzStruct {
	s := fuzzStruct{Name: g.str(), Opt: g.str(), N: int64(int8(g.byte())), F: float64(int8(g.byte())) / 4, Plain: g.byte()%2 == 0}
	if g.byte()%3 == 0 && depth < 4 {
		sub := g.fuzzStruct(depth + 1)
		s.Sub = &sub
	}
	if g.byte()%2 == 0 {
		s.List = []any{g.value(depth + 1)}
	}
	if g.byte()%2 == 0 {
		s.M = g.mapping(depth + 1)
	}
	return s
}

// FuzzFastYAML: counters.yaml's hand-written writer gives exactly yaml.Marshal's bytes
// whenever it does not fall back, and marshalYAML (the writer or the key-by-key fallback)
// always gives yaml.Marshal's bytes, for maps built from the input: strings with odd
// characters (the fuzz string, split at '|', made valid UTF-8), all number kinds and special floats, nested
// maps, slices, structs with omitempty and pointers, and lnetctl show types.
func FuzzFastYAML(f *testing.F) {
	for _, s := range []string{
		"plain|1.0|true|no|null|~|- x|a: b|#c| lead|trail |1:20|0x1F|é ü|'q'|\"d\"|@at|`tick|%p|key: |[x]|{y}|a,b|*ref|&anc|!tag|||>",
		"node1|node10|node9|Node2|10|true||a b|ü",
		"two\nlines|tab\there|\x00nul|\u2028sep|\ufeffbom|\x7f|\\back|" + strings.Repeat("long ", 30),
		"o2ib|10.0.0.1@o2ib|up|down|cpt[0]|tiny|small|large",
		"0o17|+1|-0|.inf|.NaN|1e3|1_000|0b101|=|<<|?|:|-",
	} {
		f.Add(s, []byte{7, 3, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 0, 4, 9, 8})
		f.Add(s, []byte{8, 4, 13, 5, 7, 2, 9, 3, 1, 0, 15, 4, 16, 2, 17, 8, 11, 3, 3, 3, 3, 3, 3, 3, 3, 3})
	}
	f.Add("a", []byte{})
	f.Fuzz(func(t *testing.T, s string, data []byte) {
		// yaml.v3 orders map keys that are not valid UTF-8 by map iteration order (they
		// compare equal as U+FFFD runes), so yaml.Marshal has no one answer to compare
		// with; lnetsim's keys come from YAML files and are always valid UTF-8.
		s = strings.ToValidUTF8(s, "\uFFFD")
		g := &yamlGen{b: data, strs: strings.Split(s, "|")}
		v := g.mapping(0)
		if len(v) == 0 {
			v[s] = g.value(1)
		}
		want, werr := yaml.Marshal(v)
		got, err := fastYAML(v)
		switch {
		case errors.Is(err, errYAMLFallback):
		case err != nil:
			t.Fatalf("fastYAML error other than a fall-back: %v", err)
		case werr != nil:
			t.Fatalf("fastYAML wrote %q where yaml.Marshal fails: %v", got, werr)
		case !bytes.Equal(got, want):
			t.Fatalf("fastYAML differs from yaml.Marshal for %#v:\ngot\n%s\nwant\n%s", v, got, want)
		}
		if werr != nil {
			return
		}
		if b, err := marshalYAML(v); err != nil || !bytes.Equal(b, want) {
			t.Fatalf("marshalYAML differs from yaml.Marshal for %#v (%v):\ngot\n%s\nwant\n%s", v, err, b, want)
		}
	})
}

// TestFastYAMLKeyOrderCache: maps whose key sets joined the same way (the empty map and
// {"": 0}; keys holding the old separator) each get their own order. FuzzFastYAML found the
// first: fastYAML wrote {"": 0} as {} after an empty map.
func TestFastYAMLKeyOrderCache(t *testing.T) {
	for _, v := range []map[string]any{
		{"0": map[string]any{}, "1": map[string]int{"": 0}},
		{"x": map[string]int{"a\x00b": 1, "c": 2}, "y": map[string]int{"a": 1, "b\x00c": 2}},
	} {
		want, err := yaml.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := fastYAML(v)
		if err != nil && !errors.Is(err, errYAMLFallback) {
			t.Fatal(err)
		}
		if err == nil && !bytes.Equal(got, want) {
			t.Errorf("got\n%s\nwant\n%s", got, want)
		}
	}
}

// TestMarshalYAMLUnreadableKeys: yaml.v3 writes the key "\n" as a block scalar and reads it
// back as "", so the key order of a map holding "" and "\n" cannot be read back from a
// document of its keys. FuzzFastYAML found marshalYAML writing both keys as "" there.
func TestMarshalYAMLUnreadableKeys(t *testing.T) {
	for _, v := range []map[string]any{
		{"": "\n", "\n": "\n"},
		{"a": 1, "\n": map[string]any{"x": 1}},
	} {
		want, err := yaml.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := marshalYAML(v)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("marshalYAML(%#v) = %q, %v; want %q", v, got, err, want)
		}
	}
}

package record

import (
	"bytes"
	"errors"
	"math"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/lnetsim/lnetsim/model/lnet"
)

type textNID string

func (t textNID) MarshalText() ([]byte, error) { return []byte("nid:" + string(t)), nil }

type yamlMarshaled struct{}

func (yamlMarshaled) MarshalYAML() (any, error) { return "m", nil }

type Inner struct {
	A int    `yaml:"a"`
	B string `yaml:"b,omitempty"`
}

type outer struct {
	Inner   `yaml:",inline"`
	Name    string            `yaml:"name"`
	Opt     *Inner            `yaml:"opt,omitempty"`
	Nil     *Inner            `yaml:"nil"`
	Any     any               `yaml:"any"`
	List    []Inner           `yaml:"list"`
	Empty   []int             `yaml:"empty"`
	Nested  [][]string        `yaml:"nested"`
	Map     map[string]uint8  `yaml:"map"`
	NoMap   map[string]int    `yaml:"nomap"`
	Zero    Inner             `yaml:"zero,omitempty"`
	Text    textNID           `yaml:"text"`
	Bytes   []byte            `yaml:"bytes"`
	Arr     [2]float32        `yaml:"arr"`
	private int               // skipped, as yaml.v3 skips it
	Untaged bool              // key "untaged"
	Ptrs    map[string]*Inner `yaml:"ptrs"`
}

// TestFastYAMLMatchesYAMLv3: counters.yaml's writer gives yaml.Marshal's bytes without
// falling back, on lnetctl's show types (inline structs, omitempty, nested sequences) and
// on awkward values (strings yaml.v3 quotes, natural key order, integer keys in numeric
// order, empty and nil collections, sequences of sequences, TextMarshalers, special floats).
func TestFastYAMLMatchesYAMLv3(t *testing.T) {
	var stats lnet.PeerNIStats
	stats.SendCount, stats.RecvCount = 7, 8
	peer := lnet.PeerShow{PrimaryNID: "10.0.0.2@o2ib", MultiRail: true, PeerNIs: []lnet.PeerNIShow{
		{NID: "10.0.0.2@o2ib", State: "up", MaxTx: 8, Statistics: stats, PreferredNID: []string{"10.0.0.1@o2ib"},
			UDSP: &lnet.UDSPInfo{NetPriority: -1, PreferredGW: []string{"10.0.1.1@o2ib1"}}},
		{NID: "10.0.0.3@o2ib", State: "down"},
	}}
	net := lnet.NetShow{NetType: "o2ib", NIs: []lnet.NIShow{{NID: "10.0.0.1@o2ib", Status: "up", Interfaces: map[int]string{0: "ib0", 1: "ib1", 10: "ib10", 2: "ib2"}}}}
	strs := []string{"plain", "", "1.0", "true", "no", "null", "~", "- x", "a: b", "#c", " lead", "trail ",
		"1:20", "0x1F", "é ü", "'q'", `"d"`, "@at", "`tick", "%p", "key: ", "[x]", "{y}", "a,b", "*ref", "&anc", "!tag", "|", ">"}
	node := map[string]any{
		"statistics": lnet.Counters{SendCount: 3, DropCount: 1},
		"net":        []lnet.NetShow{net},
		"peer":       []lnet.PeerShow{peer, {PrimaryNID: "x"}},
		"global":     lnet.GlobalShow{LNDTimeout: 49},
		"routing":    map[string]any{"cpt[0]": map[string]any{"tiny": lnet.RouterPoolShow{NPages: 1}}, "enable": 1},
		"udsp":       []lnet.UDSPShow{{Idx: 0, Src: "o2ib1"}},
	}
	awkward := map[string]any{
		"outer": outer{Inner: Inner{A: 1}, Name: "n", Any: map[string]any{}, List: []Inner{{A: 2, B: "b"}, {}},
			Nested: [][]string{{"a", "b"}, {}, nil}, Map: map[string]uint8{"x10": 1, "x9": 2, "X": 3},
			private: 1, Text: "t", Bytes: []byte{1, 2}, Arr: [2]float32{0.1, 3}, Ptrs: map[string]*Inner{"p": {A: 5}, "q": nil}},
		"strings":  strs,
		"keys":     map[string]int{"node10": 1, "node9": 2, "node1": 3, "Node2": 4, "10": 5, "true": 6, "": 7, "a b": 8, "ü": 9},
		"floats":   []any{0.1, 1e21, 1e-7, math.Inf(1), math.Inf(-1), math.NaN(), math.Copysign(0, -1), float32(1.5), 2.0},
		"ints":     []any{int8(-3), uint64(math.MaxUint64), int64(math.MinInt64), uint8(0)},
		"nil":      nil,
		"nilslice": []string(nil),
		"nilmap":   map[string]int(nil),
		"seqseq":   [][]any{{[]int{1}, map[string]int{"k": 1}}, {map[string]any{}}},
		"textkey":  map[string]textNID{"a": "x"},
		"intkeys":  map[int]int{1: 2, -3: 4, 10: 5, 9: 6, math.MaxInt64: 7, math.MinInt64: 8},
		"uintkeys": map[uint64]any{math.MaxUint64: "a", 0: map[int8]string{-1: "x"}, 1 << 53: nil, 1<<53 + 1: 1},
	}
	for name, v := range map[string]any{"lnetctl shapes": map[string]any{"client0": node, "client10": node, "client9": node}, "awkward": awkward} {
		want, err := yaml.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := fastYAML(v)
		if err != nil {
			t.Fatalf("%s: fell back: %v", name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: got\n%s\nwant\n%s", name, got, want)
		}
	}
	// What it cannot write as yaml.v3 does falls back, and marshalYAML still matches.
	for name, v := range map[string]any{
		"multi-line": map[string]any{"a": "two\nlines"},
		"duration":   map[string]any{"a": time.Second},
		"time":       map[string]any{"a": time.Unix(0, 0).UTC()},
		"float keys": map[string]any{"a": map[float64]int{1.5: 2}},
		"marshaler":  map[string]any{"a": yamlMarshaled{}},
		"long key":   map[string]any{"a": map[string]int{string(bytes.Repeat([]byte("k"), 200)): 1}},
		"flow": map[string]any{"a": struct {
			F []int `yaml:"f,flow"`
		}{[]int{1}}},
		"empty":     map[string]any{},
		"not a map": []int{1},
	} {
		if _, err := fastYAML(v); !errors.Is(err, errYAMLFallback) {
			t.Errorf("%s: fastYAML did not fall back: %v", name, err)
		}
		want, _ := yaml.Marshal(v)
		if got, err := marshalYAML(v); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: marshalYAML %v\n%s\nwant\n%s", name, err, got, want)
		}
	}
}

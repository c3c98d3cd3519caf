package record

import (
	"bytes"
	"fmt"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestMarshalYAMLMatchesYAMLv3: the key-at-a-time marshalling of counters.yaml gives exactly
// yaml.Marshal's bytes, key order included (natural order, quoted keys, empty values).
func TestMarshalYAMLMatchesYAMLv3(t *testing.T) {
	type stats struct {
		SendCount int               `yaml:"send_count"`
		Peers     []string          `yaml:"peers"`
		Extra     map[string]string `yaml:"extra,omitempty"`
	}
	many := map[string]any{}
	for i := 0; i < 120; i++ {
		many[fmt.Sprintf("client%d", i)] = map[string]any{"statistics": stats{SendCount: i, Peers: []string{"10.0.0.1@o2ib"}}}
	}
	cases := map[string]any{
		"natural order": many,
		"awkward keys": map[string]any{
			"true": 1, "1": "one", "": "empty", "a: b": []int{}, "- x": map[string]int{}, "node10": nil,
			"node9": stats{Extra: map[string]string{"k": "v"}}, "#c": "multi\nline", "Z": 2.5,
		},
		"one key":          map[string]any{"only": stats{}},
		"empty":            map[string]any{},
		"not a map of any": map[string]int{"b": 1, "a": 2},
		"scalar":           42,
	}
	for name, v := range cases {
		want, err := yaml.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := marshalYAML(v)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: got\n%s\nwant\n%s", name, got, want)
		}
	}
}

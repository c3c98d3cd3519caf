package runner

import (
	"maps"
	"slices"

	"gopkg.in/yaml.v3"
)

// omap is a YAML mapping that prints its keys in the order they were added, as lnetctl
// prints a show's keys (cYAML in the order liblnetconfig creates them, the Netlink printer
// in the order of the kernel's key table). A plain map would print them sorted; the checks
// compare parsed values, so the order only shows in printed output.
type omap []omapItem

// omapItem is one key and its value.
type omapItem struct {
	key string
	val any
}

// add appends key with its value.
func (m *omap) add(key string, val any) { *m = append(*m, omapItem{key, val}) }

// MarshalYAML writes the mapping in its order. A nil value prints as an empty value (`key:`),
// as cYAML prints an object with no children.
func (m omap) MarshalYAML() (any, error) {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for _, it := range m {
		v, err := valueNode(it.val)
		if err != nil {
			return nil, err
		}
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: it.key}, v)
	}
	return n, nil
}

// valueNode encodes v as a YAML node; nil is an empty null.
func valueNode(v any) (*yaml.Node, error) {
	if v == nil {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}, nil
	}
	var n yaml.Node
	if err := n.Encode(v); err != nil {
		return nil, err
	}
	return &n, nil
}

// mappingOf encodes the struct or mapping v and returns its key and value nodes in order.
func mappingOf(v any) (omap, error) {
	n, err := valueNode(v)
	if err != nil || n.Kind != yaml.MappingNode {
		return nil, err
	}
	var m omap
	for i := 0; i+1 < len(n.Content); i += 2 {
		m.add(n.Content[i].Value, n.Content[i+1])
	}
	return m, nil
}

// multiRail is a peer's Multi-Rail as the release prints it: up to 2.15 liblnetconfig writes
// the strings True and False (lustre_lnet_show_peer), which read back as booleans; from 2.16
// the Netlink printer writes the flag as true or false.
func multiRail(ioctl, mr bool) any {
	if !ioctl {
		return mr
	}
	v := "False"
	if mr {
		v = "True"
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: v}
}

// sortedOmap is the mapping m with its keys in sorted order (as yaml.v3 prints a map), never
// nil: an empty m is the empty document `{}`.
func sortedOmap(m map[string]any) omap {
	out := make(omap, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out.add(k, m[k])
	}
	return out
}

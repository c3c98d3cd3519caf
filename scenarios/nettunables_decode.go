package scenarios

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// decodeYAML reads an LNet net's tunables; -1 for one of them means the module's value, as
// the kernel takes it (lnetctl net add --peer-timeout -1; kiblnd_tunables_setup replaces -1
// peer_timeout, peer_credits, peer_buffer_credits and credits by the o2ib module parameters),
// so such a key counts as not written.
func (t *NetTunables) decodeYAML(d *decoder, n *yaml.Node, path string) {
	if n.Kind != yaml.MappingNode {
		d.decodeStruct(n, reflectValue(t), path)
		return
	}
	kept := &yaml.Node{Kind: yaml.MappingNode, Tag: n.Tag, Line: n.Line, Column: n.Column, Style: n.Style}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if v := n.Content[i+1]; v.Kind == yaml.ScalarNode && strings.TrimSpace(v.Value) == "-1" {
			continue
		}
		kept.Content = append(kept.Content, n.Content[i], n.Content[i+1])
	}
	d.decodeStruct(kept, reflectValue(t), path)
}

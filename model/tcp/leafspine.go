package tcp

import (
	"fmt"
	"net/netip"
)

// LeafSpine is a two-tier leaf-spine (folded Clos) Ethernet fabric: hosts attach to
// leaves, and every leaf has one trunk (uplink) to every spine. Frames between hosts of one
// leaf stay on it; frames between leaves cross one spine, chosen per flow by ECMP (see
// routing.go). With more host bandwidth on a leaf than uplink bandwidth (hosts x host rate >
// spines x uplink rate) the fabric is oversubscribed and the uplinks are the bottleneck.
type LeafSpine struct {
	Leaves, Spines []*Switch
	uplinks        [][]*Link // by leaf, then spine
}

// AddLeafSpine adds leaves leaf switches named leaf0.. and spines spine switches named
// spine0.., and trunks every leaf to every spine (leaf-major order: leaf0-spine0,
// leaf0-spine1, ..., so a trunk's link index is fixed by the shape) with the uplink spec.
func (n *Network) AddLeafSpine(leaves, spines int, uplink LinkSpec) (*LeafSpine, error) {
	if leaves < 1 || spines < 1 {
		return nil, fmt.Errorf("tcp: a leaf-spine fabric needs at least one leaf and one spine, got %d and %d", leaves, spines)
	}
	t := &LeafSpine{}
	for i := range spines {
		t.Spines = append(t.Spines, n.AddSwitch(fmt.Sprintf("spine%d", i)))
	}
	for i := range leaves {
		leaf := n.AddSwitch(fmt.Sprintf("leaf%d", i))
		t.Leaves = append(t.Leaves, leaf)
		ups := make([]*Link, spines)
		for j, sp := range t.Spines {
			l, err := n.Trunk(leaf, sp, uplink)
			if err != nil {
				return nil, err
			}
			ups[j] = l
		}
		t.uplinks = append(t.uplinks, ups)
	}
	return t, nil
}

// Uplink returns the trunk between leaf and spine (end A is the leaf), or nil if either is
// out of range.
func (t *LeafSpine) Uplink(leaf, spine int) *Link {
	if leaf < 0 || leaf >= len(t.uplinks) || spine < 0 || spine >= len(t.Spines) {
		return nil
	}
	return t.uplinks[leaf][spine]
}

// LeafSpineHosts builds a leaf-spine fabric and one host per name, attached in order
// hostsPerLeaf to a leaf (leaf i holds hosts i*hostsPerLeaf..), each with one interface on
// its own host-spec link; addresses count up from first. There are as many leaves as the
// hosts need.
func (n *Network) LeafSpineHosts(names []string, hostsPerLeaf, spines int, host, uplink LinkSpec, first netip.Addr) ([]*Host, *LeafSpine, error) {
	if hostsPerLeaf < 1 {
		return nil, nil, fmt.Errorf("tcp: hosts per leaf %d: give at least 1", hostsPerLeaf)
	}
	t, err := n.AddLeafSpine(max(1, (len(names)+hostsPerLeaf-1)/hostsPerLeaf), spines, uplink)
	if err != nil {
		return nil, nil, err
	}
	hs := make([]*Host, 0, len(names))
	a := first
	for i, name := range names {
		h := n.AddHost(name)
		if _, err := n.Attach(h, a, t.Leaves[i/hostsPerLeaf], host); err != nil {
			return nil, nil, err
		}
		hs = append(hs, h)
		a = a.Next()
	}
	return hs, t, nil
}

// Path returns the links a frame of the TCP flow from src to dst crosses, in order (nil
// if there is no path of up links between them, or either address is unknown): the route
// that flow's frames take now.
func (n *Network) Path(src, dst netip.AddrPort) []*Link {
	si, ok1 := n.addrs[src.Addr()]
	di, ok2 := n.addrs[dst.Addr()]
	if !ok1 || !ok2 {
		return nil
	}
	p := n.route(pathKey{si, di, src.Port(), dst.Port()})
	if p == nil {
		return nil
	}
	out := make([]*Link, len(p))
	for i, li := range p {
		out[i] = n.lanes[li].link
	}
	return out
}

// Name returns a trunk's name, "<switch A>-<switch B>" (leaf0-spine1), or for a host's link
// "<host>-<switch>".
func (l *Link) Name() string {
	a := ""
	if l.a.host != nil {
		a = l.a.host.name
	} else {
		a = l.a.sw.name
	}
	return a + "-" + l.b.sw.name
}

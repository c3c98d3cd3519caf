package scenarios

import (
	"net/netip"
	"slices"
	"strings"
)

// interfaceAddrs checks each node's `interfaces` and gives its members their interfaces'
// IPv6 addresses: an interface must be one the node's NIs are on; each address is a unicast
// IPv6 address with an optional prefix length (`ip -6 addr add` takes it so: without one,
// /128), given once in the scenario. Member k of a group has each address plus k, as its
// NIDs count up.
func (r *resolver) interfaceAddrs() {
	owner := map[netip.Addr]string{} // address -> "member's interface", for repeats
	for _, g := range r.groups {
		ng := r.s.Nodes[g]
		p := join("nodes", g) + ".interfaces"
		if len(ng.Interfaces) == 0 || r.d.bad[p] {
			continue
		}
		first := r.s.Member(memberName(g, 0, ng.Count))
		if first == nil {
			continue
		}
		var have []string
		for _, ni := range first.NIs {
			if ni.Interface != "" && !slices.Contains(have, ni.Interface) {
				have = append(have, ni.Interface)
			}
		}
		type written struct {
			name  string
			addrs []netip.Prefix
		}
		var ifs []written
		for _, name := range r.d.keys[p] {
			ip := join(p, name)
			if !slices.Contains(have, name) {
				r.errorAt(ip, "name an interface one of the node's NIs is on ("+strings.Join(have, ", ")+")",
					"node %q has no interface %q: an interface is that of an NI (nis[].interface, ib<i> or eth<i> by default)", g, name)
				continue
			}
			spec := ng.Interfaces[name]
			if spec == nil || len(spec.IPv6) == 0 {
				r.errorAt(ip, "e.g. "+name+": {ipv6: [2001:db8::5/64]}", "interface %s gives no address", name)
				continue
			}
			w := written{name: name}
			for i, text := range spec.IPv6 {
				if pfx, ok := r.ipv6Addr(index(ip+".ipv6", i), text); ok {
					w.addrs = append(w.addrs, pfx)
				}
			}
			ifs = append(ifs, w)
		}
		for k := 0; k < ng.Count; k++ {
			m := r.s.Member(memberName(g, k, ng.Count))
			for _, w := range ifs {
				mi := MemberInterface{Name: w.name}
				for i, pfx := range w.addrs {
					at := index(join(p, w.name)+".ipv6", i)
					a, ok := addIPv6(pfx.Addr(), uint64(k))
					if !ok || a.IsMulticast() {
						r.errorAt(at, "start the group's addresses lower", "a group of %d runs past the unicast addresses (into ff00::/8)", ng.Count)
						break
					}
					who := m.Name + "'s " + w.name
					if o, dup := owner[a]; dup {
						const hint = "give each interface addresses of its own (member k of a group has each address plus k)"
						if o == who {
							r.errorAt(at, hint, "%s is given twice to %s", a, who)
						} else {
							r.errorAt(at, hint, "%s is both %s and %s address", a, o, who)
						}
						continue
					}
					owner[a] = who
					mi.IPv6 = append(mi.IPv6, netip.PrefixFrom(a, pfx.Bits()))
				}
				m.Interfaces = append(m.Interfaces, mi)
			}
		}
	}
}

// ipv6Addr reads one address of an interface, written at path: an IPv6 address with an
// optional prefix length 0 to 128 (none: 128), unicast, without a zone.
func (r *resolver) ipv6Addr(path, text string) (netip.Prefix, bool) {
	const hint = "an IPv6 address with an optional prefix length, e.g. 2001:db8::5/64 (the interface's IPv4 address is its NIs')"
	s := strings.TrimSpace(text)
	var pfx netip.Prefix
	var err error
	if strings.Contains(s, "/") {
		pfx, err = netip.ParsePrefix(s)
	} else {
		var a netip.Addr
		if a, err = netip.ParseAddr(s); err == nil {
			pfx = netip.PrefixFrom(a, 128)
		}
	}
	a := pfx.Addr()
	switch {
	case strings.Contains(s, "%"):
		r.errorAt(path, hint, "%q: an interface's address has no zone", text)
	case err != nil:
		r.errorAt(path, hint, "%q is not an IPv6 address: %v", text, err)
	case a.Is4():
		r.errorAt(path, hint, "%q is an IPv4 address", text)
	case a.IsUnspecified(), a.IsLoopback(), a.IsMulticast():
		r.errorAt(path, hint, "%q is not a unicast address an interface can have (::, ::1 and ff00::/8 are not)", text)
	default:
		return pfx, true
	}
	return netip.Prefix{}, false
}

// addIPv6 is address a plus k, false past the end of the address space.
func addIPv6(a netip.Addr, k uint64) (netip.Addr, bool) {
	b := a.As16()
	carry := k
	for i := 15; i >= 0 && carry > 0; i-- {
		v := uint64(b[i]) + carry&0xff
		b[i] = byte(v)
		carry = carry>>8 + v>>8
	}
	if carry > 0 {
		return netip.Addr{}, false
	}
	return netip.AddrFrom16(b), true
}

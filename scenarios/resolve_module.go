package scenarios

import (
	"bytes"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/scenarios/modparam"
)

// moduleDialect is how group g's release reads the module's options. Releases are resolved
// after the NIs are (releases), so the group's is looked up here, silently: releases
// reports a bad name.
func (r *resolver) moduleDialect(g string) modparam.Dialect {
	name := r.s.Nodes[g].Release
	if name == releaseFromExport {
		name, _ = exportReleaseName(r.d, join("nodes", g)+".lnetctl", r.s.Nodes[g].Lnetctl)
	}
	if name == "" {
		name = r.s.LNet.Release
	}
	rel, err := lnet.LookupRelease(name)
	if err != nil {
		rel, _ = lnet.LookupRelease(lnet.DefaultRelease)
	}
	return modparam.Dialect(rel.Profile.ModuleDialect)
}

// moduleNets turns group g's networks= into its NIs, as lnet_parse_networks reads it (tcp
// when not given, as lnet_get_networks has it). The NIs' interfaces are their ports: an
// interface named twice (by two nets) is one port; an NI without one takes the LND's
// default, ib0 (ko2iblnd's ipif_name) or eth0 (the first interface socklnd finds).
func (r *resolver) moduleNets(g string, ng *NodeGroup) {
	gp := join("nodes", g)
	mp := gp + ".module.networks"
	if r.d.has(gp+".nis") || ng.Lnetctl != nil && len(ng.Lnetctl.Net) > 0 {
		r.errorAt(gp+".module", "keep one of them", "the module's networks (default tcp) give the node's NIs: give them there or in nis or lnetctl's net section, not both")
		r.d.bad[gp+".module.routes"] = true
		return
	}
	if r.paramTooLong(mp, "networks", ng.Module.Networks) {
		r.d.bad[gp+".nis"] = true
		return
	}
	if ng.Module.IP2Nets != "" {
		r.moduleIP2NetsInterfaces(g, ng)
		return
	}
	text := ng.Module.Networks
	if text == "" {
		text = modparam.DefaultNetworks
	}
	nets, err := r.moduleDialect(g).ParseNetworks(text)
	if err != nil {
		r.moduleError(mp, ng.Module.Networks, err, "")
		r.d.bad[gp+".nis"] = true // no NI follows from it
		return
	}
	for _, n := range nets {
		if t := n.ID.Type(); t != lnet.O2IBLND && t != lnet.SOCKLND {
			r.moduleError(mp, ng.Module.Networks, &modparam.Error{Msg: fmt.Sprintf("net %s is not modelled", n.ID.LnetctlString()), Off: n.Off,
				Why: "lnetsim's LNDs are o2iblnd and socklnd", Unmodelled: true}, "")
			r.d.bad[gp+".nis"] = true
			ng.NIs = nil
			return
		}
		for _, ni := range n.NIs {
			if len(ni.Interface) >= ifNameSize {
				// kiblnd_startup's check; socklnd's lnet_inet_select finds no such
				// interface (Linux names are shorter than IFNAMSIZ).
				msg := fmt.Sprintf("%s: IPoIB interface name %d longer than maximum %d: rc = -7", ni.Interface, len(ni.Interface), ifNameSize)
				if n.ID.Type() == lnet.SOCKLND {
					msg = fmt.Sprintf("%s: no such interface (Linux interface names are shorter than %d characters)", ni.Interface, ifNameSize)
				}
				r.moduleError(mp, ng.Module.Networks, &modparam.Error{Msg: msg, Off: ni.Off, Width: len(ni.Interface)}, "the NI does not start: LNet does not start")
				r.d.bad[gp+".nis"] = true
				ng.NIs = nil
				return
			}
			spec := NISpec{Net: n.ID.String(), HCA: -1, Port: 1, Interface: ni.Interface,
				srcPath: mp, tunablesPath: mp + ".tunables", lndPath: mp + ".lnd_tunables"}
			if spec.Interface == "" {
				spec.Interface = "ib0"
				if n.ID.Type() == lnet.SOCKLND {
					spec.Interface = "eth0"
				}
			}
			ng.NIs = append(ng.NIs, spec)
		}
	}
}

// maxCharp is the longest string a charp module parameter takes (param_set_charp).
const maxCharp = 1024

// paramTooLong refuses a module option longer than a charp parameter takes: the module
// does not load.
func (r *resolver) paramTooLong(path, name, v string) bool {
	if len(v) <= maxCharp {
		return false
	}
	r.errorAt(path, fmt.Sprintf("a module's string option takes at most %d characters", maxCharp), "%s: string parameter too long (lnet does not load: -ENOSPC)", name)
	return true
}

// ifNameSize is IFNAMSIZ: an interface name is shorter.
const ifNameSize = 16

// moduleError reports a module option's error, located at the part of the option it names
// when the file shows the option's text as it is (one line, plain or quoted without
// escapes, or a literal block), else at the option.
func (r *resolver) moduleError(path, text string, e *modparam.Error, hint string) {
	if r.d.bad[path] {
		return
	}
	l := r.d.lookup(path)
	if l.override == "" && l.line > 0 && e.Off <= len(text) {
		if line, col, ok := r.d.textPos(l, text, e.Off); ok {
			l.line, l.col = line, col
		}
	}
	msg := e.Msg
	if e.Why != "" {
		msg += ": " + e.Why
	}
	if hint == "" && e.Unmodelled {
		hint = "not modelled: give the configuration in nis and lnet.routes"
	}
	r.d.errs = append(r.d.errs, r.d.newError(l, path, hint, msg))
}

// textPos is the file position of byte off of the string text whose value starts at l: in
// a plain or quoted scalar on one line, or a literal block (`|`), when the source there
// reads as text does.
func (d *decoder) textPos(l loc, text string, off int) (line, col int, ok bool) {
	if l.line > len(d.src) || l.col < 1 || l.col > len(d.src[l.line-1]) {
		return 0, 0, false
	}
	src := d.src[l.line-1]
	start := l.col - 1
	switch src[start] {
	case '"', '\'':
		start++
	case '|':
		// A literal block: its lines follow, indented as the first one is.
		lines := bytes.Split([]byte(text[:off]), []byte("\n"))
		k := l.line + len(lines) - 1 // 0-based index of the line holding off
		if l.line >= len(d.src) || k >= len(d.src) {
			return 0, 0, false
		}
		first := d.src[l.line]
		indent := len(first) - len(bytes.TrimLeft(first, " "))
		last := lines[len(lines)-1]
		if len(d.src[k]) < indent+len(last) || !bytes.Equal(d.src[k][indent:indent+len(last)], last) {
			return 0, 0, false
		}
		return k + 1, indent + len(last) + 1, true
	}
	if len(src) < start+off || string(src[start:start+off]) != text[:off] {
		return 0, 0, false
	}
	return l.line, start + off + 1, true
}

// moduleRoutes applies each group's routes= as LNetNIInit does once its NIs are up:
// lnet_parse_routes, then for each member lnet_rtrpools_alloc's rule (with forwarding=
// empty the node routes when a gateway of routes= is one of its NIDs: im_a_router), then,
// per entry, a route to each net through each gateway as lnet_add_route takes it: a
// gateway of the node's own is skipped; a gateway on the route's net (or "<?>") is EINVAL,
// which fails LNet's start (refused here, with the kernel's message); a route to a net of
// the node, through a gateway on no net of the node, or already there is skipped
// (EEXIST, EHOSTUNREACH), as lnet_parse_route ignores those. A written `routing` wins over
// the module's (lnetctl set routing after the start), as does an lnetctl export's routing
// section.
func (r *resolver) moduleRoutes() {
	type groupRoutes struct {
		g       string
		entries []modparam.RouteEntry
	}
	var all []groupRoutes
	for _, g := range r.groups {
		ng := r.s.Nodes[g]
		if ng.Module == nil {
			continue
		}
		gp := join("nodes", g)
		mp := gp + ".module"
		if r.d.bad[mp+".routes"] || r.paramTooLong(mp+".routes", "routes", ng.Module.Routes) ||
			r.paramTooLong(mp+".forwarding", "forwarding", ng.Module.Forwarding) {
			continue
		}
		switch ng.Module.Forwarding {
		case "", "enabled", "disabled":
		default:
			r.errorAt(mp+".forwarding", "enabled, disabled, or leave it out", "lnet: forwarding='%s' not set to either 'enabled' or 'disabled': rc = -22", ng.Module.Forwarding)
		}
		entries, err := r.moduleDialect(g).ParseRoutes(ng.Module.Routes)
		if err != nil {
			r.moduleError(mp+".routes", ng.Module.Routes, err, "")
			continue
		}
		all = append(all, groupRoutes{g, entries})
		if r.d.has(gp+".routing") || r.d.has(gp+".lnetctl.routing.enable") {
			continue // set after the start (lnetctl set routing, or an import)
		}
		for k := 0; k < ng.Count; k++ {
			m := r.s.Member(memberName(g, k, ng.Count))
			switch ng.Module.Forwarding {
			case "enabled":
				m.Routing = true
			case "disabled":
				m.Routing = false
			default:
				m.Routing = imARouter(m, entries)
			}
		}
	}
	for _, gr := range all {
		ng := r.s.Nodes[gr.g]
		for k := 0; k < ng.Count; k++ {
			if !r.addModuleRoutes(join("nodes", gr.g)+".module.routes", ng.Module.Routes, r.s.Member(memberName(gr.g, k, ng.Count)), gr.entries) {
				break
			}
		}
	}
}

// imARouter reports whether a gateway of entries is one of m's NIDs.
func imARouter(m *Member, entries []modparam.RouteEntry) bool {
	for _, e := range entries {
		for _, gw := range e.Gateways {
			if localNID(m, gw) {
				return true
			}
		}
	}
	return false
}

// localNID is lnet_islocalnid.
func localNID(m *Member, n lnet.NID) bool {
	x, ok := fromLNetNID(n)
	if !ok {
		return false
	}
	for _, ni := range m.NIs {
		if ni.NID == x {
			return true
		}
	}
	return false
}

// fromLNetNID is n as the scenario writes NIDs, for the modelled LNDs' nets.
func fromLNetNID(n lnet.NID) (NID, bool) {
	if t := n.Net().Type(); n.IsAny() || t != lnet.O2IBLND && t != lnet.SOCKLND {
		return NID{}, false
	}
	a := n.Addr()
	return NID{Addr: addr4(byte(a>>24), byte(a>>16), byte(a>>8), byte(a)), Net: n.Net().String()}, true
}

// addModuleRoutes adds member m's routes from entries (routes= at path, whose text is
// text); false after an error, which stops the group as it stops LNet's start.
func (r *resolver) addModuleRoutes(path, text string, m *Member, entries []modparam.RouteEntry) bool {
	if r.routes.from == nil {
		r.routes.from = map[*Member][]string{}
	}
	for _, e := range entries {
		fail := func(hint, format string, args ...any) bool {
			r.moduleError(path, text, &modparam.Error{Msg: fmt.Sprintf(format, args...), Off: e.Off, Width: len(e.Text)}, hint)
			return false
		}
		for _, net := range e.Nets {
			for _, gw := range e.Gateways {
				if localNID(m, gw) {
					continue
				}
				if gw.IsAny() || gw.Net() == net {
					gws := gw.String()
					if gw.IsAny() {
						gws = "<?>" // libcfs_nidstr of LNET_ANY_NID
					}
					return fail(fmt.Sprintf("lnet_add_route refuses it (EINVAL) on %s: LNet does not start", m.Name),
						"Can't create route to %s via %s", net.LnetctlString(), gws)
				}
				if t := net.Type(); t != lnet.O2IBLND && t != lnet.SOCKLND {
					return fail("not modelled: lnetsim's LNDs are o2iblnd and socklnd", "a route to net %s", net.LnetctlString())
				}
				netName := net.String()
				nid, ok := fromLNetNID(gw)
				if hasNet(m, netName) || !ok || !hasNet(m, nid.Net) || r.routePath(m, netName, nid) != "" {
					continue // EEXIST or EHOSTUNREACH: lnet_parse_route goes on
				}
				if owner := r.s.Member(r.nids[nid]); owner != nil && !owner.Routing {
					return fail("set routing: true on "+owner.Group+", or name one of its NIDs in its routes=", "gateway %s (%s) does not route", nid, owner.Name)
				}
				m.Routes = append(m.Routes, ResolvedRoute{Net: netName, Gateway: nid, Hop: e.Hops, Priority: int(e.Priority)})
				r.routes.from[m] = append(r.routes.from[m], path)
			}
		}
	}
	return true
}

// moduleIP2NetsInterfaces gives group g, whose LNet starts from ip2nets=, its interfaces:
// each one an entry names (an entry's net without interfaces: the LND's default, ib0 or
// eth0), in order, as an NI of the first net that names it, so that NIDs are assigned to
// them as to any NI. Those NIDs' addresses are the interfaces' addresses the entries' patterns
// are matched against (moduleIP2Nets). Both networks= and ip2nets= is the kernel's refusal.
func (r *resolver) moduleIP2NetsInterfaces(g string, ng *NodeGroup) {
	gp := join("nodes", g)
	ip := gp + ".module.ip2nets"
	if ng.Module.Networks != "" {
		r.errorAt(gp+".module", "keep one of them", "Please specify EITHER 'networks' or 'ip2nets' but not both at once (LNet does not start)")
		r.d.bad[gp+".nis"], r.d.bad[gp+".module.routes"] = true, true
		return
	}
	if r.paramTooLong(ip, "ip2nets", ng.Module.IP2Nets) {
		r.d.bad[gp+".nis"], r.d.bad[gp+".module.routes"] = true, true
		return
	}
	seen := map[string]bool{}
	for _, x := range r.moduleDialect(g).IP2NetsInterfaces(ng.Module.IP2Nets) {
		t := x.Net.Type()
		if t != lnet.O2IBLND && t != lnet.SOCKLND {
			continue // not modelled: refused if an entry of it matches
		}
		iface := x.Interface
		if iface == "" {
			iface = defaultInterface(t)
		}
		if seen[iface] || len(iface) >= ifNameSize {
			continue
		}
		seen[iface] = true
		ng.NIs = append(ng.NIs, NISpec{Net: x.Net.String(), HCA: -1, Port: 1, Interface: iface,
			srcPath: ip, tunablesPath: ip + ".tunables", lndPath: ip + ".lnd_tunables"})
	}
	if len(ng.NIs) == 0 {
		r.errorAt(ip, "name an o2ib or tcp net in an entry: o2ib(ib0) 10.0.0.*", "ip2nets names no interface of an o2ib or tcp net: the node has none for it to match (No local IP interfaces for ip2nets to match)")
		r.d.bad[gp+".nis"], r.d.bad[gp+".module.routes"] = true, true
		return
	}
	r.ip2nets = append(r.ip2nets, g)
}

// defaultInterface is the interface an NI of an LND without one uses: ko2iblnd's ipif_name,
// or the first interface socklnd finds.
func defaultInterface(t lnet.LNDType) string {
	if t == lnet.SOCKLND {
		return "eth0"
	}
	return "ib0"
}

// moduleIP2Nets replaces the interfaces of each ip2nets= group's members by the NIs the
// kernel starts (lnet_parse_ip2nets, then lnet_parse_networks): the nets of the entries that
// match one of the member's interface addresses, each NI with its interface's address, HCA and
// port. The members of a group must start the same NIs (a group's members share their NIs'
// layout); what the kernel refuses is refused at load, located in the option.
func (r *resolver) moduleIP2Nets() {
	if len(r.ip2nets) == 0 {
		return
	}
	for _, g := range r.ip2nets {
		ng := r.s.Nodes[g]
		gp := join("nodes", g)
		ip := gp + ".module.ip2nets"
		text := ng.Module.IP2Nets
		d := r.moduleDialect(g)
		var layout []NISpec
		sig, sigOf := "", ""
		for k := 0; k < ng.Count; k++ {
			m := r.s.Member(memberName(g, k, ng.Count))
			addrs := make([]netip.Addr, len(m.NIs))
			for i, ni := range m.NIs {
				addrs[i] = ni.NID.Addr
			}
			match, err := d.MatchIP2Nets(text, addrs)
			if err != nil {
				hint := ""
				if strings.HasSuffix(err.Msg, "local IP interfaces") || strings.HasSuffix(err.Msg, "to match") { // no match: say what there is
					var have []string
					for _, ni := range m.NIs {
						have = append(have, ni.Interface+" "+ni.NID.Addr.String())
					}
					hint = "write a pattern one of " + m.Name + "'s interfaces matches: " + strings.Join(have, ", ")
				}
				r.moduleError(ip, text, err, hint)
				break
			}
			nets, err := d.ParseNetworks(match.Networks)
			if err != nil {
				err.Off, err.Width = match.OptionOffset(err.Off), 0
				r.moduleError(ip, text, err, "the matching entries' nets ("+match.Networks+") are read as networks=")
				break
			}
			var nis []MemberNI
			var specs []NISpec
			bad := false
			for _, n := range nets {
				t := n.ID.Type()
				if t != lnet.O2IBLND && t != lnet.SOCKLND {
					r.moduleError(ip, text, &modparam.Error{Msg: fmt.Sprintf("net %s is not modelled", n.ID.LnetctlString()), Off: match.OptionOffset(n.Off),
						Why: "lnetsim's LNDs are o2iblnd and socklnd", Unmodelled: true}, "")
					bad = true
					break
				}
				for _, ni := range n.NIs {
					iface := ni.Interface
					if iface == "" {
						iface = defaultInterface(t)
					}
					ci := slices.IndexFunc(m.NIs, func(x MemberNI) bool { return x.Interface == iface })
					if ci < 0 { // an interface too long to be one
						r.moduleError(ip, text, &modparam.Error{Msg: fmt.Sprintf("%s: no such interface (Linux interface names are shorter than %d characters)", iface, ifNameSize),
							Off: match.OptionOffset(ni.Off), Width: len(iface)}, "the NI does not start: LNet does not start")
						bad = true
						break
					}
					c := m.NIs[ci]
					nis = append(nis, MemberNI{NID: NID{Addr: c.NID.Addr, Net: n.ID.String()}, Net: n.ID.String(), Interface: iface, HCA: c.HCA, Port: c.Port})
					specs = append(specs, NISpec{Net: n.ID.String(), HCA: c.HCA, Port: c.Port, Interface: iface,
						srcPath: ip, tunablesPath: ip + ".tunables", lndPath: ip + ".lnd_tunables"})
				}
				if bad {
					break
				}
			}
			if bad {
				break
			}
			var ks []string
			for _, ni := range nis {
				ks = append(ks, ni.Net+"("+ni.Interface+")")
			}
			if k == 0 {
				sig, sigOf, layout = strings.Join(ks, ","), m.Name, specs
			} else if s := strings.Join(ks, ","); s != sig {
				r.errorAt(ip, "give the members that match different entries groups of their own",
					"%s starts %s and %s starts %s: the members of a group start the same NIs in lnetsim", sigOf, sig, m.Name, s)
				break
			}
			for _, ni := range m.NIs {
				if r.nids[ni.NID] == m.Name {
					delete(r.nids, ni.NID)
				}
			}
			for _, ni := range nis {
				if other, dup := r.nids[ni.NID]; dup && other != m.Name {
					r.errorAt(ip, "", "NID %s is also used by %s", ni.NID, other)
				}
				r.nids[ni.NID] = m.Name
			}
			m.NIs = nis
		}
		ng.NIs = layout
	}
	r.nets = map[string]bool{}
	for _, g := range r.groups {
		for _, ni := range r.s.Nodes[g].NIs {
			if ni.Net != "" {
				r.nets[ni.Net] = true
			}
		}
	}
}

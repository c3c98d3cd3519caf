package scenarios

import (
	"bytes"
	"fmt"

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

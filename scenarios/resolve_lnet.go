package scenarios

import (
	"sort"
	"strings"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/scenarios/modparam"
	"github.com/lnetsim/lnetsim/sim"
)

// importNets turns a node's lnetctl net section into NIs.
func (r *resolver) importNets(g string, ng *NodeGroup) {
	base := join("nodes", g) + ".lnetctl"
	if len(ng.Lnetctl.Net) == 0 {
		return
	}
	if r.d.has(join("nodes", g) + ".nis") {
		r.errorAt(base+".net", "keep one of them", "give the node's NIs either in nis or in lnetctl's net section, not both")
		return
	}
	for i, n := range ng.Lnetctl.Net {
		np := index(base+".net", i)
		net, _, err := ParseNet(n.NetType)
		if err != nil {
			r.errorAt(np+".net type", "", "%v", err)
			continue
		}
		if net == "lo0" {
			continue
		}
		for j, lni := range n.LocalNIs {
			lp := index(np+".local NI(s)", j)
			spec := NISpec{Net: net, HCA: -1, Port: 1, srcPath: lp}
			if lni.NID != "" {
				nid, err := ParseNID(lni.NID)
				if err != nil {
					r.errorAt(lp+".nid", "", "%v", err)
				} else {
					spec.NID = nid
				}
			}
			if len(lni.Interfaces) > 1 {
				r.errorAt(lp+".interfaces", "one NI per interface", "an NI with several interfaces is not modelled")
			}
			spec.Interface = lni.Interfaces["0"]
			spec.CPT = lni.CPT.String()
			if spec.CPT == "" && n.Tunables != nil {
				spec.CPT = n.Tunables.CPT
			}
			importTunables(&spec, lni, n, lp, np)
			ng.NIs = append(ng.NIs, spec)
		}
	}
}

// importTunables gives an imported NI its tunables: NI-level ones win over net-level ones,
// as lnetctl applies them, and the LND's come from `lnd tunables:` or, as 2.11 and 2.12
// print them, from `tunables:`.
func importTunables(spec *NISpec, lni LnetctlNI, n LnetctlNet, lp, np string) {
	switch {
	case lni.Tunables != nil:
		spec.Tunables, spec.tunablesPath = &lni.Tunables.NetTunables, lp+".tunables"
	case n.Tunables != nil:
		t := n.Tunables.NetTunables
		spec.Tunables, spec.tunablesPath = &t, np+".tunables"
	}
	switch {
	case lni.LNDTunables != nil:
		spec.LND, spec.lndPath = lni.LNDTunables, lp+".lnd tunables"
	case lni.Tunables != nil && lni.Tunables.LND != nil:
		spec.LND, spec.lndPath = lni.Tunables.LND, lp+".tunables"
	case n.LNDTunables != nil:
		t := *n.LNDTunables
		spec.LND, spec.lndPath = &t, np+".lnd tunables"
	case n.Tunables != nil && n.Tunables.LND != nil:
		t := *n.Tunables.LND
		spec.LND, spec.lndPath = &t, np+".tunables"
	}
}

// netTables canonicalizes lnet.nets and o2ib, fills an entry for every net in use, takes
// unset LNet net tunables from the net's o2ib parameters, and resolves each NI's tunables.
func (r *resolver) netTables() {
	s := r.s
	lnetKey := r.canonNets("lnet.nets", s.LNet.Nets)
	o2ibKey := r.canonNets("o2ib", s.O2IB)
	if s.LNet.Nets == nil {
		s.LNet.Nets = map[string]*NetTunables{}
	}
	if s.O2IB == nil {
		s.O2IB = map[string]*O2IBParams{}
	}
	sockKey := r.canonNets("socklnd", s.SockLND)
	for net, key := range sockKey {
		if !IsTCPNet(net) {
			r.errorAt(join("socklnd", key), "give o2ib nets' parameters under o2ib", "%s is not a tcp net", net)
		}
	}
	for net, key := range o2ibKey {
		if IsTCPNet(net) {
			r.errorAt(join("o2ib", key), "give tcp nets' parameters under socklnd", "%s is not an o2ib net", net)
		}
	}
	nets := make([]string, 0, len(r.nets))
	for n := range r.nets {
		nets = append(nets, n)
	}
	for n := range r.netAddNets() { // those the scenario configures: lnetKey, o2ibKey, sockKey
		_, l := lnetKey[n]
		_, o := o2ibKey[n]
		_, k := sockKey[n]
		if !r.nets[n] && (l || o || k) {
			nets = append(nets, n)
		}
	}
	sort.Strings(nets)
	for _, net := range nets {
		var o lndDefaults
		if IsTCPNet(net) {
			if s.SockLND == nil {
				s.SockLND = map[string]*SockLNDParams{}
			}
			so, ok := s.SockLND[net]
			if !ok {
				so = &SockLNDParams{}
				so.setDefaults()
				s.SockLND[net] = so
			}
			if key, ok := sockKey[net]; ok {
				r.checkSockLND(join("socklnd", key), so)
			}
			o = lndDefaults{so.PeerCredits, so.Credits, so.PeerTimeout, so.PeerBufferCredits}
		} else {
			oo, ok := s.O2IB[net]
			if !ok {
				oo = &O2IBParams{}
				oo.setDefaults()
				s.O2IB[net] = oo
			}
			if key, ok := o2ibKey[net]; ok {
				r.checkO2IB(join("o2ib", key), oo)
			}
			o = lndDefaults{oo.PeerCredits, oo.Credits, oo.PeerTimeout, oo.PeerBufferCredits}
		}
		t, ok := s.LNet.Nets[net]
		if !ok {
			t = &NetTunables{}
			t.setDefaults()
			s.LNet.Nets[net] = t
		}
		key, written := lnetKey[net]
		tp := join("lnet.nets", key)
		if !r.d.has(tp + ".peer_credits") {
			t.PeerCredits = o.PeerCredits
		}
		if !r.d.has(tp + ".credits") {
			t.Credits = o.Credits
		}
		if !r.d.has(tp + ".peer_timeout") {
			t.PeerTimeout = o.PeerTimeout
		}
		if !r.d.has(tp + ".peer_buffer_credits") {
			t.PeerBufferCredits = o.PeerBufferCredits
		}
		if written {
			r.checkTunables(tp, t)
		}
	}
	// Each NI: its net's tables with what it wrote itself on top.
	for _, g := range r.groups {
		ng := s.Nodes[g]
		for i := range ng.NIs {
			ni := &ng.NIs[i]
			if ni.Net == "" || s.LNet.Nets[ni.Net] == nil {
				continue
			}
			t := *s.LNet.Nets[ni.Net]
			if ni.Tunables != nil {
				r.overlay(&t, ni.Tunables, ni.tunablesPath)
				r.checkTunables(ni.tunablesPath, ni.Tunables)
			} else {
				ni.Tunables = &t
			}
			if IsTCPNet(ni.Net) {
				if ni.LND != nil {
					r.errorAt(ni.lndPath, "set socklnd parameters per net, under socklnd", "lnd_tunables of a tcp NI are not modelled")
					ni.LND = nil
				}
				continue
			}
			l := *s.O2IB[ni.Net]
			if ni.LND != nil {
				r.overlay(&l, ni.LND, ni.lndPath)
				r.checkO2IB(ni.lndPath, ni.LND)
			} else {
				ni.LND = &l
			}
			r.releaseO2IB(g, o2ibKey[ni.Net], ni)
		}
		for k := 0; k < ng.Count; k++ {
			m := s.Member(memberName(g, k, ng.Count))
			for i := range m.NIs {
				if i < len(ng.NIs) {
					m.NIs[i].Tunables, m.NIs[i].LND = ng.NIs[i].Tunables, ng.NIs[i].LND
				}
			}
		}
	}
}

// canonNets rewrites the keys of a per-net map to canonical net names, reporting unknown or
// unused nets, and returns canonical name -> key as written.
func canonNetsOf[T any](r *resolver, path string, m map[string]T) map[string]string {
	written := map[string]string{}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := m[k]
		net, _, err := ParseNet(k)
		p := join(path, k)
		if err != nil {
			r.errorAt(p, "", "%v", err)
			delete(m, k)
			continue
		}
		if !r.nets[net] && !r.netAddNets()[net] {
			r.errorAt(p, "add an NI on it (or a net add on it) or remove this entry", "no node has an NI on net %s", net)
		}
		if w, dup := written[net]; dup {
			r.errorAt(p, "", "net %s is already configured as %q", net, w)
			continue
		}
		written[net] = k
		delete(m, k)
		m[net] = v
	}
	return written
}

// netAddNets are the nets the timeline's `lnetctl net add` commands add NIs on (read from
// the commands as written, every net an --ip2net rule names; they are checked with the timeline): the scenario may give
// their LND's parameters and their LNet tunables, which the added NIs then take.
func (r *resolver) netAddNets() map[string]bool {
	if r.addNets != nil {
		return r.addNets
	}
	r.addNets = map[string]bool{}
	for _, f := range r.s.Faults {
		words, err := splitWords(f.Lnetctl)
		if f.Lnetctl == "" || err != nil {
			continue
		}
		spec, rest := findCommand(words)
		if spec == nil || spec.verb != "net add" {
			continue
		}
		c, err := spec.parse(rest)
		if err != nil {
			continue
		}
		if net, _, err := ParseNet(c.Args["net"]); err == nil && c.Args["net"] != "" {
			r.addNets[net] = true
		} else if x, err := ParseNID(c.Args["nid"]); err == nil {
			r.addNets[x.Net] = true
		} else if rules, ok := c.Args["ip2net"]; ok {
			for _, e := range strings.FieldsFunc(rules, func(c rune) bool { return c == ';' || c == '\n' }) {
				if w := strings.Fields(e); len(w) > 0 {
					nets, _ := (modparam.Dialect{}).ParseNetworks(w[0])
					for _, n := range nets {
						r.addNets[n.ID.String()] = true
					}
				}
			}
		}
	}
	return r.addNets
}

// lndDefaults are the LND module parameters an NI's LNet net tunables default to.
type lndDefaults struct {
	PeerCredits, Credits int
	PeerTimeout          sim.Time
	PeerBufferCredits    int
}

func (r *resolver) canonNets(path string, m any) map[string]string {
	switch m := m.(type) {
	case map[string]*NetTunables:
		return canonNetsOf(r, path, m)
	case map[string]*O2IBParams:
		return canonNetsOf(r, path, m)
	case map[string]*SockLNDParams:
		return canonNetsOf(r, path, m)
	}
	return nil
}

func (r *resolver) checkTunables(p string, t *NetTunables) {
	if t.PeerCredits < 1 || t.PeerCredits > 255 {
		r.errorAt(p+".peer_credits", "", "must be from 1 to 255, got %d", t.PeerCredits)
	}
	if t.Credits < 1 {
		r.errorAt(p+".credits", "", "must be at least 1, got %d", t.Credits)
	} else if t.Credits < t.PeerCredits {
		r.errorAt(p+".credits", "the kernel limits peer_credits to the NI's credits", "credits (%d) is less than peer_credits (%d)", t.Credits, t.PeerCredits)
	}
	if t.PeerBufferCredits < 0 {
		r.errorAt(p+".peer_buffer_credits", "", "must not be negative")
	}
}

func (r *resolver) checkO2IB(p string, o *O2IBParams) {
	rng := func(f string, v, lo, hi int) {
		if v < lo || v > hi {
			r.errorAt(p+"."+f, "", "must be from %d to %d, got %d", lo, hi, v)
		}
	}
	if o.Timeout < 0 {
		r.errorAt(p+".timeout", "0 means the global LND timeout (lnd_timeout)", "must not be negative")
	}
	rng("peer_credits", o.PeerCredits, 1, 255)
	rng("credits", o.Credits, 1, 1<<20)
	rng("peer_credits_hiw", o.PeerCreditsHiw, 0, 255)
	rng("concurrent_sends", o.ConcurrentSends, 0, 1024)
	rng("conns_per_peer", o.ConnsPerPeer, 1, 127)
	rng("ntx", o.NTX, 1, 1<<20)
	rng("retry_count", o.RetryCount, 0, 7)
	rng("rnr_retry_count", o.RNRRetryCount, 0, 7)
	rng("tos", o.TOS, -1, 255)
	rng("peer_buffer_credits", o.PeerBufferCredits, 0, 1<<20)
	switch o.Bulk {
	case "", "write":
		o.Bulk = ""
		if o.ReadDepth != 0 {
			r.errorAt(p+".read_depth", "set bulk: read, or remove read_depth", "read_depth applies to bulk: read only")
		}
	case "read":
		rng("read_depth", o.ReadDepth, 0, 16)
	default:
		r.errorAt(p+".bulk", "", "unknown bulk %q (use write or read)", o.Bulk)
	}
	switch o.IBMTU {
	case 0, 256, 512, 1024, 2048, 4096:
	default:
		r.errorAt(p+".ib_mtu", "", "must be 0 (auto), 256, 512, 1024, 2048 or 4096, got %d", o.IBMTU)
	}
}

// globals checks LNet global tunables written at path.
func (r *resolver) globals(path string, g *Globals) {
	p := func(f string) string { return join(path, f) }
	ltt := g.TransactionTimeout.WholeSeconds()
	if g.TransactionTimeout <= 0 {
		r.errorAt(p("transaction_timeout"), "", "must be greater than zero")
	}
	if g.HealthSensitivity < 0 || g.HealthSensitivity > 1000 {
		r.errorAt(p("health_sensitivity"), "", "must be from 0 to 1000, got %d", g.HealthSensitivity)
	}
	if g.HealthSensitivity == 0 && g.RetryCount > 0 {
		if r.d.has(p("retry_count")) {
			r.errorAt(p("retry_count"), "the kernel refuses retries without health; set retry_count: 0", "retry_count %d needs health_sensitivity > 0", g.RetryCount)
		} else {
			g.RetryCount = 0 // as the kernel does when sensitivity is set to 0
		}
	}
	if g.RetryCount < 0 {
		r.errorAt(p("retry_count"), "", "must not be negative")
	} else if g.TransactionTimeout > 0 && int64(g.RetryCount) > ltt {
		r.errorAt(p("retry_count"), "the kernel requires retry_count <= transaction_timeout", "retry_count %d is greater than transaction_timeout (%s)", g.RetryCount, g.TransactionTimeout)
	}
	if g.ResponseTracking < 0 || g.ResponseTracking > 3 {
		r.errorAt(p("response_tracking"), "0: pings only, 1: GET, 2: PUT, 3: both", "must be from 0 to 3, got %d", g.ResponseTracking)
	}
	if g.MaxRecoveryPingInterval <= 0 {
		r.errorAt(p("max_recovery_ping_interval"), "", "must be greater than zero")
	}
	if g.MaxInterfaces < 1 {
		r.errorAt(p("max_interfaces"), "", "must be at least 1")
	}
	for _, k := range []struct {
		name string
		v    int
	}{{"accept_port", g.AcceptPort}, {"accept_port_bulk", g.AcceptPortBulk}} {
		if k.v < 0 || k.v > 65535 || k.v == 0 && r.d.has(p(k.name)) {
			// lnet_acceptor_add_socket refuses it (-EINVAL) and the NI does not start
			r.errorAt(p(k.name), "a TCP port, 1 to 65535 (default 988)", "%s %d is not a port", k.name, k.v)
		}
	}
	if g.RouterSensitivity < 0 || g.RouterSensitivity > 100 {
		r.errorAt(p("router_sensitivity"), "", "must be a percentage from 0 to 100")
	}
	if g.NumaRange < 0 {
		r.errorAt(p("numa_range"), "", "must not be negative")
	}
	if g.CPTs < 0 || g.CPTs > lnet.MaxCPTs {
		r.errorAt(p("cpts"), "a node has one CPT per NUMA node or a few per socket", "must be from 1 to %d, got %d", lnet.MaxCPTs, g.CPTs)
	}
	for f, v := range map[string]int{"tiny_router_buffers": g.TinyRouterBuffers, "small_router_buffers": g.SmallRouterBuffers, "large_router_buffers": g.LargeRouterBuffers, "peer_buffer_credits": g.PeerBufferCredits} {
		if v < 0 {
			r.errorAt(p(f), "", "must not be negative")
		}
	}
}

// nodeConfig resolves each member's globals, routes and peers.
func (r *resolver) nodeConfig() {
	s := r.s
	for _, g := range r.groups {
		ng := s.Nodes[g]
		gp := join("nodes", g)
		glob := s.LNet.Globals
		if lc := ng.Lnetctl; lc != nil {
			lp := gp + ".lnetctl"
			if lc.Global != nil {
				r.overlay(&glob, &lc.Global.Globals, lp+".global")
				glob = lc.Global.Globals
				r.globals(lp+".global", &glob)
			}
			if b := lc.Buffers; b != nil {
				if r.d.has(lp + ".buffers.tiny") {
					glob.TinyRouterBuffers = b.Tiny
				}
				if r.d.has(lp + ".buffers.small") {
					glob.SmallRouterBuffers = b.Small
				}
				if r.d.has(lp + ".buffers.large") {
					glob.LargeRouterBuffers = b.Large
				}
			}
			if lc.Numa != nil {
				glob.NumaRange = lc.Numa.Range
			}
			if lc.IP2Nets != nil {
				r.errorAt(lp+".ip2nets", "give the node's NIs in nis or in the net section, or import the rules on the timeline (lnetctl: import)",
					"ip2nets in a node's configuration is not modelled")
			}
			if lc.Routing != nil && r.d.has(lp+".routing.enable") {
				if r.d.has(gp+".routing") && ng.Routing != lc.Routing.Enable {
					r.errorAt(lp+".routing.enable", "", "contradicts the node's routing setting")
				}
				ng.Routing = lc.Routing.Enable
			}
			for i, rt := range lc.Route {
				ng.Routes = append(ng.Routes, Route{Net: rt.Net, Gateway: rt.Gateway, Hop: rt.Hop, Priority: rt.Priority, Nodes: NameList{"\x00" + index(lp+".route", i)}})
			}
			for i, pr := range lc.Peer {
				var nids []string
				for _, pni := range pr.PeerNIs {
					nids = append(nids, pni.NID)
				}
				mr, ok := pr.MultiRail.Bool(true)
				if !ok {
					r.errorAt(index(lp+".peer", i)+".Multi-Rail", "", "expected true or false (or 1/0 as lnetctl prints), got %q", string(pr.MultiRail))
				}
				ng.Peers = append(ng.Peers, Peer{PrimaryNID: pr.PrimaryNID, MultiRail: mr, NIDs: nids, Nodes: NameList{"\x00" + index(lp+".peer", i)}})
			}
		}
		r.releaseGlobals(g, gp+".lnetctl.global", &glob)
		gl := glob
		for k := 0; k < ng.Count; k++ {
			m := s.Member(memberName(g, k, ng.Count))
			m.Routing = ng.Routing
			m.Global = &gl
		}
		ng.Global = &gl
	}
	r.moduleRoutes()
	// Routes: lnet.routes, then each group's own (lnetctl routes included).
	for i, rt := range s.LNet.Routes {
		p := index("lnet.routes", i)
		var targets []*Member
		if len(rt.Nodes) > 0 {
			targets = r.expandNames(p+".nodes", rt.Nodes)
		} else {
			net, _, _ := ParseNet(rt.Net)
			for mi := range s.Members {
				m := &s.Members[mi]
				if !m.Routing && !hasNet(m, net) {
					targets = append(targets, m)
				}
			}
		}
		r.addRoute(p, rt, targets)
	}
	for _, g := range r.groups {
		ng := s.Nodes[g]
		var members []*Member
		for k := 0; k < ng.Count; k++ {
			members = append(members, s.Member(memberName(g, k, ng.Count)))
		}
		for i, rt := range ng.Routes {
			p := index(join("nodes", g)+".routes", i)
			if len(rt.Nodes) == 1 && strings.HasPrefix(rt.Nodes[0], "\x00") {
				p = rt.Nodes[0][1:]
			} else if len(rt.Nodes) > 0 {
				r.errorAt(p+".nodes", "a node's own routes apply to it", "nodes is only used in lnet.routes")
			}
			r.addRoute(p, rt, members)
		}
		for i, pr := range ng.Peers {
			p := index(join("nodes", g)+".peers", i)
			if len(pr.Nodes) == 1 && strings.HasPrefix(pr.Nodes[0], "\x00") {
				p = pr.Nodes[0][1:]
			}
			r.addPeer(p, pr, members)
		}
	}
	for i, pr := range s.LNet.Peers {
		p := index("lnet.peers", i)
		targets := r.nodesOrAll(p+".nodes", pr.Nodes)
		r.addPeer(p, pr, targets)
	}
	for _, g := range r.groups {
		ng := s.Nodes[g]
		for i := range ng.Routes {
			ng.Routes[i].Nodes = nil
		}
		for i := range ng.Peers {
			ng.Peers[i].Nodes = nil
		}
	}
}

func hasNet(m *Member, net string) bool {
	for _, ni := range m.NIs {
		if ni.Net == net {
			return true
		}
	}
	return false
}

// gatewayNID resolves a route's gateway for member m: a NID, node:index, or a node name
// (its NI on a net m has).
func (r *resolver) gatewayNID(p string, ref string, m *Member) (NID, bool) {
	if !strings.Contains(ref, "@") && !strings.Contains(ref, ":") {
		gw := r.resolveNode(p, ref)
		if gw == nil {
			return NID{}, false
		}
		for _, ni := range gw.NIs {
			if hasNet(m, ni.Net) {
				return ni.NID, true
			}
		}
		r.errorAt(p, "the gateway must share a net with the node", "router %s has no NI on a net of %s", gw.Name, m.Name)
		return NID{}, false
	}
	if nid, err := ParseNID(ref); err == nil {
		// Any NID, also one no node has: the kernel accepts such a gateway, which is then
		// unreachable.
		return nid, true
	}
	gw, i, ok := r.resolveNI(p, ref)
	if !ok {
		return NID{}, false
	}
	return gw.NIs[i].NID, true
}

// gatewayRefs expands a route's gateway: a NID list or range (10.0.0.[2-6]@o2ib), as
// lnetctl route add takes it, gives one route per NID; anything else is one reference.
func (r *resolver) gatewayRefs(p, ref string) []string {
	if !strings.ContainsAny(ref, "[, ") {
		return []string{ref}
	}
	return r.cmdNIDs(p, ref)
}

func (r *resolver) addRoute(p string, rt Route, targets []*Member) {
	net, _, err := ParseNet(rt.Net)
	if rt.Net == "" {
		r.errorAt(p+".net", "", "net is required")
		return
	}
	if err != nil {
		r.errorAt(p+".net", "", "%v", err)
		return
	}
	if rt.Gateway == "" {
		r.errorAt(p+".gateway", "", "gateway is required")
		return
	}
	if rt.Hop != -1 && (rt.Hop < 1 || rt.Hop > 255) {
		r.errorAt(p+".hop", "", "must be -1 (undefined) or from 1 to 255, got %d", rt.Hop)
	}
	if rt.Priority < 0 {
		r.errorAt(p+".priority", "", "must not be negative")
	}
	pg := p + ".gateway"
	var refs []string // one gateway, the same for every target: expanded once
	if !strings.ContainsAny(rt.Gateway, "[, ") {
		refs = []string{rt.Gateway}
	}
	for _, m := range targets {
		if m == nil {
			continue
		}
		if hasNet(m, net) {
			r.errorAt(p+".net", "", "%s has an NI on %s; a route to a local net is refused", m.Name, net)
			return
		}
		mrefs := refs
		if mrefs == nil {
			mrefs = r.gatewayRefs(pg, rt.Gateway)
		}
		for _, ref := range mrefs {
			if !r.addGatewayRoute(p, pg, m, net, ref, rt) {
				return
			}
		}
	}
}

// addGatewayRoute adds m's route to net through gateway ref (written at pg, p's gateway);
// false after an error.
func (r *resolver) addGatewayRoute(p, pg string, m *Member, net, ref string, rt Route) bool {
	nid, ok := r.gatewayNID(pg, ref, m)
	if !ok || !nid.Addr.IsValid() {
		return false // no NID: the numbering that ran out is reported at nodes
	}
	if !hasNet(m, nid.Net) {
		r.errorAt(pg, "", "gateway %s is not on a net of %s", nid, m.Name)
		return false
	}
	if owner := r.s.Member(r.nids[nid]); owner != nil && !owner.Routing {
		r.errorAt(pg, "set routing: true on "+owner.Group, "gateway %s (%s) does not route", nid, owner.Name)
		return false
	}
	return r.addRouteOnce(p, m, ResolvedRoute{Net: net, Gateway: nid, Hop: rt.Hop, Priority: rt.Priority})
}

func (r *resolver) addPeer(p string, pr Peer, targets []*Member) {
	pm, pi, ok := r.resolveNI(p+".primary_nid", pr.PrimaryNID)
	if pr.PrimaryNID == "" {
		r.errorAt(p+".primary_nid", "", "primary_nid is required")
	}
	if !ok {
		return
	}
	rp := ResolvedPeer{PrimaryNID: pm.NIs[pi].NID, MultiRail: pr.MultiRail, LockPrimary: pr.LockPrimary}
	if len(pr.NIDs) == 0 {
		for _, ni := range pm.NIs {
			rp.NIDs = append(rp.NIDs, ni.NID)
		}
	}
	for i, ref := range pr.NIDs {
		m, j, ok := r.resolveNI(index(p+".nids", i), ref)
		if !ok {
			continue
		}
		if m != pm {
			r.errorAt(index(p+".nids", i), "", "%s belongs to %s, not to the peer %s", m.NIs[j].NID, m.Name, pm.Name)
			continue
		}
		rp.NIDs = append(rp.NIDs, m.NIs[j].NID)
	}
	for _, m := range targets {
		if m != nil && m != pm {
			if rel := r.rel[m.Group]; pr.LockPrimary && rel.Profile.NoPeerLockPrimary {
				r.errorAt(p+".lock_prim", "remove it, or run the node on 2.16 or later", "%s runs %s, which has no locked primary NIDs (LU-14668, from 2.16)", m.Name, rel.Name)
				return
			}
			m.Peers = append(m.Peers, rp)
		}
	}
}

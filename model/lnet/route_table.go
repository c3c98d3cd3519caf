package lnet

import (
	"fmt"
)

// Route is one route to a remote net through a gateway (struct lnet_route). It fits one
// 64-byte line (the 64-byte size class is line-aligned): findRoute reads every route to the
// destination's net on every routed send.
type Route struct {
	gw    *Peer // the gateway peer (lr_gateway)
	gwNID NID   // the gateway's NID on a local net (lr_nid)

	// upMemo is routeAlive's last answer and gwMemo gwBestLPNI(gw, nil)'s when the gateway
	// has exactly one peer NI on this node's local nets (nil otherwise: selection among
	// several runs each time); both are valid while memoGen is the node's routeGen + 1 (a new
	// route's zero memoGen never is). With one candidate the answer does not depend on the
	// candidate's health, credits or sequence, only on which peer NIs and local nets exist,
	// and every change of those calls routesChanged.
	gwMemo  *PeerNI
	memoGen uint64

	priority  int   // lr_priority, lower preferred
	net       NetID // the remote net (lr_net)
	seq       uint32
	hops      int32 // lr_hops; -1 = undefined (counts as 1); 1..255 otherwise
	alive     bool  // lr_alive: cached aliveness (used as such with discovery disabled)
	singleHop bool  // lr_single_hop: the gateway has an NI on the remote net
	upMemo    bool
}

// remoteNet is the routes to one remote net (struct lnet_remotenet), in the order added.
type remoteNet struct {
	id     NetID
	routes []*Route
}

// RouteShow is one route as `lnetctl route show -v` prints it.
type RouteShow struct {
	Net      string `yaml:"net"`
	Gateway  string `yaml:"gateway"`
	Hop      int    `yaml:"hop"`
	Priority int    `yaml:"priority"`
	// HealthSensitivity is the gateway peer's lp_health_sensitivity, which lnetctl prints
	// after priority under GatewayOwnSensitivity (2.15, 2.16: lustre_lnet_show_route, the
	// Netlink route dump); 0 elsewhere, where it is not printed (LU-18444 drops it).
	HealthSensitivity int    `yaml:"health_sensitivity,omitempty"`
	Health            int    `yaml:"-"`     // the gateway peer NI's health (lnetctl does not print it)
	State             string `yaml:"state"` // "up" or "down" (lnet_is_route_alive)
	Type              string `yaml:"type"`  // "single-hop" or "multi-hop" (lr_single_hop)
}

// AddRoute configures a route (`lnetctl route add --net N --gateway G --hop H --priority P`,
// lnet_add_route): net must be remote, the gateway on a local net; hops is -1 (undefined,
// treated as 1) or 1..255; priority >= 0. The route takes a random place in the net's list
// (which decides full ties). The gateway becomes a peer marked as a router,
// alive unless check_routers_before_use (lnet_peers_start_down), and the router checker
// pings it on its next pass. The gateway's sensitivity is lnet_add_route's default, 1
// (AddRouteSensitivity gives another).
func (n *Node) AddRoute(net NetID, gateway NID, hops, priority int) error {
	return n.AddRouteSensitivity(net, gateway, hops, priority, 1)
}

// AddRouteSensitivity is AddRoute with the gateway peer's lp_health_sensitivity, which
// lnet_add_route sets when it adds the route (not for a duplicate): the last route added
// through a gateway decides it. It is at least 1 (lnetctl and the kernel refuse less).
func (n *Node) AddRouteSensitivity(net NetID, gateway NID, hops, priority, sensitivity int) error {
	switch {
	case n.netByID(net) != nil || net == LoNet:
		return fmt.Errorf("route to %s: the net is local", net)
	case n.netByID(gateway.Net()) == nil:
		return fmt.Errorf("route to %s: gateway %s is not on a local net", net, gateway)
	case n.isLocalNID(gateway):
		return fmt.Errorf("route to %s: gateway %s is a local NI", net, gateway)
	case hops != -1 && (hops < 1 || hops > 255):
		return fmt.Errorf("route to %s: hops %d out of range (-1 or 1..255)", net, hops)
	case priority < 0:
		return fmt.Errorf("route to %s: negative priority %d", net, priority)
	case sensitivity < 1:
		return fmt.Errorf("route to %s: health sensitivity %d below 1", net, sensitivity)
	}
	var rn *remoteNet
	for _, x := range n.remoteNets {
		if x.id == net {
			rn = x
		}
	}
	if rn == nil {
		rn = &remoteNet{id: net}
		n.remoteNets = append(n.remoteNets, rn)
	}
	lpni := n.nid2peerni(gateway)
	p := lpni.peer
	for _, r := range rn.routes {
		if r.gw == p {
			return fmt.Errorf("route to %s via %s already exists", net, gateway)
		}
	}
	p.isRouter = true // again, after DelRoute took its last route
	if p.gw == nil {
		p.gw = &gwState{idx: len(n.gateways)}
		p.alive = !n.tun.CheckRoutersBeforeUse
		n.gateways = append(n.gateways, p)
	}
	p.gw.sensitivity = sensitivity
	// lnet_add_route_to_rnet forces a router check of the gateway on every peer net.
	for i := range p.gw.netPings {
		p.gw.netPings[i].next = n.k.Now()
	}
	r := &Route{net: net, gwNID: gateway, gw: p, hops: int32(hops), priority: priority, alive: !n.tun.CheckRoutersBeforeUse}
	n.insertRoute(rn, r)
	p.gw.routes = append(p.gw.routes, r)
	return nil
}

// insertRoute puts r into its net's list as lnet_add_route_to_rnet does: at a random place,
// so that nodes sharing a list of routers prefer different ones on full ties. The offset o
// is drawn in [0, len]; the route goes after the o-th route, or first when o is len (the list
// head). The draw comes from the node's own named stream, and none is made into an empty
// list (whose only place is the first).
func (n *Node) insertRoute(rn *remoteNet, r *Route) {
	k := len(rn.routes)
	pos := 0
	if k > 0 {
		if n.routeRand == nil {
			n.routeRand = n.k.Rand("lnet/routes/" + n.name)
		}
		if o := n.routeRand.IntN(k + 1); o < k {
			pos = o + 1
		}
	}
	rn.routes = append(rn.routes, nil)
	copy(rn.routes[pos+1:], rn.routes[pos:])
	rn.routes[pos] = r
}

// Routes returns the routes in `lnetctl route show -v` shape: remote nets in the order they
// were first added, each net's routes in list order (see AddRoute), with their state now.
func (n *Node) Routes() []RouteShow {
	var out []RouteShow
	for _, rn := range n.remoteNets {
		for _, r := range rn.routes {
			st := "down"
			if n.routeAlive(r) {
				st = "up"
			}
			h := 0
			if lpni := n.findPeerNI(r.gwNID); lpni != nil {
				h = lpni.health
			}
			typ := "multi-hop"
			if r.singleHop {
				typ = "single-hop"
			}
			sens := 0
			if n.tun.Profile.GatewayOwnSensitivity {
				sens = r.gw.gw.sensitivity
			}
			out = append(out, RouteShow{Net: r.net.LnetctlString(), Gateway: r.gwNID.String(), Hop: int(r.hops),
				Priority: r.priority, HealthSensitivity: sens, Health: h, State: st, Type: typ})
		}
	}
	return out
}

// routeAlive is computeRouteAlive, remembered per route until one of its inputs changes
// (the kernel evaluates lnet_is_route_alive on every use; the memo gives the same answers
// without walking the gateway's nets on every send). Every write of an input calls
// routesChanged; under the invariants build tag each answer is checked against a fresh one.
func (n *Node) routeAlive(r *Route) bool {
	n.refreshRouteMemo(r)
	checkRouteMemo(n, r)
	return r.upMemo
}

// routesChanged invalidates every route's aliveness memo. It is called wherever an input of
// computeRouteAlive changes: a gateway's aliveness, lr_alive, lr_single_hop, routing or
// discovery advertised by the gateway, its multi-rail state, its peer NIs (added, removed,
// status, health) and the node's tunables.
func (n *Node) routesChanged() { n.routeGen++ }

// computeRouteAlive models lnet_is_route_alive: the gateway must be alive; with discovery disabled
// for the gateway (discoveryDisabled: off here, or the gateway not known multi-rail, as
// before its first ping reply, or advertising no discovery), or under RouterCheckerPing
// (2.12, whose route state is always the gateway's lpni_alive and lr_downis, whatever the
// health or status of its peer NIs) the cached lr_alive decides, so
// a new route is up at once (lr_alive starts 1 unless check_routers_before_use); otherwise
// the gateway must have an UP NI on the route's local net and, with
// avoid_asym_router_failure on a route of 1 hop or found single-hop (lr_single_hop: the
// gateway's last ping reply listed an NI on the remote net), an UP NI on the remote net, and
// it must advertise routing enabled.
func (n *Node) computeRouteAlive(r *Route) bool {
	gw := r.gw
	if !gw.alive {
		return false
	}
	if n.discoveryDisabled(gw) || n.tun.Profile.RouterCheckerPing {
		return r.alive
	}
	if gw.gw.rtrDisabled || !n.gwNetUp(gw, r.gwNID.Net()) {
		return false
	}
	if n.tun.AvoidAsymRouterFailure && (r.hops == 1 || r.singleHop) && !n.gwNetUp(gw, r.net) {
		return false
	}
	return true
}

// gwNIAlive models lnet_is_peer_ni_alive for a gateway's peer NI: its cached status is UP
// and, under RouteNeedsGatewayHealth (2.15, 2.16), its health is at least
// router_sensitivity percent of the maximum.
func (n *Node) gwNIAlive(lpni *PeerNI) bool {
	if n.tun.Profile.RouteNeedsGatewayHealth && lpni.health < MaxHealth*n.tun.RouterSensitivity/100 {
		return false
	}
	return lpni.status == NIStatusUp
}

// gwNetUp reports whether the gateway has an alive NI on net (lnet_is_gateway_net_alive).
func (n *Node) gwNetUp(gw *Peer, net NetID) bool {
	for _, pn := range gw.nets {
		if pn.id != net {
			continue
		}
		for _, lpni := range pn.nis {
			if n.gwNIAlive(lpni) {
				return true
			}
		}
	}
	return false
}

// findRoute models lnet_find_route_locked. Over the live routes to net, in list order:
// lnet_compare_routes first (a gateway on the destination peer NI's preferred-router list,
// set by a UDSP rte rule, beats one that is not; then lower priority; then fewer hops,
// undefined counting as 1); a route that loses is skipped before its gateway's peer NI is
// looked up. The gateway needs a peer NI on a local net (on ni's, if a source NI is fixed;
// gwBestLPNI). On a tie lnet_compare_gw_lpnis decides (higher health, fewer queued bytes, more tx
// credits), and on a tie there the route with the higher lr_seq is skipped: an equal one
// replaces the best so far. The route with the largest lr_seq seen after the first
// candidate (last_route) gives the winner its new sequence, last_route's + 1 (unsigned
// comparisons, as in the kernel). It returns the route's gateway peer NI, or nil.
func (n *Node) findRoute(net NetID, ni *NI, dst *PeerNI) *PeerNI {
	var rn *remoteNet
	for _, x := range n.remoteNets {
		if x.id == net {
			rn = x
			break
		}
	}
	if rn == nil {
		return nil
	}
	var best, last *Route
	var bl *PeerNI
	bestPref := false
	// What no route changes, read once: whether dst prefers any router, and whether the
	// gateways' health counts.
	prefs := len(dst.rtrPref) > 0
	health := !n.tun.Profile.RouterCheckerPing
	for _, r := range rn.routes {
		if !n.routeAlive(r) {
			continue
		}
		if last != nil && last.seq < r.seq {
			last = r
		}
		pref := prefs && dst.prefersRouter(r.gw.primary)
		rc := compareRoutes(r, best, pref, bestPref)
		if rc < 0 {
			continue
		}
		lpni := n.routeGwLPNI(r, ni) // routeAlive has refreshed r's memos
		if lpni == nil {
			continue
		}
		if rc == 0 {
			if c := compareGwLPNIs(lpni, bl, health); c < 0 || c == 0 && r.seq > best.seq {
				continue
			}
		}
		best, bl, bestPref = r, lpni, pref
		if last == nil {
			last = r
		}
	}
	if best == nil {
		return nil
	}
	best.seq = last.seq + 1
	return bl
}

// gwBestLPNI models lnet_find_best_lpni(NULL, NULL, gateway, src_net) as
// lnet_find_route_locked calls it: with a source NI fixed, the gateway's best peer NI on that
// NI's net (whatever the route's own local net); otherwise the best over every one of the
// gateway's peer nets that is a local net, carried from net to net (selectPeerNIFrom). No
// local NI is given, so preferred NIDs play no part.
func (n *Node) gwBestLPNI(gw *Peer, ni *NI) *PeerNI {
	var best *PeerNI
	for _, lpn := range gw.nets {
		switch {
		case ni != nil && lpn.id != ni.net.ID:
			continue
		case ni == nil && n.netByID(lpn.id) == nil:
			continue
		}
		best = n.selectPeerNIFrom(nil, lpn, best)
	}
	return best
}

// routeGwLPNI is gwBestLPNI(r.gw, ni) for findRoute, once r's memos are fresh (routeAlive
// or refreshRouteMemo). Without a source NI it uses the route's memo of the gateway's
// single local peer NI (see Route.gwMemo), so that a send over many routes reads each route
// and its gateway's peer NI, not the gateway's peer, peer nets and lists; under the
// invariants build tag the memo is checked against a fresh gwBestLPNI.
func (n *Node) routeGwLPNI(r *Route, ni *NI) *PeerNI {
	if ni != nil || r.gwMemo == nil {
		return n.gwBestLPNI(r.gw, ni)
	}
	checkGwMemo(n, r)
	return r.gwMemo
}

// refreshRouteMemo recomputes r's memos (routeAlive's and routeGwLPNI's) when routeGen has
// moved since they were made. The test is small enough to be inlined (findRoute makes it
// for every route); the recomputation is not.
func (n *Node) refreshRouteMemo(r *Route) {
	if r.memoGen != n.routeGen+1 {
		n.recomputeRouteMemo(r)
	}
}

// recomputeRouteMemo is refreshRouteMemo's recomputation.
func (n *Node) recomputeRouteMemo(r *Route) {
	r.upMemo, r.gwMemo, r.memoGen = n.computeRouteAlive(r), n.singleLocalLPNI(r.gw), n.routeGen+1
}

// singleLocalLPNI returns the gateway's only peer NI on a local net, or nil if it has none or
// several.
func (n *Node) singleLocalLPNI(gw *Peer) *PeerNI {
	var one *PeerNI
	for _, lpn := range gw.nets {
		if n.netByID(lpn.id) == nil {
			continue
		}
		for _, lpni := range lpn.nis {
			if one != nil {
				return nil
			}
			one = lpni
		}
	}
	return one
}

// compareRoutes models lnet_compare_routes: 1 if r1 is better, -1 if r2 is, 0 on a tie. A
// missing route loses; then a preferred gateway (UDSP), lower priority, fewer hops.
func compareRoutes(r1, r2 *Route, p1, p2 bool) int {
	switch {
	case r2 == nil:
		return 1
	case p1 != p2:
		return map[bool]int{true: 1, false: -1}[p1]
	case r1.priority != r2.priority:
		if r1.priority < r2.priority {
			return 1
		}
		return -1
	}
	h1, h2 := max(r1.hops, 1), max(r2.hops, 1)
	switch {
	case h1 < h2:
		return 1
	case h1 > h2:
		return -1
	}
	return 0
}

// compareGwLPNIs models lnet_compare_gw_lpnis: higher health, fewer queued bytes, more tx
// credits; 0 on a tie. Without health (RouterCheckerPing, 2.12) it is 2.12's
// lnet_compare_peers: queued bytes, then credits.
func compareGwLPNIs(a, b *PeerNI, health bool) int {
	switch {
	case b == nil:
		return 1
	case health && a.health != b.health:
		if a.health > b.health {
			return 1
		}
		return -1
	case a.txqnob != b.txqnob:
		if a.txqnob < b.txqnob {
			return 1
		}
		return -1
	case a.txCredits != b.txCredits:
		if a.txCredits > b.txCredits {
			return 1
		}
		return -1
	}
	return 0
}

// bestRoutedNet is lnet_handle_find_routed_path's choice among an MR peer's nets that a
// route reaches: higher peer-net health, then lower priority, then lower sequence (compared
// as a wrapping difference); a full tie keeps the first.
func (n *Node) bestRoutedNet(p *Peer) *PeerNet {
	var bp *PeerNet
	for _, pn := range p.nets {
		if len(pn.nis) == 0 || !n.hasRoute(pn.id) {
			continue
		}
		if bp == nil || routedNetBetter(pn, bp) {
			bp = pn
		}
	}
	return bp
}

// routedNetBetter reports whether peer net pn beats bp in bestRoutedNet's order.
func routedNetBetter(pn, bp *PeerNet) bool {
	switch {
	case pn.health != bp.health:
		return pn.health > bp.health
	case pn.SelPriority != bp.SelPriority:
		return pn.SelPriority < bp.SelPriority
	case pn.seq != bp.seq:
		return int32(pn.seq-bp.seq) <= 0
	}
	return false
}

// routedPath models lnet_handle_find_routed_path: reuse the gateway given for an ACK/REPLY
// if it is a known gateway (on ni's net when the source is fixed); otherwise, for a fresh
// multi-rail send, choose the destination's best routed net and peer NI (higher peer-net
// health, lower priority, lower sequence), and find a route to the final destination's net.
// A source NI not fixed yet is the best NI on the gateway's net. It returns the local NI, the
// gateway's peer NI and the final destination's peer NI, or a negative errno.
func (n *Node) routedPath(ni *NI, lpni *PeerNI, m *Msg, rtr NID) (*NI, *PeerNI, *PeerNI, int) {
	var gw *PeerNI
	if rtr != AnyNID {
		if g := n.findPeerNI(rtr); g != nil && g.peer.gw != nil && n.netByID(rtr.Net()) != nil &&
			(ni == nil || ni.net.ID == rtr.Net()) {
			gw = g
		}
	}
	final := lpni
	if gw == nil {
		if p := lpni.peer; ni == nil && !m.routing && !m.isResponse && p.mr && len(p.nis) > 1 {
			if bp := n.bestRoutedNet(p); bp != nil {
				final = bp.nis[0]
				if len(bp.nis) > 1 {
					if sni := n.bestNI(n.firstNet()); sni != nil {
						final = n.selectPeerNI(sni, bp)
					}
				}
			}
		}
		gw = n.findRoute(final.nid.Net(), ni, final)
		if gw == nil {
			return nil, nil, nil, -EHOSTUNREACH
		}
	}
	if ni == nil {
		if ni = n.bestNI(n.netByID(gw.nid.Net())); ni == nil {
			return nil, nil, nil, -ENETDOWN
		}
	}
	return ni, gw, final, 0
}

// firstNet returns the first local net (for peer NI tie-breaks that need some local NI).
func (n *Node) firstNet() *Net {
	if len(n.nets) == 0 {
		return nil
	}
	return n.nets[0]
}

// hasRoute reports whether some route to net exists.
func (n *Node) hasRoute(net NetID) bool {
	for _, rn := range n.remoteNets {
		if rn.id == net {
			return len(rn.routes) > 0
		}
	}
	return false
}

// hasGatewayRouteTo reports whether gw is the gateway of a route to net (the drop_asym_route
// test of lnet_parse).
func (n *Node) hasGatewayRouteTo(gw *Peer, net NetID) bool {
	if gw.gw == nil {
		return false
	}
	for _, r := range gw.gw.routes {
		if r.net == net {
			return true
		}
	}
	return false
}

// mrForwardAllowed models lnet_mr_forwarding_allowed, the router's final-hop rule of
// lnet_select_pathway (the caller has checked that the destination peer is multi-rail):
// forward multi-rail (pick another NI of the destination) only if the originator is a
// multi-rail peer and the NI it chose is down or not fully healthy. Its lookup of the
// originator's peer NI (lnet_peerni_by_nid_locked) creates one for a NID never seen. Under
// MRForwardByDestination (2.15 to 2.17) the originator's multi-rail flag is not looked at and
// the chosen NI must be dead by lnet_is_peer_ni_alive (gwNIAlive).
func (n *Node) mrForwardAllowed(m *Msg, dst *PeerNI) bool {
	src := n.nid2peerni(m.Hdr.Src) // an originator not known yet becomes a peer, as in the kernel
	if n.tun.Profile.MRForwardByDestination {
		return !n.gwNIAlive(dst)
	}
	if !src.peer.mr {
		return false
	}
	return dst.status != NIStatusUp || dst.health < MaxHealth
}

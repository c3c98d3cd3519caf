package lnet

import "github.com/lnetsim/lnetsim/sim"

// sysRouterRef is the system MD purpose of a router checker ping.
const sysRouterRef = 5

// gwState is what a Peer keeps when it is a gateway (lp_rtr_refcount...; lp_alive is Peer.alive).
type gwState struct {
	idx         int
	rtrDisabled bool      // the gateway advertises routing disabled
	routes      []*Route  // routes through it, oldest first (lp_routes, which adds at its head, reversed)
	discNet     NetID     // lp_disc_net_id: the net of the last router checker ping
	netPings    []netPing // lpn_next_ping of each of its peer nets pinged so far
	ping        *MD       // outstanding router checker ping (LNET_PEER_RTR_DISCOVERY)
	joined      bool      // a router check joined the gateway's discovery in flight (LNET_PEER_RTR_DISCOVERY)
	discWaits   bool      // an ordinary discovery of the gateway waits for the router check in flight
	pingDue     sim.Time  // lpni_ping_deadline under RouterCheckerPing (2.12)
	pings       uint64    // router checker pings sent to it
	pingFails   uint64    // of which failed or timed out
	// sensitivity is the gateway peer's lp_health_sensitivity as the last route added
	// through it set it (lnet_add_route: 1 unless `route add --health_sensitivity` gave
	// another); read under GatewayOwnSensitivity (2.15, 2.16).
	sensitivity int
}

// netPing is one gateway peer net's lpn_next_ping.
type netPing struct {
	net  NetID
	next sim.Time
}

// GatewayShow is one gateway as this node sees it: the `peer show -v` fields lnetctl adds for
// a router (its aliveness, whether it advertises routing) and per-gateway statistics.
type GatewayShow struct {
	NID         string `yaml:"primary nid"`
	Alive       bool   `yaml:"alive"`
	Routing     bool   `yaml:"routing enabled"` // as advertised in its ping buffer
	Routes      int    `yaml:"routes"`
	RoutesUp    int    `yaml:"routes up"`
	Pings       uint64 `yaml:"router pings"`
	PingFails   uint64 `yaml:"router ping failures"`
	SendCount   uint64 `yaml:"send_count"` // messages sent to it (all its peer NIs)
	RecvCount   uint64 `yaml:"recv_count"`
	DropCount   uint64 `yaml:"drop_count"`
	BestHealth  int    `yaml:"health value"` // best health of its peer NIs
	MinTxCredit int    `yaml:"min_tx_credits"`
}

// Gateways returns the node's gateways (in the order first used by a route) with their
// state and statistics.
func (n *Node) Gateways() []GatewayShow {
	out := make([]GatewayShow, 0, len(n.gateways))
	for _, p := range n.gateways {
		g := p.gw
		if len(g.routes) == 0 {
			continue // no longer a router (DelRoute)
		}
		gs := GatewayShow{NID: p.primary.String(), Alive: p.alive, Routing: !g.rtrDisabled, Routes: len(g.routes),
			Pings: g.pings, PingFails: g.pingFails, MinTxCredit: 1 << 30}
		for _, r := range g.routes {
			if n.routeAlive(r) {
				gs.RoutesUp++
			}
		}
		for _, lpni := range p.nis {
			gs.SendCount += lpni.sent.count
			gs.RecvCount += lpni.received.count
			gs.DropCount += lpni.dropped.count
			gs.BestHealth = max(gs.BestHealth, lpni.health)
			gs.MinTxCredit = min(gs.MinTxCredit, lpni.minTxCredits)
		}
		out = append(out, gs)
	}
	return out
}

// GatewayAlive reports lp_alive of the gateway owning nid (false if nid is no gateway).
func (n *Node) GatewayAlive(nid NID) bool {
	lpni := n.findPeerNI(nid)
	return lpni != nil && lpni.peer.gw != nil && lpni.peer.alive
}

// updateNIStatus models lnet_update_ni_status_locked on a router: a net that has received no
// router checker ping (a GET on the reserved portal from another node) for
// alive_router_check_interval + router_ping_timeout advertises all its NIs DOWN, counted in
// whole seconds as the kernel's ktime_get_seconds: net_last_alive is a whole second, so the
// pass in second net_last_alive + timeout marks it; the net's first such ping in a later
// second sets the receiving NI UP again (pingHeard, from Parse). On a net not timed out, or one whose NIs
// were all DOWN already, each NI in fatal state whose word is not DOWN is set DOWN (the
// check_ni_fatal loop, LU-13782). A status change is pushed to peers. Nothing here sets a
// word UP again: a recovered NI stays DOWN until a ping reaches it (or its health returns to
// full, or, from master, its fatal state is cleared at full health: SetNIFatal). With
// alive_router_check_interval <= 0 the model keeps no net timeout.
//
// Under NIAliveFromAnyMessage (2.12) it is niStatusByLastAlive instead.
func (n *Node) updateNIStatus() {
	if n.tun.Profile.NIAliveFromAnyMessage {
		n.niStatusByLastAlive()
		return
	}
	timeout := sim.Time(n.tun.AliveRouterCheckInt+n.tun.RouterPingTimeout) * sim.Second
	now := n.k.Now()
	for _, nt := range n.nets {
		if n.tun.AliveRouterCheckInt > 0 && now >= nt.lastAlive+timeout {
			changed := false
			for _, ni := range nt.nis {
				changed = changed || ni.status != NIStatusDown
				n.setNIStatus(ni, NIStatusDown)
			}
			if changed {
				continue
			}
		}
		for _, ni := range nt.nis {
			if ni.fatal {
				n.setNIStatus(ni, NIStatusDown)
			}
		}
	}
}

// niStatusByLastAlive models 2.12's lnet_update_ni_status_locked, run by each monitor pass
// of a router: each NI (not per net) that has received no message at all (niHeard) for
// router_ping_timeout + the longer of live_router_check_interval and
// dead_router_check_interval, both alive_router_check_interval in the model (none below 0),
// since the whole second of its ni_last_alive has its word set DOWN, in place and without a
// push. An NI in fatal state is left as its messages say (2.12 has no check_ni_fatal loop).
func (n *Node) niStatusByLastAlive() {
	timeout := sim.Time(max(n.tun.AliveRouterCheckInt, 0)+n.tun.RouterPingTimeout) * sim.Second
	now := n.k.Now()
	for _, ni := range n.nis {
		if now >= ni.lastAlive+timeout {
			n.editNIStatus(ni, NIStatusDown)
		}
	}
}

// checkRouters models lnet_check_routers, run by the monitor when this node has routes. For
// each gateway not being pinged already (LNET_PEER_RTR_DISCOVERY), walk its peer nets
// round-robin from the one after the net of its last ping (lp_disc_net_id,
// lnet_get_next_peer_net_locked), skipping nets that are not local, and take the first whose
// lpn_next_ping is due; ping the gateway's primary NID from any NI (lnet_send_ping) and set
// that net's next ping alive_router_check_interval later; a gateway with an ordinary
// discovery in flight or queued is not pinged: the check joins that discovery
// (joinDiscovery). Selection sends a multi-rail
// gateway's ping on that net (rtrDiscNet: the best local NI there to the gateway's best peer
// NI there), and a resent ping selects again, so it may leave from another NI or reach
// another of the gateway's NIs on that net. So a
// gateway reached over two local nets is pinged over each in turn, each every interval. The
// ping is response-tracked (LNET_MD_TRACK_RESPONSE, as lnet_send_ping sets it): it fails
// when its GET fails or when its response tracker expires after transaction_timeout;
// router_ping_timeout plays no part in it (the kernel uses that only on routers,
// lnet_update_ni_status_locked, and for the routing start/stop delays). With
// alive_router_check_interval <= 0 the checker is off and each gateway is only discovered
// once (the kernel discovers it inline on first use).
//
// Under RouterCheckerPing (2.12's lnet_ping_router_locked) the ping is not response-tracked:
// it fails at the first pass after router_ping_timeout has passed since it was sent
// (lpni_ping_deadline), and the next is sent at the first pass after the interval (whole
// seconds compared strictly). Deliberate differences: 2.12 pings each gateway NID on its
// own timer (live_router_check_interval while alive, dead_router_check_interval while dead,
// both 60 s by default, both alive_router_check_interval here); the model keeps its walk of
// the gateway's nets, the same for a gateway with one NI per local net. A reply after the
// deadline is not taken (2.12's MD stays and would revive the gateway).
func (n *Node) checkRouters() {
	off := n.tun.AliveRouterCheckInt <= 0
	now := n.k.Now()
	old := n.tun.Profile.RouterCheckerPing
	for _, p := range n.gateways {
		g := p.gw
		if old && g.ping != nil && now > g.pingDue {
			md := g.ping
			n.rtrPingDone(p, nil, -ETIMEDOUT)
			n.mdUnlink(md, 0)
		}
		if g.ping != nil || g.joined || off && g.pings > 0 || len(g.routes) == 0 {
			continue
		}
		pn := n.nextGatewayNet(p, now)
		if pn == nil {
			continue
		}
		g.discNet = pn.id
		if !old && (p.discovering || p.dcQueued) {
			g.setNextPing(pn.id, now+sim.Time(n.tun.AliveRouterCheckInt)*sim.Second)
			n.joinDiscovery(p)
			continue
		}
		next, opts := now+sim.Time(n.tun.AliveRouterCheckInt)*sim.Second, MD_TRACK_RESPONSE|MD_TRUNCATE
		if old {
			next, opts = next+sim.Second, MD_TRUNCATE
			g.pingDue = now + sim.Time(n.tun.RouterPingTimeout)*sim.Second
		}
		g.setNextPing(pn.id, next)
		size := p.discPingSize()
		if old {
			size = n.pingBufSize()
		}
		n.sendRouterPing(p, size, opts)
	}
}

// joinDiscovery is a router check of gateway p while an ordinary discovery of it is in
// flight or queued (lnet_check_routers on a peer on the discovery thread's lists): the check
// sets LNET_PEER_FORCE_PING, LNET_PEER_FORCE_PUSH and LNET_PEER_RTR_DISCOVERY and clears
// NIDS_UPTODATE, and lnet_discover_peer_locked, not blocking, finds the peer queued already
// (-EALREADY) and sends nothing itself. So that discovery, once the ping or push in flight is
// answered, pings the gateway again (on the check's net, rtrDiscNet) and pushes to it, and
// its end completes the check (discoveryDone, routerDiscoveryComplete): one completion for
// both, counted as a router ping (and a failure if it failed).
func (n *Node) joinDiscovery(p *Peer) {
	g := p.gw
	g.joined = true
	g.pings++
	n.rstats.RtrPings++
	p.uptodate = false
	p.forcePing, p.forcePush = true, true
}

// sendRouterPing sends the ping of a router check to gateway p into an MD of size bytes.
func (n *Node) sendRouterPing(p *Peer, size int, opts MDOptions) {
	g := p.gw
	md := n.allocMD(MDSpec{Length: size, Threshold: 2, Options: opts,
		Handler: &n.sysH, User: sysRouterRef<<56 | uint64(g.idx)})
	g.ping = md
	g.pings++
	n.rstats.RtrPings++
	n.get(AnyNID, md, p.primary, ReservedPortal, PingMatchBits, 0, false)
}

// nextGatewayNet is the peer-net walk of lnet_check_routers: starting after the net of the
// last ping (the first net when none), cyclically, the first local net of the gateway whose
// next ping is due; nil if none is due (or the gateway has no local net).
func (n *Node) nextGatewayNet(p *Peer, now sim.Time) *PeerNet {
	k := len(p.nets)
	start := 0
	for i, pn := range p.nets {
		if pn.id == p.gw.discNet {
			start = i + 1
		}
	}
	for j := 0; j < k; j++ {
		pn := p.nets[(start+j)%k]
		if n.netByID(pn.id) == nil {
			continue
		}
		if now >= p.gw.nextPing(pn.id) {
			return pn
		}
	}
	return nil
}

// nextPing returns lpn_next_ping of the gateway's peer net (0, due, until first set).
func (g *gwState) nextPing(net NetID) sim.Time {
	for _, x := range g.netPings {
		if x.net == net {
			return x.next
		}
	}
	return 0
}

// setNextPing sets lpn_next_ping of the gateway's peer net.
func (g *gwState) setNextPing(net NetID, t sim.Time) {
	for i := range g.netPings {
		if g.netPings[i].net == net {
			g.netPings[i].next = t
			return
		}
	}
	g.netPings = append(g.netPings, netPing{net, t})
}

// handleRouterPingEvent takes the events of a router checker ping's MD: a failed send or
// REPLY fails the check, an unlink without a REPLY (the response tracker expired) fails it
// with -ETIMEDOUT, a REPLY with the gateway's ping buffer completes it and, the gateway being
// multi-rail, pushes this node's ping buffer to it (lnet_check_routers sets
// LNET_PEER_FORCE_PUSH on every check; lnet_peer_send_push goes from lp_disc_src_nid to
// lp_disc_dst_nid, the NIDs of the reply). The kernel completes the check after the push's
// ACK; here the check completes on the REPLY and the push is not waited for.
func (n *Node) handleRouterPingEvent(ev *Event, idx int) {
	if idx >= len(n.gateways) {
		return
	}
	p := n.gateways[idx]
	g := p.gw
	if g.ping == nil || g.ping.Handle() != ev.MD {
		return // a ping already completed
	}
	switch {
	case ev.Status != 0 || ev.Type == EventUNLINK:
		md := g.ping
		rc := ev.Status
		if rc == 0 {
			rc = -ETIMEDOUT
		}
		n.rtrPingDone(p, nil, rc)
		if !ev.Unlinked {
			n.mdUnlink(md, 0)
		}
	case ev.Type == EventREPLY:
		b, _ := ev.Data.(*PingBuffer)
		if b != nil && !n.tun.Profile.RouterCheckerPing && n.truncatedPing(p, b, ev.MLength) {
			// Discovery of the gateway: a truncated reply is a ping failed without an
			// error, and the gateway is pinged again at once with a buffer that fits.
			md := g.ping
			g.ping = nil
			if !ev.Unlinked {
				n.mdUnlink(md, 0)
			}
			n.sendRouterPing(p, p.discPingSize(), MD_TRACK_RESPONSE|MD_TRUNCATE)
			return
		}
		n.rtrPingDone(p, b, 0)
		if b != nil && p.mr && !n.tun.Profile.RouterCheckerPing {
			// LNET_PEER_FORCE_PUSH: the router learns this node's NIs, their status and
			// that it is multi-rail, from the NI the reply came to, to the NI it came from
			// (unless a push is in flight: then the forced one waits for discovery; up to
			// 2.16, ForcePushFirst, the loop's FORCE_PUSH branch sends it beside that one).
			p.forcePush = true
			p.discSrc, p.discDst = ev.Target, ev.Initiator
			if p.discPush == nil || n.tun.Profile.ForcePushFirst {
				n.sendPush(p)
				p.checkerPush = true
			}
		}
	}
}

// rtrPingDone completes a router check of gateway p (the router checker's discovery of it):
// on error it completes as routerDiscoveryComplete says for a failed discovery; on success
// its ping buffer is merged (NI status), each route's state follows the buffer
// (updateGatewayRoutes) and the discovery completes (routerDiscoveryComplete: alive). When
// the buffer was handed to the peer owning its primary NID and p's NIDs and routes went
// there with it (lnet_peer_set_primary_data, lnet_rtr_transfer_to_peer), that peer's routes
// follow the buffer and its own discovery, queued by the hand-off, completes it as a gateway
// when it ends (discoveryDone): RTR_DISCOVERED and alive then, not at the merge (under
// RouterCheckerPing, whose discovery completes no gateway, the check completes that peer).
// An ordinary discovery that waited for the check (DiscoverPeer) then goes on: it fails
// with the check, else takes its next step (usually its end).
func (n *Node) rtrPingDone(p *Peer, b *PingBuffer, rc int) {
	n.rtrCheckDone(p, b, rc)
	if g := p.gw; g.discWaits {
		// An ordinary discovery that waited for the check goes on from its end.
		g.discWaits = false
		switch {
		case !p.discovering || p.deleted:
		case rc != 0 || b == nil:
			if rc == 0 {
				rc = -EIO
			}
			n.discoveryDone(p, rc)
		default:
			n.discoveryStep(p)
		}
	}
}

// rtrCheckDone is rtrPingDone's completion of the check itself.
func (n *Node) rtrCheckDone(p *Peer, b *PingBuffer, rc int) {
	g := p.gw
	g.ping = nil
	if rc != 0 || b == nil {
		n.rstats.RtrPingFail++
		g.pingFails++
		if rc == 0 {
			rc = -EIO
		}
		n.routerDiscoveryComplete(p, rc)
		return
	}
	q := n.processPingBuffer(p, b, false)
	if gw := n.gatewayOf(p, q); gw != nil && gw != p {
		if !n.tun.Profile.RouterCheckerPing {
			// p's NIDs and routes went to q, whose own discovery (handOff queued it)
			// completes it as a gateway when it ends (discoveryDone).
			n.gatewayBufferRoutes(gw, b, false)
			n.afterMerge(q, nil)
			return
		}
		p = gw // 2.12: the check's result goes to the peer that took the routes
	}
	p.discovered, p.uptodate, p.rediscover = true, true, false
	n.gatewayBufferRoutes(p, b, false)
	n.routerDiscoveryComplete(p, 0)
	if q != nil {
		n.afterMerge(q, nil)
	}
}

// routerDiscoveryComplete models lnet_router_discovery_complete, which
// lnet_peer_discovery_complete runs for a peer with routes (lp_rtr_refcount > 0) at the end
// of every discovery of it: the router checker's (rtrPingDone) and an ordinary one
// (discoveryDone: `lnetctl discover`, a push from the gateway, a send to it). The peer is
// RTR_DISCOVERED from then on and alive exactly when the discovery ended without an error
// (lp_dc_error, rc here); after an error every NI of the peer is DOWN and every route
// through it down (lr_alive). Nothing else changes: the routers' version
// (ln_routers_version) moves only with the router list, and the next router check of each
// of the gateway's nets (lpn_next_ping) only with the checker's own pings. 2.12
// (RouterCheckerPing) has no router discovery: its checker's result is applied the same way
// (2.12's lnet_router_checker and lnet_notify_locked), and an ordinary discovery of a
// gateway leaves its aliveness alone.
//
// Under RouteStateFromReplyWithoutDiscovery (2.15) a successful discovery of a gateway with
// discovery enabled also sets each route alive (lr_alive) and single-hop exactly when the
// gateway peer has a net of the route's remote net (lnet_set_route_hop_type).
func (n *Node) routerDiscoveryComplete(p *Peer, rc int) {
	p.rtrDiscovered = true
	p.alive = rc == 0
	n.routesChanged()
	if rc == 0 {
		if n.tun.Profile.RouteStateFromReplyWithoutDiscovery && !n.tun.Profile.RouterCheckerPing && !n.discoveryDisabled(p) {
			for _, r := range p.gw.routes {
				r.alive, r.singleHop = true, false
				for _, pn := range p.nets {
					r.singleHop = r.singleHop || pn.id == r.net
				}
			}
		}
		return
	}
	for _, lpni := range p.nis {
		lpni.status = NIStatusDown
	}
	for _, r := range p.gw.routes {
		r.alive = false
	}
}

// updateGatewayRoutes models lnet_router_discovery_ping_reply, run on every ping reply or
// push from a gateway whatever the discovery setting: it caches each route's aliveness
// (lr_alive, which routeAlive reads while discovery is disabled for the gateway) and
// whether it is single-hop (the buffer lists an NI of the gateway on the remote net: the
// buffer, not the gateway's peer NIs, which discovery leaves alone while it is disabled for
// the gateway). Routing disabled on
// the gateway kills every route; otherwise a route is down if the gateway lacks an UP NI on
// the route's local net, and one of 1 hop or found single-hop with
// avoid_asym_router_failure is alive only if the gateway advertises an UP NI on the remote
// net. Under RouterCheckerPing the cached state is 2.12's instead (routeDownNIs).
//
// Under RouteStateFromReplyWithoutDiscovery (2.15) only a ping reply sets the routes, and
// only while discovery is disabled for the gateway (gatewayBufferRoutes); the routing
// feature bit is cached from every buffer (LNET_PEER_ROUTER_ENABLED).
func (n *Node) updateGatewayRoutes(p *Peer, b *PingBuffer) {
	g := p.gw
	defer n.routesChanged()
	g.rtrDisabled = b.RoutingDisabled
	for _, r := range g.routes {
		single, up := false, false // from the buffer (its NIs on the route's remote net)
		for _, e := range b.NIs {
			if e.NID.Net() == r.net {
				single = true
				up = up || e.Status == NIStatusUp
			}
		}
		r.singleHop = single
		switch {
		case n.tun.Profile.RouterCheckerPing:
			r.alive = !n.tun.AvoidAsymRouterFailure || routeDownNIs(r, b) == 0
		case g.rtrDisabled || !n.gwNetUp(p, r.gwNID.Net()):
			r.alive = false
		case (r.hops == 1 || r.singleHop) && n.tun.AvoidAsymRouterFailure:
			r.alive = up
		default:
			r.alive = true
		}
	}
}

// gatewayBufferRoutes applies to a gateway's routes the buffer that came in its ping reply
// or, with push, in its push: updateGatewayRoutes, except under
// RouteStateFromReplyWithoutDiscovery (2.15: lnet_discovery_event_reply calls
// lnet_router_discovery_ping_reply only for a
// gateway with discovery disabled, and a push never), where otherwise only the routing
// feature bit is cached.
func (n *Node) gatewayBufferRoutes(p *Peer, b *PingBuffer, push bool) {
	if n.tun.Profile.RouteStateFromReplyWithoutDiscovery && !n.tun.Profile.RouterCheckerPing &&
		(push || !n.discoveryDisabled(p)) {
		p.gw.rtrDisabled = b.RoutingDisabled
		n.routesChanged()
		return
	}
	n.updateGatewayRoutes(p, b)
}

// routeDownNIs models 2.12's lnet_parse_rc_info for one route (lr_downis, which it computes
// only with avoid_asym_router_failure): a gateway advertising routing disabled counts 1; one
// with an UP NI on the route's remote net 0; otherwise the number of its NIs advertised DOWN,
// at least 1 on a route of exactly 1 hop.
func routeDownNIs(r *Route, b *PingBuffer) int {
	if b.RoutingDisabled {
		return 1
	}
	down := 0
	for _, e := range b.NIs {
		switch {
		case e.NID.Net() == LoNet:
		case e.Status == NIStatusDown:
			down++
		case e.Status == NIStatusUp && e.NID.Net() == r.net:
			return 0
		}
	}
	if down == 0 && r.hops == 1 {
		return 1
	}
	return down
}

// reviveGateway models lnet_parse's handling of a message that came through gateway gw from
// a node on srcNet while gw was thought dead: with discovery disabled for gw, its routes to
// srcNet are cached alive; gw is alive again and its NIs on srcNet are marked UP (the NI it
// came from is marked UP by Parse), so with avoid_asym_router_failure its single-hop route
// to srcNet is up at once rather than at the next router check.
func (n *Node) reviveGateway(gw *Peer, srcNet NetID) {
	if gw.gw == nil || gw.alive {
		return
	}
	g := gw.gw
	defer n.routesChanged()
	if n.discoveryDisabled(gw) {
		for _, r := range g.routes {
			if r.net == srcNet {
				r.alive = true
			}
		}
	}
	gw.alive = true
	for _, pn := range gw.nets {
		if pn.id != srcNet {
			continue
		}
		for _, lpni := range pn.nis {
			lpni.status = NIStatusUp
		}
	}
}

// peerNIStartStatus models lnet_peers_start_down as lnet_peer_ni_alloc uses it: with
// check_routers_before_use every new peer NI starts DOWN, not only a gateway's, until a
// message from it, a ping reply or a notification says otherwise.
func (n *Node) peerNIStartStatus() NIStatus {
	if n.tun.CheckRoutersBeforeUse {
		return NIStatusDown
	}
	return NIStatusUp
}

// rtrDiscNet models the lp_disc_net_id rule of lnet_find_best_ni_on_local_net: while a
// router check of gateway p is in flight (LNET_PEER_RTR_DISCOVERY), its ping (m, on the
// check's MD, or the discovery ping of a discovery the check joined) goes out on the net
// chosen for the check, if that net is local; nil otherwise (normal selection).
func (n *Node) rtrDiscNet(p *Peer, m *Msg) (*PeerNet, *Net) {
	g := p.gw
	switch {
	case g == nil:
		return nil, nil
	case g.ping != nil && m.md == g.ping:
	case g.joined && p.discPing != nil && m.md == p.discPing:
	default:
		return nil, nil
	}
	for _, lpn := range p.nets {
		if net := n.netByID(lpn.id); lpn.id == g.discNet && net != nil && len(lpn.nis) > 0 {
			return lpn, net
		}
	}
	return nil, nil
}

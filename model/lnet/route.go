package lnet

import (
	"fmt"

	"github.com/lnetsim/lnetsim/sim"
)

// Route is one route to a remote net through a gateway (struct lnet_route).
type Route struct {
	net       NetID // the remote net (lr_net)
	gwNID     NID   // the gateway's NID on a local net (lr_nid)
	gw        *Peer // the gateway peer (lr_gateway)
	hops      int   // lr_hops; -1 = undefined (counts as 1)
	priority  int   // lr_priority, lower preferred
	seq       uint32
	alive     bool // lr_alive: cached aliveness (used as such with discovery disabled)
	singleHop bool // lr_single_hop: the gateway has an NI on the remote net
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
	Health   int    `yaml:"health value"` // the gateway peer NI's health
	State    string `yaml:"state"`        // "up" or "down" (lnet_is_route_alive)
	Type     string `yaml:"type"`         // "single-hop" or "multi-hop" (lr_single_hop)
}

// RouterPoolShow is one router buffer pool as `lnetctl routing show` prints it (per CPT).
type RouterPoolShow struct {
	NPages     int `yaml:"npages"`
	NBuffers   int `yaml:"nbuffers"`
	Credits    int `yaml:"credits"`
	MinCredits int `yaml:"mincredits"`
	Queued     int `yaml:"queued"` // messages waiting on rbp_msgs
}

// RouterStats are counters of this node's routing that lnetctl does not show under one name.
type RouterStats struct {
	Forwarded   uint64 // messages received for another node and forwarded (route_count)
	Expired     uint64 // routed messages dropped past their deadline (opt-in expiry policy)
	Dropped     uint64 // routed messages dropped otherwise (routing off, asymmetric route)
	RtrPings    uint64 // router checker pings sent
	RtrPingFail uint64 // router checker pings that failed or timed out
}

// rtrPool is one router buffer pool (struct lnet_rtrbufpool) of one CPT; a node has
// numRtrPools per CPT (the_lnet.ln_rtrpools[cpt][i]).
type rtrPool struct {
	npages     int
	nbuffers   int
	credits    int
	minCredits int
	msgs       msgQueue // rbp_msgs
}

// Router buffer pool indices and sizes (LNET_TINY_BUF_IDX..LNET_LARGE_BUF_IDX).
const (
	pageSize     = 4096
	numRtrPools  = 3
	largeNPages  = LNET_MTU / pageSize
	sysRouterRef = 5 // system MD purpose: a router checker ping
)

// gwState is what a Peer keeps when it is a gateway (lp_alive, lp_rtr_refcount...).
type gwState struct {
	idx         int
	alive       bool      // lp_alive
	rtrDisabled bool      // the gateway advertises routing disabled
	routes      []*Route  // routes through it
	discNet     NetID     // lp_disc_net_id: the net of the last router checker ping
	netPings    []netPing // lpn_next_ping of each of its peer nets pinged so far
	ping        *MD       // outstanding router checker ping (LNET_PEER_RTR_DISCOVERY)
	pings       uint64    // router checker pings sent to it
	pingFails   uint64    // of which failed or timed out
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
		gs := GatewayShow{NID: p.primary.String(), Alive: g.alive, Routing: !g.rtrDisabled, Routes: len(g.routes),
			Pings: g.pings, PingFails: g.pingFails, MinTxCredit: 1 << 30}
		for _, r := range g.routes {
			if n.routeAlive(r) {
				gs.RoutesUp++
			}
		}
		for _, lpni := range p.nis {
			gs.SendCount += lpni.stats.SendCount
			gs.RecvCount += lpni.stats.RecvCount
			gs.DropCount += lpni.stats.DropCount
			gs.BestHealth = max(gs.BestHealth, lpni.health)
			gs.MinTxCredit = min(gs.MinTxCredit, lpni.minTxCredits)
		}
		out = append(out, gs)
	}
	return out
}

// AddRoute configures a route (`lnetctl route add --net N --gateway G --hop H --priority P`,
// lnet_add_route): net must be remote, the gateway on a local net; hops is -1 (undefined,
// treated as 1) or 1..255; priority >= 0. The route takes a random place in the net's list
// (which decides full ties). The gateway becomes a peer marked as a router,
// alive unless check_routers_before_use (lnet_peers_start_down), and the router checker
// pings it on its next pass.
func (n *Node) AddRoute(net NetID, gateway NID, hops, priority int) error {
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
	if p.gw == nil {
		p.isRouter = true
		p.gw = &gwState{idx: len(n.gateways), alive: !n.tun.CheckRoutersBeforeUse}
		n.gateways = append(n.gateways, p)
	}
	// lnet_add_route_to_rnet forces a router check of the gateway on every peer net.
	for i := range p.gw.netPings {
		p.gw.netPings[i].next = n.k.Now()
	}
	r := &Route{net: net, gwNID: gateway, gw: p, hops: hops, priority: priority, alive: p.gw.alive}
	// lnet_add_route_to_rnet: the kernel puts a new route at a random place in the net's
	// list, so that nodes sharing a list of routers prefer different ones on full ties. The
	// offset o is drawn in [0, len]; the route goes after the o-th route, or first when o is
	// len (the list head). The draw comes from the node's own named stream.
	k := len(rn.routes)
	pos := 0
	if k > 0 {
		if o := n.k.Rand("lnet/routes/" + n.name).IntN(k + 1); o < k {
			pos = o + 1
		}
	}
	rn.routes = append(rn.routes, nil)
	copy(rn.routes[pos+1:], rn.routes[pos:])
	rn.routes[pos] = r
	p.gw.routes = append(p.gw.routes, r)
	return nil
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
			out = append(out, RouteShow{Net: r.net.String(), Gateway: r.gwNID.String(), Hop: r.hops,
				Priority: r.priority, Health: h, State: st, Type: typ})
		}
	}
	return out
}

// Routing reports whether the node forwards messages (lnet_routing_enabled: true while
// starting and stopping too).
func (n *Node) Routing() bool { return n.routing }

// Routing states (LNET_ROUTING_DISABLED/ENABLED/STOPPING/STARTING).
const (
	rtrDisabled = iota
	rtrEnabled
	rtrStopping
	rtrStarting
)

var rtrStateNames = [...]string{"disabled", "enabled", "stopping", "starting"}

// RoutingState returns "disabled", "enabled", "starting" or "stopping".
func (n *Node) RoutingState() string { return rtrStateNames[n.rtrState] }

// rtrSettle is the minimum time routing spends starting or stopping:
// alive_router_check_interval + router_ping_timeout.
func (n *Node) rtrSettle() sim.Time {
	return sim.Time(max(n.tun.AliveRouterCheckInt, 0)+n.tun.RouterPingTimeout) * sim.Second
}

// routingStateCheck is the monitor's handling of the routing transitions
// (lnet_check_routers): a starting router advertises routing once it has been starting for
// rtrSettle; a stopping one stops forwarding after rtrSettle once no router buffer is in
// use, or after 3 x rtrSettle regardless (dropping what still waits).
func (n *Node) routingStateCheck() {
	now := n.k.Now()
	switch n.rtrState {
	case rtrStarting:
		if now >= n.rtrSince+n.rtrSettle() {
			n.rtrState = rtrEnabled
			n.advertiseRouting()
		}
	case rtrStopping:
		busy := false
		for _, p := range n.rtrPools {
			busy = busy || p.credits != p.nbuffers
		}
		if now >= n.rtrSince+3*n.rtrSettle() || !busy && now >= n.rtrSince+n.rtrSettle() {
			n.rtrState = rtrDisabled
			n.routing = false
			n.dropAllRouted()
		}
	}
}

// advertiseRouting publishes a change of the routing feature bit (LNET_PING_FEAT_RTE_DISABLED)
// in the ping buffer and pushes it.
func (n *Node) advertiseRouting() {
	if n.started {
		n.updatePingBuffer()
		n.pushToPeers()
	}
}

// RouterPools returns the router buffer pools (tiny, small, large), each summed over the
// CPTs (nbuffers, credits, mincredits and queued added up; with one CPT, `lnetctl routing
// show`'s cpt[0]); nil when routing has never been enabled. RouterPoolsCPT has them per CPT.
func (n *Node) RouterPools() []RouterPoolShow {
	if n.rtrPools == nil {
		return nil
	}
	out := make([]RouterPoolShow, numRtrPools)
	for _, c := range n.RouterPoolsCPT() {
		for i, p := range c {
			o := &out[i]
			o.NPages = p.NPages
			o.NBuffers += p.NBuffers
			o.Credits += p.Credits
			o.MinCredits += p.MinCredits
			o.Queued += p.Queued
		}
	}
	return out
}

// RouterPoolsCPT returns the router buffer pools of each CPT (tiny, small, large), as
// `lnetctl routing show` prints them under cpt[i]; nil when routing has never been enabled.
func (n *Node) RouterPoolsCPT() [][]RouterPoolShow {
	if n.rtrPools == nil {
		return nil
	}
	out := make([][]RouterPoolShow, 0, n.ncpts())
	for c := 0; c < len(n.rtrPools); c += numRtrPools {
		var cp []RouterPoolShow
		for _, p := range n.rtrPools[c : c+numRtrPools] {
			cp = append(cp, RouterPoolShow{NPages: p.npages, NBuffers: p.nbuffers, Credits: p.credits,
				MinCredits: p.minCredits, Queued: p.msgs.Len()})
		}
		out = append(out, cp)
	}
	return out
}

// RouterStats returns the node's routing counters.
func (n *Node) RouterStats() RouterStats { return n.rstats }

// GatewayAlive reports lp_alive of the gateway owning nid (false if nid is no gateway).
func (n *Node) GatewayAlive(nid NID) bool {
	lpni := n.findPeerNI(nid)
	return lpni != nil && lpni.peer.gw != nil && lpni.peer.gw.alive
}

// SetRouting enables or disables forwarding (`lnetctl set routing 1|0`,
// lnet_rtrpools_enable/disable). Enabling allocates the router buffer pools from
// tiny/small/large_router_buffers, in every CPT (lnet_rtrpools_alloc): the total divided by
// the number of CPTs, at least 1 (a size of 0 means the kernel's default,
// lnet_nrb_tiny/small/large_calculate). Before Startup (the module
// loaded as a router) routing is enabled at once. On a running node enabling enters
// STARTING: messages are forwarded, but routing is advertised only after
// alive_router_check_interval + router_ping_timeout; disabling enters STOPPING: routing
// disabled is advertised at once, forwarding goes on until the monitor stops it (see
// routingStateCheck), and then the messages waiting for buffers or credits are dropped.
func (n *Node) SetRouting(on bool) {
	switch {
	case on && (n.rtrState == rtrEnabled || n.rtrState == rtrStarting):
		return
	case !on && (n.rtrState == rtrDisabled || n.rtrState == rtrStopping):
		return
	}
	if !on {
		if !n.started {
			n.rtrState = rtrDisabled
			n.routing = false
			n.dropAllRouted()
			return
		}
		n.rtrState, n.rtrSince = rtrStopping, n.k.Now()
		n.advertiseRouting()
		return
	}
	wasStopping := n.rtrState == rtrStopping
	n.routing = true
	n.rtrState, n.rtrSince = rtrStarting, n.k.Now()
	if !n.started || wasStopping {
		n.rtrState = rtrEnabled
	}
	if n.rtrPools == nil {
		sizes := [numRtrPools]int{n.tun.TinyRouterBuffers, n.tun.SmallRouterBuffers, n.tun.LargeRouterBuffers}
		defaults := [numRtrPools]int{2048, 16384, 1024} // LNET_NRB_TINY, _SMALL, _LARGE
		pages := [numRtrPools]int{0, 1, largeNPages}
		k := n.ncpts()
		n.rtrPools = make([]*rtrPool, k*numRtrPools)
		for c := 0; c < k; c++ {
			for i := 0; i < numRtrPools; i++ {
				total := sizes[i]
				if total <= 0 {
					total = defaults[i] // 0: the kernel's default (lnet_nrb_*_calculate)
				}
				nb := max(total/k, 1) // per CPT: total / LNET_CPT_NUMBER, floor 1
				n.rtrPools[c*numRtrPools+i] = &rtrPool{npages: pages[i], nbuffers: nb, credits: nb, minCredits: nb}
			}
		}
	}
	if n.rtrState == rtrEnabled {
		n.advertiseRouting()
	}
}

// dropAllRouted drops every routed message waiting for a router buffer or a router credit
// (lnet_rtrpools_disable's lnet_rtrpool_free_bufs and the peers' rtrq flush).
func (n *Node) dropAllRouted() {
	for _, pool := range n.rtrPools {
		for m := pool.msgs.Pop(); m != nil; m = pool.msgs.Pop() {
			m.rtrQueued = false
			n.dropRoutedRx(m, LNET_MSG_STATUS_REMOTE_ERROR, -ECANCELED, false)
		}
	}
	for _, p := range n.peers {
		for _, lpni := range p.nis {
			for m := lpni.rtrq.Pop(); m != nil; m = lpni.rtrq.Pop() {
				m.rtrQueued = false
				n.dropRoutedRx(m, LNET_MSG_STATUS_REMOTE_ERROR, -ECANCELED, false)
			}
		}
	}
}

// msg2pool models lnet_msg2bufpool: in the pools of the message's receive CPT (msg_rx_cpt,
// which lnet_parse takes from lnet_nid2cpt of the previous hop's NID), the smallest pool
// whose buffers hold the payload. It returns the index in n.rtrPools (CPT-major).
func (n *Node) msg2pool(m *Msg) int {
	base := n.cptOfNID(m.from) * numRtrPools
	np := (m.Hdr.PayloadLength + pageSize - 1) / pageSize
	for i, p := range n.rtrPools[base : base+numRtrPools] {
		if np <= p.npages {
			return base + i
		}
	}
	return base + numRtrPools - 1
}

// parseForward models lnet_parse_forward_locked: a message for another node on a router.
// When a router credit or a buffer is short the LND is asked to let go of its receive
// resources (lnd_eager_recv); then lnet_post_routed_recv_locked takes the credits and, if
// both were available, the payload is received into the router buffer at once.
func (n *Node) parseForward(m *Msg) {
	m.rtrDeadline = m.deadline
	if !n.routing {
		// Routing was turned off while a delay rule held the message (-ECANCELED).
		n.dropRoutedRx(m, LNET_MSG_STATUS_OK, -ECANCELED, false)
		return
	}
	pool := n.rtrPools[n.msg2pool(m)]
	if m.rxPeerNI.rtrCredits <= 0 || pool.credits <= 0 {
		ni := m.rxNI
		if p, err := ni.net.lnd.EagerRecv(ni, m.private, m); err == nil {
			m.private = p
		} else {
			n.dropRoutedRx(m, LNET_MSG_STATUS_OK, -ENOMEM, false)
			return
		}
	}
	n.postRoutedRecv(m, false)
}

// postRoutedRecv models lnet_post_routed_recv_locked: take a router credit of the sending
// peer NI (queueing on its rtrq when none is left), then a credit of the buffer pool
// (queueing on rbp_msgs), then receive the payload into the buffer (the LND's Recv, with
// delayed set when the message had to wait; its Finalize forwards the message). Minimum
// credits are tracked.
func (n *Node) postRoutedRecv(m *Msg, delayed bool) {
	lpni := m.rxPeerNI
	if !m.peerRtrCredit {
		m.peerRtrCredit = true
		lpni.rtrCredits--
		if lpni.rtrCredits < lpni.minRtrCredits {
			lpni.minRtrCredits = lpni.rtrCredits
		}
		if lpni.rtrCredits < 0 {
			m.rtrQueued = true
			lpni.rtrq.Push(m)
			return
		}
	}
	if m.rtrPool == 0 {
		i := n.msg2pool(m)
		m.rtrPool = int8(i + 1)
		pool := n.rtrPools[i]
		pool.credits--
		if pool.credits < pool.minCredits {
			pool.minCredits = pool.credits
		}
		if pool.credits < 0 {
			m.rtrQueued = true
			pool.msgs.Push(m)
			return
		}
	}
	ni := m.rxNI
	ln := m.Hdr.PayloadLength
	m.rxLen = ln
	if err := ni.net.lnd.Recv(ni, m.private, m, delayed, 0, ln, ln); err != nil {
		n.finalize(m, -EIO)
	}
}

// routedExpired reports whether the opt-in expiry policy drops m (a routed message past the
// deadline it got when it arrived on this router). The kernel has no such policy (seed 002).
func (n *Node) routedExpired(m *Msg) bool {
	return m.routing && n.tun.RouterMsgExpiry && n.k.Now() > m.rtrDeadline
}

// repostRouted posts a routed message taken off rbp_msgs or an rtrq, unless routing was
// disabled meanwhile (dropped, REMOTE_ERROR) or the expiry policy drops it.
func (n *Node) repostRouted(m *Msg) {
	m.rtrQueued = false
	switch {
	case !n.routing:
		n.dropRoutedRx(m, LNET_MSG_STATUS_REMOTE_ERROR, -ECANCELED, false)
	case n.routedExpired(m):
		n.dropRoutedRx(m, LNET_MSG_STATUS_OK, -ETIMEDOUT, true)
	default:
		n.postRoutedRecv(m, true)
	}
}

// dropRoutedRx drops a routed message whose payload was not received: the LND releases its
// private (lnet_drop_message), the message is finalized with rc and no resend (hstatus hs;
// OK with rc != 0 leaves health alone), returning the credits it holds.
func (n *Node) dropRoutedRx(m *Msg, hs HStatus, rc int, expired bool) {
	ni, priv := m.rxNI, m.private
	m.private = nil
	if expired {
		n.rstats.Expired++
	} else {
		n.rstats.Dropped++
	}
	m.noResend = true
	m.HStatus = hs
	ln, t := m.Hdr.PayloadLength, m.Hdr.Type
	n.finalize(m, rc)
	n.dropMessage(ni, priv, ln, t)
}

// returnRxCredits models lnet_return_rx_credits_locked: free the router buffer (the first
// message waiting on the pool gets it) and the peer NI's router credit (the first message on
// its rtrq goes on).
func (n *Node) returnRxCredits(m *Msg) {
	if m.rtrPool != 0 {
		pool := n.rtrPools[m.rtrPool-1]
		m.rtrPool = 0
		pool.credits++
		if pool.credits <= 0 {
			if m2 := pool.msgs.Pop(); m2 != nil {
				n.repostRouted(m2)
			}
		}
	}
	if m.peerRtrCredit {
		m.peerRtrCredit = false
		lpni := m.rxPeerNI
		lpni.rtrCredits++
		if lpni.rtrCredits <= 0 {
			if m2 := lpni.rtrq.Pop(); m2 != nil {
				n.repostRouted(m2)
			}
		}
	}
}

// routeAlive models lnet_is_route_alive: the gateway must be alive; with discovery disabled
// the cached lr_alive decides; otherwise the gateway must have an UP NI on the route's local
// net and, with avoid_asym_router_failure on a route of 1 hop or found single-hop
// (lr_single_hop: the gateway's last ping reply listed an NI on the remote net), an UP NI on
// the remote net, and it must advertise routing enabled. A route of undefined hops is not
// held to the remote net before its gateway's first ping reply.
func (n *Node) routeAlive(r *Route) bool {
	gw := r.gw
	if !gw.gw.alive {
		return false
	}
	if !n.tun.Discovery {
		return r.alive
	}
	if gw.gw.rtrDisabled || !gwNetUp(gw, r.gwNID.Net()) {
		return false
	}
	if n.tun.AvoidAsymRouterFailure && (r.hops == 1 || r.singleHop) && !gwNetUp(gw, r.net) {
		return false
	}
	return true
}

// gwNetUp reports whether the gateway has an NI on net whose cached status is UP
// (lnet_is_gateway_net_alive).
func gwNetUp(gw *Peer, net NetID) bool {
	for _, pn := range gw.nets {
		if pn.id != net {
			continue
		}
		for _, lpni := range pn.nis {
			if lpni.status == NIStatusUp {
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
	for _, r := range rn.routes {
		if !n.routeAlive(r) {
			continue
		}
		if last != nil && last.seq < r.seq {
			last = r
		}
		pref := dst.prefersRouter(r.gw.primary)
		rc := compareRoutes(r, best, pref, bestPref)
		if rc < 0 {
			continue
		}
		lpni := n.gwBestLPNI(r.gw, ni)
		if lpni == nil {
			continue
		}
		if rc == 0 {
			if c := compareGwLPNIs(lpni, bl); c < 0 || c == 0 && r.seq > best.seq {
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
// credits; 0 on a tie.
func compareGwLPNIs(a, b *PeerNI) int {
	switch {
	case b == nil:
		return 1
	case a.health != b.health:
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

// routedPath models lnet_handle_find_routed_path: reuse the gateway given for an ACK/REPLY
// if it is a known gateway (on ni's net when the source is fixed); otherwise, for a fresh
// multi-rail send, choose the destination's best routed net and peer NI (higher peer-net
// health, lower priority, lower sequence), and find a route to the final destination's net.
// A source NI not fixed yet is the best NI on the gateway's net.
func (n *Node) routedPath(ni *NI, lpni *PeerNI, m *Msg, rtr NID) int {
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
			var bp *PeerNet
			for _, pn := range p.nets {
				if len(pn.nis) == 0 || !n.hasRoute(pn.id) {
					continue
				}
				if bp != nil {
					switch {
					case pn.health != bp.health:
						if pn.health < bp.health {
							continue
						}
					case pn.SelPriority != bp.SelPriority:
						if pn.SelPriority > bp.SelPriority {
							continue
						}
					case pn.seq != bp.seq:
						if int32(pn.seq-bp.seq) > 0 {
							continue
						}
					default:
						continue
					}
				}
				bp = pn
			}
			if bp != nil {
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
			return -EHOSTUNREACH
		}
	}
	if ni == nil {
		if ni = n.bestNI(n.netByID(gw.nid.Net())); ni == nil {
			return -ENETDOWN
		}
	}
	return n.handleSend(ni, gw, final, m)
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

// mrForwardAllowed models the router's final-hop rule of lnet_select_pathway: forward
// multi-rail (the router may pick another NI of the destination) only if the originator is a
// known multi-rail peer and the NI it chose is down or not fully healthy.
func (n *Node) mrForwardAllowed(m *Msg, dst *PeerNI) bool {
	src := n.findPeerNI(m.Hdr.Src)
	if src == nil || !src.peer.mr {
		return false
	}
	return dst.status != NIStatusUp || dst.health < MaxHealth
}

// updateNIStatus models lnet_update_ni_status_locked on a router: a net that has received no
// router checker ping (a GET on the reserved portal from another node) for
// alive_router_check_interval + router_ping_timeout advertises all its NIs DOWN; any such
// ping sets the receiving NI UP again (in Parse). A status change is pushed to peers.
func (n *Node) updateNIStatus() {
	if n.tun.AliveRouterCheckInt <= 0 {
		return
	}
	timeout := sim.Time(n.tun.AliveRouterCheckInt+n.tun.RouterPingTimeout) * sim.Second
	now := n.k.Now()
	for _, nt := range n.nets {
		if now < nt.lastAlive+timeout {
			continue
		}
		for _, ni := range nt.nis {
			n.setNIStatus(ni, NIStatusDown)
		}
	}
}

// checkRouters models lnet_check_routers, run by the monitor when this node has routes. For
// each gateway not being pinged already (LNET_PEER_RTR_DISCOVERY), walk its peer nets
// round-robin from the one after the net of its last ping (lp_disc_net_id,
// lnet_get_next_peer_net_locked), skipping nets that are not local, and take the first whose
// lpn_next_ping is due; ping the gateway on it (the discovery ping goes out on that net,
// lnet_select_pathway's lp_disc_net_id rule: the best local NI there to the gateway's best
// peer NI there) and set that net's next ping alive_router_check_interval later. So a
// gateway reached over two local nets is pinged over each in turn, each every interval. The
// ping is response-tracked (LNET_MD_TRACK_RESPONSE, as lnet_send_ping sets it): it fails
// when its GET fails or when its response tracker expires after transaction_timeout;
// router_ping_timeout plays no part in it (the kernel uses that only on routers,
// lnet_update_ni_status_locked, and for the routing start/stop delays). With
// alive_router_check_interval <= 0 the checker is off and each gateway is only discovered
// once (the kernel discovers it inline on first use).
func (n *Node) checkRouters() {
	off := n.tun.AliveRouterCheckInt <= 0
	now := n.k.Now()
	for _, p := range n.gateways {
		g := p.gw
		if g.ping != nil || off && g.pings > 0 {
			continue
		}
		pn := n.nextGatewayNet(p, now)
		if pn == nil {
			continue
		}
		g.discNet = pn.id
		g.setNextPing(pn.id, now+sim.Time(n.tun.AliveRouterCheckInt)*sim.Second)
		src, dst := AnyNID, p.primary
		if p.mr {
			if ni := n.bestNI(n.netByID(pn.id)); ni != nil {
				if lpni := n.selectPeerNI(ni, pn); lpni != nil {
					src, dst = ni.nid, lpni.nid
				}
			}
		}
		md := n.allocMD(MDSpec{Length: n.pingBufSize(), Threshold: 2, Options: MD_TRACK_RESPONSE | MD_TRUNCATE,
			Handler: &n.sysH, User: sysRouterRef<<56 | uint64(g.idx)})
		g.ping = md
		g.pings++
		n.rstats.RtrPings++
		n.get(src, md, dst, ReservedPortal, PingMatchBits, 0, false)
	}
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
// with -ETIMEDOUT, a REPLY with the gateway's ping buffer completes it.
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
		n.rtrPingDone(p, b, 0)
	}
}

// rtrPingDone models the router-discovery completion (lnet_router_discovery_complete and the
// route update of lnet_router_discovery_ping_reply): on error the gateway is dead, all its
// NIs DOWN and its routes down; on success its ping buffer is merged (NI status), it is alive,
// and each route's state follows the rules of routeAlive (cached in lr_alive).
func (n *Node) rtrPingDone(p *Peer, b *PingBuffer, rc int) {
	g := p.gw
	g.ping = nil
	if rc != 0 || b == nil {
		n.rstats.RtrPingFail++
		g.pingFails++
		g.alive = false
		for _, lpni := range p.nis {
			lpni.status = NIStatusDown
		}
		for _, r := range g.routes {
			r.alive = false
		}
		return
	}
	n.processPingBuffer(p, b)
	p.discovered = true
	g.alive = true
	n.updateGatewayRoutes(p, b)
}

// updateGatewayRoutes updates a gateway's routes from its ping buffer. With discovery on
// (lnet_router_discovery_complete): every route is marked alive and single-hop if the
// gateway has an NI on the remote net (routeAlive then decides from the NIs' status). With
// discovery off (lnet_router_discovery_ping_reply): routing disabled on the gateway kills
// every route; otherwise a route is down if the gateway lacks an UP NI on the route's local
// net, and one of 1 hop or found single-hop with avoid_asym_router_failure is alive only if
// the gateway advertises an UP NI on the remote net.
func (n *Node) updateGatewayRoutes(p *Peer, b *PingBuffer) {
	g := p.gw
	g.rtrDisabled = b.RoutingDisabled
	for _, r := range g.routes {
		r.singleHop = false
		for _, pn := range p.nets {
			if pn.id == r.net {
				r.singleHop = true
			}
		}
		switch {
		case n.tun.Discovery:
			r.alive = true
		case g.rtrDisabled || !gwNetUp(p, r.gwNID.Net()):
			r.alive = false
		case (r.hops == 1 || r.singleHop) && n.tun.AvoidAsymRouterFailure:
			r.alive = gwNetUp(p, r.net)
		default:
			r.alive = true
		}
	}
}

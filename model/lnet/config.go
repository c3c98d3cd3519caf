package lnet

import (
	"errors"
	"fmt"
)

// Run-time configuration changes: what `lnetctl route/peer/net/set` ask of a running LNet.
// Each refusal carries the kernel's errno (ConfigError), so a run can record it as lnetctl
// would report it.

// Errnos of configuration refusals, besides those of msg.go.
const (
	EPERM  = 1
	ECHILD = 10 // lnet_peer_del_nid: the NI is another peer's
	EBUSY  = 16
	EEXIST = 17
	ENODEV = 19
	// ERANGE: an LND tunable out of range (the Netlink NI add's conns_per_peer above 127).
	ERANGE = 34
	// EALREADY: an equal UDSP policy exists (lnet_udsp_add_policy).
	EALREADY = 114
)

var errnoNames = map[int]string{
	EPERM: "EPERM", ECHILD: "ECHILD", ENOENT: "ENOENT", EIO: "EIO", EAGAIN: "EAGAIN", ENOMEM: "ENOMEM", EBUSY: "EBUSY",
	EEXIST: "EEXIST", ENODEV: "ENODEV", ERANGE: "ERANGE", EINVAL: "EINVAL", ENODATA: "ENODATA", EPROTO: "EPROTO",
	ENETDOWN: "ENETDOWN", ECONNABORTED: "ECONNABORTED", ESHUTDOWN: "ESHUTDOWN", ETIMEDOUT: "ETIMEDOUT",
	EHOSTUNREACH: "EHOSTUNREACH", EALREADY: "EALREADY", EUSERS: "EUSERS", 111: "ECONNREFUSED", ECANCELED: "ECANCELED",
}

// ErrnoName returns the symbolic name of a (positive or negative) errno, e.g. "ENOENT".
func ErrnoName(e int) string {
	if e < 0 {
		e = -e
	}
	if s, ok := errnoNames[e]; ok {
		return s
	}
	return fmt.Sprintf("errno %d", e)
}

// ConfigError is a configuration change the kernel refuses: its errno (positive) and why.
type ConfigError struct {
	Errno int
	Msg   string
}

func (e *ConfigError) Error() string { return e.Msg + " (" + ErrnoName(e.Errno) + ")" }

// ErrnoOf returns the errno a refusal carries: a ConfigError's, else EINVAL.
func ErrnoOf(err error) int {
	var ce *ConfigError
	if errors.As(err, &ce) {
		return ce.Errno
	}
	return EINVAL
}

func refuse(errno int, format string, args ...any) error {
	return &ConfigError{Errno: errno, Msg: fmt.Sprintf(format, args...)}
}

// ConfigRoute adds a route at run time as lnet_add_route judges it: EINVAL for a gateway on
// the route's own net, a loopback net or gateway, or hops outside 1..255 (but -1, undefined);
// EEXIST when the net is local; EHOSTUNREACH when no local NI is on the gateway's net; EEXIST
// for a route through a gateway the net already has. Otherwise AddRoute adds it. It differs
// from the kernel in refusing a gateway that is one of the node's own NIDs (EINVAL; the kernel
// makes a peer of it).
func (n *Node) ConfigRoute(net NetID, gw NID, hops, priority int) error {
	return n.ConfigRouteSensitivity(net, gw, hops, priority, 1)
}

// ConfigRouteSensitivity is ConfigRoute with the gateway's health sensitivity (`route add
// --health_sensitivity`, 2.15 and 2.16): below 1 it is EINVAL, as the Netlink route handler
// of 2.16 (lnet_route_cmd) refuses it before lnet_add_route; 2.15's liblnetconfig refuses
// it before the kernel (the scenario loader).
func (n *Node) ConfigRouteSensitivity(net NetID, gw NID, hops, priority, sensitivity int) error {
	switch {
	case sensitivity < 1:
		return refuse(EINVAL, "invalid health sensitivity, must be 1 or greater")
	case gw.Net() == net || net == LoNet || gw.Net() == LoNet || (hops != -1 && (hops < 1 || hops > 255)) || priority < 0:
		return refuse(EINVAL, "route to %s via %s: invalid", net, gw)
	case n.netByID(net) != nil:
		return refuse(EEXIST, "route to %s: the net is local", net)
	case n.netByID(gw.Net()) == nil:
		return refuse(EHOSTUNREACH, "route to %s: no local interface on %s, the gateway's net", net, gw.Net())
	case n.isLocalNID(gw):
		return refuse(EINVAL, "route to %s: gateway %s is a local NI", net, gw)
	}
	if err := n.AddRouteSensitivity(net, gw, hops, priority, sensitivity); err != nil {
		return refuse(EEXIST, "%v", err)
	}
	return nil
}

// DelRoute deletes the routes to net through gateway gw (lnet_del_route with both given, as
// lnetctl route del asks): gw names its peer, whose primary NID the routes are matched by.
// ENOENT when the node has no route to net; no route through gw is not an error. A gateway
// left with no route stops being a router: the router checker stops pinging it, and its next
// route starts its net walk afresh (lp_disc_net_id = 0). A remote net left with no route is
// forgotten.
func (n *Node) DelRoute(net NetID, gw NID) error {
	i := n.remoteNetIndex(net)
	if i < 0 {
		return refuse(ENOENT, "no route to %s", net)
	}
	prim := gw
	if lpni := n.findPeerNI(gw); lpni != nil {
		prim = lpni.peer.primary
	}
	rn := n.remoteNets[i]
	kept := rn.routes[:0]
	for _, r := range rn.routes {
		if r.gw.primary != prim {
			kept = append(kept, r)
			continue
		}
		n.dropGatewayRoute(r)
	}
	clear(rn.routes[len(kept):])
	rn.routes = kept
	if len(rn.routes) == 0 {
		n.remoteNets = append(n.remoteNets[:i], n.remoteNets[i+1:]...)
	}
	return nil
}

// remoteNetIndex returns the index of net's routes in n.remoteNets, or -1.
func (n *Node) remoteNetIndex(net NetID) int {
	for i, rn := range n.remoteNets {
		if rn.id == net {
			return i
		}
	}
	return -1
}

// dropGatewayRoute removes r from its gateway's routes for lnet_del_route
// (unlinkGatewayRoute): a gateway left with none is no longer a router, and its next route
// starts its net walk afresh (lp_disc_net_id = 0). Its gwState stays (n.gateways indexes its
// pings) but is skipped while it has no route.
func (n *Node) dropGatewayRoute(r *Route) {
	n.unlinkGatewayRoute(r)
	if g := r.gw.gw; len(g.routes) == 0 {
		g.discNet = 0
	}
}

// unlinkGatewayRoute takes r off its gateway's routes (lr_gwlist, lnet_rtr_decref_locked): a
// gateway left with none is no longer a router.
func (n *Node) unlinkGatewayRoute(r *Route) {
	p := r.gw
	g := p.gw
	g.routes = removePtr(g.routes, r)
	if len(g.routes) == 0 {
		p.isRouter = false
	}
}

// rtrRefcount is lp_rtr_refcount: the routes through p.
func (p *Peer) rtrRefcount() int {
	if p.gw == nil {
		return 0
	}
	return len(p.gw.routes)
}

// SetGlobal sets a global tunable at run time as `lnetctl set NAME VALUE` does, through the
// kernel's module-parameter setters: health_sensitivity (sensitivity_set: at most 1000; 0
// forces retry_count 0), transaction_timeout (transaction_to_set: above retry_count),
// retry_count (retry_count_set: 0 while health_sensitivity is 0, at most
// transaction_timeout), response_tracking (0..3), max_recovery_ping_interval (> 0),
// max_interfaces (below 16 becomes LNET_INTERFACES_MAX_DEFAULT, intf_max_set),
// router_sensitivity (rtr_sensitivity_set: at most 100), recovery_interval (under
// FixedRecoveryInterval, 2.12's recovery_interval_set: at least 1; from 2.15 deprecated by
// LU-13569: the setter warns, stores nothing and succeeds), recovery_limit, numa_range,
// drop_asym_route, discovery (SetDiscovery) and routing (SetRouting). Refusals are EINVAL.
func (n *Node) SetGlobal(name string, v int) error {
	t := n.tun
	switch name {
	case "health_sensitivity":
		if v > MaxHealth {
			return refuse(EINVAL, "health_sensitivity %d: at most %d", v, MaxHealth)
		}
		t.HealthSensitivity = v
	case "transaction_timeout":
		if v <= t.RetryCount || v == 0 {
			return refuse(EINVAL, "transaction_timeout %d: must be above retry_count %d", v, t.RetryCount)
		}
		t.TransactionTimeout = v
	case "retry_count":
		if t.HealthSensitivity == 0 && v > 0 {
			return refuse(EINVAL, "retry_count %d: health_sensitivity is 0", v)
		}
		if v > t.TransactionTimeout {
			return refuse(EINVAL, "retry_count %d: above transaction_timeout %d", v, t.TransactionTimeout)
		}
		t.RetryCount = v
	case "response_tracking":
		if v > 3 {
			return refuse(EINVAL, "response_tracking %d: 0 to 3", v)
		}
		t.ResponseTracking = v
	case "max_recovery_ping_interval":
		if v == 0 {
			return refuse(EINVAL, "max_recovery_ping_interval must be > 0")
		}
		t.MaxRecoveryPingInterval = v
	case "router_sensitivity":
		if v > 100 {
			return refuse(EINVAL, "router_sensitivity %d: 0 to 100", v)
		}
		t.RouterSensitivity = v
	case "recovery_interval":
		if !t.Profile.FixedRecoveryInterval {
			return nil // deprecated (LU-13569): the setter warns and stores nothing
		}
		if v < 1 {
			return refuse(EINVAL, "recovery_interval %d: at least 1 second", v)
		}
		t.RecoveryInterval = v
	case "max_interfaces":
		if v < 16 {
			v = t.Profile.MaxInterfacesDefault()
		}
		t.MaxInterfaces = v
	case "discovery":
		n.SetDiscovery(v != 0)
		return nil
	case "routing":
		n.SetRouting(v != 0)
		return nil
	case rtrBufferNames[0], rtrBufferNames[1], rtrBufferNames[2]:
		for i, b := range rtrBufferNames {
			if b == name {
				n.setRouterBuffers(i, v)
			}
		}
		return nil
	default:
		if p := globalInt(&t, name); p != nil {
			*p = v
		} else if name == "drop_asym_route" {
			t.DropAsymRoute = v != 0
		} else {
			return refuse(EINVAL, "%s cannot be set at run time", name)
		}
	}
	t.Normalize()
	n.tun = t
	n.routesChanged()
	return nil
}

// globalInt returns the plain integer tunables lnetctl set writes without a check
// (recovery_limit and numa_range: plain module parameters).
func globalInt(t *Tunables, name string) *int {
	switch name {
	case "recovery_limit":
		return &t.RecoveryLimit
	case "numa_range":
		return &t.NUMARange
	}
	return nil
}

// SetDiscovery turns peer discovery on or off at run time (discovery_set): the ping buffer's
// discovery feature bit changes in place; turning discovery off forces a push to every
// multi-rail peer (lnet_push_update_to_peers(1), before the flag changes), turning it on
// pushes nothing.
func (n *Node) SetDiscovery(on bool) {
	if n.tun.Discovery == on {
		return
	}
	n.tun.Discovery = on
	n.routesChanged()
	if !n.started {
		return
	}
	n.updatePingBuffer()
	if !on {
		n.pushUpdateToPeers(true)
	}
}

// ConfigNIHealth is `lnetctl net set --nid NID --health V` (or with all, every NI):
// lnet_ni_set_healthv, which returns nothing: a NID the node has no NI for changes nothing
// and the command succeeds.
func (n *Node) ConfigNIHealth(nid NID, all bool, v int) error {
	if all {
		for _, ni := range n.nis {
			_ = n.SetNIHealth(ni.nid, v)
		}
		return nil
	}
	_ = n.SetNIHealth(nid, v)
	return nil
}

// ConfigPeerNIHealth is `lnetctl peer set --nid NID --health V` (or with all, every peer
// NI): lnet_peer_ni_set_healthv, which returns nothing: a NID the node knows no peer NI for
// changes nothing and the command succeeds.
func (n *Node) ConfigPeerNIHealth(nid NID, all bool, v int) error {
	if all {
		for _, p := range n.peers {
			for _, lpni := range p.nis {
				_ = n.SetPeerHealth(lpni.nid, v)
			}
		}
		return nil
	}
	_ = n.SetPeerHealth(nid, v)
	return nil
}

// SetPeerState is `lnetctl peer set --nid NID --state S` (2.16+, for tests and debugging:
// the kernel's lnet_peer_ni_cmd, or IOC_LIBCFS_SET_PEER, stores S as the lp_state of the peer
// owning NID): ENOENT for a NID the node knows no peer for. The model keeps the peer's state
// as flags and sets those a user may: multi-rail, no discovery, router enabled, configured,
// discovered, rediscover, NIDs up to date, forced ping and push, locked primary and bad
// config. Deliberately, the bits of discovery in progress (DISCOVERING, DATA_PRESENT,
// PING_SENT, PUSH_SENT, PING_FAILED, PUSH_FAILED, RTR_DISCOVERY) and of deletion keep what the
// model's ping, push and discovery queue say, so that a run goes on consistently.
func (n *Node) SetPeerState(nid NID, state uint32) error {
	lpni := n.peerNIs.get(nid)
	if lpni == nil {
		return refuse(ENOENT, "no peer %s", nid)
	}
	p := lpni.peer
	on := func(bit uint32) bool { return state&bit != 0 }
	p.setMultiRail(on(peerStateMultiRail))
	p.noDiscovery, p.rtrEnabled, p.config = on(peerStateNoDiscovery), on(peerStateRouterEnabled), on(peerStateConfigured)
	p.discovered, p.rediscover, p.uptodate = on(peerStateDiscovered), on(peerStateRediscover), on(peerStateNIDsUptodate)
	p.forcePing, p.forcePush, p.badConfig = on(peerStateForcePing), on(peerStateForcePush), on(peerStateBadConfig)
	switch {
	case on(peerStateLockPrimary) && !p.lockPrim:
		n.lockPrimary(p)
	case !on(peerStateLockPrimary):
		p.lockPrim = false
	}
	return nil
}

// ConfigPeer is `lnetctl peer add --prim_nid P --nid N1,N2 [--non_mr] [--lock_prim]`
// (lnet_add_peer_ni with LNET_PEER_CONFIGURED, and LNET_PEER_LOCK_PRIMARY with lockPrim): a
// peer already configured with P as primary keeps it (its NIDs are added) unless its
// Multi-Rail state differs (EPERM); P a non-primary NID of a configured peer is EEXIST, as is
// a NID of another configured peer. A peer known from traffic becomes the configured one,
// which the kernel does by deleting it and adding it again (lnet_peer_add): a gateway's peer
// cannot be deleted, so that is EBUSY. A locked primary NID stays until a forced delete
// (DelPeer).
func (n *Node) ConfigPeer(prim NID, nids []NID, mr, lockPrim bool) error {
	if lpni := n.peerNIs.get(prim); lpni != nil && lpni.peer.config {
		p := lpni.peer
		switch {
		case p.primary != prim:
			return refuse(EEXIST, "%s is a NID of peer %s", prim, p.primary)
		case p.mr != mr:
			return refuse(EPERM, "peer %s: Multi-Rail state differs", prim)
		}
	} else if lpni != nil && lpni.peer.isRouter {
		return refuse(EBUSY, "%s is a router: its peer cannot be recreated as configured", prim)
	}
	for _, nid := range nids {
		if lpni := n.peerNIs.get(nid); lpni != nil && lpni.peer.primary != prim && lpni.peer.config {
			return refuse(EEXIST, "%s is a NID of peer %s", nid, lpni.peer.primary)
		}
	}
	p, err := n.AddPeer(prim, nids, !mr)
	if err != nil {
		return refuse(EEXIST, "%v", err)
	}
	if lockPrim {
		n.lockPrimary(p)
	}
	return nil
}

// DelPeer is `lnetctl peer del --prim_nid P [--nid N1,N2] [--force]` (lnet_del_peer_ni):
// ENOENT for an unknown P, ENODEV when P is not the peer's primary NID, EBUSY when the peer is
// a gateway of a route. Without NIDs (or with P among them) the whole peer goes, but a peer
// whose primary NID is locked (--lock_prim) only loses its other NIDs unless force
// (lnet_reset_peer); otherwise each NID goes (lnet_peer_del_nid: ENOENT unknown, ECHILD
// another peer's). A deleted peer NI leaves the recovery queue; messages already using it
// finish as they would.
func (n *Node) DelPeer(prim NID, nids []NID, force bool) error {
	lpni := n.peerNIs.get(prim)
	if lpni == nil {
		return refuse(ENOENT, "no peer %s", prim)
	}
	p := lpni.peer
	switch {
	case p.primary != prim:
		return refuse(ENODEV, "%s is not the primary NID of peer %s", prim, p.primary)
	case p.isRouter:
		return refuse(EBUSY, "%s is a router", prim)
	}
	if len(nids) == 0 || containsNID(nids, prim) {
		if p.lockPrim && !force {
			n.resetPeer(p)
			return nil
		}
		for _, x := range p.nis {
			n.dropPeerRecovery(x)
		}
		n.removePeer(p)
		return nil
	}
	for _, nid := range nids {
		x := n.peerNIs.get(nid)
		switch {
		case x == nil:
			return refuse(ENOENT, "no peer NI %s", nid)
		case x.peer != p:
			return refuse(ECHILD, "%s belongs to peer %s", nid, x.peer.primary)
		}
		n.detachPeerNI(x)
	}
	return nil
}

// resetPeer models lnet_reset_peer, a delete of a peer whose primary NID is locked: its
// discovery is cancelled (lnet_peer_cancel_discovery: the ping and push in flight are
// unlinked, which fails them), every NI but the primary's leaves it, and its NIDs are no
// longer up to date, so it is discovered again when next used.
func (n *Node) resetPeer(p *Peer) {
	ping, push := p.discPing, p.discPush // both handles are read before either unlinks
	if ping != nil {
		n.mdUnlink(ping, 0)
	}
	if push != nil {
		n.mdUnlink(push, 0)
	}
	for i := 0; i < len(p.nis); i++ {
		if x := p.nis[i]; x.nid != p.primary {
			n.dropPeerRecovery(x)
			n.detachPeerNI(x)
			i--
		}
	}
	p.uptodate = false
}

func containsNID(nids []NID, nid NID) bool {
	for _, x := range nids {
		if x == nid {
			return true
		}
	}
	return false
}

// detachPeerNI removes one NI from its peer (lnet_peer_detach_peer_ni_locked): from the
// peer's lists, its peer net's (a net left empty goes), the NID table and the recovery queue.
func (n *Node) detachPeerNI(lpni *PeerNI) {
	unlinkPeerNI(lpni)
	n.peerNIs.del(lpni.nid)
	n.routesChanged()
	n.dropPeerRecovery(lpni)
}

// dropPeerRecovery takes a peer NI off the recovery queue.
func (n *Node) dropPeerRecovery(lpni *PeerNI) {
	n.peerRecov = removePtr(n.peerRecov, lpni)
	lpni.inRecovery = false
}

func removePtr[T comparable](s []T, x T) []T {
	for i, y := range s {
		if y == x {
			return append(s[:i], s[i+1:]...)
		}
	}
	return s
}

// EUSERS: lnet_add_net_common refuses a net that is a remote net of a route.
const EUSERS = 87

// ConfigNI adds a local NI at run time (`lnetctl net add --net N --if IF`, lnet_dyn_add_ni):
// EUSERS when the node has routes to that net, EEXIST when the NI exists; otherwise its LND
// starts it (lnet_startup_lndni) and the node publishes a new ping buffer and pushes it to
// its peers (lnet_ping_target_update). Before Startup it is AddNI.
func (n *Node) ConfigNI(nid NID, lnd LND, tun NetTunables) error {
	switch {
	case n.remoteNetIndex(nid.Net()) >= 0:
		return refuse(EUSERS, "adding net %s would invalidate the routes to it", nid.Net())
	case n.niByNID.get(nid) != nil:
		return refuse(EEXIST, "NI %s exists", nid)
	case !n.started:
		_, err := n.AddNI(nid, lnd, tun)
		return err
	}
	ni, err := n.addNI(nid, lnd, tun)
	if err != nil {
		return refuse(EINVAL, "%v", err)
	}
	if err := lnd.Startup(ni); err != nil {
		n.detachNI(ni)
		return refuse(ENETDOWN, "%v", err)
	}
	ni.active = true
	ni.net.lastAlive = wholeSecond(n.k.Now())
	ni.lastAlive = ni.net.lastAlive
	n.newPingTarget()
	n.pushUpdateToPeers(false)
	return nil
}

// DelNI deletes local NIs at run time (`lnetctl net del --net N [--if IF]`,
// lnet_dyn_del_ni / lnet_dyn_del_net): the NI with NID nid, or with nid's address 0 every NI
// of the net. ENOENT when the net or NI does not exist. The LND shuts each down (its
// connections close, their messages fail), the NI leaves the node (and its net with its last
// NI) and the node pushes its new ping buffer. Messages still waiting for the NI's credits
// stay queued: the model does not drain them (the kernel waits for them before freeing the
// NI).
func (n *Node) DelNI(nid NID) error {
	nt := n.netByID(nid.Net())
	if nt == nil {
		return refuse(ENOENT, "no local net %s", nid.Net())
	}
	var gone []*NI
	for _, ni := range nt.nis {
		if nid.Addr() == 0 || ni.nid == nid {
			gone = append(gone, ni)
		}
	}
	if len(gone) == 0 {
		return refuse(ENOENT, "no local NI %s", nid)
	}
	for _, ni := range gone {
		nt.lnd.Shutdown(ni)
		n.detachNI(ni)
	}
	n.newPingTarget()
	n.pushUpdateToPeers(false)
	return nil
}

// detachNI removes an NI from the node's tables, and its net with its last NI.
func (n *Node) detachNI(ni *NI) {
	nt := ni.net
	nt.nis = removePtr(nt.nis, ni)
	n.nis = removePtr(n.nis, ni)
	n.niByNID.del(ni.nid)
	n.localRecov = removePtr(n.localRecov, ni)
	if len(nt.nis) == 0 {
		n.nets = removePtr(n.nets, nt)
		n.netIDs = n.netIDs[:0]
		for _, x := range n.nets {
			n.netIDs = append(n.netIDs, x.ID)
		}
	}
	n.routesChanged() // a local net gone changes the gateways' peer NIs findRoute may use
}

// SetDiscoveryHook installs f, called with a peer's primary NID and the result (0 or a
// negative errno) each time a discovery of it ends: what `lnetctl discover` waits for
// (lnet_discover).
func (n *Node) SetDiscoveryHook(f func(peer NID, rc int)) { n.discHook = f }

// PeerPrimaryOf returns the primary NID of the peer owning nid, creating the peer as a send
// or a discovery would (lnet_nid2peerni_locked).
func (n *Node) PeerPrimaryOf(nid NID) NID { return n.nid2peerni(nid).peer.primary }

// DiscoverNID starts the discovery of the peer of nid (lnet_discover; force: `discover
// --force`) and returns its primary NID, under which the hook reports the end.
func (n *Node) DiscoverNID(nid NID, force bool) NID {
	n.DiscoverPeer(nid, force)
	return n.nid2peerni(nid).peer.primary
}

// Global returns the value `lnetctl global show` prints for a tunable SetGlobal sets (0/1 for
// the booleans), and false for a name it does not know.
func (n *Node) Global(name string) (int, bool) {
	t := n.tun
	b := map[bool]int{true: 1}
	switch name {
	case "health_sensitivity":
		return t.HealthSensitivity, true
	case "transaction_timeout":
		return t.TransactionTimeout, true
	case "retry_count":
		return t.RetryCount, true
	case "response_tracking":
		return t.ResponseTracking, true
	case "max_recovery_ping_interval":
		return t.MaxRecoveryPingInterval, true
	case "max_interfaces":
		return t.MaxInterfaces, true
	case "discovery":
		return b[t.Discovery], true
	case "routing":
		return b[n.routing], true
	case "drop_asym_route":
		return b[t.DropAsymRoute], true
	case rtrBufferNames[0]:
		return t.TinyRouterBuffers, true
	case rtrBufferNames[1]:
		return t.SmallRouterBuffers, true
	case rtrBufferNames[2]:
		return t.LargeRouterBuffers, true
	}
	if p := globalInt(&t, name); p != nil {
		return *p, true
	}
	return 0, false
}

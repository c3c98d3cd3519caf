package lnet

import (
	"fmt"

	"github.com/lnetsim/lnetsim/sim"
)

// Notify is lnet_notify, an LND's (ni set) or the user's (ni nil) report of a peer NID's
// aliveness: alive or not, whether to reset its health (alive && reset sets it to 1000), and
// when that was last known. It is refused for a NID on another net than ni's or a time in
// the future, and ignored for an LND's "down" while auto_down is off, an unknown NID, or a
// report older than the last one (an LND's "down" counts from no earlier than the last time
// the peer NI was heard from, lpni_last_alive). For a gateway, reset sets lp_alive to alive,
// and while discovery is disabled for it the routes added through that NID follow alive,
// except that an LND's "down" from a local NI that is not the one selection would use on
// its net (lnet_local_ni_superseded) leaves them up: the gateway may still be reachable
// through the healthier NI. Old news (the status it already had from an earlier report)
// changes nothing more; otherwise the cached status follows, and a "down" is passed to the
// LND's NotifyPeerDown. It never decrements health. This is lnet_notify from 2.16
// (LU-17855); under NotifyByHealth the older one runs (notifyByHealth).
func (n *Node) Notify(ni *NI, nid NID, alive, reset bool, when sim.Time) error {
	if ni != nil && ni.net.ID != nid.Net() {
		return fmt.Errorf("lnet_notify: %s is not on net %s", nid, ni.net.ID)
	}
	if when > n.k.Now() {
		return fmt.Errorf("lnet_notify: %s reported alive at %v, in the future", nid, when)
	}
	if ni != nil && !alive && !n.tun.AutoDown {
		return nil
	}
	lpni := n.findPeerNI(nid)
	if lpni == nil {
		return nil
	}
	if n.tun.Profile.NotifyByHealth {
		n.notifyByHealth(ni, lpni, alive, reset)
		return nil
	}
	if ni != nil && !alive && when < lpni.lastAlive {
		when = lpni.lastAlive
	}
	if when < lpni.notifyStamp {
		return nil
	}
	lpni.notifyStamp = when
	if lpni.peer.gw != nil {
		n.notifyGateway(ni, lpni, alive, reset)
	}
	status := NIStatusDown
	if alive {
		status = NIStatusUp
	}
	if lpni.notified && lpni.status == status {
		return nil // old news
	}
	lpni.notified = true
	lpni.status = status
	n.routesChanged()
	if alive {
		if reset {
			n.setPeerHealth(lpni, MaxHealth, CauseNotify)
		}
		return nil
	}
	if ni != nil {
		ni.net.lnd.NotifyPeerDown(ni, nid)
	}
	return nil
}

// notifyGateway is lnet_notify's part for a gateway's peer NI: reset sets lp_alive; while
// discovery is disabled for the gateway, its routes through that NID follow alive, unless
// an LND's "down" comes from a superseded local NI (not under NotifyDownFromAnyNI: up to
// 2.17, LU-20379 is master only). Under RouterCheckerPing (2.12's lnet_notify_locked) every
// notification sets the gateway's aliveness and no route's cached state.
func (n *Node) notifyGateway(ni *NI, lpni *PeerNI, alive, reset bool) {
	gw := lpni.peer
	defer n.routesChanged()
	if reset || n.tun.Profile.RouterCheckerPing {
		gw.alive = alive
	}
	if n.tun.Profile.RouterCheckerPing || !n.discoveryDisabled(gw) ||
		!alive && ni != nil && !n.tun.Profile.NotifyDownFromAnyNI && localNISuperseded(ni) {
		return
	}
	for _, r := range gw.gw.routes {
		if r.gwNID == lpni.nid {
			r.alive = alive
		}
	}
}

// notifyByHealth is lnet_notify before LU-17855 (up to 2.15, NotifyByHealth): a report
// changes the peer NI's status only with reset (alive: UP and full health; down: DOWN); an
// alive report without reset raises its health by one increment, and an LND's plain "down"
// changes nothing by itself. The peer NI's aliveness is then judged afresh
// (lnet_is_peer_ni_alive: gwNIAlive) and drives the gateway's routes as notifyGateway does,
// and the LND is told of a peer NI found not alive. There is no ordering of reports by
// time, so none is old news.
func (n *Node) notifyByHealth(ni *NI, lpni *PeerNI, alive, reset bool) {
	switch {
	case alive && reset:
		lpni.status = NIStatusUp
		n.setPeerHealth(lpni, MaxHealth, CauseNotify)
	case alive:
		n.incPeerHealth(lpni, CauseNotify)
	case reset:
		lpni.status = NIStatusDown
	}
	n.routesChanged()
	alive = n.gwNIAlive(lpni)
	if lpni.peer.gw != nil {
		n.notifyGateway(ni, lpni, alive, reset)
	}
	if ni != nil && !alive {
		ni.net.lnd.NotifyPeerDown(ni, lpni.nid)
	}
}

// localNISuperseded models lnet_local_ni_superseded: another NI on ni's net is preferred by
// path selection (ni is fatal and the other is not, or both are in the same fatal state and
// the other is healthier).
func localNISuperseded(ni *NI) bool {
	for _, alt := range ni.net.nis {
		switch {
		case alt == ni:
		case ni.fatal && !alt.fatal:
			return true
		case alt.fatal == ni.fatal && alt.health > ni.health:
			return true
		}
	}
	return false
}
